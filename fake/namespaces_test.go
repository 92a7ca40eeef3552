package fake

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/platformkit/platformkit/fake/internal/core"

	"github.com/tidwall/gjson"
)

// nsScript is a sequence of requests that touches generated IDs, request IDs, the clock, the
// journal and faults: what a namespace must answer exactly as a new server does.
var nsScript = []struct{ method, path, body string }{
	{"GET", "/v1/models?limit=2", ""},
	{"POST", "/v1/memory_stores", `{"name":"notes"}`},
	{"POST", "/v1/messages", `{"model":"` + testModel + `","max_tokens":16,"messages":[{"role":"user","content":"hello"}]}`},
	{"GET", "/v1/nothing", ""},
	{"POST", "/_fake/clock/advance", `{"seconds":30}`},
	{"POST", "/_fake/faults", `{"path":"/v1/models","status":529}`},
	{"GET", "/v1/models", ""},
	{"POST", "/v1/memory_stores", `{"name":"later"}`},
	{"GET", "/_fake/journal", ""},
}

func TestNamespaceAnswersAsANewServer(t *testing.T) {
	headers := []string{"X-Api-Key", "test-api-key", "vendor-version", core.APIVersion, "Content-Type", "application/json"}
	answers := func(s *Server, prefix string, header ...string) []string {
		var out []string
		for _, rq := range nsScript {
			w := send(t, s, rq.method, prefix+rq.path, rq.body, append(headers, header...)...)
			out = append(out, fmt.Sprintf("%s %s: %d %s %s", rq.method, rq.path, w.Code, w.Header().Get("request-id"), w.Body))
		}
		return out
	}
	want := answers(checked(t), "")
	root := checked(t)
	for _, tc := range []struct {
		name   string
		got    []string
		server string
	}{
		{"path prefix", answers(root, "/ns/by-path"), "by-path"},
		{"header", answers(root, "", core.NamespaceHeader, "by-header"), "by-header"},
		{"both", answers(root, "/ns/by-both", core.NamespaceHeader, "by-both"), "by-both"},
	} {
		for i := range want {
			if tc.got[i] != want[i] {
				t.Errorf("%s: a namespace answered differently from a new server:\n got %s\nwant %s", tc.name, tc.got[i], want[i])
			}
		}
		ns, err := root.Namespace(tc.server)
		if err != nil {
			t.Fatal(err)
		}
		if got := len(ns.Journal()); got != 6 {
			t.Errorf("%s: the namespace's journal holds %d entries, want the 6 API requests", tc.name, got)
		}
	}
	if j := root.Journal(); len(j) != 0 {
		t.Errorf("the default server's journal holds %d entries of requests made in namespaces", len(j))
	}
	if !root.Now().Equal(core.Epoch()) {
		t.Errorf("the default server's clock moved to %v", root.Now())
	}
}

// TestNamespacesAreIsolated drives two namespaces at once, one through the path prefix and one
// through the header, and checks that neither sees the other's data, clock, journal or faults.
func TestNamespacesAreIsolated(t *testing.T) {
	ts := NewTestServer(t)
	const rounds = 20
	type world struct {
		name    string
		prefix  string
		header  []string
		seconds int
	}
	worlds := []world{
		{"alpha", "/ns/alpha", nil, 10},
		{"beta", "", []string{core.NamespaceHeader, "beta"}, 1},
	}
	var wg sync.WaitGroup
	for _, w := range worlds {
		wg.Go(func() {
			do := func(method, path string, body any) (int, []byte) {
				h := append([]string{"X-Api-Key", "test-api-key", "vendor-version", core.APIVersion}, w.header...)
				status, _, data, err := roundTrip(context.Background(), ts, method, w.prefix+path, body, h...)
				if err != nil {
					t.Error(err)
				}
				return status, data
			}
			// alpha's models fail for the whole run; beta's must not.
			if w.name == "alpha" {
				do("POST", "/_fake/faults", map[string]any{"path": "/v1/models", "status": 529, "times": 1000})
			}
			for i := range rounds {
				if st, body := do("POST", "/v1/memory_stores", map[string]any{"name": fmt.Sprintf("%s-%d", w.name, i)}); st != 200 {
					t.Errorf("%s: create store: %d %s", w.name, st, body)
				}
				do("POST", "/_fake/clock/advance", map[string]any{"seconds": w.seconds})
				st, _ := do("GET", "/v1/models", nil)
				if want := map[string]int{"alpha": 529, "beta": 200}[w.name]; st != want {
					t.Errorf("%s: GET /v1/models = %d, want %d", w.name, st, want)
				}
			}
			_, stores := do("GET", "/v1/memory_stores?limit=100", nil)
			for _, name := range gjson.GetBytes(stores, "data.#.name").Array() {
				if other := map[string]string{"alpha": "beta-", "beta": "alpha-"}[w.name]; strings.HasPrefix(name.String(), other) {
					t.Errorf("%s sees the store %s of another namespace", w.name, name)
				}
			}
			_, clk := do("GET", "/_fake/clock", nil)
			if got, want := gjson.GetBytes(clk, "now").Time(), core.Epoch().Add(time.Duration(rounds*w.seconds)*time.Second); !got.Equal(want) {
				t.Errorf("%s: clock = %v, want %v", w.name, got, want)
			}
			_, j := do("GET", "/_fake/journal", nil)
			if got := gjson.GetBytes(j, "data.#").Int(); got != 2*rounds+1 {
				t.Errorf("%s: journal holds %d entries, want its own %d", w.name, got, 2*rounds+1)
			}
		})
	}
	wg.Wait()
	if got := len(ts.Fake.Journal()); got != 0 {
		t.Errorf("the default server's journal holds %d entries", got)
	}
	if got := len(ts.Fake.Faults()); got != 0 {
		t.Errorf("the default server has %d faults", got)
	}
}

