package fake

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/platformkit/platformkit/fake/internal/core"
)

// BenchmarkNew measures a new server over the default fixtures: what every test pays.
func BenchmarkNew(b *testing.B) {
	if _, err := core.DefaultFixtures(); err != nil { // parsed once per process, not per server
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
	req.Header.Set("vendor-version", core.APIVersion)
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

// BenchmarkCreateMemoryStore measures POST /v1/memory_stores, the load test's create: the body
// read, checked against its schema and decoded, the record made and encoded, the journal entry.
func BenchmarkCreateMemoryStore(b *testing.B) {
	s := New()
	body := []byte(`{"name":"load"}`)
	b.ReportAllocs()
	for b.Loop() {
		req := httptest.NewRequest(http.MethodPost, "/v1/memory_stores", bytes.NewReader(body))
		req.Header.Set("X-Api-Key", "test-api-key")
		req.Header.Set("vendor-version", core.APIVersion)
		req.Header.Set("Content-Type", "application/json")
		w := httptest.NewRecorder()
		s.ServeHTTP(w, req)
		if w.Code != http.StatusOK {
			b.Fatal(w.Code, w.Body)
		}
	}
}

// The load test's rows (fake/internal/loadtest) that no other benchmark measures, with its
// requests: a page of 20 of each list over the default fixtures, and a user read.

func BenchmarkListModels(b *testing.B) { benchAPIGet(b, "/v1/models?limit=20") }

func BenchmarkListMemoryStores(b *testing.B) { benchAPIGet(b, "/v1/memory_stores?limit=20") }

func BenchmarkListEnvironments(b *testing.B) { benchAPIGet(b, "/v1/environments?limit=20") }

func BenchmarkGetUser(b *testing.B) {
	benchRequest(b, "/v1/organizations/users/user_01AcmeGraceDeveloper00001", "X-Api-Key", "test-admin-key")
}

// BenchmarkListComplianceChats is the load test's compliance page: 20 of Grace's 260 chats.
func BenchmarkListComplianceChats(b *testing.B) {
	benchRequest(b, "/v1/compliance/apps/chats?limit=20&user_ids=user_01AcmeGraceDeveloper00001", "Authorization", "Bearer test-compliance-key")
}

// benchRequest measures GET path with the header's credential through a new server's handler.
func benchRequest(b *testing.B, path, name, value string) {
	req := httptest.NewRequest(http.MethodGet, path, nil)
	req.Header.Set(name, value)
	req.Header.Set("vendor-version", core.APIVersion)
	benchServe(b, New(), req)
}
