package fake

import (
	"io"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"testing"

	"github.com/platformkit/platformkit/fake/internal/areas/files"
	"github.com/platformkit/platformkit/fake/internal/core"
)

// FuzzFilesUpload sends any body under any Content-Type to POST /v1/files: never a 5xx, a
// refusal is the envelope naming what it refuses, and a refused upload leaves the files and the
// ID counter as they were.
func FuzzFilesUpload(f *testing.F) {
	ok, okType := multipartBody(f, part{"file", "a.txt", "text/plain", []byte("hello")}, part{"expires_in_seconds", "", "", []byte("3600")})
	for _, seed := range []struct{ body, contentType string }{
		{ok, okType},
		{ok[:len(ok)/2], okType},
		{ok, "multipart/form-data"},
		{ok, "multipart/form-data; boundary=\"\""},
		{ok, "text/plain"},
		{"", okType},
		{`{"file":"x"}`, "application/json"},
		{strings.ReplaceAll(ok, `name="file"`, `name=""`), okType},
		{strings.ReplaceAll(ok, `name="file"`, `name="file\"; filename=\"../../etc/passwd`), okType},
		{strings.ReplaceAll(ok, `filename="a.txt"`, `filename*=UTF-8''%E2%82%AC.txt`), okType},
		{strings.ReplaceAll(ok, "text/plain", "text/plain; charset=\"unterminated"), okType},
		{strings.ReplaceAll(ok, "3600", "1e9"), okType},
		{strings.Repeat(ok[:strings.Index(ok, "hello")], 20), okType},
	} {
		f.Add(seed.body, seed.contentType)
	}
	lists := []fzRoute{{core.Get, "/v1/files?limit=1000", core.IfFiles}}
	f.Fuzz(func(t *testing.T, body, contentType string) {
		s := fuzzServer(t)
		before := fuzzState(s, lists)
		req := httptest.NewRequest(http.MethodPost, "/v1/files", strings.NewReader(body))
		req.Header.Set("Content-Type", contentType)
		// The key of the list fuzzState reads, so that a refused upload that stored a file
		// shows in it (the ID counter shows it too).
		h := headersFor(core.IfFiles)
		for i := 0; i+1 < len(h); i += 2 {
			req.Header.Set(h[i], h[i+1])
		}
		w := httptest.NewRecorder()
		s.ServeHTTP(w, req)
		fuzzCheck(t, "POST /v1/files", w)
		if w.Code >= 400 {
			if after := fuzzState(s, lists); after != before {
				t.Fatalf("a refused upload (%d %s) changed the state:\nbefore %.2000s\nafter  %.2000s", w.Code, w.Body, before, after)
			}
		}
	})
}

// endless is a body of lines that goes on far past any limit (64 MiB, then EOF, so that a fake
// without the limit fails the test rather than hanging it).
type endless struct{ n int64 }

func (e *endless) Read(p []byte) (int, error) {
	if e.n >= 64<<20 {
		return 0, io.EOF
	}
	for i := range p {
		p[i] = "x\r\n"[(e.n+int64(i))%3]
	}
	e.n += int64(len(p))
	return len(p), nil
}

// TestFilesUploadBodyIsBounded: an upload of no declared length that goes on (a file part that
// never ends, a preamble before the first boundary that never ends) is refused once it passes
// the limit, having read no more than the limit and a buffer, and allocated a bounded amount; a
// declared length over the limit is refused before a byte is read.
func TestFilesUploadBodyIsBounded(t *testing.T) {
	_, ct := multipartBody(t)
	boundary := strings.TrimPrefix(ct, "multipart/form-data; boundary=")
	head := "--" + boundary + "\r\nContent-Disposition: form-data; name=\"file\"; filename=\"x.bin\"\r\n\r\n"
	for _, c := range []struct {
		name   string
		body   func(*endless) io.Reader
		status int
	}{
		{"a file part without end", func(e *endless) io.Reader { return io.MultiReader(strings.NewReader(head), e) }, http.StatusRequestEntityTooLarge},
		{"a preamble without end", func(e *endless) io.Reader { return e }, http.StatusRequestEntityTooLarge},
	} {
		s := filesServer(t)
		e := &endless{}
		req := httptest.NewRequest(http.MethodPost, "/v1/files", c.body(e))
		req.ContentLength = -1
		req.Header.Set("Content-Type", ct)
		for i := 0; i+1 < len(apiHeaders); i += 2 {
			req.Header.Set(apiHeaders[i], apiHeaders[i+1])
		}
		var m0, m1 runtime.MemStats
		runtime.ReadMemStats(&m0)
		w := httptest.NewRecorder()
		s.ServeHTTP(w, req)
		runtime.ReadMemStats(&m1)
		t.Logf("%s: %d, read %d bytes, allocated %d", c.name, w.Code, e.n, m1.TotalAlloc-m0.TotalAlloc)
		if w.Code != c.status {
			t.Errorf("%s: %d %s, want %d", c.name, w.Code, w.Body, c.status)
		}
		if limit := int64(files.UploadBodyLimit) + 1<<20; e.n > limit {
			t.Errorf("%s: read %d bytes of the body, want at most %d", c.name, e.n, limit)
		}
		// The race detector allocates beside every allocation: the bound holds without it (make
		// resources runs this test so).
		if alloc := m1.TotalAlloc - m0.TotalAlloc; !raceDetector && alloc > 4*files.UploadBodyLimit {
			t.Errorf("%s: the refusal allocated %d bytes, want at most %d", c.name, alloc, 4*files.UploadBodyLimit)
		}
	}

	s := filesServer(t)
	e := &endless{}
	req := httptest.NewRequest(http.MethodPost, "/v1/files", e)
	req.ContentLength = files.UploadBodyLimit + 1
	req.Header.Set("Content-Type", ct)
	for i := 0; i+1 < len(apiHeaders); i += 2 {
		req.Header.Set(apiHeaders[i], apiHeaders[i+1])
	}
	w := httptest.NewRecorder()
	s.ServeHTTP(w, req)
	if w.Code != http.StatusRequestEntityTooLarge || e.n != 0 {
		t.Errorf("a declared length over the limit: %d %s after reading %d bytes, want 413 before any", w.Code, w.Body, e.n)
	}
}