func TestNamespaceHeaderAndPrefixReachTheSameNamespace(t *testing.T) {
	s := checked(t)
	h := []string{"X-Api-Key", "test-api-key", "vendor-version", core.APIVersion, "Content-Type", "application/json"}
	w := send(t, s, "POST", "/ns/shared/v1/memory_stores", `{"name":"x"}`, h...)
	id := gjson.Get(w.Body.String(), "id").String()
	if w.Code != 200 || id == "" {
		t.Fatalf("create: %d %s", w.Code, w.Body)
	}
	if w := send(t, s, "GET", "/v1/memory_stores/"+id, "", append(h, core.NamespaceHeader, "shared")...); w.Code != 200 {
		t.Errorf("the header does not reach the store created under the prefix: %d %s", w.Code, w.Body)
	}
	if w := send(t, s, "GET", "/v1/memory_stores/"+id, "", h...); w.Code != 404 {
		t.Errorf("the default server sees a namespace's store: %d", w.Code)
	}
	ns, err := s.Namespace("shared")
	if err != nil {
		t.Fatal(err)
	}
	if got := len(ns.Journal()); got != 2 {
		t.Errorf("Namespace(\"shared\").Journal() holds %d entries, want 2", got)
	}
	wantError(t, send(t, s, "GET", "/ns/one/v1/models", "", append(h, core.NamespaceHeader, "two")...), 400, core.ErrInvalidRequest,
		`fake-namespace: the header names namespace "two" but the path is under /ns/one/`)
}

func TestNamespaceNames(t *testing.T) {
	s := checked(t)
	h := []string{"X-Api-Key", "test-api-key", "vendor-version", core.APIVersion}
	for _, tc := range []struct{ path, header, msg string }{
		{"/ns/a%20b/v1/models", "", "path: /ns/a%20b/ does not name a namespace"},
		{"/ns//v1/models", "", "path: /ns// does not name a namespace"},
		{"/ns/../v1/models", "", "does not name a namespace"},
		{"/ns/" + strings.Repeat("n", 65) + "/v1/models", "", "1 to 64 of the characters"},
		{"/ns/a%2Fb/v1/models", "", "path: /ns/a%2Fb/"},
		{"/v1/models", "a b", `fake-namespace: "a b" does not name a namespace: a namespace name is 1 to 64`},
		{"/v1/models", "ü", "fake-namespace"},
	} {
		w := send(t, s, "GET", tc.path, "", append(h, core.NamespaceHeader, tc.header)...)
		wantError(t, w, 400, core.ErrInvalidRequest, tc.msg)
	}
	if n := len(s.Namespaces()); n != 0 {
		t.Errorf("refused requests created %d namespaces", n)
	}
	if _, err := s.Namespace("no/slash"); err == nil || !strings.Contains(err.Error(), "A-Z a-z 0-9 . _ -") {
		t.Errorf("Namespace(\"no/slash\") = %v, want the grammar", err)
	}
	// The longest name, and every kind of character, is fine.
	for _, name := range []string{strings.Repeat("n", 64), "Test_1.case-2", "..."} {
		if w := send(t, s, "GET", "/ns/"+name+"/v1/models", "", h...); w.Code != 200 {
			t.Errorf("namespace %q: %d %s", name, w.Code, w.Body)
		}
	}
	// The prefix alone and unknown paths under it are the ordinary 404.
	wantError(t, send(t, s, "GET", "/ns/x", "", h...), 404, core.ErrNotFound, "no route")
	wantError(t, send(t, s, "GET", "/ns/x/v2/models", "", h...), 404, core.ErrNotFound, "/v2/models")
	// Namespaces do not nest: /ns/a/ns/b/... is a path of namespace a, which has none.
	wantError(t, send(t, s, "GET", "/ns/a/ns/b/v1/models", "", h...), 404, core.ErrNotFound, "/ns/b/v1/models")
}

