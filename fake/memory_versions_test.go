package fake

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/platformkit/platformkit/fake/internal/areas/memory"

	"github.com/platformkit/platformkit/fake/internal/core"

	"github.com/tidwall/gjson"
)

func TestMemoryVersionsFixtures(t *testing.T) {
	m := newMemTester(t)
	all := m.ok(core.Get, "/v1/memory_stores/"+memSupportStore+"/memory_versions?limit=100", nil).Get("data").Array()
	if len(all) != 14 {
		t.Fatalf("support store has %d versions, want 14", len(all))
	}
	// Newest first; two versions share 2025-03-02T10:00:00Z and the higher ID comes first.
	for i := 1; i < len(all); i++ {
		a, b := all[i-1], all[i]
		at, bt := a.Get("created_at").Time(), b.Get("created_at").Time()
		if at.Before(bt) || (at.Equal(bt) && a.Get("id").String() < b.Get("id").String()) {
			t.Fatalf("%s listed before %s", a.Get("id"), b.Get("id"))
		}
	}
	if got := []string{all[10].Get("id").String(), all[11].Get("id").String()}; !memEqual(got, []string{"memver_01AcmeSupport0004", "memver_01AcmeSupport0003"}) {
		t.Fatalf("tie order = %v", got)
	}
	kinds := map[string]bool{}
	for _, v := range all {
		kinds[v.Get("created_by.type").String()] = true
		if v.Get("content").Type.String() != "Null" {
			t.Fatalf("list defaults to basic, got content in %s", v.Raw)
		}
	}
	if !kinds["api_actor"] || !kinds["session_actor"] || !kinds["user_actor"] {
		t.Fatalf("fixture actors = %v, want all three kinds", kinds)
	}
	red := m.ok(core.Get, "/v1/memory_stores/"+memSupportStore+"/memory_versions/"+memRedactedVer, nil)
	for _, f := range []string{"content", "path", "content_sha256", "content_size_bytes"} {
		if red.Get(f).Type.String() != "Null" {
			t.Fatalf("redacted version has %s: %s", f, red.Raw)
		}
	}
	if red.Get("redacted_by.type").String() != "user_actor" || !red.Get("redacted_at").Exists() {
		t.Fatalf("redacted version = %s", red.Raw)
	}
	lineage := m.versions(memSupportStore, url.Values{"memory_id": {memScratchpad}})
	if !memEqual(lineage, []string{"memver_01AcmeSupport0009", "memver_01AcmeSupport0008"}) {
		t.Fatalf("deleted memScratchpad lineage = %v", lineage)
	}
	m.fails(http.StatusNotFound, core.ErrNotFound, "", core.Get, "/v1/memory_stores/"+memSupportStore+"/memories/"+memScratchpad, nil)
	// A version of one store is not found through another.
	m.fails(http.StatusNotFound, core.ErrNotFound, "", core.Get, "/v1/memory_stores/"+memResearchStore+"/memory_versions/"+memRedactedVer, nil)
}

func TestMemoryVersionFilters(t *testing.T) {
	m := newMemTester(t)
	s := memSupportStore
	count := func(q url.Values) int { q.Set("limit", "100"); return len(m.versions(s, q)) }
	cases := []struct {
		q    url.Values
		want int
	}{
		{url.Values{"operation": {"created"}}, 8},
		{url.Values{"operation": {"modified"}}, 5},
		{url.Values{"operation": {"deleted"}}, 1},
		{url.Values{"api_key_id": {memAcmeKeyID}}, 3},
		{url.Values{"session_id": {"sesn_01AcmeSupportSession00001"}}, 2},
		{url.Values{"session_id": {"sesn_01AcmeSupportSession00002"}}, 4},
		{url.Values{"memory_id": {memStyleGuide}}, 3},
		{url.Values{"memory_id": {memStyleGuide}, "operation": {"modified"}}, 2},
		{url.Values{"created_at[gte]": {"2025-03-02T10:00:00Z"}, "created_at[lte]": {"2025-03-04T08:30:00Z"}}, 3},
		{url.Values{"created_at[lte]": {"2025-03-01T09:05:00Z"}}, 1},
		{url.Values{"created_at[gte]": {"2025-03-09T08:01:00Z"}}, 1},
		{url.Values{"memory_id": {"mem_unknown"}}, 0},
		{url.Values{"api_key_id": {"apikey_01GlobexDefaultKey0000001"}}, 0},
	}
	for _, c := range cases {
		if got := count(c.q); got != c.want {
			t.Fatalf("filter %v: %d versions, want %d", c.q, got, c.want)
		}
	}
	full := m.ok(core.Get, "/v1/memory_stores/"+s+"/memory_versions?view=full&memory_id="+memStyleGuide, nil).Get("data.0")
	if !strings.Contains(full.Get("content").String(), "Never promise dates") {
		t.Fatalf("view=full version = %s", full.Raw)
	}
	for _, bad := range []string{"operation=renamed", "view=all", "limit=0", "limit=101", "created_at[gte]=soon", "page=abc"} {
		field := strings.SplitN(bad, "=", 2)[0]
		m.fails(http.StatusBadRequest, core.ErrInvalidRequest, field, core.Get, "/v1/memory_stores/"+s+"/memory_versions?"+bad, nil)
	}
}

