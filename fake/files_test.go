package fake

import (
	"bytes"
	"fmt"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"net/textproto"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tidwall/gjson"

	"github.com/platformkit/platformkit/fake/internal/areas/files"
	"github.com/platformkit/platformkit/fake/internal/core"
)

// The expected values of these tests come from the official SDKs' file types (Python 2.14.0
// FileMetadata, DeletedFile, FileListParams, FileUploadParams and the typed errors
// FileNotDownloadableError, FileExpiredError, StorageQuotaExceededError) and from the
// platform's documentation of the Files API, not from the fake's code.

// part is one part of a multipart upload.
type part struct {
	name, filename, contentType string
	data                        []byte
}

// multipartBody builds a multipart/form-data body of the parts, and its Content-Type.
func multipartBody(t testing.TB, parts ...part) (string, string) {
	t.Helper()
	var b bytes.Buffer
	w := multipart.NewWriter(&b)
	for _, p := range parts {
		h := textproto.MIMEHeader{}
		cd := fmt.Sprintf(`form-data; name=%q`, p.name)
		if p.filename != "" {
			cd += fmt.Sprintf(`; filename=%q`, p.filename)
		}
		h.Set("Content-Disposition", cd)
		if p.contentType != "" {
			h.Set("Content-Type", p.contentType)
		}
		pw, err := w.CreatePart(h)
		if err != nil {
			t.Fatal(err)
		}
		pw.Write(p.data)
	}
	w.Close()
	return b.String(), w.FormDataContentType()
}

// filesServer is a server whose violations (an answer outside its schema, a panic) fail t.
func filesServer(t testing.TB) *Server {
	return New(WithViolationHandler(func(msg string) { t.Errorf("fake: %s", msg) }))
}

// filesKey is the key these tests upload with: the second organization's, which the fixtures
// give no file, so that its lists start empty and its quotas are whole.
const filesKey = core.DefaultAPIKey + core.SecondOrganizationSuffix

var apiHeaders = []string{"X-Api-Key", filesKey, "anthropic-version", core.APIVersion20261021}

// upload sends an upload of the parts with the default key (and extra headers).
func upload(t testing.TB, s http.Handler, parts []part, header ...string) *httptest.ResponseRecorder {
	t.Helper()
	body, ct := multipartBody(t, parts...)
	return send(t, s, http.MethodPost, "/v1/files", body, append(append([]string{"Content-Type", ct}, apiHeaders...), header...)...)
}

// uploadOK uploads one file and answers its ID.
func uploadOK(t testing.TB, s http.Handler, filename, contentType, data string) string {
	t.Helper()
	w := upload(t, s, []part{{"file", filename, contentType, []byte(data)}})
	if w.Code != http.StatusOK {
		t.Fatalf("upload %s: %d %s", filename, w.Code, w.Body)
	}
	return gjson.Get(w.Body.String(), "id").String()
}

func get(t testing.TB, s http.Handler, path string, header ...string) *httptest.ResponseRecorder {
	t.Helper()
	return send(t, s, http.MethodGet, path, "", append(append([]string{}, apiHeaders...), header...)...)
}

// wantError checks an error answer: status, error type, error_code (or none) and the start of
// the message (the field it names).
func wantFileError(t *testing.T, w *httptest.ResponseRecorder, status int, typ, code, prefix string) {
	t.Helper()
	body := w.Body.String()
	if w.Code != status || gjson.Get(body, "error.type").String() != typ || gjson.Get(body, "error.details.error_code").String() != code ||
		!strings.HasPrefix(gjson.Get(body, "error.message").String(), prefix) {
		t.Errorf("got %d %s\nwant %d %s error_code %q, message starting %q", w.Code, body, status, typ, code, prefix)
	}
}