func TestNamespaceEvictionIsLeastRecentlyUsed(t *testing.T) {
	s := New(WithMaxNamespaces(3), WithViolationHandler(func(msg string) { t.Errorf("fake: %s", msg) }))
	h := []string{"X-Api-Key", "test-api-key", "vendor-version", core.APIVersion, "Content-Type", "application/json"}
	for _, name := range []string{"a", "b", "c"} {
		send(t, s, "POST", "/ns/"+name+"/v1/memory_stores", `{"name":"kept"}`, h...)
	}
	send(t, s, "GET", "/v1/models", "", append(h, core.NamespaceHeader, "a")...) // a is now the most recent
	send(t, s, "GET", "/ns/d/v1/models", "", h...)                               // drops b, the least recent
	var names []string
	for _, ns := range s.Namespaces() {
		names = append(names, ns.Name)
	}
	if got, want := strings.Join(names, ","), "d,a,c"; got != want {
		t.Fatalf("namespaces = %s, want %s (most recently used first, b dropped)", got, want)
	}
	w := send(t, s, "GET", "/_fake/namespaces", "")
	if got := gjson.Get(w.Body.String(), "max").Int(); got != 3 {
		t.Errorf("GET /_fake/namespaces: max = %d, want 3: %s", got, w.Body)
	}
	if got := gjson.Get(w.Body.String(), "data.1.requests").Int(); got != 2 {
		t.Errorf("namespace a served %d requests, want 2: %s", got, w.Body)
	}
	// b comes back from the fixtures, without the store it had.
	w = send(t, s, "GET", "/ns/b/v1/memory_stores?limit=100", "", h...)
	for _, name := range gjson.Get(w.Body.String(), "data.#.name").Array() {
		if name.String() == "kept" {
			t.Errorf("namespace b kept its data through eviction")
		}
	}
	if n := len(s.Namespaces()); n != 3 {
		t.Errorf("%d namespaces, want the maximum 3", n)
	}
}

func TestNamespaceControlCalls(t *testing.T) {
	s := checked(t)
	h := []string{"X-Api-Key", "test-api-key", "vendor-version", core.APIVersion}
	send(t, s, "GET", "/ns/a/v1/models", "", h...)
	send(t, s, "GET", "/ns/b/v1/models", "", h...)
	send(t, s, "POST", "/_fake/clock/advance", `{"seconds":60}`)
	send(t, s, "POST", "/ns/a/_fake/clock/advance", `{"seconds":5}`)

	// The default server's reset leaves namespaces alone; a namespace's reset is its own.
	send(t, s, "POST", "/_fake/reset", "")
	a, _ := s.Namespace("a")
	if got := a.Now(); !got.Equal(core.Epoch().Add(5 * time.Second)) {
		t.Errorf("namespace a's clock = %v after the default server's reset", got)
	}
	send(t, s, "POST", "/ns/a/_fake/reset", "")
	if len(a.Journal()) != 0 || !a.Now().Equal(core.Epoch()) {
		t.Errorf("POST /ns/a/_fake/reset did not reset namespace a")
	}

	wantError(t, send(t, s, "GET", "/ns/a/_fake/namespaces", ""), 400, core.ErrInvalidRequest, "namespaces do not nest")
	wantError(t, send(t, s, "DELETE", "/_fake/namespaces/a%20b", ""), 400, core.ErrInvalidRequest, "1 to 64 of the characters")
	for _, tc := range []struct {
		path    string
		cleared int64
	}{
		{"/_fake/namespaces/a", 1},
		{"/_fake/namespaces/a", 0},
		{"/_fake/namespaces", 1},
		{"/_fake/namespaces", 0},
	} {
		w := send(t, s, "DELETE", tc.path, "")
		if got := gjson.Get(w.Body.String(), "cleared").Int(); w.Code != 200 || got != tc.cleared {
			t.Errorf("DELETE %s = %d %s, want cleared %d", tc.path, w.Code, w.Body, tc.cleared)
		}
	}
	if w := send(t, s, "GET", "/_fake/namespaces", ""); gjson.Get(w.Body.String(), "data.#").Int() != 0 {
		t.Errorf("namespaces left after DELETE /_fake/namespaces: %s", w.Body)
	}
	// A dropped namespace starts again from the fixtures.
	if a2, _ := s.Namespace("a"); a2 == a {
		t.Errorf("Namespace returned the deleted namespace")
	}
}

