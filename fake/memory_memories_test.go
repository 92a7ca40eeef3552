package fake

import (
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/platformkit/platformkit/fake/internal/areas/memory"

	"github.com/platformkit/platformkit/fake/internal/core"
)

func TestMemoryPathRule(t *testing.T) {
	m := newMemTester(t)
	store := m.newStore()
	create := "/v1/memory_stores/" + store + "/memories"
	good := []string{
		"/a", "/notes/todo.md", "/.hidden", "/a..b/c", "/Caf\u00e9", "/" + strings.Repeat("x", 1023),
		"/" + strings.Repeat("é", 511) + "x", // 1,024 bytes
		"/with space/and-dash_underscore",
	}
	for _, p := range good {
		if got := m.newMemory(store, p, "").Get("path").String(); got != p {
			t.Fatalf("path %q stored as %q", p, got)
		}
	}
	bad := []string{
		"", "/", "a", "notes/a", "//a", "/a//b", "/a/", "/./a", "/a/.", "/a/../b", "/..",
		"/a\x00b", "/a\nb", "/a\x7fb", "/a\u200bb", "/a\u202eb", "/a\ufeffb",
		"/Cafe\u0301", // not NFC
		"/" + strings.Repeat("x", 1024),
		"/" + strings.Repeat("é", 512),
	}
	for _, p := range bad {
		m.fails(http.StatusBadRequest, core.ErrInvalidRequest, "path", core.Post, create, map[string]any{"path": p, "content": "x"})
	}
	// Rename is held to the same rule.
	mem := m.newMemory(store, "/rename-me", "")
	for _, p := range bad {
		m.fails(http.StatusBadRequest, core.ErrInvalidRequest, "path", core.Post, create+"/"+mem.Get("id").String(), map[string]any{"path": p})
	}
	// Case-sensitive: /Readme and /readme are two memories.
	a, b := m.newMemory(store, "/Readme", "A"), m.newMemory(store, "/readme", "a")
	if a.Get("id").String() == b.Get("id").String() {
		t.Fatal("paths differing in case are the same memory")
	}
	if n := len(m.versions(store, url.Values{"limit": {"100"}})); n != len(good)+3 {
		t.Fatalf("rejected creates appended versions: %d versions, want %d", n, len(good)+3)
	}
}

// knownSHA256 are SHA-256 digests computed outside the fake (Python's hashlib), so that no test
// takes its expected hash from the code under test. "é×51200" is "é" repeated 51,200 times.
var knownSHA256 = map[string]string{
	"":                  "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
	"é×51200":           "3effcf21489d06a8f8b078dd7abb6656a03c52b26b1cd56b4766ab118c921528",
	"Cafe\u0301":        "c42cc7a1ca08364b6fd859fa50d2454730a8236290a423373cc630da77c6d711",
	"v1":                "3bfc269594ef649228e9a74bab00f042efc91d5acc6fbee31a382e80d42388fe",
	"v4":                "8e38a1ea5c681c8e9a08f1af465f1f07d33d931de8f71af45ecbe957751c9a86",
	"other":             "d9298a10d1b0735837dc4bd85dac641b0f3cef27a47e5d53a54f2f3f5b2fcffa",
	"bye":               "b49f425a7e1f9cff3856329ada223f2f9d368f15a00cf48df16ca95986137fe8",
	"  padded line\n\t": "9107a7d9b6e291a9028efa063961641b97eb2b8fca8aee4264899021b546c3a8",
}

// digest returns the known SHA-256 of content.
func digest(content string) string {
	d, ok := knownSHA256[content]
	if !ok {
		panic("no known SHA-256 for " + content)
	}
	return d
}

