package memory

import (
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"time"

	. "github.com/onsi/gomega"
	"github.com/tidwall/gjson"

	"github.com/platformkit/platformkit/conformance/kit"
)

var memoryVersionChecks = []kit.Check{
	{ID: "memory/version-list-order", Clause: "4.7", Labels: []kit.Label{kit.Memory},
		Title: "versions list newest first by created_at, with id breaking ties",
		Run: func(t *kit.T) {
			store := NewStore(t)
			for i := range 4 {
				NewMemory(t, store, fmt.Sprintf("/o%d.md", i), "")
			}
			memExpectNewestFirst(t, ListVersions(t, store, url.Values{"limit": {"100"}}))
			for _, s := range ListStores(t, url.Values{"include_archived": {"true"}, "limit": {"100"}}) {
				memExpectNewestFirst(t, ListVersions(t, s.Get("id").String(), url.Values{"limit": {"100"}}))
			}
		},
		Bug: &kit.Bug{Says: "the version list is oldest first", Want: "listed before",
			Break: kit.InRouteOKAnswers(http.MethodGet, VersionsRoute, func(_ *http.Request, m map[string]any) {
				if data, ok := m["data"].([]any); ok {
					slices.Reverse(data)
				}
			})}},
	{ID: "memory/version-attributed-api-key", Clause: "2.15", Labels: []kit.Label{kit.Memory},
		Title: "writes through the API are attributed to an api_actor with the ID of the key used, and the api_key_id filter finds them",
		Run: func(t *kit.T) {
			store := NewStore(t)
			m := NewMemory(t, store, "/who.md", "1")
			updateMemory(t, store, m.Get("id").String(), map[string]any{"content": "2"})
			t.OK(Req(http.MethodDelete, StoresPath+"/"+store+"/memories/"+m.Get("id").String(), nil, nil, "memory/memory_deleted"))
			vs := ListVersions(t, store, nil)
			t.Expect(vs).To(HaveLen(3))
			key := vs[0].Get("created_by.api_key_id").String()
			t.Expect(key).NotTo(BeEmpty())
			t.Expect(key).NotTo(Equal(t.Config().APIKey), "the key's ID, never its secret")
			for _, v := range vs {
				t.Expect(v.Get("created_by.type").String()).To(Equal("api_actor"))
				t.Expect(v.Get("created_by.api_key_id").String()).To(Equal(key))
			}
			t.Expect(kit.IDsOf(ListVersions(t, store, url.Values{"api_key_id": {key}}))).To(Equal(kit.IDsOf(vs)))
			t.Expect(ListVersions(t, store, url.Values{"api_key_id": {key + "-other"}})).To(BeEmpty())
		},
		Bug: &kit.Bug{Says: "versions name another key than the one that wrote them",
			Break: kit.InRouteOKAnswers(http.MethodGet, VersionsRoute, func(_ *http.Request, m map[string]any) {
				kit.EachDataItem(m, func(v map[string]any) {
					if by, ok := v["created_by"].(map[string]any); ok && by["type"] == "api_actor" {
						by["api_key_id"] = kit.Str(by, "api_key_id") + "0"
					}
				})
			})}},
	{ID: "memory/version-filters", Clause: "4.7", Labels: []kit.Label{kit.Memory},
		Title: "the version list filters by memory_id, operation, session_id and inclusive created_at bounds",
		Run: func(t *kit.T) {
			store := NewStore(t)
			a := NewMemory(t, store, "/a.md", "1")
			b := NewMemory(t, store, "/b.md", "1")
			updateMemory(t, store, a.Get("id").String(), map[string]any{"content": "2"})
			t.OK(Req(http.MethodDelete, StoresPath+"/"+store+"/memories/"+b.Get("id").String(), nil, nil, "memory/memory_deleted"))
			all := ListVersions(t, store, nil)
			t.Expect(all).To(HaveLen(4))
			t.Expect(ListVersions(t, store, url.Values{"memory_id": {a.Get("id").String()}})).To(HaveLen(2))
			for op, n := range map[string]int{"created": 2, "modified": 1, "deleted": 1} {
				got := ListVersions(t, store, url.Values{"operation": {op}})
				t.Expect(got).To(HaveLen(n), "operation=%s", op)
				for _, v := range got {
					t.Expect(v.Get("operation").String()).To(Equal(op))
				}
			}
			t.Expect(ListVersions(t, store, url.Values{"session_id": {"sesn_conformance_none"}})).To(BeEmpty())
			newest, oldest := all[0].Get("created_at").String(), all[len(all)-1].Get("created_at").String()
			t.Expect(ListVersions(t, store, url.Values{"created_at[gte]": {oldest}, "created_at[lte]": {newest}})).To(HaveLen(4))
			for _, v := range ListVersions(t, store, url.Values{"created_at[lte]": {oldest}}) {
				t.Expect(v.Get("created_at").String()).To(Equal(oldest))
			}
		},
		Bug: &kit.Bug{Says: "the version list ignores operation", Break: kit.IgnoresQuery(kit.On(http.MethodGet, VersionsRoute), "operation")}},
	{ID: "memory/version-view", Clause: "2.15", Labels: []kit.Label{kit.Memory},
		Title: "a version's content is null with view=basic and populated with view=full; its hash and size are populated regardless of view",
		Run: func(t *kit.T) {
			store := NewStore(t)
			m := NewMemory(t, store, "/v.md", "text")
			for _, view := range []string{"basic", "full"} {
				v := ListVersions(t, store, url.Values{"view": {view}})[0]
				t.Expect(v.Get("content_sha256").String()).To(Equal(kit.SHA256Hex("text")))
				t.Expect(v.Get("content_size_bytes").Int()).To(BeNumerically("==", 4))
				one := t.OK(Req(http.MethodGet, StoresPath+"/"+store+"/memory_versions/"+m.Get("memory_version_id").String(), url.Values{"view": {view}}, nil, "memory/memory_version"))
				if view == "basic" {
					t.Expect(v.Get("content").Type).To(Equal(gjson.Null))
					t.Expect(one.Get("content").Type).To(Equal(gjson.Null))
				} else {
					t.Expect(v.Get("content").String()).To(Equal("text"))
					t.Expect(one.Get("content").String()).To(Equal("text"))
				}
			}
		},
		Bug: &kit.Bug{Says: "the version list ignores view", Break: kit.IgnoresQuery(kit.On(http.MethodGet, VersionsRoute), "view")}},
	{ID: "memory/version-immutable", Clause: "2.15", Labels: []kit.Label{kit.Memory},
		Title: "a version reads the same after later writes to its memory",
		Run: func(t *kit.T) {
			store := NewStore(t)
			m := NewMemory(t, store, "/i.md", "first")
			path := StoresPath + "/" + store + "/memory_versions/" + m.Get("memory_version_id").String()
			before := t.OK(Req(http.MethodGet, path, nil, nil, "memory/memory_version")).JSON().Raw
			updateMemory(t, store, m.Get("id").String(), map[string]any{"content": "second", "path": "/moved.md"})
			t.Expect(t.OK(Req(http.MethodGet, path, nil, nil, "memory/memory_version")).JSON().Raw).To(MatchJSON(before))
		},
		Bug: &kit.Bug{Says: "a version reads the content and path its memory has now", Break: mwtVersionsFollowMemory}},
	{ID: "memory/version-deleted-lineage", Clause: "4.7", Labels: []kit.Label{kit.Memory},
		Title: "filtering versions by a deleted memory's memory_id returns its whole lineage including the deleted version",
		Run: func(t *kit.T) {
			store := NewStore(t)
			m := NewMemory(t, store, "/l.md", "1")
			id := m.Get("id").String()
			updateMemory(t, store, id, map[string]any{"content": "2"})
			t.OK(Req(http.MethodDelete, StoresPath+"/"+store+"/memories/"+id, nil, nil, "memory/memory_deleted"))
			vs := ListVersions(t, store, url.Values{"memory_id": {id}})
			t.Expect(vs).To(HaveLen(3))
			ops := []string{vs[0].Get("operation").String(), vs[1].Get("operation").String(), vs[2].Get("operation").String()}
			t.Expect(ops).To(Equal([]string{"deleted", "modified", "created"}))
		},
		Bug: &kit.Bug{Says: "filtering by memory_id leaves out the deleted version",
			Break: kit.InRouteOKAnswers(http.MethodGet, VersionsRoute, func(r *http.Request, m map[string]any) {
				if !r.URL.Query().Has("memory_id") {
					return
				}
				kept := []any{}
				kit.EachDataItem(m, func(v map[string]any) {
					if v["operation"] != "deleted" {
						kept = append(kept, v)
					}
				})
				m["data"] = kept
			})}},
	{ID: "memory/version-deleted-nulls", Clause: "2.15", Labels: []kit.Label{kit.Memory},
		Title: "a deleted version has null content, content_sha256 and content_size_bytes and keeps its path",
		Run: func(t *kit.T) {
			store := NewStore(t)
			m := NewMemory(t, store, "/n.md", "1")
			t.OK(Req(http.MethodDelete, StoresPath+"/"+store+"/memories/"+m.Get("id").String(), nil, nil, "memory/memory_deleted"))
			d := ListVersions(t, store, url.Values{"operation": {"deleted"}, "view": {"full"}})[0]
			for _, f := range []string{"content", "content_sha256", "content_size_bytes", "redacted_at"} {
				t.Expect(d.Get(f).Type).To(Equal(gjson.Null), "%s of %s", f, d.Raw)
			}
			t.Expect(d.Get("path").String()).To(Equal("/n.md"))
		},
		Bug: &kit.Bug{Says: "a deleted version loses its path", Want: "/n.md",
			Break: kit.InRouteOKAnswers(http.MethodGet, VersionsRoute, func(_ *http.Request, m map[string]any) {
				kit.EachDataItem(m, func(v map[string]any) {
					if v["operation"] == "deleted" {
						v["path"] = ""
					}
				})
			})}},
	{ID: "memory/version-retrieve", Clause: "4.7", Labels: []kit.Label{kit.Memory},
		Title: "a listed version reads back the same by its ID; an unknown ID is 404",
		Run: func(t *kit.T) {
			store := NewStore(t)
			NewMemory(t, store, "/r.md", "r")
			v := ListVersions(t, store, url.Values{"view": {"full"}})[0]
			t.Expect(t.OK(Req(http.MethodGet, StoresPath+"/"+store+"/memory_versions/"+v.Get("id").String(), url.Values{"view": {"full"}}, nil, "memory/memory_version")).JSON().Raw).To(MatchJSON(v.Raw))
			t.ExpectError(t.Do(Req(http.MethodGet, StoresPath+"/"+store+"/memory_versions/memver_conformance_none", nil, nil, "")), http.StatusNotFound, "not_found_error")
		},
		Bug: &kit.Bug{Says: "an unknown version ID is answered 400, not 404", Want: "404", Break: kit.RouteAnswersStatus(http.MethodGet, mwtVersion, http.StatusNotFound, http.StatusBadRequest)}},
	{ID: "memory/version-pages", Clause: "2.1", Labels: []kit.Label{kit.Memory},
		Title: "paging the version list with next_page returns each version exactly once, in order",
		Run: func(t *kit.T) {
			store := NewStore(t)
			m := NewMemory(t, store, "/p.md", "0")
			for i := 1; i < 5; i++ {
				updateMemory(t, store, m.Get("id").String(), map[string]any{"content": fmt.Sprint(i)})
			}
			all := kit.IDsOf(ListVersions(t, store, url.Values{"limit": {"100"}}))
			t.Expect(all).To(HaveLen(5))
			for _, size := range []string{"1", "2", "3"} {
				t.Expect(kit.IDsOf(ListVersions(t, store, url.Values{"limit": {size}}))).To(Equal(all), "pages of %s", size)
			}
		},
		Bug: &kit.Bug{Says: "every page of versions after the first loses its first version", Want: "next_page",
			Break: kit.InRouteOKAnswers(http.MethodGet, VersionsRoute, func(r *http.Request, m map[string]any) {
				if data, _ := m["data"].([]any); r.URL.Query().Has("page") && len(data) > 0 {
					m["data"] = data[1:]
				}
			})}},
	{ID: "memory/version-redact", Clause: "gaps §7", Labels: []kit.Label{kit.Memory, kit.Extension},
		Title: "redacting a version nulls content, path, content_sha256 and content_size_bytes and sets redacted_at and redacted_by",
		Run: func(t *kit.T) {
			store := NewStore(t)
			m := NewMemory(t, store, "/secret.md", "token=abc")
			updateMemory(t, store, m.Get("id").String(), map[string]any{"content": "token=<removed>"})
			path := StoresPath + "/" + store + "/memory_versions/" + m.Get("memory_version_id").String()
			red := t.OK(Req(http.MethodPost, path+"/redact", nil, nil, "memory/memory_version"))
			for _, f := range []string{"content", "path", "content_sha256", "content_size_bytes"} {
				t.Expect(red.Get(f).Type).To(Equal(gjson.Null), "%s of %s", f, red)
			}
			t.Expect(red.Get("redacted_at").Type).To(Equal(gjson.String))
			t.Expect(red.Get("redacted_by.type").String()).To(Equal("api_actor"))
			again := t.OK(Req(http.MethodPost, path+"/redact", nil, nil, "memory/memory_version"))
			t.Expect(again.Get("redacted_at").String()).To(Equal(red.Get("redacted_at").String()))
			t.Expect(getMemory(t, store, m.Get("id").String()).Get("content").String()).To(Equal("token=<removed>"))
		},
		Bug: &kit.Bug{Says: "a repeated redaction stamps redacted_at anew",
			Break: kit.InRouteOKAnswers(http.MethodPost, `^/v1/memory_stores/[^/]+/memory_versions/[^/]+/redact$`, func(_ *http.Request, m map[string]any) {
				m["redacted_at"] = time.Now().UTC().Format(time.RFC3339Nano)
			})}},
	{ID: "memory/version-redacted-retrieve-200", Clause: "7", Labels: []kit.Label{kit.Memory},
		Title: "retrieving a redacted version answers 200 with content, path, content_size_bytes and content_sha256 null",
		Run: func(t *kit.T) {
			found := 0
			for _, v := range memPreExistingVersions(t) {
				if v.Get("redacted_at").Type != gjson.String {
					continue
				}
				found++
				one := t.OK(Req(http.MethodGet, StoresPath+"/"+v.Get("memory_store_id").String()+"/memory_versions/"+v.Get("id").String(), url.Values{"view": {"full"}}, nil, "memory/memory_version"))
				for _, f := range []string{"content", "path", "content_sha256", "content_size_bytes"} {
					t.Expect(one.Get(f).Type).To(Equal(gjson.Null), "%s of %s", f, one)
				}
			}
			t.Need("redacted versions", found, 1)
		},
		Bug: &kit.Bug{Says: "a redacted version reads content_size_bytes 0, not null",
			Break: kit.InRouteOKAnswers(http.MethodGet, mwtVersion, func(_ *http.Request, m map[string]any) {
				if m["redacted_at"] != nil {
					m["content_size_bytes"] = 0
				}
			})}},
	{ID: "memory/version-actor-kinds", Clause: "2.15", Labels: []kit.Label{kit.Memory},
		Title: "pre-existing versions carry session_actor (sesn_), api_actor and user_actor (user_) attributions, and session_id filters them",
		Run: func(t *kit.T) {
			kinds := map[string]int{}
			for _, v := range memPreExistingVersions(t) {
				by := v.Get("created_by")
				kinds[by.Get("type").String()]++
				switch by.Get("type").String() {
				case "session_actor":
					t.Expect(by.Get("session_id").String()).To(HavePrefix("sesn_"))
					got := ListVersions(t, v.Get("memory_store_id").String(), url.Values{"session_id": {by.Get("session_id").String()}})
					t.Expect(kit.IDsOf(got)).To(ContainElement(v.Get("id").String()))
					for _, g := range got {
						t.Expect(g.Get("created_by.session_id").String()).To(Equal(by.Get("session_id").String()))
					}
				case "user_actor":
					t.Expect(by.Get("user_id").String()).To(HavePrefix("user_"))
				}
			}
			t.Need("pre-existing versions written by a session", kinds["session_actor"], 1)
			t.Need("pre-existing versions written by a user", kinds["user_actor"], 1)
		},
		Bug: &kit.Bug{Says: "the version list ignores session_id", Break: kit.IgnoresQuery(kit.On(http.MethodGet, VersionsRoute), "session_id")}},
}
