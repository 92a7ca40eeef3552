package memory

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"

	. "github.com/onsi/gomega"
	"github.com/tidwall/gjson"
	"golang.org/x/text/unicode/norm"

	"github.com/platformkit/platformkit/conformance/kit"
)

// Memory stores (spec 2.13–2.15, 3.5, 4.7, 8; gaps §7). Every check that writes makes its own
// store and deletes it at the end; pre-existing stores are only read.

const StoresPath = "/v1/memory_stores"

// memBeta is the beta value clients send on every memory-store call (spec 9.3).
var memBeta = http.Header{"vendor-beta": {"managed-agents-2026-04-01"}}

// Req is a memory-store request with the beta header.
func Req(method, path string, query url.Values, body any, schema string) kit.Request {
	return kit.Request{Area: kit.Memory, Method: method, Path: path, Query: query, Body: body, Schema: schema, Header: memBeta}
}

// NewStore creates a store for the check and registers its deletion. A target that does
// not offer store creation (gaps §7) makes the check unsupported.
func NewStore(t *kit.T) string {
	resp := t.Do(Req(http.MethodPost, StoresPath, nil, map[string]any{"name": "conformance check", "description": "created by the conformance suite; safe to delete"}, "memory/memory_store"))
	t.UnsupportedIfAbsent(resp, "the target does not create memory stores: %s", resp)
	t.Expect(resp.Status).To(Equal(http.StatusOK), "%s", resp)
	id := resp.Get("id").String()
	t.Cleanup("delete memory store "+id, t.Delete(Req(http.MethodDelete, StoresPath+"/"+id, nil, nil, "")))
	return id
}

// NewMemory creates a memory in the store and returns it (view=full).
func NewMemory(t *kit.T, store, path, content string) gjson.Result {
	return t.OK(Req(http.MethodPost, StoresPath+"/"+store+"/memories", url.Values{"view": {"full"}},
		map[string]any{"path": path, "content": content}, "memory/memory")).JSON()
}

// precondition is the update precondition of spec 4.7 on the content hash h.
func memPrecondition(h string) map[string]any {
	return map[string]any{"type": "content_sha256", "content_sha256": h}
}

// updateMemory sends an update and returns the response.
func updateMemory(t *kit.T, store, id string, body map[string]any) *kit.Response {
	return t.Do(Req(http.MethodPost, StoresPath+"/"+store+"/memories/"+id, url.Values{"view": {"full"}}, body, "memory/memory"))
}

// getMemory reads a memory with view=full.
func getMemory(t *kit.T, store, id string) gjson.Result {
	return t.OK(Req(http.MethodGet, StoresPath+"/"+store+"/memories/"+id, url.Values{"view": {"full"}}, nil, "memory/memory")).JSON()
}

// memWalk walks the page-token list of r to its end, calling visit with each item.
func memWalk(t *kit.T, r kit.Request, visit func(item gjson.Result)) {
	for _, it := range t.WalkPages(r, 0) {
		visit(it)
	}
}

// ListVersions walks a store's version list with the query and returns the versions.
func ListVersions(t *kit.T, store string, q url.Values) []gjson.Result {
	var out []gjson.Result
	memWalk(t, Req(http.MethodGet, StoresPath+"/"+store+"/memory_versions", q, nil, "memory/memory_version_list"),
		func(v gjson.Result) { out = append(out, v) })
	return out
}

// ListStores walks the store list with the query and returns the stores.
func ListStores(t *kit.T, q url.Values) []gjson.Result {
	var out []gjson.Result
	memWalk(t, Req(http.MethodGet, StoresPath, q, nil, "memory/memory_store_list"), func(s gjson.Result) { out = append(out, s) })
	return out
}

// listMemoryItems walks a store's memory list with the query; items read "type:path".
func listMemoryItems(t *kit.T, store string, q url.Values) []string {
	var out []string
	memWalk(t, Req(http.MethodGet, StoresPath+"/"+store+"/memories", q, nil, "memory/memory_list"), func(it gjson.Result) {
		out = append(out, it.Get("type").String()+":"+it.Get("path").String())
	})
	return out
}

// memExpectRejected requires a client error with the envelope: the specification says the input
// is rejected without naming the status (gaps §1 makes it 400, checked apart).
func memExpectRejected(t *kit.T, resp *kit.Response) {
	t.ExpectWithOffset(1, resp.Status).To(BeNumerically(">=", 400), "%s", resp)
	t.ExpectWithOffset(1, resp.Status).To(BeNumerically("<", 500), "%s", resp)
	t.ExpectWithOffset(1, resp.Get("type").String()).To(Equal("error"), "%s", resp)
}

// memExpectNewestFirst requires versions ordered by created_at descending with id breaking ties.
func memExpectNewestFirst(t *kit.T, versions []gjson.Result) {
	for i := 1; i < len(versions); i++ {
		a, b := versions[i-1], versions[i]
		at, bt := a.Get("created_at").Time(), b.Get("created_at").Time()
		t.ExpectWithOffset(1, at.Before(bt)).To(BeFalse(), "%s listed before the newer %s", a.Get("id"), b.Get("id"))
		if at.Equal(bt) {
			t.ExpectWithOffset(1, a.Get("id").String() > b.Get("id").String()).To(BeTrue(), "tie at %s: %s listed before %s", at, a.Get("id"), b.Get("id"))
		}
	}
}

// memPreExistingVersions returns every version of every store the key sees, archived included.
func memPreExistingVersions(t *kit.T) []gjson.Result {
	var out []gjson.Result
	for _, s := range ListStores(t, url.Values{"include_archived": {"true"}, "limit": {"100"}}) {
		out = append(out, ListVersions(t, s.Get("id").String(), url.Values{"limit": {"100"}})...)
	}
	return out
}

// init registers the memory-store checks with the suite.
func init() {
	kit.Register(kit.InterfaceChecks(kit.Memory, StoresPath, "memory/memory_store_list")...)
	kit.Register(memoryStoreChecks...)
	kit.Register(memoryChecks...)
	kit.Register(memoryVersionChecks...)
}