func TestFilesUploadAnswersTheMetadata(t *testing.T) {
	s := filesServer(t)
	w := upload(t, s, []part{{"file", "reports/2026/q1.txt", "text/plain", []byte("hello, files")}})
	if w.Code != http.StatusOK {
		t.Fatalf("upload: %d %s", w.Code, w.Body)
	}
	b := w.Body.String()
	for path, want := range map[string]string{
		"type": "file", "filename": "q1.txt", "mime_type": "text/plain", "size_bytes": "12",
		"downloadable": "false", "created_at": "2026-01-01T00:00:00Z", "expires_at": "", "scope": "",
	} {
		if got := gjson.Get(b, path).String(); got != want {
			t.Errorf("%s = %q, want %q in %s", path, got, want, b)
		}
	}
	if id := gjson.Get(b, "id").String(); !strings.HasPrefix(id, "file_") {
		t.Errorf("id = %q, want file_...", id)
	}
	if g := get(t, s, "/v1/files/"+gjson.Get(b, "id").String()); g.Body.String() != b {
		t.Errorf("metadata = %s, want the upload's answer %s", g.Body, b)
	}
}

func TestFilesFilenameIsTheFinalComponentOrUnnamed(t *testing.T) {
	s := filesServer(t)
	for _, c := range []struct{ filename, contentType, data, want, wantType string }{
		{`C:\Users\me\notes.txt`, "text/plain", "x", "notes.txt", "text/plain"},
		{"", "", "%PDF-1.7\n", "unnamed.pdf", "application/pdf"},
		{"", "application/octet-stream", "\x89PNG\r\n\x1a\n0000", "unnamed.png", "image/png"},
		{"a/b/", "image/webp", "RIFF", "unnamed.webp", "image/webp"},
	} {
		w := upload(t, s, []part{{"file", c.filename, c.contentType, []byte(c.data)}})
		if got, typ := gjson.Get(w.Body.String(), "filename").String(), gjson.Get(w.Body.String(), "mime_type").String(); got != c.want || typ != c.wantType {
			t.Errorf("filename %q: got %q %q, want %q %q (%s)", c.filename, got, typ, c.want, c.wantType, w.Body)
		}
	}
}

func TestFilesUploadRefusalsNameThePlace(t *testing.T) {
	s := filesServer(t)
	json := send(t, s, http.MethodPost, "/v1/files", `{"file":"x"}`, append([]string{"Content-Type", "application/json"}, apiHeaders...)...)
	wantFileError(t, json, 400, core.ErrInvalidRequest, "", "Content-Type: must be multipart/form-data")
	wantFileError(t, upload(t, s, []part{{"purpose", "", "", []byte("x")}}), 400, core.ErrInvalidRequest, "", "purpose: unknown field")
	noFile, ct := multipartBody(t)
	wantFileError(t, send(t, s, http.MethodPost, "/v1/files", noFile, append([]string{"Content-Type", ct}, apiHeaders...)...), 400, core.ErrInvalidRequest, "", "file: field required")
	wantFileError(t, upload(t, s, []part{{"file", "empty.txt", "text/plain", nil}}), 400, core.ErrInvalidRequest, "", "file: the part is empty")
	wantFileError(t, upload(t, s, []part{{"file", "a.txt", "text/plain", []byte("a")}, {"file", "b.txt", "text/plain", []byte("b")}}), 400, core.ErrInvalidRequest, "", "file: sent twice")
	for _, v := range []string{"3599", "7776001", "soon", ""} {
		wantFileError(t, upload(t, s, []part{{"file", "a.txt", "text/plain", []byte("a")}, {"expires_in_seconds", "", "", []byte(v)}}), 400, core.ErrInvalidRequest, "", "expires_in_seconds: must be an integer from 3600 to 7776000")
	}
	cut, ct := multipartBody(t, part{"file", "a.txt", "text/plain", []byte("abc")})
	wantFileError(t, send(t, s, http.MethodPost, "/v1/files", cut[:len(cut)-10], append([]string{"Content-Type", ct}, apiHeaders...)...), 400, core.ErrInvalidRequest, "", "the request body: it ends before")
	wantFileError(t, upload(t, s, []part{{"file", "big.bin", "", bytes.Repeat([]byte("x"), files.MaxFileBytes+1)}}), 413, core.ErrRequestTooLarge, "", "file: the file is over 4194304 bytes")
	if n := s.srv.IDs.N.Load(); n != 0 {
		t.Errorf("the refused uploads took %d IDs, want none", n)
	}
	if w := get(t, s, "/v1/files"); w.Body.String() != "{\"data\":[],\"next_page\":null}\n" {
		t.Errorf("after refused uploads the list is %s, want it empty", w.Body)
	}
}

