package fake

import (
	"net/http"
	"net/http/httptest"
	"strconv"
	"testing"

	"github.com/platformkit/platformkit/fake/internal/core"
)

// TestAnswerHeadersOutliveTheExchange serves requests one after another (the server reuses
// what it serves a request with) and checks that each answer keeps the request-id it was
// answered with, distinct from the others', and the content-length of its own body, once later
// requests were served.
func TestAnswerHeadersOutliveTheExchange(t *testing.T) {
	s := New()
	paths := []string{"/v1/models/assistant-opus-4-5", "/v1/models?limit=1", "/v1/no-such-route"}
	var answers []*httptest.ResponseRecorder
	var ids []string
	for _, p := range paths {
		req := httptest.NewRequest(http.MethodGet, p, nil)
		req.Header.Set("X-Api-Key", core.DefaultAPIKey)
		req.Header.Set("Vendor-Version", core.APIVersion)
		w := httptest.NewRecorder()
		s.ServeHTTP(w, req)
		answers = append(answers, w)
		ids = append(ids, w.Header().Get("Request-Id"))
	}
	for i, w := range answers {
		if got := w.Header().Get("Request-Id"); got != ids[i] || (i > 0 && got == ids[i-1]) {
			t.Errorf("%s: request-id %q once later requests were served; it was answered with %q (the one before, %q)", paths[i], got, ids[i], ids[max(i-1, 0)])
		}
		if got, want := w.Header().Get("Content-Length"), strconv.Itoa(w.Body.Len()); got != want {
			t.Errorf("%s: content-length %s, the body has %s bytes", paths[i], got, want)
		}
	}
}
