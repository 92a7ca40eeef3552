package fake

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/platformkit/platformkit/fake/internal/areas/memory"

	"github.com/platformkit/platformkit/fake/internal/core"
)

func TestMemoryStoreListFixtures(t *testing.T) {
	m := newMemTester(t)
	got := idsOf(m.ok(core.Get, "/v1/memory_stores", nil).Get("data"))
	if want := []string{memResearchStore, memSupportStore}; !memEqual(got, want) {
		t.Fatalf("stores = %v, want %v (newest first, archived left out)", got, want)
	}
	got = idsOf(m.ok(core.Get, "/v1/memory_stores?include_archived=true", nil).Get("data"))
	if want := []string{memResearchStore, memSupportStore, memLegacyStore}; !memEqual(got, want) {
		t.Fatalf("stores with archived = %v, want %v", got, want)
	}
	m.key = "test-api-key-2"
	got = idsOf(m.ok(core.Get, "/v1/memory_stores?include_archived=true", nil).Get("data"))
	if want := []string{memGlobexStore}; !memEqual(got, want) {
		t.Fatalf("second organization's stores = %v, want %v", got, want)
	}
	for _, p := range []string{"", "/memories", "/memory_versions", "/memories/" + memStyleGuide, "/memory_versions/" + memRedactedVer} {
		m.fails(http.StatusNotFound, core.ErrNotFound, "", core.Get, "/v1/memory_stores/"+memSupportStore+p, nil)
	}
	m.fails(http.StatusNotFound, core.ErrNotFound, "", core.Post, "/v1/memory_stores/"+memSupportStore+"/archive", nil)
	m.fails(http.StatusNotFound, core.ErrNotFound, "", core.Del, "/v1/memory_stores/"+memSupportStore, nil)
}

func TestMemoryStoreListFilters(t *testing.T) {
	m := newMemTester(t)
	at := func(q string) []string {
		return idsOf(m.ok(core.Get, "/v1/memory_stores?include_archived=true&"+q, nil).Get("data"))
	}
	// Bounds are inclusive: the exact creation instants match.
	if got, want := at("created_at[gte]=2025-03-01T09:00:00Z&created_at[lte]=2025-04-01T09:00:00Z"), []string{memResearchStore, memSupportStore}; !memEqual(got, want) {
		t.Fatalf("between = %v, want %v", got, want)
	}
	if got := at("created_at[gte]=2030-01-01T00:00:00Z"); len(got) != 0 {
		t.Fatalf("nothing matches, got %v", got)
	}
	if r := m.ok(core.Get, "/v1/memory_stores?created_at[gte]=2030-01-01T00:00:00Z", nil); r.Get("data").Raw != "[]" || r.Get("next_page").Type.String() != "Null" {
		t.Fatalf("an empty list must be [] with next_page null, got %s", r.Raw)
	}
	m.fails(http.StatusBadRequest, core.ErrInvalidRequest, "created_at[gte]", core.Get, "/v1/memory_stores?created_at[gte]=yesterday", nil)
	m.fails(http.StatusBadRequest, core.ErrInvalidRequest, "include_archived", core.Get, "/v1/memory_stores?include_archived=maybe", nil)
	for _, bad := range []string{"0", "101", "-1", "x"} {
		m.fails(http.StatusBadRequest, core.ErrInvalidRequest, "limit", core.Get, "/v1/memory_stores?limit="+bad, nil)
	}
	// Pages of one walk every store once, newest first, and end with next_page null.
	var walked []string
	q := url.Values{"limit": {"1"}, "include_archived": {"true"}}
	for range 10 {
		r := m.ok(core.Get, "/v1/memory_stores?"+q.Encode(), nil)
		if r.Get("data.#").Int() != 1 {
			t.Fatalf("page of limit 1 holds %d stores", r.Get("data.#").Int())
		}
		walked = append(walked, r.Get("data.0.id").String())
		if r.Get("next_page").Type.String() == "Null" {
			break
		}
		q.Set("page", r.Get("next_page").String())
	}
	if want := at(""); !memEqual(walked, want) {
		t.Fatalf("walk = %v, want %v", walked, want)
	}
	m.fails(http.StatusBadRequest, core.ErrInvalidRequest, "page", core.Get, "/v1/memory_stores?page=forged", nil)
	versionsToken := m.ok(core.Get, "/v1/memory_stores/"+memSupportStore+"/memory_versions?limit=1", nil).Get("next_page").String()
	m.fails(http.StatusBadRequest, core.ErrInvalidRequest, "page", core.Get, "/v1/memory_stores?page="+url.QueryEscape(versionsToken), nil)
	// The default page holds at most 20; 100 is the largest.
	for range 21 {
		m.newStore()
	}
	if n := m.ok(core.Get, "/v1/memory_stores", nil).Get("data.#").Int(); n != 20 {
		t.Fatalf("default page = %d stores, want 20", n)
	}
	if n := m.ok(core.Get, "/v1/memory_stores?limit=100", nil).Get("data.#").Int(); n != 23 {
		t.Fatalf("limit=100 = %d stores, want 23", n)
	}
}