// walkVersions pages through a store's versions with the query and page size.
func (m *memTester) walkVersions(store string, q url.Values, size int) []string {
	m.t.Helper()
	var out []string
	q.Set("limit", fmt.Sprint(size))
	for range 1000 {
		r := m.ok(core.Get, "/v1/memory_stores/"+store+"/memory_versions?"+q.Encode(), nil)
		data := r.Get("data").Array()
		next := r.Get("next_page")
		if len(data) == 0 && next.Type.String() != "Null" {
			m.t.Fatalf("empty page with a next_page")
		}
		out = append(out, idsOf(r.Get("data"))...)
		if next.Type.String() == "Null" {
			return out
		}
		q.Set("page", next.String())
	}
	m.t.Fatal("the version list did not end")
	return nil
}

func TestMemoryVersionPaging(t *testing.T) {
	m := newMemTester(t)
	for _, q := range []url.Values{{}, {"operation": {"modified"}}, {"memory_id": {memStyleGuide}}, {"created_at[gte]": {"2025-03-05T00:00:00Z"}}} {
		all := m.walkVersions(memSupportStore, q, 100)
		for _, size := range []int{1, 2, 3, 5} {
			if got := m.walkVersions(memSupportStore, memCloneQuery(q), size); !memEqual(got, all) {
				t.Fatalf("query %v, pages of %d: %v, want %v", q, size, got, all)
			}
		}
	}
	// New writes while paging appear on no later page: the token holds a position.
	q := url.Values{"limit": {"2"}}
	first := m.ok(core.Get, "/v1/memory_stores/"+memSupportStore+"/memory_versions?"+q.Encode(), nil)
	m.newMemory(memSupportStore, "/new-during-walk.md", "")
	q.Set("page", first.Get("next_page").String())
	second := m.ok(core.Get, "/v1/memory_stores/"+memSupportStore+"/memory_versions?"+q.Encode(), nil)
	if second.Get("data.0.id").String() != "memver_01AcmeSupport0012" {
		t.Fatalf("second page starts at %s", second.Get("data.0.id"))
	}
}

// memCloneQuery copies q, so that a walk that sets page leaves the caller's query alone.
func memCloneQuery(q url.Values) url.Values {
	out := url.Values{}
	for k, v := range q {
		out[k] = append([]string(nil), v...)
	}
	return out
}

func TestMemoryVersionRedact(t *testing.T) {
	m := newMemTester(t)
	store := m.newStore()
	mem := m.newMemory(store, "/secret.md", "password=hunter2")
	id := mem.Get("id").String()
	m.ok(core.Post, "/v1/memory_stores/"+store+"/memories/"+id, map[string]any{"content": "password=<removed>"})
	old := mem.Get("memory_version_id").String()
	path := "/v1/memory_stores/" + store + "/memory_versions/" + old
	m.ts.Fake.AdvanceClock(time.Minute)
	red := m.ok(core.Post, path+"/redact", nil)
	for _, f := range []string{"content", "path", "content_sha256", "content_size_bytes"} {
		if red.Get(f).Type.String() != "Null" {
			t.Fatalf("redacted version has %s: %s", f, red.Raw)
		}
	}
	if red.Get("redacted_at").Time() != m.ts.Fake.Now() || red.Get("redacted_by.api_key_id").String() != memAcmeKeyID ||
		red.Get("operation").String() != "created" || red.Get("created_by.api_key_id").String() != memAcmeKeyID {
		t.Fatalf("redacted version = %s", red.Raw)
	}
	got := m.ok(core.Get, path, nil)
	if got.Raw != red.Raw {
		t.Fatalf("retrieve after redact = %s, want %s", got.Raw, red.Raw)
	}
	m.ts.Fake.AdvanceClock(time.Minute)
	if again := m.ok(core.Post, path+"/redact", nil); again.Raw != red.Raw {
		t.Fatalf("redacting again changed the version: %s", again.Raw)
	}
	if strings.Contains(m.ok(core.Get, "/v1/memory_stores/"+store+"/memory_versions?view=full", nil).Raw, "hunter2") {
		t.Fatal("the redacted content is still listed")
	}
	// The memory itself is untouched, and the history keeps its length.
	if got := m.ok(core.Get, "/v1/memory_stores/"+store+"/memories/"+id, nil).Get("content").String(); got != "password=<removed>" {
		t.Fatalf("memory after redact = %q", got)
	}
	if n := len(m.versions(store, url.Values{})); n != 2 {
		t.Fatalf("redaction changed the history's length to %d", n)
	}
	m.fails(http.StatusNotFound, core.ErrNotFound, "", core.Post, "/v1/memory_stores/"+store+"/memory_versions/memver_nope/redact", nil)
}