// TestFilesDownloadOnlyWhatTheFakeMade: an uploaded file is 400 file_not_downloadable; a file
// another area made with files.Create is served with its type.
func TestFilesDownloadOnlyWhatTheFakeMade(t *testing.T) {
	s := filesServer(t)
	id := uploadOK(t, s, "in.csv", "text/csv", "a,b\n1,2\n")
	wantFileError(t, get(t, s, "/v1/files/"+id+"/content", "Accept", "application/binary"), 400, core.ErrInvalidRequest, files.CodeNotDownloadable, "file: ")

	cred := s.srv.State().Fx.Creds[filesKey]
	made, err := files.Create(s.srv, s.srv.State(), cred, files.Spec{Filename: "out/plot.png", MimeType: "image/png", Content: []byte("\x89PNG-bytes")})
	if err != nil {
		t.Fatal(err)
	}
	w := get(t, s, "/v1/files/"+made.ID+"/content", "Accept", "application/binary")
	if w.Code != 200 || w.Body.String() != "\x89PNG-bytes" || w.Header().Get("Content-Type") != "image/png" {
		t.Errorf("download of a made file: %d %q %q", w.Code, w.Header().Get("Content-Type"), w.Body)
	}
	if m := get(t, s, "/v1/files/"+made.ID).Body.String(); gjson.Get(m, "downloadable").String() != "true" || gjson.Get(m, "filename").String() != "plot.png" {
		t.Errorf("metadata of a made file: %s", m)
	}
}

func TestFilesExpire(t *testing.T) {
	s := filesServer(t)
	w := upload(t, s, []part{{"file", "a.txt", "text/plain", []byte("soon gone")}, {"expires_in_seconds", "", "", []byte("3600")}})
	id := gjson.Get(w.Body.String(), "id").String()
	if got := gjson.Get(w.Body.String(), "expires_at").String(); got != "2026-01-01T01:00:00Z" {
		t.Fatalf("expires_at = %q, want the upload time plus 3600 s: %s", got, w.Body)
	}
	cred := s.srv.State().Fx.Creds[filesKey]
	s.AdvanceClock(3599 * time.Second)
	if _, err := files.Lookup(s.srv, s.srv.State(), cred, id); err != nil {
		t.Errorf("a second before expiry: %v", err)
	}
	s.AdvanceClock(time.Second)
	if g := get(t, s, "/v1/files/"+id); g.Code != 200 {
		t.Errorf("metadata of an expired file: %d %s, want 200", g.Code, g.Body)
	}
	wantFileError(t, get(t, s, "/v1/files/"+id+"/content"), 404, core.ErrNotFound, files.CodeExpired, "file ")
	_, err := files.Lookup(s.srv, s.srv.State(), cred, id)
	if ae, ok := err.(*core.APIError); !ok || ae.Typ != core.ErrNotFound || !strings.Contains(ae.Message, "expired") {
		t.Errorf("Lookup of an expired file: %v, want not_found_error file_expired", err)
	}
}