func TestMemoryContent(t *testing.T) {
	m := newMemTester(t)
	store := m.newStore()
	create := "/v1/memory_stores/" + store + "/memories"
	empty := m.newMemory(store, "/empty", "")
	if empty.Get("content_size_bytes").Int() != 0 || empty.Get("content_sha256").String() != digest("") {
		t.Fatalf("empty memory = %s", empty.Raw)
	}
	// Bytes, not characters: 102,400 bytes of 2-byte characters is the limit.
	max := strings.Repeat("é", memory.MaxMemoryContent/2)
	full := m.ok(core.Post, create+"?view=full", map[string]any{"path": "/max", "content": max})
	if full.Get("content_size_bytes").Int() != memory.MaxMemoryContent || full.Get("content").String() != max || full.Get("content_sha256").String() != digest("é×51200") {
		t.Fatalf("largest memory answered size %d", full.Get("content_size_bytes").Int())
	}
	m.fails(http.StatusBadRequest, core.ErrInvalidRequest, "content", core.Post, create, map[string]any{"path": "/over", "content": max + "x"})
	m.fails(http.StatusBadRequest, core.ErrInvalidRequest, "content", core.Post, create, map[string]any{"path": "/none"})
	m.fails(http.StatusBadRequest, core.ErrInvalidRequest, "content", core.Post, create, map[string]any{"path": "/null", "content": nil})
	m.fails(http.StatusBadRequest, core.ErrInvalidRequest, "path", core.Post, create, map[string]any{"content": ""})
	m.fails(http.StatusBadRequest, core.ErrInvalidRequest, "content", core.Post, create+"/"+empty.Get("id").String(), map[string]any{"content": max + "x"})
	// No normalization of content: the hash is of the bytes sent.
	nfd := m.newMemory(store, "/nfd", "Cafe\u0301")
	if nfd.Get("content_sha256").String() != digest("Cafe\u0301") || nfd.Get("content_size_bytes").Int() != 6 {
		t.Fatalf("content was normalized: %s", nfd.Raw)
	}
	// Nor trimmed: white space at either end is content, hashed and counted.
	padded := m.ok(core.Post, create+"?view=full", map[string]any{"path": "/padded", "content": "  padded line\n\t"})
	if padded.Get("content").String() != "  padded line\n\t" || padded.Get("content_sha256").String() != digest("  padded line\n\t") || padded.Get("content_size_bytes").Int() != 15 {
		t.Fatalf("content was trimmed: %s", padded.Raw)
	}
}

func TestMemoryViews(t *testing.T) {
	m := newMemTester(t)
	store := m.newStore()
	base := "/v1/memory_stores/" + store + "/memories"
	created := m.newMemory(store, "/v.md", "body")
	if created.Get("content").Type.String() != "Null" || created.Get("content_sha256").String() == "" {
		t.Fatalf("create defaults to basic: %s", created.Raw)
	}
	id := created.Get("id").String()
	if got := m.ok(core.Get, base+"/"+id, nil).Get("content").String(); got != "body" {
		t.Fatalf("retrieve defaults to full, content = %q", got)
	}
	if got := m.ok(core.Get, base+"/"+id+"?view=basic", nil).Get("content"); got.Type.String() != "Null" {
		t.Fatalf("view=basic content = %s", got.Raw)
	}
	if got := m.ok(core.Post, base+"/"+id, map[string]any{"content": "new"}).Get("content"); got.Type.String() != "Null" {
		t.Fatalf("update defaults to basic, content = %s", got.Raw)
	}
	if got := m.ok(core.Post, base+"/"+id+"?view=full", map[string]any{"content": "newer"}).Get("content").String(); got != "newer" {
		t.Fatalf("update view=full content = %q", got)
	}
	if got := m.ok(core.Get, base, nil).Get("data.0.content"); got.Type.String() != "Null" {
		t.Fatalf("list defaults to basic: %s", got.Raw)
	}
	if got := m.ok(core.Get, base+"?view=full", nil).Get("data.0.content").String(); got != "newer" {
		t.Fatalf("list view=full content = %q", got)
	}
	m.fails(http.StatusBadRequest, core.ErrInvalidRequest, "view", core.Get, base+"/"+id+"?view=everything", nil)
	m.fails(http.StatusBadRequest, core.ErrInvalidRequest, "view", core.Get, base+"?view=FULL", nil)
}