func TestMemoryStoreCreateAndLimits(t *testing.T) {
	m := newMemTester(t)
	s := m.ok(core.Post, "/v1/memory_stores", map[string]any{"name": "notes"})
	if s.Get("description").String() != "" || s.Get("metadata").Raw != "{}" || s.Get("archived_at").Type.String() != "Null" ||
		s.Get("type").String() != "memory_store" || !strings.HasPrefix(s.Get("id").String(), "memstore_") {
		t.Fatalf("new store = %s", s.Raw)
	}
	if got := m.ok(core.Get, "/v1/memory_stores/"+s.Get("id").String(), nil); got.Raw != s.Raw {
		t.Fatalf("retrieve = %s, want %s", got.Raw, s.Raw)
	}
	meta := func(n, klen, vlen int) map[string]string {
		out := map[string]string{}
		for i := range n {
			out[fmt.Sprintf("%0*d", klen, i)] = strings.Repeat("v", vlen)
		}
		return out
	}
	good := []map[string]any{
		{"name": strings.Repeat("é", 255)},
		{"name": "n", "description": strings.Repeat("d", 1024)},
		{"name": "n", "metadata": meta(16, 64, 512)},
		{"name": "n", "metadata": map[string]string{"k": ""}},
	}
	for _, body := range good {
		m.ok(core.Post, "/v1/memory_stores", body)
	}
	bad := []struct {
		field string
		body  any
	}{
		{"name", map[string]any{}},
		{"name", map[string]any{"name": ""}},
		{"name", map[string]any{"name": strings.Repeat("é", 256)}},
		{"name", map[string]any{"name": 7}},
		{"description", map[string]any{"name": "n", "description": strings.Repeat("d", 1025)}},
		{"metadata", map[string]any{"name": "n", "metadata": meta(17, 2, 1)}},
		{"metadata", map[string]any{"name": "n", "metadata": meta(1, 65, 1)}},
		{"metadata", map[string]any{"name": "n", "metadata": map[string]string{"": "v"}}},
		{"metadata", map[string]any{"name": "n", "metadata": meta(1, 2, 513)}},
		{"colour", map[string]any{"name": "n", "colour": "red"}},
	}
	before := m.ok(core.Get, "/v1/memory_stores?limit=100", nil).Get("data.#").Int()
	for _, b := range bad {
		m.fails(http.StatusBadRequest, core.ErrInvalidRequest, b.field, core.Post, "/v1/memory_stores", b.body)
	}
	m.fails(http.StatusBadRequest, core.ErrInvalidRequest, "", core.Post, "/v1/memory_stores", "{not json")
	if after := m.ok(core.Get, "/v1/memory_stores?limit=100", nil).Get("data.#").Int(); after != before {
		t.Fatalf("rejected creates changed the list: %d stores, then %d", before, after)
	}
}

func TestMemoryStoreUpdate(t *testing.T) {
	m := newMemTester(t)
	id := m.ok(core.Post, "/v1/memory_stores", map[string]any{"name": "a", "metadata": map[string]string{"keep": "1", "drop": "2"}}).Get("id").String()
	path := "/v1/memory_stores/" + id
	m.ts.Fake.AdvanceClock(time.Minute)
	s := m.ok(core.Post, path, map[string]any{"name": "b", "description": "d", "metadata": map[string]any{"drop": nil, "new": "3"}})
	if s.Get("name").String() != "b" || s.Get("description").String() != "d" || s.Get("metadata").Raw != `{"keep":"1","new":"3"}` {
		t.Fatalf("patched store = %s", s.Raw)
	}
	if s.Get("updated_at").Time().Sub(s.Get("created_at").Time()) != time.Minute {
		t.Fatalf("updated_at did not move: %s", s.Raw)
	}
	// An update that changes nothing leaves updated_at alone.
	m.ts.Fake.AdvanceClock(time.Minute)
	for _, body := range []any{nil, map[string]any{}, map[string]any{"name": "b", "metadata": map[string]any{"absent": nil}}} {
		if again := m.ok(core.Post, path, body); again.Raw != s.Raw {
			t.Fatalf("no-op update changed the store: %s, was %s", again.Raw, s.Raw)
		}
	}
	full := map[string]any{}
	for i := range 14 {
		full[fmt.Sprint("k", i)] = "v"
	}
	m.ok(core.Post, path, map[string]any{"metadata": full}) // 16 pairs
	m.fails(http.StatusBadRequest, core.ErrInvalidRequest, "metadata", core.Post, path, map[string]any{"metadata": map[string]any{"one-too-many": "v"}})
	m.ok(core.Post, path, map[string]any{"metadata": map[string]any{"k0": nil, "one-more": "v"}})
	m.fails(http.StatusBadRequest, core.ErrInvalidRequest, "name", core.Post, path, map[string]any{"name": ""})
	m.fails(http.StatusBadRequest, core.ErrInvalidRequest, "metadata", core.Post, path, map[string]any{"metadata": map[string]any{"k": 1}})
	m.fails(http.StatusNotFound, core.ErrNotFound, "", core.Post, "/v1/memory_stores/memstore_nope", map[string]any{"name": "x"})
}

