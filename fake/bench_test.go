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
	s := New()
	req := httptest.NewRequest(http.MethodGet, "/v1/models/assistant-opus-4-5", nil)
	req.Header.Set("X-Api-Key", "test-api-key")
	req.Header.Set("vendor-version", APIVersion)
	b.ReportAllocs()
	for b.Loop() {
		w := httptest.NewRecorder()
		s.ServeHTTP(w, req)
		if w.Code != http.StatusOK {
			b.Fatal(w.Code)
		}
	}
}

// BenchmarkGetMemoryStore measures GET /v1/memory_stores/{id}: the same stack as
// BenchmarkGetModel, over a record that can change, so it is encoded per request.
func BenchmarkGetMemoryStore(b *testing.B) {
	s := New()
	req := httptest.NewRequest(http.MethodGet, "/v1/memory_stores/memstore_01AcmeResearchNotes00001", nil)
	req.Header.Set("X-Api-Key", "test-api-key")
	req.Header.Set("vendor-version", APIVersion)
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
