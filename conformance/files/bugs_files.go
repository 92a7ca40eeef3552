package files

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"regexp"

	"github.com/platformkit/platformkit/conformance/kit"
)

// Defects of the files API, for the bug declarations of its checks.

var (
	contentRoute = regexp.MustCompile(`^/v1/files/([^/]+)/content$`)
	fileRoute    = regexp.MustCompile(`^/v1/files/([^/]+)$`)
)

// servesUploads is the bug of a target that serves the content of every file, uploads included.
func servesUploads(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet || !contentRoute.MatchString(r.URL.Path) {
			h.ServeHTTP(w, r)
			return
		}
		w.Header().Set("Content-Type", "text/plain")
		w.Write([]byte("not for download"))
	})
}

// storesEmptyUploads is the bug of a target that refuses an upload without a file part and
// stores a file for it all the same.
func storesEmptyUploads(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost || r.URL.Path != "/v1/files" {
			h.ServeHTTP(w, r)
			return
		}
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, r)
		if rec.Code == http.StatusBadRequest {
			body, ct := form("empty.txt", "text/plain", []byte(" "), nil)
			stored := uploadReqOf(r, body, ct)
			h.ServeHTTP(httptest.NewRecorder(), stored)
		}
		kit.CopyAnswer(w, rec)
	})
}

// uploadReqOf is r, an upload, sent again with another body.
func uploadReqOf(r *http.Request, body []byte, ct string) *http.Request {
	again := httptest.NewRequest(http.MethodPost, r.URL.String(), bytes.NewReader(body))
	again.Header = r.Header.Clone()
	again.Header.Set("Content-Type", ct)
	again.ContentLength = int64(len(body))
	return again
}

// keepsDeleted is the bug of a target that answers a delete without deleting the file.
func keepsDeleted(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		m := fileRoute.FindStringSubmatch(r.URL.Path)
		if r.Method != http.MethodDelete || m == nil {
			h.ServeHTTP(w, r)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("request-id", "req_bug")
		w.Write([]byte(`{"id":"` + m[1] + `","type":"file_deleted"}`))
	})
}

// dropsBetas is the bug of a target that ignores the beta values of a file list.
func dropsBetas(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodGet && r.URL.Path == "/v1/files" {
			r.Header.Del("Vendor-Beta")
			r.Header.Del("Anthropic-Beta")
		}
		h.ServeHTTP(w, r)
	})
}

// inlinesFileSources is the bug of a target that does not look a document's file source up: it
// reads it as an empty plain-text document, so that an unknown file is answered and a known
// one adds nothing to the input.
func inlinesFileSources(_ *http.Request, body map[string]any) {
	msgs, _ := body["messages"].([]any)
	for _, m := range msgs {
		content, _ := m.(map[string]any)["content"].([]any)
		for _, b := range content {
			b, _ := b.(map[string]any)
			if src, _ := b["source"].(map[string]any); src != nil && src["type"] == "file" {
				b["source"] = map[string]any{"type": "text", "media_type": "text/plain", "data": ""}
			}
		}
	}
}