func TestMemoryStoreArchiveIsReadOnly(t *testing.T) {
	m := newMemTester(t)
	id := m.newStore()
	base := "/v1/memory_stores/" + id
	mem := m.newMemory(id, "/a.md", "a")
	m.newMemory(id, "/b.md", "b")
	m.ts.Fake.AdvanceClock(time.Hour)
	s := m.ok(core.Post, base+"/archive", nil)
	if s.Get("archived_at").Time() != m.ts.Fake.Now() {
		t.Fatalf("archived store = %s", s.Raw)
	}
	m.ts.Fake.AdvanceClock(time.Hour)
	if again := m.ok(core.Post, base+"/archive", nil); again.Raw != s.Raw {
		t.Fatalf("archiving again changed the store: %s, was %s", again.Raw, s.Raw)
	}
	if got := idsOf(m.ok(core.Get, "/v1/memory_stores", nil).Get("data")); strings.Contains(strings.Join(got, ","), id) {
		t.Fatalf("archived store listed without include_archived: %v", got)
	}
	m.fails(http.StatusBadRequest, core.ErrInvalidRequest, "archived", core.Post, base, map[string]any{"name": "x"})
	m.fails(http.StatusBadRequest, core.ErrInvalidRequest, "archived", core.Post, base+"/memories", map[string]any{"path": "/c.md", "content": ""})
	m.fails(http.StatusBadRequest, core.ErrInvalidRequest, "archived", core.Post, base+"/memories/"+mem.Get("id").String(), map[string]any{"content": "z"})
	// Reads, deletes and redactions still work.
	m.ok(core.Get, base+"/memories/"+mem.Get("id").String(), nil)
	m.ok(core.Get, base+"/memories", nil)
	m.ok(core.Post, base+"/memory_versions/"+mem.Get("memory_version_id").String()+"/redact", nil)
	m.ok(core.Del, base+"/memories/"+mem.Get("id").String(), nil)
	if n := len(m.versions(id, url.Values{"memory_id": {mem.Get("id").String()}})); n != 2 {
		t.Fatalf("lineage after delete in an archived store = %d versions, want 2", n)
	}
	// The fixture's archived store is read-only too.
	m.fails(http.StatusBadRequest, core.ErrInvalidRequest, "archived", core.Post, "/v1/memory_stores/"+memLegacyStore+"/memories", map[string]any{"path": "/x", "content": ""})
}

func TestMemoryStoreDelete(t *testing.T) {
	m := newMemTester(t)
	id := m.newStore()
	mem := m.newMemory(id, "/a.md", "a")
	r := m.ok(core.Del, "/v1/memory_stores/"+id, nil)
	if strings.TrimSpace(r.Raw) != `{"id":"`+id+`","type":"memory_store_deleted"}` {
		t.Fatalf("delete = %s", r.Raw)
	}
	for _, p := range []string{"", "/memories/" + mem.Get("id").String(), "/memory_versions/" + mem.Get("memory_version_id").String(), "/memory_versions"} {
		m.fails(http.StatusNotFound, core.ErrNotFound, "", core.Get, "/v1/memory_stores/"+id+p, nil)
	}
	m.fails(http.StatusNotFound, core.ErrNotFound, "", core.Del, "/v1/memory_stores/"+id, nil)
	// The list forgets it, and keeps the stores created around it, newest first.
	before, after := m.newStore(), ""
	m.ok(core.Del, "/v1/memory_stores/"+m.newStore(), nil)
	after = m.newStore()
	got := idsOf(m.ok(core.Get, "/v1/memory_stores", nil).Get("data"))
	if want := []string{after, before, memResearchStore, memSupportStore}; !memEqual(got, want) {
		t.Fatalf("stores after deletes = %v, want %v", got, want)
	}
}

