package admin

import (
	"fmt"
	"net/http"
	"net/url"
	"strings"

	. "github.com/onsi/gomega"
	"github.com/tidwall/gjson"

	"github.com/platformkit/platformkit/conformance/kit"
)

var workspaceChecks = []kit.Check{
	{ID: "admin/workspace-create-defaults", Clause: "4.6", Labels: []kit.Label{kit.Admin},
		Title: "a workspace created with only a name gets workspace_geo us, allowed_inference_geos unrestricted and default_inference_geo global",
		Bug: &kit.Bug{Says: "a workspace created with only a name gets workspace_geo eu", Want: "workspace_geo",
			Break: kit.SetsField(kit.On(http.MethodPost, WorkspacesRoute), "data_residency.workspace_geo", "eu")},
		Run: func(t *kit.T) {
			w := CreateWorkspace(t, map[string]any{"name": "conformance defaults"})
			t.Expect(w.Get("id").String()).To(HavePrefix("wrkspc_"))
			t.Expect(w.Get("type").String()).To(Equal("workspace"))
			t.Expect(w.Get("name").String()).To(Equal("conformance defaults"))
			t.Expect(w.Get("archived_at").Type).To(Equal(gjson.Null))
			t.Expect(w.Get("data_residency").Raw).To(MatchJSON(`{"workspace_geo":"us","allowed_inference_geos":"unrestricted","default_inference_geo":"global"}`))
		}},
	{ID: "admin/workspace-create-beta-header", Clause: "4.6", Labels: []kit.Label{kit.Admin},
		Title: "creating a workspace accepts the optional vendor-beta header as a comma-separated list and as repeated lines",
		Bug: &kit.Bug{Says: "a workspace create with vendor-beta on repeated lines is refused with 400", Want: "the answer is 200",
			Break: kit.Refuses400(func(r *http.Request) bool {
				return kit.On(http.MethodPost, WorkspacesRoute)(r) && len(r.Header.Values("vendor-beta")) > 1
			}, "vendor-beta: one line only")},
		Run: func(t *kit.T) {
			for _, h := range []http.Header{
				{"vendor-beta": {"managed-agents-2026-04-01, some-future-beta-2030-01-01"}},
				{"vendor-beta": {"managed-agents-2026-04-01", "some-future-beta-2030-01-01"}},
			} {
				r := Req(http.MethodPost, "/v1/organizations/workspaces", "admin/workspace", map[string]any{"name": "conformance beta"})
				r.Header = h
				undoCreate(t, "workspaces", t.OK(r).Get("id").String())
			}
		}},
	{ID: "admin/workspace-create-residency-and-tags", Clause: "4.6", Labels: []kit.Label{kit.Admin},
		Title: "a workspace keeps the data_residency and tags it was created with, and reads the same by ID",
		Bug: &kit.Bug{Says: "a workspace create ignores tags", Want: "myvendor",
			Break: kit.IgnoresField(http.MethodPost, "/v1/organizations/workspaces", "tags")},
		Run: func(t *kit.T) {
			w := CreateWorkspace(t, map[string]any{"name": "conformance residency", "tags": map[string]string{"suite": "conformance", "myvendor": "ok"},
				"data_residency": map[string]any{"workspace_geo": "us", "allowed_inference_geos": []string{"us", "global"}, "default_inference_geo": "us"}})
			t.Expect(w.Get("data_residency").Raw).To(MatchJSON(`{"workspace_geo":"us","allowed_inference_geos":["us","global"],"default_inference_geo":"us"}`))
			t.Expect(w.Get("tags").Raw).To(MatchJSON(`{"suite":"conformance","myvendor":"ok"}`))
			got := t.OK(Req(http.MethodGet, "/v1/organizations/workspaces/"+w.Get("id").String(), "admin/workspace", nil))
			t.Expect(got.JSON().Raw).To(MatchJSON(w.Raw))
		}},
	{ID: "admin/workspace-default-geo-outside-allowed", Clause: "4.6", Labels: []kit.Label{kit.Admin},
		Title: "a default_inference_geo outside an explicit allowed_inference_geos list (given or the default global) is refused",
		Bug: &kit.Bug{Says: "a workspace allowed only us without a default_inference_geo is accepted with default us", Want: "POST /v1/organizations/workspaces -> 200",
			Break: kit.InRouteRequests(http.MethodPost, WorkspacesRoute, func(_ *http.Request, b map[string]any) {
				if dr, ok := b["data_residency"].(map[string]any); ok && dr["default_inference_geo"] == nil {
					if geos, _ := dr["allowed_inference_geos"].([]any); len(geos) > 0 {
						dr["default_inference_geo"] = geos[0]
					}
				}
			})},
		Run: func(t *kit.T) {
			for _, dr := range []map[string]any{
				{"allowed_inference_geos": []string{"global"}, "default_inference_geo": "us"},
				{"allowed_inference_geos": []string{"us"}},
			} {
				resp := tryCreate(t, "workspaces", map[string]any{"name": "conformance bad geo", "data_residency": dr})
				expectRefused(t, resp, "invalid_request_error")
			}
		}},
	{ID: "admin/workspace-reserved-tag-prefix", Clause: "2.11", Labels: []kit.Label{kit.Admin},
		Title: "a workspace tag key beginning with the reserved prefix vendor is refused",
		Bug: &kit.Bug{Says: "a tag key with the reserved prefix is accepted (and dropped)", Want: "POST /v1/organizations/workspaces -> 200",
			Break: kit.InRouteRequests(http.MethodPost, WorkspacesRoute, func(_ *http.Request, b map[string]any) {
				if tags, ok := b["tags"].(map[string]any); ok {
					for k := range tags {
						if strings.HasPrefix(k, "vendor") {
							delete(tags, k)
						}
					}
				}
			})},
		Run: func(t *kit.T) {
			resp := tryCreate(t, "workspaces", map[string]any{"name": "conformance tags", "tags": map[string]string{"vendor-owner": "x"}})
			expectRefused(t, resp, "invalid_request_error")
		}},
	{ID: "admin/workspace-name-required", Clause: "4.6", Labels: []kit.Label{kit.Admin},
		Title: "creating a workspace without a name is refused",
		Bug: &kit.Bug{Says: "a workspace without a name is created, named Untitled", Want: "POST /v1/organizations/workspaces -> 200",
			Break: kit.InRouteRequests(http.MethodPost, WorkspacesRoute, func(_ *http.Request, b map[string]any) {
				if _, ok := b["name"]; !ok {
					b["name"] = "Untitled"
				}
			})},
		Run: func(t *kit.T) {
			resp := tryCreate(t, "workspaces", map[string]any{"tags": map[string]string{"suite": "conformance"}})
			expectRefused(t, resp, "invalid_request_error")
		}},
	{ID: "admin/workspace-unknown-404", Clause: "gaps §1", Labels: []kit.Label{kit.Admin, kit.Extension},
		Title: "an unknown workspace ID is answered 404 not_found_error",
		Bug: &kit.Bug{Says: "an unknown workspace ID is answered 400", Want: "404 not_found_error",
			Break: kit.RouteAnswersStatus(http.MethodGet, admWorkspace, http.StatusNotFound, http.StatusBadRequest)},
		Run: func(t *kit.T) {
			t.ExpectError(t.Do(Req(http.MethodGet, "/v1/organizations/workspaces/wrkspc_conformance_no_such", "", nil)), http.StatusNotFound, "not_found_error")
		}},
	{ID: "admin/workspace-list", Clause: "gaps §6", Labels: []kit.Label{kit.Admin, kit.Extension},
		Title: "the workspace list pages by cursor and holds archived workspaces only with include_archived=true",
		Bug: &kit.Bug{Says: "the workspace list ignores include_archived", Want: "include_archived=true",
			Break: kit.IgnoresQuery(kit.On(http.MethodGet, WorkspacesRoute), "include_archived")},
		Run: func(t *kit.T) {
			kept := CreateWorkspace(t, map[string]any{"name": "conformance list kept"})
			gone := CreateWorkspace(t, map[string]any{"name": "conformance list archived"})
			t.OK(Req(http.MethodPost, "/v1/organizations/workspaces/"+gone.Get("id").String()+"/archive", "admin/workspace", nil))
			active := kit.IDsOf(WalkCursor(t, "/v1/organizations/workspaces", "admin/workspace_list", nil, 1000))
			t.Expect(active).To(ContainElement(kept.Get("id").String()))
			t.Expect(active).NotTo(ContainElement(gone.Get("id").String()))
			all := kit.IDsOf(WalkCursor(t, "/v1/organizations/workspaces", "admin/workspace_list", url.Values{"include_archived": {"true"}}, 1000))
			t.Expect(all).To(ContainElements(kept.Get("id").String(), gone.Get("id").String()))
			t.Expect(kit.IDsOf(WalkCursor(t, "/v1/organizations/workspaces", "admin/workspace_list", url.Values{"include_archived": {"true"}}, 2))).To(Equal(all))
		}},
	{ID: "admin/workspace-update", Clause: "gaps §6", Labels: []kit.Label{kit.Admin, kit.Extension},
		Title: "updating a workspace changes name, display_color, tags and data_residency",
		Bug: &kit.Bug{Says: "a workspace update ignores display_color", Want: "123456",
			Break: kit.InRouteRequests(http.MethodPost, admWorkspace, func(_ *http.Request, b map[string]any) { delete(b, "display_color") })},
		Run: func(t *kit.T) {
			w := CreateWorkspace(t, map[string]any{"name": "conformance update", "tags": map[string]string{"a": "1"}})
			path := "/v1/organizations/workspaces/" + w.Get("id").String()
			resp := t.OK(Req(http.MethodPost, path, "admin/workspace", map[string]any{"name": "conformance updated", "display_color": "#123456",
				"tags": map[string]string{"b": "2"}, "data_residency": map[string]any{"allowed_inference_geos": []string{"us"}, "default_inference_geo": "us"}}))
			t.Expect(resp.Get("name").String()).To(Equal("conformance updated"))
			t.Expect(strings.ToLower(resp.Get("display_color").String())).To(Equal("#123456"))
			t.Expect(resp.Get("tags").Raw).To(MatchJSON(`{"b":"2"}`))
			t.Expect(resp.Get("data_residency").Raw).To(MatchJSON(`{"workspace_geo":"us","allowed_inference_geos":["us"],"default_inference_geo":"us"}`))
			t.Expect(t.OK(Req(http.MethodGet, path, "admin/workspace", nil)).JSON().Raw).To(MatchJSON(resp.JSON().Raw))
		}},
	{ID: "admin/workspace-geo-immutable", Clause: "2.11", Labels: []kit.Label{kit.Admin, kit.Extension},
		Title: "an update that changes workspace_geo is refused with 400 and changes nothing; repeating it is accepted",
		Bug: &kit.Bug{Says: "an update that changes workspace_geo is accepted, the geo left as it was", Want: "the answer is 400",
			Break: kit.InRouteRequests(http.MethodPost, admWorkspace, func(_ *http.Request, b map[string]any) {
				if dr, ok := b["data_residency"].(map[string]any); ok && dr["workspace_geo"] == "eu" {
					delete(dr, "workspace_geo")
				}
			})},
		Run: func(t *kit.T) {
			w := CreateWorkspace(t, map[string]any{"name": "conformance geo"})
			path := "/v1/organizations/workspaces/" + w.Get("id").String()
			resp := t.Do(Req(http.MethodPost, path, "", map[string]any{"name": "renamed", "data_residency": map[string]any{"workspace_geo": "eu"}}))
			t.ExpectError(resp, http.StatusBadRequest, "invalid_request_error")
			t.Expect(resp.Get("error.message").String()).To(ContainSubstring("workspace_geo"))
			t.Expect(t.OK(Req(http.MethodGet, path, "admin/workspace", nil)).JSON().Raw).To(MatchJSON(w.Raw))
			t.OK(Req(http.MethodPost, path, "admin/workspace", map[string]any{"data_residency": map[string]any{"workspace_geo": "us"}}))
		}},
	{ID: "admin/workspace-archive", Clause: "gaps §6", Labels: []kit.Label{kit.Admin, kit.Extension},
		Title: "archiving a workspace (no body) sets archived_at; archiving it again returns it unchanged",
		Bug: &kit.Bug{Says: "archiving an archived workspace again answers a later archived_at", Want: "archiving it again",
			Break: admRearchives},
		Run: func(t *kit.T) {
			w := CreateWorkspace(t, map[string]any{"name": "conformance archive"})
			path := "/v1/organizations/workspaces/" + w.Get("id").String() + "/archive"
			first := t.OK(Req(http.MethodPost, path, "admin/workspace", nil))
			t.Expect(first.Get("archived_at").Type).To(Equal(gjson.String))
			t.Expect(t.OK(Req(http.MethodPost, path, "admin/workspace", nil)).JSON().Raw).To(MatchJSON(first.JSON().Raw))
			t.Expect(t.OK(Req(http.MethodGet, "/v1/organizations/workspaces/"+w.Get("id").String(), "admin/workspace", nil)).JSON().Raw).To(MatchJSON(first.JSON().Raw))
		}},
	{ID: "admin/workspace-active-limit-100", Clause: "gaps §6", Labels: []kit.Label{kit.Admin, kit.Extension, kit.Destructive},
		Title: "an organization has at most 100 non-archived workspaces; the next create is refused with 400",
		Bug: &kit.Bug{Says: "a 101st active workspace is created, another one archived to make room", Want: "the answer is 400",
			Break: admCapArchivesOldest},
		Run: func(t *kit.T) {
			active := len(WalkCursor(t, "/v1/organizations/workspaces", "admin/workspace_list", nil, 1000))
			for ; active < 100; active++ {
				CreateWorkspace(t, map[string]any{"name": fmt.Sprintf("conformance limit %d", active)})
			}
			resp := tryCreate(t, "workspaces", map[string]any{"name": "conformance one too many"})
			t.ExpectError(resp, http.StatusBadRequest, "invalid_request_error")
		}},
	{ID: "admin/workspace-other-organization-404", Clause: "4.6", Labels: []kit.Label{kit.Admin, kit.Extension},
		Title: "another organization's workspace is not listed and answers 404 on read, update, archive and rate limits",
		Bug: &kit.Bug{Says: "the second organization's workspaces are the first's", Want: "not to contain",
			Break: kit.AsFirstOrg(`^/v1/organizations/workspaces`)},
		Run: func(t *kit.T) {
			needOrg2(t)
			r := Req(http.MethodGet, "/v1/organizations/workspaces", "admin/workspace_list", nil)
			r.Org2, r.Query = true, url.Values{"include_archived": {"true"}}
			other := t.OK(r).Get("data").Array()
			if len(other) == 0 {
				t.Unsupported("the second organization lists no workspaces")
			}
			id := other[0].Get("id").String()
			base := "/v1/organizations/workspaces/" + id
			t.Expect(kit.IDsOf(WalkCursor(t, "/v1/organizations/workspaces", "admin/workspace_list", url.Values{"include_archived": {"true"}}, 1000))).NotTo(ContainElement(id))
			for _, c := range []struct{ method, path string }{{http.MethodGet, base}, {http.MethodPost, base}, {http.MethodPost, base + "/archive"}, {http.MethodGet, base + "/rate_limits"}} {
				t.ExpectError(t.Do(Req(c.method, c.path, "", nil)), http.StatusNotFound, "not_found_error")
			}
			back := Req(http.MethodGet, base, "admin/workspace", nil)
			back.Org2 = true
			t.Expect(t.OK(back).JSON().Raw).To(MatchJSON(other[0].Raw))
		}},
}

