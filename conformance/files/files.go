package files

import (
	"bytes"
	"fmt"
	"mime/multipart"
	"net/http"
	"net/textproto"
	"net/url"
	"slices"
	"strings"

	. "github.com/onsi/gomega"

	"github.com/platformkit/platformkit/conformance/kit"
)

// The files API (gaps §12). Every check uploads the files it reads, and deletes them afterwards,
// so that a deployment's own files are never read or changed.

// legacyBeta is the beta value that selects the beta-era list shape.
const legacyBeta = "files-api-2025-04-14"

// form builds a multipart/form-data body of one file part (skipped when filename is "-") and the
// extra fields, with its Content-Type.
func form(filename, contentType string, data []byte, fields map[string]string) ([]byte, string) {
	var b bytes.Buffer
	w := multipart.NewWriter(&b)
	for k, v := range fields {
		w.WriteField(k, v)
	}
	if filename != "-" {
		h := textproto.MIMEHeader{}
		h.Set("Content-Disposition", fmt.Sprintf(`form-data; name="file"; filename=%q`, filename))
		h.Set("Content-Type", contentType)
		pw, _ := w.CreatePart(h)
		pw.Write(data)
	}
	w.Close()
	return b.Bytes(), w.FormDataContentType()
}

// uploadReq is the upload of one file.
func uploadReq(filename, contentType string, data []byte) kit.Request {
	body, ct := form(filename, contentType, data, nil)
	return kit.Request{Area: kit.Files, Method: http.MethodPost, Path: "/v1/files", Body: body,
		Header: http.Header{"Content-Type": {ct}}, Schema: "files/file"}
}

// Upload puts a small file on the target for one check, registers its deletion, and returns the
// answer (the file's metadata); a target without the files API makes the check unsupported.
func Upload(t *kit.T, filename, contentType, data string) *kit.Response {
	resp := t.Do(uploadReq(filename, contentType, []byte(data)))
	t.UnsupportedIfAbsent(resp, "the target does not take uploads (POST /v1/files answered %d)", resp.Status)
	t.ExpectWithOffset(1, resp.Status).To(Equal(http.StatusOK), "the upload is answered 200: %s", resp)
	id := resp.Get("id").String()
	t.Cleanup("delete file "+id, t.Delete(kit.Request{Area: kit.Files, Method: http.MethodDelete, Path: "/v1/files/" + id}))
	return resp
}

func getReq(id, rest string) kit.Request {
	schema := "files/file"
	if rest != "" {
		schema = ""
	}
	return kit.Request{Area: kit.Files, Path: "/v1/files/" + id + rest, Schema: schema, Header: http.Header{"Accept": {"application/binary"}}}
}

func listReq(q url.Values, header http.Header) kit.Request {
	return kit.Request{Area: kit.Files, Path: "/v1/files", Query: q, Header: header, Schema: "files/file_list"}
}

// fileDocument is a document block whose source names a file by its ID.
func fileDocument(id string) map[string]any {
	return map[string]any{"type": "document", "source": map[string]any{"type": "file", "file_id": id}}
}

// messagesReq is a short Messages request of one user turn: the block (when not nil), then a
// question.
func messagesReq(model string, block map[string]any) kit.Request {
	content := []any{map[string]any{"type": "text", "text": "What does it say?"}}
	if block != nil {
		content = append([]any{block}, content...)
	}
	body := map[string]any{"model": model, "max_tokens": 16, "messages": []any{map[string]any{"role": "user", "content": content}}}
	return kit.Request{Area: kit.Messages, Method: http.MethodPost, Path: "/v1/messages", Body: body, Schema: "messages/message"}
}

// ids are the IDs of a list answer's data, in order.
func ids(resp *kit.Response) []string {
	var out []string
	for _, v := range resp.Get("data.#.id").Array() {
		out = append(out, v.String())
	}
	return out
}

func init() {
	kit.Register(kit.InterfaceChecks(kit.Files, "/v1/files", "files/file_list")...)
	kit.Register(fileChecks()...)
	kit.Register(codeExecutionChecks()...)
}

