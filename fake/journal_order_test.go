package fake

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/platformkit/platformkit/fake/internal/core"
)

// journalAtWrite is a client's connection that looks at the server's journal when the answer's
// first bytes reach it.
type journalAtWrite struct {
	*httptest.ResponseRecorder
	s    *Server
	seen []string // the request IDs the journal held then
}

func (w *journalAtWrite) Write(b []byte) (int, error) {
	if w.seen == nil {
		w.seen = []string{}
		for _, e := range w.s.Journal() {
			w.seen = append(w.seen, e.RequestID)
		}
	}
	return w.ResponseRecorder.Write(b)
}

// TestJournalHoldsARequestBeforeItsAnswer: a request is in the journal before any byte of its
// answer reaches the client. A client that reads the journal as soon as it has a large answer
// (past the connection's write buffer, which goes out before the handler returns) found the
// request missing now and then (TestNamespacesAreIsolated, once, under load).
func TestJournalHoldsARequestBeforeItsAnswer(t *testing.T) {
	s := New()
	for _, c := range []struct{ name, method, path, body string }{
		{"a list", http.MethodGet, "/v1/memory_stores?limit=100", ""},
		{"a message", http.MethodPost, "/v1/messages", `{"model":"assistant-opus-4-7","max_tokens":64,"messages":[{"role":"user","content":"Hi"}]}`},
		{"a stream", http.MethodPost, "/v1/messages", `{"model":"assistant-opus-4-7","max_tokens":64,"stream":true,"messages":[{"role":"user","content":"Hi"}]}`},
		{"an error", http.MethodGet, "/v1/memory_stores/memstore_nope", ""},
	} {
		req := httptest.NewRequest(c.method, c.path, strings.NewReader(c.body))
		req.Header.Set("X-Api-Key", core.DefaultAPIKey)
		req.Header.Set("Vendor-Version", core.APIVersion)
		if c.body != "" {
			req.Header.Set("Content-Type", "application/json")
		}
		w := &journalAtWrite{ResponseRecorder: httptest.NewRecorder(), s: s}
		s.ServeHTTP(w, req)
		id := w.Header().Get("Request-Id")
		if w.seen == nil || len(w.seen) == 0 || w.seen[len(w.seen)-1] != id {
			t.Errorf("%s: when its answer's first bytes went out the journal held %v, not yet %s", c.name, w.seen, id)
		}
	}
	if j := s.Journal(); len(j) != 4 || j[2].Status != http.StatusOK || j[3].Status != http.StatusNotFound || j[3].ErrorType != core.ErrNotFound {
		t.Errorf("journal after: %d entries, the stream's status %d, the error's %d %s", len(j), j[2].Status, j[3].Status, j[3].ErrorType)
	}
}