func TestFilesListPagesNewestFirst(t *testing.T) {
	s := filesServer(t)
	if w := get(t, s, "/v1/files"); w.Body.String() != "{\"data\":[],\"next_page\":null}\n" {
		t.Fatalf("empty list = %s", w.Body)
	}
	var ids []string
	for i := range 3 {
		ids = append(ids, uploadOK(t, s, fmt.Sprintf("f%d.txt", i), "text/plain", "x"))
	}
	p1 := get(t, s, "/v1/files?limit=2").Body.String()
	if got := gjson.Get(p1, "data.#.id").String(); got != fmt.Sprintf(`[%q,%q]`, ids[2], ids[1]) {
		t.Errorf("page 1 = %s, want the two newest", got)
	}
	next := gjson.Get(p1, "next_page").String()
	p2 := get(t, s, "/v1/files?limit=2&page="+next).Body.String()
	if got := gjson.Get(p2, "data.#.id").String(); got != fmt.Sprintf(`[%q]`, ids[0]) || gjson.Get(p2, "next_page").Type != gjson.Null {
		t.Errorf("page 2 = %s, want the oldest and no next page", p2)
	}
	wantFileError(t, get(t, s, "/v1/files?limit=1001"), 400, core.ErrInvalidRequest, "", "limit: ")
	wantFileError(t, get(t, s, "/v1/files?page=page_forged"), 400, core.ErrInvalidRequest, "", "page: ")
}

func TestFilesListByIDs(t *testing.T) {
	s := filesServer(t)
	a, b := uploadOK(t, s, "a.txt", "text/plain", "a"), uploadOK(t, s, "b.txt", "text/plain", "b")
	gone := uploadOK(t, s, "c.txt", "text/plain", "c")
	send(t, s, http.MethodDelete, "/v1/files/"+gone, "", apiHeaders...)
	w := get(t, s, "/v1/files?ids[]="+a+"&ids[]=file_unknown&ids[]="+gone+"&ids[]="+a+"&ids[]="+b)
	if got := gjson.Get(w.Body.String(), "data.#.id").String(); got != fmt.Sprintf(`[%q,%q]`, b, a) || gjson.Get(w.Body.String(), "next_page").Type != gjson.Null {
		t.Errorf("ids[] = %s, want the two live files, once each, and no next page", w.Body)
	}
	wantFileError(t, get(t, s, "/v1/files?ids[]="+a+"&limit=5"), 400, core.ErrInvalidRequest, "", "ids: cannot be combined")
	many := make([]string, 101)
	for i := range many {
		many[i] = fmt.Sprintf("ids[]=file_%d", i)
	}
	wantFileError(t, get(t, s, "/v1/files?"+strings.Join(many, "&")), 400, core.ErrInvalidRequest, "", "ids: at most 100 IDs")
	if w := get(t, s, "/v1/files?"+strings.Join(many[:100], "&")+"&ids[]=file_0"); w.Code != 200 {
		t.Errorf("100 IDs and a duplicate: %d %s, want 200", w.Code, w.Body)
	}
}

// TestFilesLegacyListShape: with files-api-2025-04-14 the list is a cursor page, as the
// beta-era SDKs read it.
func TestFilesLegacyListShape(t *testing.T) {
	s := filesServer(t)
	beta := []string{"anthropic-beta", files.LegacyBeta}
	if w := get(t, s, "/v1/files", beta...); w.Body.String() != "{\"data\":[],\"first_id\":null,\"has_more\":false,\"last_id\":null}\n" {
		t.Errorf("empty legacy list = %s", w.Body)
	}
	a, b, c := uploadOK(t, s, "a.txt", "text/plain", "a"), uploadOK(t, s, "b.txt", "text/plain", "b"), uploadOK(t, s, "c.txt", "text/plain", "c")
	p1 := get(t, s, "/v1/files?limit=2", beta...).Body.String()
	if gjson.Get(p1, "first_id").String() != c || gjson.Get(p1, "last_id").String() != b || !gjson.Get(p1, "has_more").Bool() {
		t.Errorf("legacy page 1 = %s, want %s..%s and more", p1, c, b)
	}
	p2 := get(t, s, "/v1/files?limit=2&after_id="+b, beta...).Body.String()
	if gjson.Get(p2, "data.#.id").String() != fmt.Sprintf(`[%q]`, a) || gjson.Get(p2, "has_more").Bool() {
		t.Errorf("legacy page 2 = %s, want %s alone", p2, a)
	}
}