func TestMemoryUpdateAppendsOneVersionPerChange(t *testing.T) {
	m := newMemTester(t)
	store := m.newStore()
	mem := m.newMemory(store, "/a.md", "one")
	id := mem.Get("id").String()
	path := "/v1/memory_stores/" + store + "/memories/" + id
	lineage := func() []string { return m.versions(store, url.Values{"memory_id": {id}}) }
	steps := []struct {
		body    map[string]any
		changes bool
	}{
		{map[string]any{"content": "two"}, true},
		{map[string]any{"content": "two"}, false},
		{map[string]any{}, false},
		{map[string]any{"path": "/a.md"}, false},
		{map[string]any{"path": "/b/a.md"}, true},                   // rename only
		{map[string]any{"path": "/c.md", "content": "three"}, true}, // both at once: one version
		{map[string]any{"path": "/c.md", "content": "three"}, false},
	}
	want := 1
	for i, s := range steps {
		m.ts.Fake.AdvanceClock(time.Second)
		before := m.ok(core.Get, path, nil)
		after := m.ok(core.Post, path, s.body)
		if s.changes {
			want++
		}
		if n := len(lineage()); n != want {
			t.Fatalf("step %d %v: %d versions, want %d", i, s.body, n, want)
		}
		if after.Get("id").String() != id {
			t.Fatalf("step %d: id changed to %s", i, after.Get("id"))
		}
		moved := after.Get("memory_version_id").String() != before.Get("memory_version_id").String()
		if moved != s.changes || (after.Get("updated_at").String() != before.Get("updated_at").String()) != s.changes {
			t.Fatalf("step %d: memory_version_id/updated_at moved = %v, want %v", i, moved, s.changes)
		}
		if s.changes && lineage()[0] != after.Get("memory_version_id").String() {
			t.Fatalf("step %d: memory_version_id %s is not the newest version %s", i, after.Get("memory_version_id"), lineage()[0])
		}
	}
	latest := m.ok(core.Get, "/v1/memory_stores/"+store+"/memory_versions/"+lineage()[0], nil)
	if latest.Get("operation").String() != "modified" || latest.Get("path").String() != "/c.md" || latest.Get("content").String() != "three" ||
		latest.Get("created_by.type").String() != "api_actor" || latest.Get("created_by.api_key_id").String() != memAcmeKeyID {
		t.Fatalf("latest version = %s", latest.Raw)
	}
	rename := m.ok(core.Get, "/v1/memory_stores/"+store+"/memory_versions/"+lineage()[1], nil)
	if rename.Get("path").String() != "/b/a.md" || rename.Get("content").String() != "two" {
		t.Fatalf("rename version = %s", rename.Raw)
	}
	// The old path is free again; the new one is taken.
	m.newMemory(store, "/a.md", "reuse")
	m.fails(http.StatusNotFound, core.ErrNotFound, "", core.Post, "/v1/memory_stores/"+store+"/memories/mem_nope", map[string]any{"content": "x"})
}

func TestMemoryPathConflict(t *testing.T) {
	m := newMemTester(t)
	store := m.newStore()
	base := "/v1/memory_stores/" + store + "/memories"
	a := m.newMemory(store, "/a.md", "a")
	b := m.newMemory(store, "/b.md", "b")
	r := m.fails(http.StatusConflict, core.ErrMemoryPathConflict, "/a.md", core.Post, base, map[string]any{"path": "/a.md", "content": "other"})
	if r.header.Get("x-should-retry") != "false" {
		t.Fatalf("409 without x-should-retry: false: %v", r.header)
	}
	m.fails(http.StatusConflict, core.ErrMemoryPathConflict, "/a.md", core.Post, base+"/"+b.Get("id").String(), map[string]any{"path": "/a.md"})
	if got := m.ok(core.Get, base+"/"+a.Get("id").String(), nil).Get("content").String(); got != "a" {
		t.Fatalf("conflicting writes changed /a.md to %q", got)
	}
	// Another store may use the same path.
	m.newMemory(m.newStore(), "/a.md", "elsewhere")
}