var rateLimitChecks = []kit.Check{
	{ID: "admin/rate-limits-list", Clause: "2.12", Labels: []kit.Label{kit.Admin},
		Title: "organization rate-limit entries have type rate_limit, limits, and models only for model_group",
		Bug: &kit.Bug{Says: "entries of every group list models", Want: "\"type\":\"batch\"",
			Break: kit.InOKAnswers(kit.On(http.MethodGet, RateLimitsRoute), func(_ *http.Request, m map[string]any) {
				kit.EachDataItem(m, func(e map[string]any) {
					if e["models"] == nil {
						e["models"] = []any{"assistant-any"}
					}
				})
			})},
		Run: func(t *kit.T) {
			entries := OrgRateLimits(t)
			t.Need("rate-limit entries", len(entries), 1)
			for _, e := range entries {
				t.Expect(e.Get("type").String()).To(Equal("rate_limit"), "an entry's type is rate_limit: %s", e.Raw)
				if e.Get("group.type").String() != "model_group" {
					t.Expect(e.Get("models").Type).To(Equal(gjson.Null), "%s", e.Raw)
				}
			}
		}},
	{ID: "admin/rate-limits-limit-omitted-one-page", Clause: "gaps §6", Labels: []kit.Label{kit.Admin, kit.Extension},
		Title: "without limit, every rate-limit entry comes in one page with next_page null",
		Bug: &kit.Bug{Says: "without limit, a rate-limit page holds one entry", Want: "the only page",
			Break: kit.InRouteQuery(http.MethodGet, RateLimitsRoute, func(q url.Values) {
				if !q.Has("limit") {
					q.Set("limit", "1")
				}
			})},
		Run: func(t *kit.T) {
			all := walkTokens(t, "/v1/organizations/rate_limits", "admin/rate_limit_list", 1000)
			t.Need("rate-limit entries", len(all), 2)
			resp := t.OK(Req(http.MethodGet, "/v1/organizations/rate_limits", "admin/rate_limit_list", nil))
			t.Expect(resp.Get("next_page").Type).To(Equal(gjson.Null), "a page without limit is the only page: %s", resp)
			t.Expect(all).To(HaveLen(int(resp.Get("data.#").Int())), "a page without limit holds every entry: %s", resp)
		}},
	{ID: "admin/rate-limits-pages", Clause: "2.1", Labels: []kit.Label{kit.Admin},
		Title: "paging rate limits with page tokens returns every entry once, in order, never an empty page before the end",
		Bug: &kit.Bug{Says: "a page of two entries after the first page leaves out its first entry", Want: "page size 2",
			Break: admPagesOfTwoSkip(RateLimitsRoute, "page")},
		Run: func(t *kit.T) {
			var all []string
			for _, e := range OrgRateLimits(t) {
				all = append(all, e.Raw)
			}
			t.Need("rate-limit entries", len(all), 2)
			for _, size := range []int{1, 2, 3} {
				t.Expect(walkTokens(t, "/v1/organizations/rate_limits", "admin/rate_limit_list", size)).To(Equal(all), "page size %d", size)
			}
		}},
	{ID: "admin/rate-limits-forged-page-400", Clause: "gaps §3", Labels: []kit.Label{kit.Admin, kit.Extension},
		Title: "a forged rate-limit page token is refused with 400",
		Bug: &kit.Bug{Says: "a forged page token is ignored: the first page is answered", Want: "400",
			Break: kit.IgnoresInvalidQuery(http.MethodGet, RateLimitsRoute, "page")},
		Run: func(t *kit.T) {
			t.ExpectError(t.Do(kit.Request{Area: kit.Admin, Path: "/v1/organizations/rate_limits", Query: url.Values{"page": {"forged-token"}}}), http.StatusBadRequest, "invalid_request_error")
		}},
	{ID: "admin/rate-limits-group-type-filter", Clause: "4.6", Labels: []kit.Label{kit.Admin},
		Title: "group_type selects exactly the entries of that group",
		Bug: &kit.Bug{Says: "the rate-limit list ignores group_type", Want: "group_type=",
			Break: kit.IgnoresQuery(kit.On(http.MethodGet, RateLimitsRoute), "group_type")},
		Run: func(t *kit.T) {
			all := OrgRateLimits(t)
			groups := map[string]bool{}
			for _, e := range all {
				groups[e.Get("group.type").String()] = true
			}
			t.Need("group types among the rate-limit entries", len(groups), 2)
			for _, g := range []string{"model_group", "batch", "token_count", "files", "skills", "web_search"} {
				want := 0
				for _, e := range all {
					if e.Get("group.type").String() == g {
						want++
					}
				}
				resp := t.OK(kit.Request{Area: kit.Admin, Path: "/v1/organizations/rate_limits", Query: url.Values{"group_type": {g}}, Schema: "admin/rate_limit_list"})
				t.Expect(resp.Get("data.#").Int()).To(BeNumerically("==", want), "group_type=%s", g)
				for _, e := range resp.Get("data").Array() {
					t.Expect(e.Get("group.type").String()).To(Equal(g))
				}
			}
		}},
	{ID: "admin/rate-limits-model-filter", Clause: "4.6", Labels: []kit.Label{kit.Admin},
		Title: "model, given as full name or alias, selects the single entry whose models contain it",
		Bug: &kit.Bug{Says: "the rate-limit list ignores model", Want: "model=",
			Break: kit.IgnoresQuery(kit.On(http.MethodGet, RateLimitsRoute), "model")},
		Run: func(t *kit.T) {
			seen := 0
			for _, e := range OrgRateLimits(t) {
				for _, m := range e.Get("models").Array() {
					resp := t.OK(kit.Request{Area: kit.Admin, Path: "/v1/organizations/rate_limits", Query: url.Values{"model": {m.String()}}, Schema: "admin/rate_limit_list"})
					t.Expect(resp.Get("data.#").Int()).To(BeNumerically("==", 1), "model=%s", m)
					t.Expect(resp.Get("data.0").Raw).To(MatchJSON(e.Raw))
					seen++
				}
			}
			t.Need("models listed by model_group entries", seen, 1)
		}},
	{ID: "admin/rate-limits-model-unknown-404", Clause: "7", Labels: []kit.Label{kit.Admin},
		Title: "rate limits filtered by an unknown model, or by a model without limits in the organization, are answered 404",
		Bug: &kit.Bug{Says: "a model filter without entries answers an empty page", Want: "404",
			Break: admNotFoundAsEmpty},
		Run: func(t *kit.T) {
			resp := t.Do(kit.Request{Area: kit.Admin, Path: "/v1/organizations/rate_limits", Query: url.Values{"model": {"assistant-conformance-no-such-model"}}})
			t.ExpectError(resp, http.StatusNotFound, "not_found_error")
			limited := map[string]bool{}
			for _, e := range OrgRateLimits(t) {
				for _, m := range e.Get("models").Array() {
					limited[m.String()] = true
				}
			}
			unlimited := ""
			for _, m := range t.WalkCursor(kit.Request{Area: kit.Models, Path: "/v1/models", Schema: "models/model_list"}, "data", 1000) {
				if id := m.Get("id").String(); !limited[id] && unlimited == "" {
					unlimited = id
				}
			}
			t.Need("listed models without rate limits", map[bool]int{true: 1}[unlimited != ""], 1)
			t.ExpectError(t.Do(kit.Request{Area: kit.Admin, Path: "/v1/organizations/rate_limits", Query: url.Values{"model": {unlimited}}}), http.StatusNotFound, "not_found_error")
		}},
	{ID: "admin/workspace-rate-limits", Clause: "2.12", Labels: []kit.Label{kit.Admin},
		Title: "workspace rate-limit entries carry each override with org_limit equal to the organization value, or null when it has none",
		Bug: &kit.Bug{Says: "overrides carry org_limit null though the organization has a value", Want: "\"org_limit\":null",
			Break: kit.SetsField(kit.On(http.MethodGet, WorkspaceLimitsRoute), "data.*.limits.*.org_limit", nil)},
		Run: func(t *kit.T) {
			org := OrgRateLimits(t)
			orgValue := func(e gjson.Result, limiter string) *int64 {
				for _, o := range org {
					if o.Get("group.type").String() == e.Get("group.type").String() && o.Get("models").Raw == e.Get("models").Raw {
						for _, l := range o.Get("limits").Array() {
							if l.Get("type").String() == limiter {
								v := l.Get("value").Int()
								return &v
							}
						}
					}
				}
				return nil
			}
			checked := 0
			for _, w := range WalkCursor(t, "/v1/organizations/workspaces", "admin/workspace_list", url.Values{"include_archived": {"true"}}, 1000) {
				entries := t.OK(Req(http.MethodGet, "/v1/organizations/workspaces/"+w.Get("id").String()+"/rate_limits", "admin/workspace_rate_limit_list", nil)).Get("data").Array()
				for _, e := range entries {
					t.Expect(e.Get("type").String()).To(Equal("workspace_rate_limit"))
					t.Expect(e.Get("limits.#").Int()).To(BeNumerically(">", 0), "an entry lists only overridden limiters: %s", e.Raw)
					for _, l := range e.Get("limits").Array() {
						want := orgValue(e, l.Get("type").String())
						if want == nil {
							t.Expect(l.Get("org_limit").Type).To(Equal(gjson.Null), "%s", e.Raw)
						} else {
							t.Expect(l.Get("org_limit").Int()).To(Equal(*want), "%s", e.Raw)
						}
						checked++
					}
				}
			}
			t.Need("workspace rate-limit overrides", checked, 1)
		}},
	{ID: "admin/workspace-rate-limits-new-workspace-inherits", Clause: "4.6", Labels: []kit.Label{kit.Admin},
		Title: "a new workspace lists no rate-limit entries: without overrides it inherits the organization's values",
		Bug: &kit.Bug{Says: "a new workspace lists the organization's entries as its overrides", Want: "inherits",
			Break: admOverridesEverything},
		Run: func(t *kit.T) {
			w := CreateWorkspace(t, map[string]any{"name": "conformance rate limits"})
			resp := t.OK(Req(http.MethodGet, "/v1/organizations/workspaces/"+w.Get("id").String()+"/rate_limits", "admin/workspace_rate_limit_list", nil))
			t.Expect(resp.JSON().Raw).To(MatchJSON(`{"data":[],"next_page":null}`))
		}},
}