func TestFilesDeleteIsFinal(t *testing.T) {
	s := filesServer(t)
	id := uploadOK(t, s, "a.txt", "text/plain", "a")
	w := send(t, s, http.MethodDelete, "/v1/files/"+id, "", apiHeaders...)
	if w.Code != 200 || w.Body.String() != fmt.Sprintf("{\"id\":%q,\"type\":\"file_deleted\"}\n", id) {
		t.Errorf("delete = %d %s", w.Code, w.Body)
	}
	wantFileError(t, get(t, s, "/v1/files/"+id), 404, core.ErrNotFound, "", "file ")
	wantFileError(t, get(t, s, "/v1/files/"+id+"/content"), 404, core.ErrNotFound, "", "file ")
	wantFileError(t, send(t, s, http.MethodDelete, "/v1/files/"+id, "", apiHeaders...), 404, core.ErrNotFound, "", "file ")
	if _, err := files.Lookup(s.srv, s.srv.State(), s.srv.State().Fx.Creds[filesKey], id); err == nil {
		t.Error("Lookup found a deleted file")
	}
}

// TestFilesAreTheirWorkspacesAndOrganizations: another organization's or workspace's file is a
// 404 like an unknown ID; a workspace header that is not the key's is a 400 naming it.
func TestFilesAreTheirWorkspacesAndOrganizations(t *testing.T) {
	s := filesServer(t)
	id := uploadOK(t, s, "a.txt", "text/plain", "a")
	for _, key := range []string{"test-api-key", "test-api-key-research"} {
		wantFileError(t, send(t, s, http.MethodGet, "/v1/files/"+id, "", "X-Api-Key", key, "anthropic-version", core.APIVersion), 404, core.ErrNotFound, "", "file ")
		if w := send(t, s, http.MethodGet, "/v1/files", "", "X-Api-Key", key, "anthropic-version", core.APIVersion); strings.Contains(w.Body.String(), id) {
			t.Errorf("%s lists %s", key, w.Body)
		}
	}
	wantFileError(t, get(t, s, "/v1/files", "anthropic-workspace-id", "wrkspc_01AcmeResearch0000000001"), 400, core.ErrInvalidRequest, "", "anthropic-workspace-id: ")
	// The same organization's other workspace: the research key's file is not the default key's.
	body, ct := multipartBody(t, part{"file", "r.txt", "text/plain", []byte("r")})
	rid := gjson.Get(send(t, s, http.MethodPost, "/v1/files", body, "Content-Type", ct, "X-Api-Key", "test-api-key-research", "anthropic-version", core.APIVersion).Body.String(), "id").String()
	wantFileError(t, send(t, s, http.MethodGet, "/v1/files/"+rid, "", "X-Api-Key", "test-api-key", "anthropic-version", core.APIVersion), 404, core.ErrNotFound, "", "file ")
	w := send(t, s, http.MethodGet, "/v1/files", "", "X-Api-Key", "test-api-key-research", "anthropic-version", core.APIVersion, "anthropic-workspace-id", "wrkspc_01AcmeResearch0000000001")
	if w.Code != 200 || gjson.Get(w.Body.String(), "data.#.id").String() != fmt.Sprintf("[%q]", rid) {
		t.Errorf("the research key with its own workspace: %d %s", w.Code, w.Body)
	}
}