// TestMemoryConcurrentPreconditions: many writers append to one memory with a read-modify-write
// loop guarded by a content_sha256 precondition. Exactly one writer wins per version, no update
// is lost, and the history has no gap: each version is its predecessor plus one line.
// Run: go test -race -run TestMemoryConcurrentPreconditions ./fake
func TestMemoryConcurrentPreconditions(t *testing.T) {
	m := newMemTester(t)
	store := m.newStore()
	mem := m.newMemory(store, "/counter.md", "")
	id := mem.Get("id").String()
	path := "/v1/memory_stores/" + store + "/memories/" + id
	const writers, perWriter = 16, 10
	var (
		mu      sync.Mutex
		winners = map[string]string{} // base hash -> the one line written on top of it
		losses  int
	)
	var wg sync.WaitGroup
	for w := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range perWriter {
				line := fmt.Sprintf("w%02d-%02d\n", w, i)
				for {
					cur := m.ok(core.Get, path, nil)
					base := cur.Get("content_sha256").String()
					r := m.do(core.Post, path, map[string]any{"content": cur.Get("content").String() + line,
						"precondition": map[string]any{"type": "content_sha256", "content_sha256": base}})
					if r.status == http.StatusConflict {
						mu.Lock()
						losses++
						mu.Unlock()
						continue
					}
					if r.status != http.StatusOK {
						t.Errorf("update = %d %s", r.status, r.body.Raw)
						return
					}
					mu.Lock()
					if prev, dup := winners[base]; dup {
						t.Errorf("two writers won on the same version: %q and %q", prev, line)
					}
					winners[base] = line
					mu.Unlock()
					break
				}
			}
		}()
	}
	wg.Wait()
	final := m.ok(core.Get, path, nil).Get("content").String()
	if n := strings.Count(final, "\n"); n != writers*perWriter {
		t.Fatalf("final content has %d lines, want %d (lost updates)", n, writers*perWriter)
	}
	for w := range writers {
		for i := range perWriter {
			if line := fmt.Sprintf("w%02d-%02d\n", w, i); strings.Count(final, line) != 1 {
				t.Fatalf("line %q appears %d times", line, strings.Count(final, line))
			}
		}
	}
	// The lineage, oldest first, grows by exactly one line per version.
	q := url.Values{"memory_id": {id}, "view": {"full"}}
	lineage := m.walkVersions(store, q, 100)
	if len(lineage) != 1+writers*perWriter {
		t.Fatalf("lineage has %d versions, want %d", len(lineage), 1+writers*perWriter)
	}
	prev := ""
	for i := len(lineage) - 1; i >= 0; i-- {
		v := m.ok(core.Get, "/v1/memory_stores/"+store+"/memory_versions/"+lineage[i], nil)
		content := v.Get("content").String()
		if !strings.HasPrefix(content, prev) || strings.Count(content, "\n") != strings.Count(prev, "\n")+memBoolInt(i < len(lineage)-1) {
			t.Fatalf("version %s does not extend its predecessor by one line", lineage[i])
		}
		prev = content
	}
	t.Logf("%d writers x %d updates: %d conflicts retried", writers, perWriter, losses)
}

// memBoolInt is 1 for true, 0 for false.
func memBoolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// BenchmarkMemoryVersionPage measures one page of 20 versions, newest first, through the
// handler, with 1,000 and with 100,000 versions in the store: unfiltered, by memory_id, and
// with a created_at bound halfway through the history. Each pair should cost about the same:
// the page is found by binary search in the store's or the memory's index, not by a scan.
// Run: go test -run '^$' -bench BenchmarkMemoryVersionPage -benchmem ./fake
func BenchmarkMemoryVersionPage(b *testing.B) {
	for _, n := range []int{1000, 100000} {
		srv := New()
		store, mid := seedMemVersions(b, srv, n)
		half := url.QueryEscape(core.Epoch().Add(time.Duration(n/2) * time.Second).Format(time.RFC3339))
		for _, q := range []struct{ name, query string }{{"store", ""}, {"memory_id", "memory_id=" + mid}, {"created_at", "created_at[lte]=" + half}} {
			b.Run(fmt.Sprintf("%s/versions=%d", q.name, n), func(b *testing.B) {
				for b.Loop() {
					memServeOK(b, srv, core.Get, "/v1/memory_stores/"+store+"/memory_versions?"+q.query, "")
				}
			})
		}
	}
}