func fileChecks() []kit.Check {
	ext := []kit.Label{kit.Files, kit.Extension}
	return []kit.Check{
		{ID: "files/upload-read-back", Clause: "gaps §12", Labels: ext,
			Title: "an uploaded file answers its metadata (file_ ID, the final component of its filename, its type and size, not downloadable) and reads back the same",
			Run: func(t *kit.T) {
				up := Upload(t, "conformance/dir/hello.txt", "text/plain", "hello, files")
				t.Expect(up.Get("id").String()).To(HavePrefix("file_"), "%s", up)
				t.Expect(up.Get("type").String()).To(Equal("file"), "%s", up)
				t.Expect(up.Get("filename").String()).To(Equal("hello.txt"), "the filename keeps only its final path component: %s", up)
				t.Expect(up.Get("mime_type").String()).To(Equal("text/plain"), "%s", up)
				t.Expect(up.Get("size_bytes").Int()).To(Equal(int64(12)), "%s", up)
				t.Expect(up.Get("downloadable").Bool()).To(BeFalse(), "an uploaded file is not downloadable: %s", up)
				got := t.OK(getReq(up.Get("id").String(), ""))
				t.Expect(got.Get("@this").Raw).To(MatchJSON(up.Get("@this").Raw), "the metadata reads back as the upload answered it")
			},
			Bug: &kit.Bug{Says: "the filename keeps the path the client sent", Want: "final path component",
				Break: kit.InRouteOKAnswers(http.MethodPost, `^/v1/files$`, func(_ *http.Request, m map[string]any) {
					m["filename"] = "conformance/dir/" + fmt.Sprint(m["filename"])
				})}},
		{ID: "files/uploaded-not-downloadable", Clause: "gaps §12", Labels: ext,
			Title: "the content of an uploaded file is refused with 400 and error_code file_not_downloadable",
			Run: func(t *kit.T) {
				up := Upload(t, "secret.txt", "text/plain", "not for download")
				resp := t.Do(getReq(up.Get("id").String(), "/content"))
				t.ExpectError(resp, http.StatusBadRequest, "invalid_request_error")
				t.Expect(resp.Get("error.details.error_code").String()).To(Equal("file_not_downloadable"), "%s", resp)
			},
			Bug: &kit.Bug{Says: "uploaded files are served back", Want: "400",
				Break: servesUploads}},
		{ID: "files/upload-needs-file-part", Clause: "gaps §12", Labels: ext,
			Title: "an upload without a part named file is a 400 naming file, and stores nothing",
			Run: func(t *kit.T) {
				before := t.OK(listReq(url.Values{"limit": {"1000"}}, nil))
				body, ct := form("-", "", nil, map[string]string{"note": "no file here"})
				resp := t.Do(kit.Request{Area: kit.Files, Method: http.MethodPost, Path: "/v1/files", Body: body, Header: http.Header{"Content-Type": {ct}}})
				t.ExpectError(resp, http.StatusBadRequest, "invalid_request_error")
				t.Expect(resp.Get("error.message").String()).To(ContainSubstring("file"), "the refusal names the part it needs: %s", resp)
				after := t.OK(listReq(url.Values{"limit": {"1000"}}, nil))
				t.Expect(ids(after)).To(Equal(ids(before)), "a refused upload stores nothing")
			},
			Bug: &kit.Bug{Says: "an upload without a file part stores an empty file", Want: "stores nothing",
				Break: storesEmptyUploads}},
		{ID: "files/delete-is-final", Clause: "gaps §12", Labels: ext,
			Title: "a deleted file answers {id, type: file_deleted}, then 404 to its metadata, its content and a second delete",
			Run: func(t *kit.T) {
				id := Upload(t, "gone.txt", "text/plain", "soon gone").Get("id").String()
				del := t.OK(kit.Request{Area: kit.Files, Method: http.MethodDelete, Path: "/v1/files/" + id, Schema: "files/file_deleted"})
				t.Expect(del.Get("id").String()).To(Equal(id), "%s", del)
				t.Expect(del.Get("type").String()).To(Equal("file_deleted"), "%s", del)
				t.ExpectError(t.Do(getReq(id, "")), http.StatusNotFound, "not_found_error")
				t.ExpectError(t.Do(getReq(id, "/content")), http.StatusNotFound, "not_found_error")
				t.ExpectError(t.Do(kit.Request{Area: kit.Files, Method: http.MethodDelete, Path: "/v1/files/" + id}), http.StatusNotFound, "not_found_error")
			},
			Bug: &kit.Bug{Says: "a delete is answered but the file stays", Want: "404",
				Break: keepsDeleted}},
		{ID: "files/list-newest-first", Clause: "gaps §12", Labels: ext,
			Title: "the list is newest first: of two files uploaded one after the other, the later is listed first",
			Run: func(t *kit.T) {
				older := Upload(t, "older.txt", "text/plain", "1").Get("id").String()
				newer := Upload(t, "newer.txt", "text/plain", "2").Get("id").String()
				page := t.OK(listReq(url.Values{"limit": {"2"}}, nil))
				t.Expect(ids(page)).To(Equal([]string{newer, older}), "the newest file is listed first: %s", page)
			},
			Bug: &kit.Bug{Says: "the list is oldest first", Want: "newest file is listed first",
				Break: kit.InRouteOKAnswers(http.MethodGet, `^/v1/files$`, func(_ *http.Request, m map[string]any) {
					if data, ok := m["data"].([]any); ok {
						slices.Reverse(data)
					}
				})}},
		{ID: "files/list-ids", Clause: "gaps §12", Labels: ext,
			Title: "ids[] lists only the named files that exist, each once, in one page with next_page null",
			Run: func(t *kit.T) {
				a := Upload(t, "a.txt", "text/plain", "a").Get("id").String()
				Upload(t, "b.txt", "text/plain", "b")
				page := t.OK(listReq(url.Values{"ids[]": {a, "file_conformance_unknown", a}}, nil))
				t.Expect(ids(page)).To(Equal([]string{a}), "only the named file, once: %s", page)
				t.Expect(page.Get("next_page").Type.String()).To(Equal("Null"), "%s", page)
			},
			Bug: &kit.Bug{Says: "ids[] is ignored", Want: "only the named file",
				Break: kit.IgnoresQuery(kit.On(http.MethodGet, `^/v1/files$`), "ids[]")}},
		{ID: "files/messages-unknown-file-id", Clause: "gaps §12", Labels: ext,
			Title: "a Messages request whose document names an unknown file_id is refused with 404 naming the block's source.file_id",
			Run: func(t *kit.T) {
				model, _ := t.Model()
				resp := t.Do(messagesReq(model, fileDocument("file_conformance_unknown")))
				t.ExpectError(resp, http.StatusNotFound, "not_found_error")
				t.Expect(resp.Get("error.message").String()).To(ContainSubstring("messages.0.content.0.source.file_id"), "the refusal names the file_id's place: %s", resp)
			},
			Bug: &kit.Bug{Says: "a file source is not looked up (it reads as an empty document)", Want: "404",
				Break: kit.InRouteRequests(http.MethodPost, `^/v1/messages$`, inlinesFileSources)}},
		{ID: "files/messages-file-id", Clause: "gaps §12", Labels: ext,
			Title: "a Messages request whose document names an uploaded plain-text file by file_id is answered, and reads the file (more input tokens than the request without it)",
			Run: func(t *kit.T) {
				model, _ := t.Model()
				id := Upload(t, "notes.txt", "text/plain", strings.Repeat("The quarterly report says revenue grew by four percent. ", 20)).Get("id").String()
				with := t.OK(messagesReq(model, fileDocument(id)))
				without := t.OK(messagesReq(model, nil))
				t.Expect(with.Get("usage.input_tokens").Int()).To(BeNumerically(">", without.Get("usage.input_tokens").Int()+100),
					"the file's content counts as input: with it %s, without it %s", with.Get("usage"), without.Get("usage"))
			},
			Bug: &kit.Bug{Says: "a file source is counted as the reference, not as the file's content", Want: "the file's content counts as input",
				Break: kit.InRouteRequests(http.MethodPost, `^/v1/messages$`, inlinesFileSources)}},
		{ID: "files/legacy-list-shape", Clause: "gaps §12", Labels: ext,
			Title: "with vendor-beta files-api-2025-04-14 the list is the beta-era cursor page {data, first_id, last_id, has_more}",
			Run: func(t *kit.T) {
				id := Upload(t, "legacy.txt", "text/plain", "l").Get("id").String()
				page := t.OK(listReq(url.Values{"limit": {"1"}}, http.Header{"vendor-beta": {legacyBeta}}))
				t.Expect(page.Get("first_id").String()).To(Equal(id), "the newest file opens the cursor page: %s", page)
				t.Expect(page.Get("has_more").Exists()).To(BeTrue(), "a cursor page has has_more: %s", page)
			},
			Bug: &kit.Bug{Says: "the legacy beta value is ignored", Want: "newest file opens the cursor page",
				Break: dropsBetas}},
	}
}