// TestFilesQuotas: the organization's bytes and count, per server or namespace; a delete gives
// the room back.
func TestFilesQuotas(t *testing.T) {
	s := filesServer(t)
	big := strings.Repeat("x", files.MaxFileBytes)
	var first string
	for i := range files.MaxOrgBytes / files.MaxFileBytes {
		id := uploadOK(t, s, fmt.Sprintf("big%d.bin", i), "application/zip", big)
		if i == 0 {
			first = id
		}
	}
	before := s.srv.IDs.N.Load()
	wantFileError(t, upload(t, s, []part{{"file", "one.txt", "text/plain", []byte("x")}}), 400, core.ErrInvalidRequest, files.CodeQuotaExceeded, "file: the organization's files hold")
	if s.srv.IDs.N.Load() != before {
		t.Error("a refused upload took an ID")
	}
	// Another organization and another namespace have quotas of their own.
	body, ct := multipartBody(t, part{"file", "o.txt", "text/plain", []byte("o")})
	if w := send(t, s, http.MethodPost, "/v1/files", body, "Content-Type", ct, "X-Api-Key", "test-api-key", "anthropic-version", core.APIVersion); w.Code != 200 {
		t.Errorf("another organization: %d %s", w.Code, w.Body)
	}
	if w := upload(t, s, []part{{"file", "n.txt", "text/plain", []byte("n")}}, core.NamespaceHeader, "other"); w.Code != 200 {
		t.Errorf("another namespace: %d %s", w.Code, w.Body)
	}
	send(t, s, http.MethodDelete, "/v1/files/"+first, "", apiHeaders...)
	uploadOK(t, s, "after-delete.txt", "text/plain", "x")
}

func TestFilesCountQuota(t *testing.T) {
	s := filesServer(t)
	for i := range files.MaxOrgFiles {
		uploadOK(t, s, "f.txt", "text/plain", "x")
		_ = i
	}
	wantFileError(t, upload(t, s, []part{{"file", "f.txt", "text/plain", []byte("x")}}), 400, core.ErrInvalidRequest, files.CodeQuotaExceeded, "file: the organization keeps 1000 files")
}

// TestFilesLookupSource: the check Messages applies to a block's file_id.
func TestFilesLookupSource(t *testing.T) {
	s := filesServer(t)
	png := uploadOK(t, s, "a.png", "image/png", "\x89PNG")
	pdf := uploadOK(t, s, "a.pdf", "application/pdf", "%PDF-")
	cred := s.srv.State().Fx.Creds[filesKey]
	path := "messages.0.content.1.source.file_id"
	if _, err := files.LookupSource(s.srv, s.srv.State(), cred, files.DocumentBlock, path, pdf); err != nil {
		t.Errorf("a PDF as a document: %v", err)
	}
	if _, err := files.LookupSource(s.srv, s.srv.State(), cred, files.ContainerUploadBlock, path, png); err != nil {
		t.Errorf("a PNG as a container upload: %v", err)
	}
	_, err := files.LookupSource(s.srv, s.srv.State(), cred, files.DocumentBlock, path, png)
	if ae, ok := err.(*core.APIError); !ok || ae.Typ != core.ErrInvalidRequest || !strings.HasPrefix(ae.Message, path+": ") {
		t.Errorf("a PNG as a document: %v, want a 400 naming %s", err, path)
	}
	_, err = files.LookupSource(s.srv, s.srv.State(), cred, files.ImageBlock, path, "file_nope")
	if ae, ok := err.(*core.APIError); !ok || ae.Typ != core.ErrNotFound || !strings.HasPrefix(ae.Message, path+": file ") {
		t.Errorf("an unknown file: %v, want not_found_error naming %s", err, path)
	}
}