// BenchmarkMemoryVersionIndex measures the index alone (pageVersions, no HTTP, no encoding):
// the part whose cost must not grow with the history. The handler benchmark above adds the
// request, the JSON and a garbage collector that has a larger heap to scan.
// Run: go test -run '^$' -bench BenchmarkMemoryVersionIndex -benchmem ./fake
func BenchmarkMemoryVersionIndex(b *testing.B) {
	for _, n := range []int{1000, 100000} {
		srv := New()
		store, mid := seedMemVersions(b, srv, n)
		st := memory.MemoryStores.In(srv.srv.State().Stores).Get(memory.MemorySection.In(srv.srv.State().Fx.Sections).Build).Stores[store]
		half := core.Epoch().Add(time.Duration(n/2) * time.Second)
		for _, q := range []struct {
			name string
			f    memory.MemVersionFilter
		}{{"store", memory.MemVersionFilter{}}, {"memory_id", memory.MemVersionFilter{MemoryID: mid}}, {"created_at", memory.MemVersionFilter{Created: core.TimeRange{Lte: &half}}}} {
			b.Run(fmt.Sprintf("%s/versions=%d", q.name, n), func(b *testing.B) {
				for b.Loop() {
					page, next := st.PageVersions(q.f, nil, memory.DefaultMemoryPage)
					if len(page) != memory.DefaultMemoryPage || next == nil {
						b.Fatalf("page of %d, next %v", len(page), next)
					}
					// The second page, from a token position.
					if page, _ = st.PageVersions(q.f, next, memory.DefaultMemoryPage); len(page) != memory.DefaultMemoryPage {
						b.Fatalf("second page of %d", len(page))
					}
				}
			})
		}
	}
}

// memServeOK sends a request to the handler directly, without a listener, and requires 200.
func memServeOK(b *testing.B, srv *Server, method, path, body string) *httptest.ResponseRecorder {
	req := httptest.NewRequest(method, path, strings.NewReader(body))
	req.Header.Set("X-Api-Key", "test-api-key")
	req.Header.Set("vendor-version", core.APIVersion)
	rec := httptest.NewRecorder()
	srv.ServeHTTP(rec, req)
	if rec.Code != http.StatusOK {
		b.Fatalf("%s %s = %d %s", method, path, rec.Code, rec.Body)
	}
	return rec
}

// seedMemVersions creates a store with n versions over 20 memories, one second apart, through
// the same code as the API's writes but without HTTP, so that setup stays fast.
func seedMemVersions(b *testing.B, srv *Server, n int) (store, memoryID string) {
	id := gjson.Get(memServeOK(b, srv, core.Post, "/v1/memory_stores", `{"name":"bench"}`).Body.String(), "id").String()
	a := memory.MemoryStores.In(srv.srv.State().Stores).Get(memory.MemorySection.In(srv.srv.State().Fx.Sections).Build)
	a.Mu.Lock()
	defer a.Mu.Unlock()
	st := a.Stores[id]
	by := &memory.MemoryActor{Type: "api_actor", APIKeyID: memAcmeKeyID}
	mems := make([]*memory.Memory, 20)
	for i := range n {
		at := core.Epoch().Add(time.Duration(i) * time.Second)
		content := fmt.Sprint("v", i)
		k := i % len(mems)
		op := memory.MemOpModified
		if mems[k] == nil {
			op = memory.MemOpCreated
			mems[k] = &memory.Memory{ID: srv.srv.IDs.Next("mem_"), Type: "memory", MemoryStoreID: st.Rec.ID, Path: fmt.Sprintf("/m/%d.md", k), CreatedAt: at}
			st.Memories[mems[k].ID], st.Paths[mems[k].Path] = mems[k], mems[k]
		}
		mm := mems[k]
		mm.Content, mm.ContentSHA256, mm.ContentSizeBytes, mm.UpdatedAt = &content, memory.ContentSHA256(content), len(content), at
		v := memory.NewMemVersion(srv.srv.IDs.Next("memver_"), op, mm, by, at)
		mm.MemoryVersionID = v.ID
		st.AppendVersion(v)
	}
	return st.Rec.ID, mems[0].ID
}