func TestMemoryPrecondition(t *testing.T) {
	m := newMemTester(t)
	store := m.newStore()
	mem := m.newMemory(store, "/p.md", "v1")
	id := mem.Get("id").String()
	path := "/v1/memory_stores/" + store + "/memories/" + id
	pre := func(h string) map[string]any { return map[string]any{"type": "content_sha256", "content_sha256": h} }
	// Matching hash: applies.
	m.ok(core.Post, path, map[string]any{"content": "v2", "precondition": pre(digest("v1"))})
	// Stale hash: 409, nothing changes, and a retry cannot succeed.
	r := m.fails(http.StatusConflict, core.ErrPreconditionFailed, "content_sha256", core.Post, path, map[string]any{"content": "v3", "precondition": pre(digest("v1"))})
	if r.header.Get("x-should-retry") != "false" {
		t.Fatalf("precondition 409 headers: %v", r.header)
	}
	r = m.fails(http.StatusConflict, core.ErrPreconditionFailed, "", core.Post, path, map[string]any{"path": "/elsewhere.md", "precondition": pre(digest("v1"))})
	if got := m.ok(core.Get, path, nil); got.Get("content").String() != "v2" || got.Get("path").String() != "/p.md" {
		t.Fatalf("a failed precondition changed the memory: %s", got.Raw)
	}
	// Stale hash, but the stored state already equals the request: 200, no version.
	n := len(m.versions(store, url.Values{"memory_id": {id}}))
	for _, body := range []map[string]any{
		{"content": "v2", "precondition": pre(digest("v1"))},
		{"content": "v2", "path": "/p.md", "precondition": pre(digest("v1"))},
		{"precondition": pre(digest("v1"))},
	} {
		m.ok(core.Post, path, body)
	}
	if got := len(m.versions(store, url.Values{"memory_id": {id}})); got != n {
		t.Fatalf("retries of a landed write appended versions: %d, want %d", got, n)
	}
	// A precondition without a hash asserts nothing.
	m.ok(core.Post, path, map[string]any{"content": "v4", "precondition": map[string]any{"type": "content_sha256"}})
	for _, bad := range []map[string]any{
		{"content": "x", "precondition": map[string]any{"type": "etag", "content_sha256": digest("v4")}},
		{"content": "x", "precondition": pre(strings.ToUpper(digest("v4")))},
		{"content": "x", "precondition": pre("abc")},
		{"content": "x", "precondition": map[string]any{"content_sha256": digest("v4")}},
	} {
		m.fails(http.StatusBadRequest, core.ErrInvalidRequest, "precondition", core.Post, path, bad)
	}
}