var memoryStoreChecks = []kit.Check{
	{ID: "memory/store-list-newest-first", Clause: "4.7", Labels: []kit.Label{kit.Memory},
		Title: "the store list is ordered newest first",
		Run: func(t *kit.T) {
			// Two stores of the check's own, a stamp's resolution apart, so that their order is
			// not a tie.
			older := NewStore(t)
			kit.LetTimePass(t)
			newer := NewStore(t)
			stores := ListStores(t, url.Values{"include_archived": {"true"}, "limit": {"100"}})
			ids := kit.IDsOf(stores)
			t.Expect(ids).To(ContainElements(older, newer), "the list holds the stores just created")
			t.Expect(slices.Index(ids, newer)).To(BeNumerically("<", slices.Index(ids, older)), "the newer store %s is listed before the older %s", newer, older)
			for i := 1; i < len(stores); i++ {
				t.Expect(stores[i-1].Get("created_at").Time().Before(stores[i].Get("created_at").Time())).To(BeFalse(),
					"%s listed before the newer %s", stores[i-1].Get("id"), stores[i].Get("id"))
			}
		},
		Bug: &kit.Bug{Says: "the store list is oldest first", Want: "listed before the older",
			Break: kit.InRouteOKAnswers(http.MethodGet, StoresRoute, func(_ *http.Request, m map[string]any) {
				if data, ok := m["data"].([]any); ok {
					slices.Reverse(data)
				}
			})}},
	{ID: "memory/store-list-archived-excluded", Clause: "3.5", Labels: []kit.Label{kit.Memory},
		Title: "archived stores are left out of the list unless include_archived is true",
		Run: func(t *kit.T) {
			// A store of the check's own, archived, so that there is one to leave out.
			mine := NewStore(t)
			t.OK(Req(http.MethodPost, StoresPath+"/"+mine+"/archive", nil, nil, "memory/memory_store"))
			all := ListStores(t, url.Values{"include_archived": {"true"}, "limit": {"100"}})
			t.Expect(kit.IDsOf(all)).To(ContainElement(mine), "include_archived=true lists the archived store %s", mine)
			live := []string{}
			for _, s := range all {
				if s.Get("archived_at").Type != gjson.String {
					live = append(live, s.Get("id").String())
				}
			}
			t.Expect(kit.IDsOf(ListStores(t, url.Values{"limit": {"100"}}))).To(Equal(live), "the default list holds exactly the stores that are not archived")
			t.Expect(kit.IDsOf(ListStores(t, url.Values{"include_archived": {"false"}, "limit": {"100"}}))).To(Equal(live), "include_archived=false lists exactly the stores that are not archived")
		},
		Bug: &kit.Bug{Says: "archived stores are listed without include_archived", Want: "not archived",
			Break: kit.InRouteQuery(http.MethodGet, StoresRoute, func(q url.Values) {
				if !q.Has("include_archived") {
					q.Set("include_archived", "true")
				}
			})}},
	{ID: "memory/store-list-created-at-inclusive", Clause: "4.7", Labels: []kit.Label{kit.Memory},
		Title: "created_at[gte] and created_at[lte] are inclusive bounds on creation time",
		Run: func(t *kit.T) {
			id := NewStore(t)
			created := t.OK(Req(http.MethodGet, StoresPath+"/"+id, nil, nil, "memory/memory_store")).Get("created_at").String()
			got := kit.IDsOf(ListStores(t, url.Values{"created_at[gte]": {created}, "created_at[lte]": {created}, "limit": {"100"}}))
			t.Expect(got).To(ContainElement(id))
			for _, s := range ListStores(t, url.Values{"created_at[gte]": {created}, "include_archived": {"true"}, "limit": {"100"}}) {
				t.Expect(s.Get("created_at").Time().Before(gjson.Parse(`"` + created + `"`).Time())).To(BeFalse())
			}
		},
		Bug: &kit.Bug{Says: "created_at[gte] and created_at[lte] are exclusive bounds", Break: kit.InRouteQuery(http.MethodGet, StoresRoute, mwtShiftBounds)}},
	{ID: "memory/store-list-empty", Clause: "4.7", Labels: []kit.Label{kit.Memory},
		Title: "a store list that matches nothing is an empty array with next_page null",
		Run: func(t *kit.T) {
			t.NoItemsNeeded()
			resp := t.OK(Req(http.MethodGet, StoresPath, url.Values{"created_at[gte]": {"2999-01-01T00:00:00Z"}}, nil, "memory/memory_store_list"))
			t.Expect(resp.Get("data").IsArray()).To(BeTrue())
			t.Expect(resp.Get("data.#").Int()).To(BeZero())
			t.Expect(resp.Get("next_page").Type).To(Equal(gjson.Null))
		},
		Bug: &kit.Bug{Says: "a store list that matches nothing still offers a next_page token",
			Break: kit.InRouteOKAnswers(http.MethodGet, StoresRoute, func(_ *http.Request, m map[string]any) {
				if data, _ := m["data"].([]any); len(data) == 0 {
					m["next_page"] = "page_after_nothing"
				}
			})}},
	{ID: "memory/store-list-limit", Clause: "8", Labels: []kit.Label{kit.Memory},
		Title: "the store list takes limit 1 to 100 and a page holds at most limit stores",
		Run: func(t *kit.T) {
			NewStore(t)
			NewStore(t)
			for _, n := range []int{1, 100} {
				resp := t.OK(Req(http.MethodGet, StoresPath, url.Values{"limit": {fmt.Sprint(n)}}, nil, "memory/memory_store_list"))
				t.Expect(resp.Get("data.#").Int()).To(BeNumerically("<=", n))
			}
			all := len(ListStores(t, url.Values{"limit": {"100"}}))
			resp := t.OK(Req(http.MethodGet, StoresPath, nil, nil, "memory/memory_store_list"))
			t.Expect(resp.Get("data.#").Int()).To(BeNumerically("==", min(all, 20)), "default limit 20")
		},
		Bug: &kit.Bug{Says: "the store list ignores limit", Break: kit.IgnoresQuery(kit.On(http.MethodGet, StoresRoute), "limit")}},
	{ID: "memory/store-list-limit-range-400", Clause: "gaps §3", Labels: []kit.Label{kit.Memory, kit.Extension},
		Title: "a store-list limit outside 1 to 100 is refused with 400 naming limit",
		Run: func(t *kit.T) {
			for _, bad := range []string{"0", "101", "-1", "many"} {
				resp := t.Do(Req(http.MethodGet, StoresPath, url.Values{"limit": {bad}}, nil, ""))
				t.ExpectError(resp, http.StatusBadRequest, "invalid_request_error")
				t.Expect(resp.Get("error.message").String()).To(ContainSubstring("limit"))
			}
		},
		Bug: &kit.Bug{Says: "a store-list limit outside 1 to 100 is ignored instead of refused", Want: "400", Break: kit.IgnoresInvalidQuery(http.MethodGet, StoresRoute, "limit")}},
	{ID: "memory/store-list-page-tokens", Clause: "2.1", Labels: []kit.Label{kit.Memory},
		Title: "paging the store list with next_page returns each store exactly once, in order",
		Run: func(t *kit.T) {
			NewStore(t)
			NewStore(t)
			q := url.Values{"include_archived": {"true"}}
			all := kit.IDsOf(ListStores(t, url.Values{"include_archived": {"true"}, "limit": {"100"}}))
			q.Set("limit", "1")
			t.Expect(kit.IDsOf(ListStores(t, q))).To(Equal(all))
		},
		Bug: &kit.Bug{Says: "the first page of one store says no page follows though more stores do",
			Break: kit.InRouteOKAnswers(http.MethodGet, StoresRoute, func(r *http.Request, m map[string]any) {
				if q := r.URL.Query(); q.Get("limit") == "1" && !q.Has("page") {
					m["next_page"] = nil
				}
			})}},
	{ID: "memory/page-token-forged-400", Clause: "gaps §3", Labels: []kit.Label{kit.Memory, kit.Extension},
		Title: "a forged page token is refused with 400 naming page",
		Run: func(t *kit.T) {
			store := NewStore(t)
			for _, p := range []string{StoresPath, StoresPath + "/" + store + "/memories", StoresPath + "/" + store + "/memory_versions"} {
				resp := t.Do(Req(http.MethodGet, p, url.Values{"page": {"not-a-token"}}, nil, ""))
				t.ExpectError(resp, http.StatusBadRequest, "invalid_request_error")
				t.Expect(resp.Get("error.message").String()).To(ContainSubstring("page"))
			}
		},
		Bug: &kit.Bug{Says: "a page token the target cannot read is ignored, as if absent", Want: "400",
			Break: kit.IgnoresInvalidQuery(http.MethodGet, `^/v1/memory_stores(/[^/]+/(memories|memory_versions))?$`, "page")}},
	{ID: "memory/store-create-shape", Clause: "gaps §7", Labels: []kit.Label{kit.Memory, kit.Extension},
		Title: "a created store has a memstore_ ID, description \"\", metadata {} and archived_at null, and reads back the same",
		Run: func(t *kit.T) {
			resp := t.OK(Req(http.MethodPost, StoresPath, nil, map[string]any{"name": "conformance check"}, "memory/memory_store"))
			id := resp.Get("id").String()
			t.Cleanup("delete memory store "+id, t.Delete(Req(http.MethodDelete, StoresPath+"/"+id, nil, nil, "")))
			t.Expect(id).To(HavePrefix("memstore_"))
			t.Expect(resp.Get("type").String()).To(Equal("memory_store"))
			t.Expect(resp.Get("description").String()).To(Equal(""))
			t.Expect(resp.Get("description").Exists()).To(BeTrue())
			t.Expect(resp.Get("metadata").Raw).To(Equal("{}"))
			t.Expect(resp.Get("archived_at").Type).To(Equal(gjson.Null))
			t.Expect(resp.Get("archived_at").Exists()).To(BeTrue())
			again := t.OK(Req(http.MethodGet, StoresPath+"/"+id, nil, nil, "memory/memory_store"))
			t.Expect(again.JSON().Raw).To(MatchJSON(resp.JSON().Raw))
		},
		Bug: &kit.Bug{Says: "a created store is answered without its description",
			Break: kit.InRouteOKAnswers(http.MethodPost, StoresRoute, func(_ *http.Request, m map[string]any) { delete(m, "description") })}},
	{ID: "memory/store-field-limits", Clause: "8", Labels: []kit.Label{kit.Memory},
		Title: "store name 1 to 255 characters, description up to 1024, metadata up to 16 pairs with keys 1 to 64 and values up to 512 characters",
		Run: func(t *kit.T) {
			store := NewStore(t)
			path := StoresPath + "/" + store
			meta := func(n, klen, vlen int) map[string]string {
				out := map[string]string{}
				for i := range n {
					out[fmt.Sprintf("%0*d", klen, i)] = strings.Repeat("v", vlen)
				}
				return out
			}
			for _, ok := range []map[string]any{
				{"name": strings.Repeat("é", 255)}, {"name": "x"}, {"description": strings.Repeat("d", 1024)},
				{"metadata": meta(16, 64, 512)},
			} {
				t.OK(Req(http.MethodPost, path, nil, ok, "memory/memory_store"))
			}
			before := t.OK(Req(http.MethodGet, path, nil, nil, "memory/memory_store")).JSON().Raw
			for _, bad := range []map[string]any{
				{"name": ""}, {"name": strings.Repeat("é", 256)}, {"description": strings.Repeat("d", 1025)},
				{"metadata": map[string]string{"one-more": "v"}}, {"metadata": meta(1, 65, 1)}, {"metadata": map[string]string{"": "v"}},
				{"metadata": map[string]string{"k": strings.Repeat("v", 513)}},
			} {
				memExpectRejected(t, t.Do(Req(http.MethodPost, path, nil, bad, "memory/memory_store")))
			}
			for _, bad := range []map[string]any{{}, {"name": ""}, {"name": strings.Repeat("n", 256)}} {
				memExpectRejected(t, t.Do(Req(http.MethodPost, StoresPath, nil, bad, "memory/memory_store")))
			}
			t.Expect(t.OK(Req(http.MethodGet, path, nil, nil, "memory/memory_store")).JSON().Raw).To(MatchJSON(before), "rejected updates changed the store")
		},
		Bug: &kit.Bug{Says: "a store name's 255 limit is counted in bytes, not characters",
			Break: kit.RefusesBody(http.MethodPost, `^/v1/memory_stores(/[^/]+)?$`, func(b map[string]any) bool { return len(kit.Str(b, "name")) > 255 }, "name: at most 255 bytes")}},
	{ID: "memory/store-update-metadata-patch", Clause: "gaps §7", Labels: []kit.Label{kit.Memory, kit.Extension},
		Title: "a store update patches metadata (a string upserts, null deletes) and leaves other fields alone",
		Run: func(t *kit.T) {
			store := NewStore(t)
			path := StoresPath + "/" + store
			t.OK(Req(http.MethodPost, path, nil, map[string]any{"metadata": map[string]any{"a": "1", "b": "2"}}, "memory/memory_store"))
			resp := t.OK(Req(http.MethodPost, path, nil, map[string]any{"metadata": map[string]any{"a": nil, "c": "3"}}, "memory/memory_store"))
			t.Expect(resp.Get("metadata").Raw).To(MatchJSON(`{"b":"2","c":"3"}`))
			t.Expect(resp.Get("name").String()).To(Equal("conformance check"))
			t.Expect(resp.Get("description").String()).To(Equal("created by the conformance suite; safe to delete"))
		},
		Bug: &kit.Bug{Says: "a metadata key set to null in a store update is kept, not deleted",
			Break: kit.InRouteRequests(http.MethodPost, StoreRoute, func(_ *http.Request, b map[string]any) {
				if meta, ok := b["metadata"].(map[string]any); ok {
					for k, v := range meta {
						if v == nil {
							delete(meta, k)
						}
					}
				}
			})}},
	{ID: "memory/store-metadata-returned", Clause: "2.13", Labels: []kit.Label{kit.Memory},
		Title: "store metadata is returned on retrieve and on list",
		Run: func(t *kit.T) {
			store := NewStore(t)
			t.OK(Req(http.MethodPost, StoresPath+"/"+store, nil, map[string]any{"metadata": map[string]any{"team": "conformance"}}, "memory/memory_store"))
			t.Expect(t.OK(Req(http.MethodGet, StoresPath+"/"+store, nil, nil, "memory/memory_store")).Get("metadata.team").String()).To(Equal("conformance"))
			found := false
			for _, s := range ListStores(t, url.Values{"limit": {"100"}}) {
				if s.Get("id").String() == store {
					found = true
					t.Expect(s.Get("metadata.team").String()).To(Equal("conformance"))
				}
			}
			t.Expect(found).To(BeTrue(), "the new store is not listed")
		},
		Bug: &kit.Bug{Says: "the store list answers every store's metadata empty",
			Break: kit.InRouteOKAnswers(http.MethodGet, StoresRoute, func(_ *http.Request, m map[string]any) {
				kit.EachDataItem(m, func(s map[string]any) { s["metadata"] = map[string]any{} })
			})}},
	{ID: "memory/store-archive-read-only", Clause: "gaps §7", Labels: []kit.Label{kit.Memory, kit.Extension},
		Title: "an archived store is read-only: its memories can be read and deleted and its versions redacted, nothing else",
		Run: func(t *kit.T) {
			store := NewStore(t)
			a := NewMemory(t, store, "/a.md", "a")
			b := NewMemory(t, store, "/b.md", "b")
			arch := t.OK(Req(http.MethodPost, StoresPath+"/"+store+"/archive", nil, nil, "memory/memory_store"))
			t.Expect(arch.Get("archived_at").Type).To(Equal(gjson.String))
			t.ExpectError(t.Do(Req(http.MethodPost, StoresPath+"/"+store+"/memories", nil, map[string]any{"path": "/c.md", "content": ""}, "")), http.StatusBadRequest, "invalid_request_error")
			t.ExpectError(updateMemory(t, store, a.Get("id").String(), map[string]any{"content": "changed"}), http.StatusBadRequest, "invalid_request_error")
			t.ExpectError(t.Do(Req(http.MethodPost, StoresPath+"/"+store, nil, map[string]any{"name": "renamed"}, "")), http.StatusBadRequest, "invalid_request_error")
			t.Expect(getMemory(t, store, a.Get("id").String()).Get("content").String()).To(Equal("a"))
			t.OK(Req(http.MethodPost, StoresPath+"/"+store+"/memory_versions/"+b.Get("memory_version_id").String()+"/redact", nil, nil, "memory/memory_version"))
			t.OK(Req(http.MethodDelete, StoresPath+"/"+store+"/memories/"+a.Get("id").String(), nil, nil, "memory/memory_deleted"))
		},
		Bug: &kit.Bug{Says: "an update of an archived store answers 200 with the store, silently dropping the change", Want: "400", Break: kit.ActionIdempotent(StoreRoute, "")}},
	{ID: "memory/store-archive-retry", Clause: "gaps §7", Labels: []kit.Label{kit.Memory, kit.Extension},
		Title: "archiving an archived store returns it unchanged, and archive is irreversible",
		Run: func(t *kit.T) {
			store := NewStore(t)
			first := t.OK(Req(http.MethodPost, StoresPath+"/"+store+"/archive", nil, nil, "memory/memory_store"))
			second := t.OK(Req(http.MethodPost, StoresPath+"/"+store+"/archive", nil, nil, "memory/memory_store"))
			t.Expect(second.Get("archived_at").String()).To(Equal(first.Get("archived_at").String()))
			t.Expect(kit.IDsOf(ListStores(t, url.Values{"limit": {"100"}}))).NotTo(ContainElement(store))
			t.Expect(kit.IDsOf(ListStores(t, url.Values{"include_archived": {"true"}, "limit": {"100"}}))).To(ContainElement(store))
		},
		Bug: &kit.Bug{Says: "archiving an archived store stamps archived_at anew",
			Break: kit.InRouteOKAnswers(http.MethodPost, `^/v1/memory_stores/[^/]+/archive$`, func(_ *http.Request, m map[string]any) {
				m["archived_at"] = time.Now().UTC().Format(time.RFC3339Nano)
			})}},
	{ID: "memory/store-delete", Clause: "gaps §7", Labels: []kit.Label{kit.Memory, kit.Extension},
		Title: "deleting a store answers {id, type: memory_store_deleted}; the store and its memories are then 404",
		Run: func(t *kit.T) {
			store := NewStore(t)
			m := NewMemory(t, store, "/gone.md", "x")
			resp := t.OK(Req(http.MethodDelete, StoresPath+"/"+store, nil, nil, "memory/memory_store_deleted"))
			t.Expect(resp.Get("id").String()).To(Equal(store))
			t.Expect(resp.Get("type").String()).To(Equal("memory_store_deleted"))
			t.ExpectError(t.Do(Req(http.MethodGet, StoresPath+"/"+store, nil, nil, "")), http.StatusNotFound, "not_found_error")
			t.ExpectError(t.Do(Req(http.MethodGet, StoresPath+"/"+store+"/memories/"+m.Get("id").String(), nil, nil, "")), http.StatusNotFound, "not_found_error")
		},
		Bug: &kit.Bug{Says: "a deleted store still reads 200", Want: "404", Break: kit.DeletedStillReadable(StoreRoute)}},
	{ID: "memory/other-organization-404", Clause: "5", Labels: []kit.Label{kit.Memory, kit.Extension},
		Title: "another organization's store, memories and versions are 404 and never listed",
		Run: func(t *kit.T) {
			if t.Config().APIKey2 == "" {
				t.NeedsSecondOrganization("CONFORMANCE_API_KEY_2")
			}
			store := NewStore(t)
			m := NewMemory(t, store, "/mine.md", "private")
			r := Req(http.MethodGet, StoresPath, url.Values{"include_archived": {"true"}, "limit": {"100"}}, nil, "memory/memory_store_list")
			r.Org2 = true
			t.Expect(kit.IDsOf(t.OK(r).Get("data").Array())).NotTo(ContainElement(store))
			for _, p := range []string{"", "/memories", "/memories/" + m.Get("id").String(), "/memory_versions", "/memory_versions/" + m.Get("memory_version_id").String()} {
				r := Req(http.MethodGet, StoresPath+"/"+store+p, nil, nil, "")
				r.Org2 = true
				t.ExpectError(t.Do(r), http.StatusNotFound, "not_found_error")
			}
			r = Req(http.MethodPost, StoresPath+"/"+store+"/memories/"+m.Get("id").String(), nil, map[string]any{"content": "stolen"}, "")
			r.Org2 = true
			t.ExpectError(t.Do(r), http.StatusNotFound, "not_found_error")
			t.Expect(getMemory(t, store, m.Get("id").String()).Get("content").String()).To(Equal("private"))
		},
		Bug: &kit.Bug{Says: "the memory stores do not tell organizations apart: another organization's key reads the first's stores", Break: kit.AsFirstOrg(`^/v1/memory_stores`)}},
}