// BenchmarkNamespaceCreate measures the first request in a new namespace (GET /v1/models/{id}):
// creating the namespace, and dropping the least recently used once the maximum is reached.
func BenchmarkNamespaceCreate(b *testing.B) {
	s := New()
	req := func(i int) *http.Request {
		r := httptest.NewRequest(http.MethodGet, fmt.Sprintf("/ns/t%d/v1/models/assistant-opus-4-5", i), nil)
		r.Header.Set("X-Api-Key", "test-api-key")
		r.Header.Set("vendor-version", core.APIVersion)
		return r
	}
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		w := httptest.NewRecorder()
		s.ServeHTTP(w, req(i))
		if w.Code != http.StatusOK {
			b.Fatal(w.Code, w.Body)
		}
		i++
	}
}

// BenchmarkNamespaceRequest is BenchmarkGetModel through an existing namespace, by prefix and by
// header: what selecting a namespace adds to each request.
func BenchmarkNamespaceRequest(b *testing.B) {
	for _, tc := range []struct{ name, path, header string }{
		{"prefix", "/ns/steady/v1/models/assistant-opus-4-5", ""},
		{"header", "/v1/models/assistant-opus-4-5", "steady"},
	} {
		b.Run(tc.name, func(b *testing.B) {
			s := New()
			req := httptest.NewRequest(http.MethodGet, tc.path, nil)
			req.Header.Set("X-Api-Key", "test-api-key")
			req.Header.Set("vendor-version", core.APIVersion)
			if tc.header != "" {
				req.Header.Set(core.NamespaceHeader, tc.header)
			}
			benchServe(b, s, req)
		})
	}
}

// BenchmarkNamespacesAtTheBound fills a server past its maximum with namespaces that each touch
// every area (so each holds all of its state), and reports the live heap per namespace: what the
// default bound of 1,000 costs at most for data built from the fixtures.
func BenchmarkNamespacesAtTheBound(b *testing.B) {
	const max = 100
	touch := []struct{ path, key string }{
		{"/v1/models", "X-Api-Key"},
		{"/v1/memory_stores", "X-Api-Key"},
		{"/v1/environments", "X-Api-Key"},
		{"/v1/organizations/me", "X-Api-Key"},
		{"/v1/compliance/apps/projects", "Authorization"},
		{"/v1/organizations/tunnels", "Authorization"},
	}
	keys := map[string]string{
		"/v1/organizations/me": "test-admin-key", "/v1/compliance/apps/projects": "Bearer test-compliance-key",
		"/v1/organizations/tunnels": "Bearer test-bearer-token",
	}
	fill := func(s *Server, n int) {
		for i := range n {
			for _, tc := range touch {
				r := httptest.NewRequest(http.MethodGet, fmt.Sprintf("/ns/t%d%s", i, tc.path), nil)
				key := keys[tc.path]
				if key == "" {
					key = "test-api-key"
				}
				r.Header.Set(tc.key, key)
				r.Header.Set("vendor-version", core.APIVersion)
				r.Header.Set("vendor-beta", "mcp-tunnels-2026-05-19")
				w := httptest.NewRecorder()
				s.ServeHTTP(w, r)
				if w.Code != http.StatusOK {
					b.Fatal(tc.path, w.Code, w.Body)
				}
			}
		}
	}
	fill(New(), 1) // what the process builds once (parsed fixtures, the router) is not counted
	var perNS float64
	for b.Loop() {
		runtime.GC()
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		s := New(WithMaxNamespaces(max))
		fill(s, max+max/2)
		if n := len(s.Namespaces()); n != max {
			b.Fatalf("%d namespaces, want the bound %d", n, max)
		}
		runtime.GC()
		runtime.ReadMemStats(&after)
		perNS = float64(int64(after.HeapAlloc)-int64(before.HeapAlloc)) / max
		runtime.KeepAlive(s)
	}
	b.ReportMetric(perNS, "heap-B/namespace")
}