func TestMemoryDelete(t *testing.T) {
	m := newMemTester(t)
	store := m.newStore()
	base := "/v1/memory_stores/" + store + "/memories/"
	mem := m.newMemory(store, "/d.md", "bye")
	id := mem.Get("id").String()
	m.fails(http.StatusConflict, core.ErrPreconditionFailed, "expected_content_sha256", core.Del, base+id+"?expected_content_sha256="+digest("other"), nil)
	m.fails(http.StatusBadRequest, core.ErrInvalidRequest, "expected_content_sha256", core.Del, base+id+"?expected_content_sha256=xyz", nil)
	r := m.ok(core.Del, base+id+"?expected_content_sha256="+digest("bye"), nil)
	if strings.TrimSpace(r.Raw) != `{"id":"`+id+`","type":"memory_deleted"}` {
		t.Fatalf("delete = %s", r.Raw)
	}
	m.fails(http.StatusNotFound, core.ErrNotFound, "", core.Get, base+id, nil)
	m.fails(http.StatusNotFound, core.ErrNotFound, "", core.Del, base+id, nil)
	m.fails(http.StatusNotFound, core.ErrNotFound, "", core.Post, base+id, map[string]any{"content": "again"})
	// The whole lineage stays, newest first, ending in the deleted version.
	lineage := m.ok(core.Get, "/v1/memory_stores/"+store+"/memory_versions?memory_id="+id, nil).Get("data").Array()
	if len(lineage) != 2 || lineage[0].Get("operation").String() != "deleted" || lineage[1].Get("operation").String() != "created" {
		t.Fatalf("lineage = %v", lineage)
	}
	d := lineage[0]
	if d.Get("path").String() != "/d.md" || d.Get("content_sha256").Type.String() != "Null" || d.Get("content_size_bytes").Type.String() != "Null" ||
		d.Get("created_by.api_key_id").String() != memAcmeKeyID {
		t.Fatalf("deleted version = %s", d.Raw)
	}
	if got := m.ok(core.Get, "/v1/memory_stores/"+store+"/memory_versions/"+d.Get("id").String(), nil).Get("content"); got.Type.String() != "Null" {
		t.Fatalf("deleted version content with view=full = %s", got.Raw)
	}
	// The path is free again, for a new memory with a new ID.
	if again := m.newMemory(store, "/d.md", "hello"); again.Get("id").String() == id {
		t.Fatal("a new memory reused a deleted memory's ID")
	}
}

func TestMemoryList(t *testing.T) {
	m := newMemTester(t)
	store := m.newStore()
	for _, p := range []string{"/z.md", "/a/1.md", "/a/b/2.md", "/a/b/c/3.md", "/ab/4.md", "/a/5.md"} {
		m.newMemory(store, p, p)
	}
	list := func(q string) []string {
		var out []string
		for _, it := range m.ok(core.Get, "/v1/memory_stores/"+store+"/memories?"+q, nil).Get("data").Array() {
			out = append(out, it.Get("type").String()+":"+it.Get("path").String())
		}
		return out
	}
	cases := []struct {
		q    string
		want []string
	}{
		{"", []string{"memory:/a/1.md", "memory:/a/5.md", "memory:/a/b/2.md", "memory:/a/b/c/3.md", "memory:/ab/4.md", "memory:/z.md"}},
		{"path_prefix=/a/", []string{"memory:/a/1.md", "memory:/a/5.md", "memory:/a/b/2.md", "memory:/a/b/c/3.md"}},
		{"path_prefix=/a/&depth=1", []string{"memory:/a/1.md", "memory:/a/5.md", "memory_prefix:/a/b/"}},
		{"path_prefix=/a/&depth=2", []string{"memory:/a/1.md", "memory:/a/5.md", "memory:/a/b/2.md", "memory_prefix:/a/b/c/"}},
		{"depth=1", []string{"memory_prefix:/a/", "memory_prefix:/ab/", "memory:/z.md"}},
		{"path_prefix=/a/b/c/&depth=1", []string{"memory:/a/b/c/3.md"}},
		{"path_prefix=/nothing/", nil},
	}
	for _, c := range cases {
		if got := list(c.q); !memEqual(got, c.want) {
			t.Fatalf("list %q = %v, want %v", c.q, got, c.want)
		}
	}
	for _, bad := range []string{"path_prefix=/a", "path_prefix=a/", "depth=-1", "depth=x", "limit=0", "limit=101"} {
		field := strings.SplitN(bad, "=", 2)[0]
		m.fails(http.StatusBadRequest, core.ErrInvalidRequest, field, core.Get, "/v1/memory_stores/"+store+"/memories?"+bad, nil)
	}
	// Pages of two walk the list exactly once.
	var walked []string
	q := url.Values{"limit": {"2"}}
	for range 10 {
		r := m.ok(core.Get, "/v1/memory_stores/"+store+"/memories?"+q.Encode(), nil)
		for _, it := range r.Get("data").Array() {
			walked = append(walked, "memory:"+it.Get("path").String())
		}
		if r.Get("next_page").Type.String() == "Null" {
			break
		}
		q.Set("page", r.Get("next_page").String())
	}
	if !memEqual(walked, cases[0].want) {
		t.Fatalf("walk = %v, want %v", walked, cases[0].want)
	}
	// A token of another store's list is refused.
	other := m.newStore()
	m.newMemory(other, "/1", "")
	m.newMemory(other, "/2", "")
	tok := m.ok(core.Get, "/v1/memory_stores/"+other+"/memories?limit=1", nil).Get("next_page").String()
	m.fails(http.StatusBadRequest, core.ErrInvalidRequest, "page", core.Get, "/v1/memory_stores/"+store+"/memories?page="+url.QueryEscape(tok), nil)
	// Fixtures: the deleted memScratchpad is not listed.
	for _, p := range list("") {
		if strings.Contains(p, "scratch") {
			t.Fatalf("deleted memory listed: %s", p)
		}
	}
}

