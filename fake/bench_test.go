package fake

import (
	"net/http"
	"net/http/httptest"
	"testing"
)

// BenchmarkNew measures a new server over the default fixtures: what every test pays.
func BenchmarkNew(b *testing.B) {
	if _, err := DefaultFixtures(); err != nil { // parsed once per process, not per server
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		New()
	}
}

// BenchmarkGetModel measures GET /v1/models/{id} through the handler: routing, credentials,
// headers and JSON encoding.
func BenchmarkGetModel(b *testing.B) {
	benchAPIGet(b, "/v1/models/assistant-opus-4-5")
}

// BenchmarkGetMemoryStore measures GET /v1/memory_stores/{id}: the same stack as
// BenchmarkGetModel, over a record that can change (encoded on its first read after a change).
func BenchmarkGetMemoryStore(b *testing.B) {
	benchAPIGet(b, "/v1/memory_stores/memstore_01AcmeResearchNotes00001")
}

// benchAPIGet measures GET path with the default API key through a new server's handler.
func benchAPIGet(b *testing.B, path string) {
	req := httptest.NewRequest(http.MethodGet, path, nil)
	req.Header.Set("X-Api-Key", "test-api-key")
	req.Header.Set("vendor-version", APIVersion)
	benchServe(b, New(), req)
}

// benchServe serves req to s in the benchmark's loop and fails it unless s answers 200.
func benchServe(b *testing.B, s *Server, req *http.Request) {
	b.ReportAllocs()
	for b.Loop() {
		w := httptest.NewRecorder()
		s.ServeHTTP(w, req)
		if w.Code != http.StatusOK {
			b.Fatal(w.Code)
		}
	}
}

// BenchmarkHealth is the baseline for handler benchmarks: the same stack with no work behind it.
func BenchmarkHealth(b *testing.B) {
	s := New()
	req := httptest.NewRequest(http.MethodGet, "/_fake/health", nil)
	b.ReportAllocs()
	for b.Loop() {
		s.ServeHTTP(httptest.NewRecorder(), req)
	}
}