// TestMemoryDeterministic: the same requests against two new servers answer the same bytes.
func TestMemoryDeterministic(t *testing.T) {
	run := func() string {
		m := newMemTester(t)
		id := m.newStore()
		mem := m.newMemory(id, "/a.md", "a")
		m.ok(core.Post, "/v1/memory_stores/"+id+"/memories/"+mem.Get("id").String(), map[string]any{"content": "b"})
		return m.ok(core.Get, "/v1/memory_stores/"+id+"/memory_versions?view=full", nil).Raw
	}
	if a, b := run(), run(); a != b {
		t.Fatalf("two runs differ:\n%s\n%s", a, b)
	}
}

// TestMemoryBetaOptional: vendor-beta may be absent, repeated or a list; vendor-version is required.
func TestMemoryBetaOptional(t *testing.T) {
	ts := NewTestServer(t)
	for _, betas := range [][]string{nil, {"managed-agents-2026-04-01"}, {"a, managed-agents-2026-04-01", "other"}} {
		req, _ := http.NewRequest(core.Get, ts.URL+"/v1/memory_stores", nil)
		req.Header.Set("X-Api-Key", "test-api-key")
		req.Header.Set("vendor-version", core.APIVersion)
		for _, b := range betas {
			req.Header.Add("vendor-beta", b)
		}
		resp, err := ts.Server.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("betas %q: status %d", betas, resp.StatusCode)
		}
	}
}

// TestMemoryStoreReadAfterChange: reads and list pages answer the bytes encoded for a store's
// current record, once per change: after a create, an update or an archive they answer what
// that change answered, and always the record encoded whole by reflection.
func TestMemoryStoreReadAfterChange(t *testing.T) {
	m := newMemTester(t)
	listed := func(id string) string {
		t.Helper()
		for _, s := range m.ok(core.Get, "/v1/memory_stores?include_archived=true&limit=100", nil).Get("data").Array() {
			if s.Get("id").String() == id {
				return s.Raw
			}
		}
		t.Fatalf("%s is not listed", id)
		return ""
	}
	read := func(id, want, after string) {
		t.Helper()
		for range 2 { // the second read answers the bytes the first encoded
			if got := strings.TrimSpace(m.ok(core.Get, "/v1/memory_stores/"+id, nil).Raw); got != want {
				t.Fatalf("read after %s = %s, want %s", after, got, want)
			}
		}
		if got := listed(id); got != want {
			t.Fatalf("read after %s = %s, but the list holds %s", after, want, got)
		}
		var rec memory.MemoryStore
		if err := json.Unmarshal([]byte(want), &rec); err != nil {
			t.Fatal(err)
		}
		if whole := strings.TrimSpace(encodedWhole(t, rec)); whole != want {
			t.Fatalf("read after %s = %s, but the record encoded by reflection is %s", after, want, whole)
		}
	}
	read(memResearchStore, listed(memResearchStore), "load")
	read(memLegacyStore, listed(memLegacyStore), "load") // archived

	created := m.ok(core.Post, "/v1/memory_stores", map[string]any{"name": "Q&A <draft>", "metadata": map[string]string{"b": "2", "a": "1"}})
	id := created.Get("id").String()
	read(id, strings.TrimSpace(created.Raw), "create")

	m.ts.Fake.AdvanceClock(time.Minute)
	updated := strings.TrimSpace(m.ok(core.Post, "/v1/memory_stores/"+id, map[string]any{"name": "renamed", "metadata": map[string]any{"a": nil}}).Raw)
	if updated == strings.TrimSpace(created.Raw) || !strings.Contains(updated, `"name":"renamed"`) {
		t.Fatalf("update answered %s", updated)
	}
	read(id, updated, "update")

	m.ts.Fake.AdvanceClock(time.Minute)
	if again := strings.TrimSpace(m.ok(core.Post, "/v1/memory_stores/"+id, map[string]any{"name": "renamed"}).Raw); again != updated {
		t.Fatalf("a no-op update answered %s, want %s", again, updated)
	}
	read(id, updated, "a no-op update")

	archived := strings.TrimSpace(m.ok(core.Post, "/v1/memory_stores/"+id+"/archive", nil).Raw)
	if m.ok(core.Get, "/v1/memory_stores/"+id, nil).Get("archived_at").Time() != m.ts.Fake.Now() {
		t.Fatalf("archive answered %s", archived)
	}
	read(id, archived, "archive")
}