// TestMemoryOddInputIs4xx: malformed bodies, wrong types and odd IDs get a 4xx envelope, never
// a 5xx or a panic (NewTestServer fails the test on a panic), and change nothing.
func TestMemoryOddInputIs4xx(t *testing.T) {
	m := newMemTester(t)
	store := m.newStore()
	mem := m.newMemory(store, "/odd.md", "odd").Get("id").String()
	bodies := []any{"", "null", "[]", "42", `"x"`, "{", `{"content": 1}`, `{"path": ["a"]}`, `{"precondition": "x"}`,
		`{"precondition": {"type": "content_sha256", "content_sha256": 5}}`, `{"metadata": []}`, `{"name": null}`,
		`{"content": "a"} {"content": "b"}`, `{"unknown": true}`}
	targets := []struct{ method, path string }{
		{core.Post, "/v1/memory_stores"},
		{core.Post, "/v1/memory_stores/" + store},
		{core.Post, "/v1/memory_stores/" + store + "/memories"},
		{core.Post, "/v1/memory_stores/" + store + "/memories/" + mem},
	}
	for _, tg := range targets {
		for _, b := range bodies {
			r := m.do(tg.method, tg.path, b)
			if r.status >= 500 || (r.status != 200 && r.body.Get("type").String() != "error") {
				t.Fatalf("%s %s with %v = %d %s", tg.method, tg.path, b, r.status, r.body.Raw)
			}
		}
	}
	for _, id := range []string{"%00", "..", "mem_%2F..%2F", strings.Repeat("x", 5000), "%F0%9F%98%80"} {
		for _, p := range []string{"/v1/memory_stores/" + id, "/v1/memory_stores/" + store + "/memories/" + id, "/v1/memory_stores/" + store + "/memory_versions/" + id} {
			if r := m.do(core.Get, p, nil); r.status != http.StatusNotFound {
				t.Fatalf("GET %s = %d %s, want 404", p, r.status, r.body.Raw)
			}
		}
	}
	m.fails(http.StatusRequestEntityTooLarge, core.ErrRequestTooLarge, "", core.Post, "/v1/memory_stores/"+store+"/memories", `{"path":"/big","content":"`+strings.Repeat("x", 2<<20)+`"}`)
	if got := m.ok(core.Get, "/v1/memory_stores/"+store+"/memories/"+mem, nil); got.Get("content").String() != "odd" {
		t.Fatalf("odd input changed the memory: %s", got.Raw)
	}
	if n := len(m.versions(store, url.Values{})); n != 1 {
		t.Fatalf("odd input appended versions: %d", n)
	}
}