// TestFilesSnapshotAndReset: a snapshot keeps every file with its content; a reset forgets them.
func TestFilesSnapshotAndReset(t *testing.T) {
	s := filesServer(t)
	up := uploadOK(t, s, "a.txt", "text/plain", "uploaded")
	cred := s.srv.State().Fx.Creds[filesKey]
	made, err := files.Create(s.srv, s.srv.State(), cred, files.Spec{Filename: "out.txt", MimeType: "text/plain", Content: []byte("made"), Scope: &files.Scope{Type: "session", ID: "sesn_1"}})
	if err != nil {
		t.Fatal(err)
	}
	list := get(t, s, "/v1/files").Body.String()
	snap, err := s.Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	t2 := filesServer(t)
	if err := t2.LoadSnapshot(snap); err != nil {
		t.Fatal(err)
	}
	if got := get(t, t2, "/v1/files").Body.String(); got != list {
		t.Errorf("after loading the snapshot the list is\n%s\nwant\n%s", got, list)
	}
	if w := get(t, t2, "/v1/files/"+made.ID+"/content"); w.Body.String() != "made" {
		t.Errorf("content after the snapshot: %d %s", w.Code, w.Body)
	}
	if w := get(t, t2, "/v1/files?scope_id=sesn_1"); gjson.Get(w.Body.String(), "data.#.id").String() != fmt.Sprintf("[%q]", made.ID) {
		t.Errorf("scope_id after the snapshot: %s", w.Body)
	}
	if id := uploadOK(t, t2, "b.txt", "text/plain", "b"); id == up || id == made.ID {
		t.Errorf("the loaded server gave a used ID again: %s", id)
	}
	s.Reset()
	if w := get(t, s, "/v1/files"); w.Body.String() != "{\"data\":[],\"next_page\":null}\n" {
		t.Errorf("after a reset the list is %s", w.Body)
	}
}

// TestFilesConcurrentUse: uploads, lists, downloads and deletes in parallel, in two namespaces,
// with snapshots and clock moves between them, keep every file's answers whole (run with -race).
func TestFilesConcurrentUse(t *testing.T) {
	s := filesServer(t)
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ns := []string{core.NamespaceHeader, fmt.Sprintf("ns%d", g%2)}
			for i := range 20 {
				w := upload(t, s, []part{{"file", "f.txt", "text/plain", []byte("x")}, {"expires_in_seconds", "", "", []byte("3600")}}, ns...)
				if w.Code != http.StatusOK {
					t.Errorf("upload: %d %s", w.Code, w.Body)
					return
				}
				id := gjson.Get(w.Body.String(), "id").String()
				get(t, s, "/v1/files?limit=5", ns...)
				if i%2 == 0 {
					send(t, s, http.MethodDelete, "/v1/files/"+id, "", append(append([]string{}, apiHeaders...), ns...)...)
				}
			}
		}()
	}
	wg.Add(1)
	go func() {
		defer wg.Done()
		for range 10 {
			s.AdvanceClock(10 * time.Minute)
			if _, err := s.Snapshot(); err != nil {
				t.Error(err)
			}
		}
	}()
	wg.Wait()
	for _, ns := range []string{"ns0", "ns1"} {
		w := get(t, s, "/v1/files?limit=1000", core.NamespaceHeader, ns)
		if n := gjson.Get(w.Body.String(), "data.#").Int(); n != 40 {
			t.Errorf("%s keeps %d files, want the 40 not deleted: %s", ns, n, w.Body)
		}
	}
}

// TestFilesFixtureFileIsDownloadable: the default data set's file (a code execution output of the
// first organization) lists and downloads, so that a client in any language has a downloadable
// file to test against.
func TestFilesFixtureFileIsDownloadable(t *testing.T) {
	s := filesServer(t)
	acme := []string{"X-Api-Key", core.DefaultAPIKey, "anthropic-version", core.APIVersion}
	list := send(t, s, http.MethodGet, "/v1/files", "", acme...).Body.String()
	if got := gjson.Get(list, "data.#.filename").String(); got != `["usage.csv"]` {
		t.Fatalf("the first organization's files: %s", list)
	}
	id := gjson.Get(list, "data.0.id").String()
	w := send(t, s, http.MethodGet, "/v1/files/"+id+"/content", "", acme...)
	if w.Code != 200 || w.Body.String() != "month,requests\n2025-11,1200\n2025-12,1350\n" || w.Header().Get("Content-Type") != "text/csv" {
		t.Errorf("download: %d %q %q", w.Code, w.Header().Get("Content-Type"), w.Body)
	}
	if got := gjson.Get(list, "data.0.size_bytes").Int(); got != int64(w.Body.Len()) {
		t.Errorf("size_bytes %d, content %d bytes", got, w.Body.Len())
	}
}