var memoryChecks = []kit.Check{
	{ID: "memory/memory-create", Clause: "2.14", Labels: []kit.Label{kit.Memory},
		Title: "a created memory has a mem_ ID, its path, the lowercase hex SHA-256 and UTF-8 size of its content, and a memver_ version",
		Run: func(t *kit.T) {
			store := NewStore(t)
			content := "Grüße, 世界\n"
			m := NewMemory(t, store, "/notes/hello.md", content)
			t.Expect(m.Get("id").String()).To(HavePrefix("mem_"))
			t.Expect(m.Get("type").String()).To(Equal("memory"))
			t.Expect(m.Get("memory_store_id").String()).To(Equal(store))
			t.Expect(m.Get("memory_version_id").String()).To(HavePrefix("memver_"))
			t.Expect(m.Get("path").String()).To(Equal("/notes/hello.md"))
			t.Expect(m.Get("content").String()).To(Equal(content))
			t.Expect(m.Get("content_sha256").String()).To(Equal(kit.SHA256Hex(content)))
			t.Expect(m.Get("content_size_bytes").Int()).To(BeNumerically("==", len(content)))
			t.Expect(getMemory(t, store, m.Get("id").String()).Raw).To(MatchJSON(m.Raw))
		},
		Bug: &kit.Bug{Says: "content_size_bytes counts characters, not UTF-8 bytes",
			Break: kit.InRouteOKAnswers(http.MethodPost, mwtMemories, func(_ *http.Request, m map[string]any) { RuneSizes(m) })}},
	{ID: "memory/memory-create-appends-created", Clause: "3.5", Labels: []kit.Label{kit.Memory},
		Title: "creating a memory appends a created version that memory_version_id points to",
		Run: func(t *kit.T) {
			store := NewStore(t)
			m := NewMemory(t, store, "/c.md", "c")
			vs := ListVersions(t, store, url.Values{"memory_id": {m.Get("id").String()}})
			t.Expect(vs).To(HaveLen(1))
			t.Expect(vs[0].Get("id").String()).To(Equal(m.Get("memory_version_id").String()))
			t.Expect(vs[0].Get("operation").String()).To(Equal("created"))
			t.Expect(vs[0].Get("path").String()).To(Equal("/c.md"))
		},
		Bug: &kit.Bug{Says: "a memory's first version reads operation modified, not created",
			Break: kit.InRouteOKAnswers(http.MethodGet, VersionsRoute, func(_ *http.Request, m map[string]any) {
				kit.EachDataItem(m, func(v map[string]any) {
					if v["operation"] == "created" {
						v["operation"] = "modified"
					}
				})
			})}},
	{ID: "memory/memory-empty-content", Clause: "4.7", Labels: []kit.Label{kit.Memory},
		Title: "an empty string creates an empty memory",
		Run: func(t *kit.T) {
			m := NewMemory(t, NewStore(t), "/empty.md", "")
			t.Expect(m.Get("content_size_bytes").Int()).To(BeZero())
			t.Expect(m.Get("content_sha256").String()).To(Equal(kit.SHA256Hex("")))
		},
		Bug: &kit.Bug{Says: "an empty content is refused", Break: kit.RefusesBody(http.MethodPost, mwtMemories, func(b map[string]any) bool { return b["content"] == "" }, "content: must not be empty")}},
	{ID: "memory/memory-content-required", Clause: "7", Labels: []kit.Label{kit.Memory},
		Title: "creating a memory without content is rejected and creates nothing",
		Run: func(t *kit.T) {
			store := NewStore(t)
			memExpectRejected(t, t.Do(Req(http.MethodPost, StoresPath+"/"+store+"/memories", nil, map[string]any{"path": "/no-content.md"}, "")))
			t.Expect(listMemoryItems(t, store, nil)).To(BeEmpty())
		},
		Bug: &kit.Bug{Says: "a memory created without content is created empty",
			Break: kit.InRouteRequests(http.MethodPost, mwtMemories, func(_ *http.Request, b map[string]any) {
				if _, ok := b["content"]; !ok {
					b["content"] = ""
				}
			})}},
	{ID: "memory/memory-content-limit", Clause: "8", Labels: []kit.Label{kit.Memory},
		Title: "memory content is at most 102,400 bytes, counted in UTF-8 bytes, on create and update",
		Run: func(t *kit.T) {
			store := NewStore(t)
			max := strings.Repeat("é", 51200)
			m := NewMemory(t, store, "/max.md", max)
			t.Expect(m.Get("content_size_bytes").Int()).To(BeNumerically("==", 102400))
			memExpectRejected(t, t.Do(Req(http.MethodPost, StoresPath+"/"+store+"/memories", nil, map[string]any{"path": "/over.md", "content": max + "x"}, "")))
			memExpectRejected(t, updateMemory(t, store, m.Get("id").String(), map[string]any{"content": max + "x"}))
			t.Expect(getMemory(t, store, m.Get("id").String()).Get("content").String()).To(Equal(max))
		},
		Bug: &kit.Bug{Says: "content of exactly 102,400 bytes is refused (the limit is off by one)",
			Break: kit.RefusesBody(http.MethodPost, `^/v1/memory_stores/[^/]+/memories(/[^/]+)?$`, func(b map[string]any) bool { return len(kit.Str(b, "content")) >= 102400 }, "content: too long")}},
	{ID: "memory/memory-path-rule", Clause: "4.7", Labels: []kit.Label{kit.Memory},
		Title: "paths must start with /, have no empty, . or .. segments and no control or format characters, on create and rename",
		Run: func(t *kit.T) {
			store := NewStore(t)
			for _, p := range []string{"/a", "/a/b.md", "/.hidden", "/a..b/c", "/with space"} {
				t.Expect(NewMemory(t, store, p, "").Get("path").String()).To(Equal(p))
			}
			m := NewMemory(t, store, "/rename-me.md", "")
			for _, p := range []string{"", "/", "a.md", "//a", "/a//b", "/a/", "/./a", "/a/..", "/a\x00b", "/a\tb", "/a\u200bb", "/a\u202eb"} {
				memExpectRejected(t, t.Do(Req(http.MethodPost, StoresPath+"/"+store+"/memories", nil, map[string]any{"path": p, "content": ""}, "")))
				memExpectRejected(t, updateMemory(t, store, m.Get("id").String(), map[string]any{"path": p}))
			}
			t.Expect(listMemoryItems(t, store, url.Values{"limit": {"100"}})).To(HaveLen(6), "rejected paths created memories")
		},
		Bug: &kit.Bug{Says: "a path without a leading / is taken as if it had one",
			Break: kit.InRouteRequests(http.MethodPost, `^/v1/memory_stores/[^/]+/memories(/[^/]+)?$`, func(_ *http.Request, b map[string]any) {
				if p, ok := b["path"].(string); ok && p != "" && !strings.HasPrefix(p, "/") {
					b["path"] = "/" + p
				}
			})}},
	{ID: "memory/memory-path-nfc", Clause: "4.7", Labels: []kit.Label{kit.Memory},
		Title: "a path that is not NFC-normalized is rejected; its NFC form is accepted",
		Run: func(t *kit.T) {
			store := NewStore(t)
			memExpectRejected(t, t.Do(Req(http.MethodPost, StoresPath+"/"+store+"/memories", nil, map[string]any{"path": "/Cafe\u0301.md", "content": ""}, "")))
			t.Expect(NewMemory(t, store, "/Caf\u00e9.md", "").Get("path").String()).To(Equal("/Caf\u00e9.md"))
		},
		Bug: &kit.Bug{Says: "a path that is not NFC is normalized instead of rejected",
			Break: kit.InRouteRequests(http.MethodPost, `^/v1/memory_stores/[^/]+/memories(/[^/]+)?$`, func(_ *http.Request, b map[string]any) {
				if p, ok := b["path"].(string); ok {
					b["path"] = norm.NFC.String(p)
				}
			})}},
	{ID: "memory/memory-path-length", Clause: "8", Labels: []kit.Label{kit.Memory},
		Title: "a path is at most 1,024 bytes",
		Run: func(t *kit.T) {
			store := NewStore(t)
			NewMemory(t, store, "/"+strings.Repeat("é", 511)+"x", "")
			memExpectRejected(t, t.Do(Req(http.MethodPost, StoresPath+"/"+store+"/memories", nil, map[string]any{"path": "/" + strings.Repeat("é", 512), "content": ""}, "")))
		},
		Bug: &kit.Bug{Says: "a path of exactly 1,024 bytes is refused (the limit is off by one)",
			Break: kit.RefusesBody(http.MethodPost, `^/v1/memory_stores/[^/]+/memories(/[^/]+)?$`, func(b map[string]any) bool { return len(kit.Str(b, "path")) >= 1024 }, "path: too long")}},
	{ID: "memory/memory-path-case-sensitive", Clause: "2.14", Labels: []kit.Label{kit.Memory},
		Title: "paths are case-sensitive: /Notes.md and /notes.md are two memories",
		Run: func(t *kit.T) {
			store := NewStore(t)
			a, b := NewMemory(t, store, "/Notes.md", "A"), NewMemory(t, store, "/notes.md", "a")
			t.Expect(a.Get("id").String()).NotTo(Equal(b.Get("id").String()))
		},
		Bug: &kit.Bug{Says: "paths are case-folded: /Notes.md and /notes.md are one path",
			Break: kit.InRouteRequests(http.MethodPost, `^/v1/memory_stores/[^/]+/memories(/[^/]+)?$`, func(_ *http.Request, b map[string]any) {
				if p, ok := b["path"].(string); ok {
					b["path"] = strings.ToLower(p)
				}
			})}},
	{ID: "memory/bad-input-400", Clause: "gaps §1", Labels: []kit.Label{kit.Memory, kit.Extension},
		Title: "invalid memory input is answered 400 invalid_request_error naming the field",
		Run: func(t *kit.T) {
			store := NewStore(t)
			for field, body := range map[string]map[string]any{
				"content": {"path": "/x.md"},
				"path":    {"path": "/a//b", "content": ""},
			} {
				resp := t.Do(Req(http.MethodPost, StoresPath+"/"+store+"/memories", nil, body, ""))
				t.ExpectError(resp, http.StatusBadRequest, "invalid_request_error")
				t.Expect(resp.Get("error.message").String()).To(ContainSubstring(field))
			}
			resp := t.Do(Req(http.MethodPost, StoresPath+"/"+store+"/memories", nil, map[string]any{"path": "/big.md", "content": strings.Repeat("x", 102401)}, ""))
			t.ExpectError(resp, http.StatusBadRequest, "invalid_request_error")
			t.Expect(resp.Get("error.message").String()).To(ContainSubstring("content"))
			for field, q := range map[string]url.Values{
				"view":        {"view": {"everything"}},
				"path_prefix": {"path_prefix": {"/no-trailing-slash"}},
				"depth":       {"depth": {"-1"}},
			} {
				resp = t.Do(Req(http.MethodGet, StoresPath+"/"+store+"/memories", q, nil, ""))
				t.ExpectError(resp, http.StatusBadRequest, "invalid_request_error")
				t.Expect(resp.Get("error.message").String()).To(ContainSubstring(field))
			}
			resp = t.Do(Req(http.MethodGet, StoresPath+"/"+store+"/memory_versions", url.Values{"operation": {"renamed"}}, nil, ""))
			t.ExpectError(resp, http.StatusBadRequest, "invalid_request_error")
			t.Expect(resp.Get("error.message").String()).To(ContainSubstring("operation"))
		},
		Bug: &kit.Bug{Says: "a refused memory input's error does not name the field",
			Break: kit.ErrorMessageOnly(func(r *http.Request) bool {
				return regexp.MustCompile(`^/v1/memory_stores/[^/]+/(memories|memory_versions)`).MatchString(r.URL.Path)
			}, "invalid request")}},
	{ID: "memory/memory-path-conflict-409", Clause: "gaps §7", Labels: []kit.Label{kit.Memory, kit.Extension},
		Title: "creating or renaming onto a taken path is 409 memory_path_conflict_error with x-should-retry: false",
		Run: func(t *kit.T) {
			store := NewStore(t)
			NewMemory(t, store, "/taken.md", "first")
			other := NewMemory(t, store, "/other.md", "second")
			resp := t.Do(Req(http.MethodPost, StoresPath+"/"+store+"/memories", nil, map[string]any{"path": "/taken.md", "content": "x"}, ""))
			t.ExpectError(resp, http.StatusConflict, "memory_path_conflict_error")
			t.Expect(resp.Header.Get("x-should-retry")).To(Equal("false"))
			t.ExpectError(updateMemory(t, store, other.Get("id").String(), map[string]any{"path": "/taken.md"}), http.StatusConflict, "memory_path_conflict_error")
			t.Expect(getMemory(t, store, other.Get("id").String()).Get("path").String()).To(Equal("/other.md"))
		},
		Bug: &kit.Bug{Says: "a path conflict is answered 400, not 409", Want: "409",
			Break: kit.RouteAnswersStatus(http.MethodPost, `^/v1/memory_stores/[^/]+/memories(/[^/]+)?$`, http.StatusConflict, http.StatusBadRequest)}},
	{ID: "memory/memory-view", Clause: "2.14", Labels: []kit.Label{kit.Memory},
		Title: "content is populated with view=full and null with view=basic; the hash and size always are",
		Run: func(t *kit.T) {
			store := NewStore(t)
			m := NewMemory(t, store, "/v.md", "body")
			path := StoresPath + "/" + store + "/memories/" + m.Get("id").String()
			basic := t.OK(Req(http.MethodGet, path, url.Values{"view": {"basic"}}, nil, "memory/memory"))
			t.Expect(basic.Get("content").Type).To(Equal(gjson.Null))
			t.Expect(basic.Get("content_sha256").String()).To(Equal(kit.SHA256Hex("body")))
			t.Expect(basic.Get("content_size_bytes").Int()).To(BeNumerically("==", 4))
			full := t.OK(Req(http.MethodGet, path, url.Values{"view": {"full"}}, nil, "memory/memory"))
			t.Expect(full.Get("content").String()).To(Equal("body"))
		},
		Bug: &kit.Bug{Says: "retrieving a memory ignores view", Break: kit.IgnoresQuery(kit.On(http.MethodGet, MemoryRoute), "view")}},
	{ID: "memory/view-defaults", Clause: "gaps §7", Labels: []kit.Label{kit.Memory, kit.Extension},
		Title: "view defaults to full on retrieve (memory and version) and basic on list, create and update",
		Run: func(t *kit.T) {
			store := NewStore(t)
			created := t.OK(Req(http.MethodPost, StoresPath+"/"+store+"/memories", nil, map[string]any{"path": "/d.md", "content": "x"}, "memory/memory"))
			t.Expect(created.Get("content").Type).To(Equal(gjson.Null))
			id := created.Get("id").String()
			t.Expect(t.OK(Req(http.MethodGet, StoresPath+"/"+store+"/memories/"+id, nil, nil, "memory/memory")).Get("content").String()).To(Equal("x"))
			updated := t.OK(Req(http.MethodPost, StoresPath+"/"+store+"/memories/"+id, nil, map[string]any{"content": "y"}, "memory/memory"))
			t.Expect(updated.Get("content").Type).To(Equal(gjson.Null))
			list := t.OK(Req(http.MethodGet, StoresPath+"/"+store+"/memories", nil, nil, "memory/memory_list"))
			t.Expect(list.Get("data.0.content").Type).To(Equal(gjson.Null))
			vs := t.OK(Req(http.MethodGet, StoresPath+"/"+store+"/memory_versions", nil, nil, "memory/memory_version_list"))
			t.Expect(vs.Get("data.0.content").Type).To(Equal(gjson.Null))
			v := t.OK(Req(http.MethodGet, StoresPath+"/"+store+"/memory_versions/"+updated.Get("memory_version_id").String(), nil, nil, "memory/memory_version"))
			t.Expect(v.Get("content").String()).To(Equal("y"))
		},
		Bug: &kit.Bug{Says: "creating a memory answers its content without view=full",
			Break: kit.InRouteQuery(http.MethodPost, mwtMemories, func(q url.Values) {
				if !q.Has("view") {
					q.Set("view", "full")
				}
			})}},
	{ID: "memory/rename-keeps-id", Clause: "2.14", Labels: []kit.Label{kit.Memory},
		Title: "a rename keeps the memory's id and frees the old path",
		Run: func(t *kit.T) {
			store := NewStore(t)
			m := NewMemory(t, store, "/old.md", "x")
			resp := updateMemory(t, store, m.Get("id").String(), map[string]any{"path": "/new/place.md"})
			t.Expect(resp.Status).To(Equal(http.StatusOK), "%s", resp)
			t.Expect(resp.Get("id").String()).To(Equal(m.Get("id").String()))
			t.Expect(resp.Get("path").String()).To(Equal("/new/place.md"))
			t.Expect(resp.Get("content").String()).To(Equal("x"))
			NewMemory(t, store, "/old.md", "reused")
		},
		Bug: &kit.Bug{Says: "a rename does not free the old path: a new memory there is refused as a conflict", Want: "409", Break: mwtRenameKeepsOldPath}},
	{ID: "memory/update-appends-one-version", Clause: "3.5", Labels: []kit.Label{kit.Memory},
		Title: "every update that changes content or path appends exactly one modified version, and memory_version_id points to it",
		Run: func(t *kit.T) {
			store := NewStore(t)
			m := NewMemory(t, store, "/u.md", "1")
			id := m.Get("id").String()
			for i, body := range []map[string]any{{"content": "2"}, {"path": "/u2.md"}, {"content": "3", "path": "/u3.md"}} {
				resp := updateMemory(t, store, id, body)
				t.Expect(resp.Status).To(Equal(http.StatusOK), "%s", resp)
				vs := ListVersions(t, store, url.Values{"memory_id": {id}})
				t.Expect(vs).To(HaveLen(i+2), "after update %v", body)
				t.Expect(vs[0].Get("operation").String()).To(Equal("modified"))
				t.Expect(vs[0].Get("id").String()).To(Equal(resp.Get("memory_version_id").String()))
			}
		},
		Bug: &kit.Bug{Says: "an update answers the memory_version_id the memory had before it, not its new version", Break: mwtStaleVersionID}},
	{ID: "memory/update-noop-appends-none", Clause: "3.5", Labels: []kit.Label{kit.Memory},
		Title: "an update that changes nothing appends no version",
		Run: func(t *kit.T) {
			store := NewStore(t)
			m := NewMemory(t, store, "/same.md", "same")
			id := m.Get("id").String()
			for _, body := range []map[string]any{{"content": "same"}, {"path": "/same.md"}, {"content": "same", "path": "/same.md"}, {}} {
				resp := updateMemory(t, store, id, body)
				t.Expect(resp.Status).To(Equal(http.StatusOK), "%s", resp)
				t.Expect(resp.Get("memory_version_id").String()).To(Equal(m.Get("memory_version_id").String()))
			}
			t.Expect(ListVersions(t, store, url.Values{"memory_id": {id}})).To(HaveLen(1))
		},
		Bug: &kit.Bug{Says: "an update that changes nothing answers a new memory_version_id", Break: mwtNoopNewVersion}},
	{ID: "memory/precondition-applies-on-match", Clause: "4.7", Labels: []kit.Label{kit.Memory},
		Title: "an update whose precondition hash equals the stored hash applies",
		Run: func(t *kit.T) {
			store := NewStore(t)
			m := NewMemory(t, store, "/p.md", "v1")
			resp := updateMemory(t, store, m.Get("id").String(), map[string]any{"content": "v2",
				"precondition": memPrecondition(m.Get("content_sha256").String())})
			t.Expect(resp.Status).To(Equal(http.StatusOK), "%s", resp)
			t.Expect(resp.Get("content").String()).To(Equal("v2"))
		},
		Bug: &kit.Bug{Says: "a matching precondition hash is refused: the target compares it with another hash",
			Break: kit.InRouteRequests(http.MethodPost, MemoryRoute, func(_ *http.Request, b map[string]any) {
				if p, ok := b["precondition"].(map[string]any); ok {
					p["content_sha256"] = strings.Repeat("0", 64)
				}
			})}},
	{ID: "memory/precondition-mismatch-409", Clause: "4.7", Labels: []kit.Label{kit.Memory},
		Title: "an update whose precondition hash mismatches fails with 409 memory_precondition_failed_error and changes nothing",
		Run: func(t *kit.T) {
			store := NewStore(t)
			m := NewMemory(t, store, "/p.md", "v1")
			id := m.Get("id").String()
			updateMemory(t, store, id, map[string]any{"content": "v2"})
			resp := updateMemory(t, store, id, map[string]any{"content": "v3",
				"precondition": memPrecondition(kit.SHA256Hex("v1"))})
			t.ExpectError(resp, http.StatusConflict, "memory_precondition_failed_error")
			t.Expect(getMemory(t, store, id).Get("content").String()).To(Equal("v2"))
			t.Expect(ListVersions(t, store, url.Values{"memory_id": {id}})).To(HaveLen(2))
		},
		Bug: &kit.Bug{Says: "an update's precondition is ignored", Want: "409",
			Break: kit.InRouteRequests(http.MethodPost, MemoryRoute, func(_ *http.Request, b map[string]any) { delete(b, "precondition") })}},
	{ID: "memory/precondition-one-winner", Clause: "4.7", Labels: []kit.Label{kit.Memory},
		Title: "of concurrent updates that carry the same precondition, exactly one applies and the others fail with 409",
		Run: func(t *kit.T) {
			store := NewStore(t)
			m := NewMemory(t, store, "/race.md", "base")
			const writers = 8
			statuses := make([]int, writers)
			errs := make([]error, writers)
			var wg sync.WaitGroup
			for i := range writers {
				wg.Add(1)
				go func() {
					defer wg.Done()
					r := Req(http.MethodPost, StoresPath+"/"+store+"/memories/"+m.Get("id").String(), nil,
						map[string]any{"content": fmt.Sprint("writer ", i), "precondition": memPrecondition(kit.SHA256Hex("base"))}, "")
					resp, err := t.Target.Client.Do(context.Background(), &r)
					if errs[i] = err; err == nil {
						statuses[i] = resp.Status
					}
				}()
			}
			wg.Wait()
			won := 0
			for i := range writers {
				t.Expect(errs[i]).NotTo(HaveOccurred())
				t.Expect(statuses[i]).To(BeElementOf(http.StatusOK, http.StatusConflict))
				if statuses[i] == http.StatusOK {
					won++
				}
			}
			t.Expect(won).To(Equal(1), "statuses %v", statuses)
			t.Expect(ListVersions(t, store, url.Values{"memory_id": {m.Get("id").String()}})).To(HaveLen(2))
		},
		Bug: &kit.Bug{Says: "an update's precondition is ignored, so every concurrent writer wins",
			Break: kit.InRouteRequests(http.MethodPost, MemoryRoute, func(_ *http.Request, b map[string]any) { delete(b, "precondition") })}},
	{ID: "memory/conflict-no-retry-header", Clause: "gaps §1", Labels: []kit.Label{kit.Memory, kit.Extension},
		Title: "a precondition 409 carries x-should-retry: false",
		Run: func(t *kit.T) {
			store := NewStore(t)
			m := NewMemory(t, store, "/p.md", "v1")
			resp := updateMemory(t, store, m.Get("id").String(), map[string]any{"content": "v3",
				"precondition": memPrecondition(kit.SHA256Hex("something else"))})
			t.ExpectError(resp, http.StatusConflict, "memory_precondition_failed_error")
			t.Expect(resp.Header.Get("x-should-retry")).To(Equal("false"))
		},
		Bug: &kit.Bug{Says: "a precondition 409 lacks x-should-retry: false",
			Break: kit.InAnswers(kit.On(http.MethodPost, MemoryRoute), func(_ *http.Request, _ int, h http.Header, b []byte) []byte {
				h.Del("x-should-retry")
				return b
			})}},
	{ID: "memory/precondition-already-applied-200", Clause: "4.7", Labels: []kit.Label{kit.Memory},
		Title: "a failing precondition whose requested content and path already equal the stored state answers 200 and appends nothing",
		Run: func(t *kit.T) {
			store := NewStore(t)
			m := NewMemory(t, store, "/p.md", "v1")
			id := m.Get("id").String()
			body := map[string]any{"content": "v2", "path": "/p.md", "precondition": memPrecondition(kit.SHA256Hex("v1"))}
			t.Expect(updateMemory(t, store, id, body).Status).To(Equal(http.StatusOK))
			resp := updateMemory(t, store, id, body) // the retry of a write that landed
			t.Expect(resp.Status).To(Equal(http.StatusOK), "%s", resp)
			t.Expect(resp.Get("content").String()).To(Equal("v2"))
			t.Expect(ListVersions(t, store, url.Values{"memory_id": {id}})).To(HaveLen(2))
		},
		Bug: &kit.Bug{Says: "a failing precondition is 409 even when the update has already been applied", Break: mwtStrictPrecondition}},
	{ID: "memory/content-hash-no-normalization", Clause: "2.14", Labels: []kit.Label{kit.Memory},
		Title: "content_sha256 is of the UTF-8 bytes sent, without normalization",
		Run: func(t *kit.T) {
			m := NewMemory(t, NewStore(t), "/nfd.md", "Cafe\u0301")
			t.Expect(m.Get("content").String()).To(Equal("Cafe\u0301"))
			t.Expect(m.Get("content_sha256").String()).To(Equal(kit.SHA256Hex("Cafe\u0301")))
			t.Expect(m.Get("content_size_bytes").Int()).To(BeNumerically("==", 6))
		},
		Bug: &kit.Bug{Says: "content is NFC-normalized before it is stored and hashed",
			Break: kit.InRouteRequests(http.MethodPost, mwtMemories, func(_ *http.Request, b map[string]any) {
				if c, ok := b["content"].(string); ok {
					b["content"] = norm.NFC.String(c)
				}
			})}},
	{ID: "memory/memory-list-prefix-depth", Clause: "gaps §7", Labels: []kit.Label{kit.Memory, kit.Extension},
		Title: "the memory list filters by a path_prefix of whole segments and rolls deeper paths into memory_prefix items with depth",
		Run: func(t *kit.T) {
			store := NewStore(t)
			for _, p := range []string{"/a/1.md", "/a/b/2.md", "/a/b/c/3.md", "/ab/4.md", "/z.md"} {
				NewMemory(t, store, p, "")
			}
			all := listMemoryItems(t, store, nil)
			t.Expect(all).To(ConsistOf("memory:/a/1.md", "memory:/a/b/2.md", "memory:/a/b/c/3.md", "memory:/ab/4.md", "memory:/z.md"))
			t.Expect(listMemoryItems(t, store, url.Values{"path_prefix": {"/a/"}})).To(ConsistOf("memory:/a/1.md", "memory:/a/b/2.md", "memory:/a/b/c/3.md"))
			t.Expect(listMemoryItems(t, store, url.Values{"path_prefix": {"/a/"}, "depth": {"1"}})).To(ConsistOf("memory:/a/1.md", "memory_prefix:/a/b/"))
			t.Expect(listMemoryItems(t, store, url.Values{"depth": {"1"}})).To(ConsistOf("memory_prefix:/a/", "memory_prefix:/ab/", "memory:/z.md"))
			t.Expect(listMemoryItems(t, store, url.Values{"depth": {"0"}})).To(ConsistOf(all))
		},
		Bug: &kit.Bug{Says: "the memory list ignores depth", Break: kit.IgnoresQuery(kit.On(http.MethodGet, mwtMemories), "depth")}},
	{ID: "memory/memory-list-pages", Clause: "gaps §7", Labels: []kit.Label{kit.Memory, kit.Extension},
		Title: "the memory list takes limit 1 to 100 and page tokens, and returns each memory exactly once",
		Run: func(t *kit.T) {
			store := NewStore(t)
			for i := range 5 {
				NewMemory(t, store, fmt.Sprintf("/m%d.md", i), "")
			}
			all := listMemoryItems(t, store, url.Values{"limit": {"100"}})
			t.Expect(all).To(HaveLen(5))
			t.Expect(listMemoryItems(t, store, url.Values{"limit": {"2"}})).To(Equal(all))
			for _, bad := range []string{"0", "101"} {
				t.ExpectError(t.Do(Req(http.MethodGet, StoresPath+"/"+store+"/memories", url.Values{"limit": {bad}}, nil, "")), http.StatusBadRequest, "invalid_request_error")
			}
		},
		Bug: &kit.Bug{Says: "the memory list ignores limit", Break: kit.IgnoresQuery(kit.On(http.MethodGet, mwtMemories), "limit")}},
	{ID: "memory/memory-delete", Clause: "gaps §7", Labels: []kit.Label{kit.Memory, kit.Extension},
		Title: "deleting a memory answers {id, type: memory_deleted}, appends a deleted version, and the memory is then 404",
		Run: func(t *kit.T) {
			store := NewStore(t)
			m := NewMemory(t, store, "/bye.md", "bye")
			id := m.Get("id").String()
			resp := t.OK(Req(http.MethodDelete, StoresPath+"/"+store+"/memories/"+id, nil, nil, "memory/memory_deleted"))
			t.Expect(resp.Get("id").String()).To(Equal(id))
			t.Expect(resp.Get("type").String()).To(Equal("memory_deleted"))
			t.ExpectError(t.Do(Req(http.MethodGet, StoresPath+"/"+store+"/memories/"+id, nil, nil, "")), http.StatusNotFound, "not_found_error")
			vs := ListVersions(t, store, url.Values{"memory_id": {id}})
			t.Expect(vs).To(HaveLen(2))
			t.Expect(vs[0].Get("operation").String()).To(Equal("deleted"))
			t.Expect(listMemoryItems(t, store, nil)).To(BeEmpty())
		},
		Bug: &kit.Bug{Says: "a deleted memory still reads 200", Want: "404", Break: kit.DeletedStillReadable(MemoryRoute)}},
	{ID: "memory/memory-delete-expected-hash", Clause: "gaps §7", Labels: []kit.Label{kit.Memory, kit.Extension},
		Title: "a delete with a mismatching expected_content_sha256 is 409 and deletes nothing",
		Run: func(t *kit.T) {
			store := NewStore(t)
			m := NewMemory(t, store, "/keep.md", "keep")
			id := m.Get("id").String()
			resp := t.Do(Req(http.MethodDelete, StoresPath+"/"+store+"/memories/"+id, url.Values{"expected_content_sha256": {kit.SHA256Hex("other")}}, nil, ""))
			t.ExpectError(resp, http.StatusConflict, "memory_precondition_failed_error")
			getMemory(t, store, id)
			t.OK(Req(http.MethodDelete, StoresPath+"/"+store+"/memories/"+id, url.Values{"expected_content_sha256": {kit.SHA256Hex("keep")}}, nil, "memory/memory_deleted"))
		},
		Bug: &kit.Bug{Says: "a delete ignores expected_content_sha256", Want: "409", Break: kit.IgnoresQuery(kit.On(http.MethodDelete, MemoryRoute), "expected_content_sha256")}},
}
