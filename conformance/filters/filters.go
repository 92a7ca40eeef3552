package filters

import (
	"net/http"
	"net/url"
	"time"

	. "github.com/onsi/gomega"

	"github.com/platformkit/platformkit/conformance/kit"

	"github.com/platformkit/platformkit/conformance/work"

	"github.com/platformkit/platformkit/conformance/memory"

	"github.com/platformkit/platformkit/conformance/compliance"

	"github.com/platformkit/platformkit/conformance/admin"
)

// Negative filter cases: every filter of every list is checked to drop what does not match, not
// only to keep what does. A filter the target ignores keeps everything, so each check first shows
// the items are there without the filter (or keeps them with a matching value) and then requires a
// value that matches none of them to drop them all. Where the key's own data always matches (its
// organization, its users), the value is an ID that cannot match: another organization's, when a
// second organization is configured, or a made-up one of the right form.

// expectDropped requires r, a list filtered by a value that matches nothing the key can see, to
// list none of the items (items is the gjson path of the list in the body). Refusing the value
// with 400 or 404 shows the filter was read too, and is accepted; answering the items is not.
func expectDropped(t *kit.T, r kit.Request, items, why string) {
	resp := t.Do(r)
	if resp.Status == http.StatusBadRequest || resp.Status == http.StatusNotFound {
		t.ExpectWithOffset(1, resp.Get("type").String()).To(Equal("error"), "%s", resp)
		return
	}
	t.ExpectWithOffset(1, resp.Status).To(Equal(http.StatusOK), "%s", resp)
	t.ExpectWithOffset(1, resp.Get(items).Array()).To(BeEmpty(), "%s: the filter was not applied: %s", why, resp)
}

// otherOrgValues returns values of an organization filter that the key's own data never matches:
// made-up ones, plus the second organization's UUID when its compliance key is configured.
func otherOrgValues(t *kit.T) []string {
	vals := []string{kit.NoSuchOrgID, kit.NoSuchOrgUUID}
	if t.Config().ComplianceKey2 != "" {
		if uuid, _ := compliance.Organization(t, true); uuid != "" {
			vals = append(vals, uuid)
		}
	}
	return vals
}

func init() {
	kit.Register(
		kit.Check{ID: "compliance/chats-filters-drop-unmatched", Clause: "4.1", Labels: []kit.Label{kit.Compliance},
			Title: "the chat list drops every chat for user_ids, organization_ids or project_ids that match none of them (another organization's or unknown IDs)",
			Bug: &kit.Bug{Says: "the chat list ignores organization_ids: another organization's ID lists the key's chats",
				Want: "organization_ids=", Break: kit.IgnoresQuery(compliance.OnGet(compliance.ChatsRoute), "organization_ids[]")},
			Run: func(t *kit.T) {
				user, all := compliance.BusiestUser(t)
				t.Expect(all).NotTo(BeEmpty())
				expectDropped(t, compliance.Get(compliance.ChatsPath, compliance.ChatsQuery([]string{kit.NoSuchUserID}), "compliance/chat_list"), "data", "user_ids="+kit.NoSuchUserID)
				for _, org := range otherOrgValues(t) {
					expectDropped(t, compliance.Get(compliance.ChatsPath, compliance.ChatsQuery([]string{user}, "organization_ids[]", org), "compliance/chat_list"), "data", "organization_ids="+org)
				}
				expectDropped(t, compliance.Get(compliance.ChatsPath, compliance.ChatsQuery([]string{user}, "project_ids[]", kit.NoSuchProjectID), "compliance/chat_list"), "data", "project_ids="+kit.NoSuchProjectID)
			}},
		kit.Check{ID: "compliance/projects-filters-drop-unmatched", Clause: "4.3", Labels: []kit.Label{kit.Compliance},
			Title: "the project list drops every project for user_ids or organization_ids that match none of them (another organization's or unknown IDs)",
			Bug: &kit.Bug{Says: "the project list ignores user_ids",
				Want: "user_ids=", Break: kit.IgnoresQuery(compliance.OnGet(compliance.ProjectsRoute), "user_ids[]")},
			Run: func(t *kit.T) {
				compliance.AllProjects(t, 1)
				expectDropped(t, compliance.Get(compliance.ProjectsPath, url.Values{"user_ids[]": {kit.NoSuchUserID}}, "compliance/project_list"), "data", "user_ids="+kit.NoSuchUserID)
				for _, org := range otherOrgValues(t) {
					expectDropped(t, compliance.Get(compliance.ProjectsPath, url.Values{"organization_ids[]": {org}}, "compliance/project_list"), "data", "organization_ids="+org)
				}
			}},
		kit.Check{ID: "compliance/projects-created-at-drops-all", Clause: "4.3", Labels: []kit.Label{kit.Compliance},
			Title: "created_at bounds that exclude every project (gt the newest, lt the oldest) list none",
			Bug: &kit.Bug{Says: "the project list ignores created_at[gt]",
				Want: "created_at[gt] the newest", Break: kit.IgnoresQuery(compliance.OnGet(compliance.ProjectsRoute), "created_at[gt]")},
			Run: func(t *kit.T) {
				all := compliance.AllProjects(t, 1)
				newest, oldest := all[0].Get("created_at").Time(), all[0].Get("created_at").Time()
				for _, p := range all {
					at := p.Get("created_at").Time()
					newest, oldest = later(newest, at), earlier(oldest, at)
				}
				expectDropped(t, compliance.Get(compliance.ProjectsPath, url.Values{"created_at[gt]": {newest.Format(time.RFC3339Nano)}}, "compliance/project_list"), "data", "created_at[gt] the newest")
				expectDropped(t, compliance.Get(compliance.ProjectsPath, url.Values{"created_at[lt]": {oldest.Format(time.RFC3339Nano)}}, "compliance/project_list"), "data", "created_at[lt] the oldest")
			}},
		kit.Check{ID: "memory/store-list-created-at-drops", Clause: "4.7", Labels: []kit.Label{kit.Memory},
			Title: "a store is kept by created_at bounds around its creation time and dropped by bounds a day before or after it",
			Run: func(t *kit.T) {
				id := memory.NewStore(t)
				created := t.OK(memory.Req(http.MethodGet, memory.StoresPath+"/"+id, nil, nil, "memory/memory_store")).Get("created_at").Time()
				day := 24 * time.Hour
				list := func(q url.Values) []string { return kit.IDsOf(memory.ListStores(t, q)) }
				t.Expect(list(url.Values{"created_at[gte]": {stamp(created.Add(-day))}, "created_at[lte]": {stamp(created.Add(day))}})).To(ContainElement(id))
				t.Expect(list(url.Values{"created_at[gte]": {stamp(created.Add(day))}})).NotTo(ContainElement(id), "created_at[gte] a day later")
				t.Expect(list(url.Values{"created_at[lte]": {stamp(created.Add(-day))}})).NotTo(ContainElement(id), "created_at[lte] a day earlier")
			},
			Bug: &kit.Bug{Says: "the store list ignores created_at[gte]", Want: "a day later", Break: kit.IgnoresQuery(kit.On(http.MethodGet, memory.StoresRoute), "created_at[gte]")}},
		kit.Check{ID: "memory/store-list-include-archived-own", Clause: "3.5", Labels: []kit.Label{kit.Memory, kit.Extension},
			Title: "a store the check archived is dropped from the list by default and with include_archived=false, and kept with include_archived=true",
			Run: func(t *kit.T) {
				id := memory.NewStore(t)
				t.OK(memory.Req(http.MethodPost, memory.StoresPath+"/"+id+"/archive", nil, nil, "memory/memory_store"))
				list := func(q url.Values) []string { return kit.IDsOf(memory.ListStores(t, q)) }
				t.Expect(list(url.Values{"limit": {"100"}})).NotTo(ContainElement(id))
				t.Expect(list(url.Values{"include_archived": {"false"}})).NotTo(ContainElement(id))
				t.Expect(list(url.Values{"include_archived": {"true"}})).To(ContainElement(id))
			},
			Bug: &kit.Bug{Says: "include_archived=false is read as true",
				Break: kit.InRouteQuery(http.MethodGet, memory.StoresRoute, func(q url.Values) {
					if q.Get("include_archived") == "false" {
						q.Set("include_archived", "true")
					}
				})}},
		kit.Check{ID: "memory/version-filters-drop-unmatched", Clause: "4.7", Labels: []kit.Label{kit.Memory},
			Title: "the version list drops every version for an unknown memory_id or api_key_id, and for created_at bounds a day outside them",
			Run: func(t *kit.T) {
				store := memory.NewStore(t)
				memory.NewMemory(t, store, "/f.md", "x")
				all := memory.ListVersions(t, store, nil)
				t.Expect(all).NotTo(BeEmpty())
				key := all[0].Get("created_by.api_key_id").String()
				if key != "" {
					t.Expect(memory.ListVersions(t, store, url.Values{"api_key_id": {key}})).To(HaveLen(len(all)), "api_key_id of the writer keeps its versions")
				}
				created := all[0].Get("created_at").Time()
				path := memory.StoresPath + "/" + store + "/memory_versions"
				for name, q := range map[string]url.Values{
					"memory_id":       {"memory_id": {kit.NoSuchMemoryID}},
					"api_key_id":      {"api_key_id": {kit.NoSuchKeyID}},
					"created_at[gte]": {"created_at[gte]": {stamp(created.Add(24 * time.Hour))}},
					"created_at[lte]": {"created_at[lte]": {stamp(created.Add(-24 * time.Hour))}},
				} {
					expectDropped(t, memory.Req(http.MethodGet, path, q, nil, "memory/memory_version_list"), "data", name)
				}
			},
			Bug: &kit.Bug{Says: "the version list ignores api_key_id", Want: "api_key_id", Break: kit.IgnoresQuery(kit.On(http.MethodGet, memory.VersionsRoute), "api_key_id")}},
		kit.Check{ID: "work/environment-list-include-archived", Clause: "gaps §8", Labels: []kit.Label{kit.Work, kit.Extension},
			Title: "an archived environment is dropped from the list by default and with include_archived=false, and kept with include_archived=true",
			Run: func(t *kit.T) {
				env := work.CreateEnv(t)
				t.OK(kit.Request{Area: kit.Work, Method: http.MethodPost, Path: "/v1/environments/" + env + "/archive", Schema: "work/environment"})
				list := func(q url.Values) []string {
					return kit.IDsOf(t.WalkPages(kit.Request{Area: kit.Work, Path: "/v1/environments", Query: q, Schema: "work/environment_list"}, 100))
				}
				t.Expect(list(nil)).NotTo(ContainElement(env))
				t.Expect(list(url.Values{"include_archived": {"false"}})).NotTo(ContainElement(env))
				t.Expect(list(url.Values{"include_archived": {"true"}})).To(ContainElement(env))
			},
			Bug: &kit.Bug{Says: "include_archived=false is read as true",
				Break: kit.InRouteQuery(http.MethodGet, work.EnvsRoute, func(q url.Values) {
					if q.Get("include_archived") == "false" {
						q.Set("include_archived", "true")
					}
				})}},
		kit.Check{ID: "admin/workspace-rate-limits-group-type-filter", Clause: "4.6", Labels: []kit.Label{kit.Admin},
			Title: "group_type on a workspace's rate limits keeps exactly the entries of that group and drops the others",
			Bug: &kit.Bug{Says: "a workspace's rate-limit list ignores group_type", Want: "group_type=",
				Break: kit.IgnoresQuery(kit.On(http.MethodGet, admin.WorkspaceLimitsRoute), "group_type")},
			Run: func(t *kit.T) {
				checked := 0
				for _, w := range admin.WalkCursor(t, "/v1/organizations/workspaces", "admin/workspace_list", url.Values{"include_archived": {"true"}}, 1000) {
					path := "/v1/organizations/workspaces/" + w.Get("id").String() + "/rate_limits"
					entries := t.OK(admin.Req(http.MethodGet, path, "admin/workspace_rate_limit_list", nil)).Get("data").Array()
					if len(entries) == 0 {
						continue
					}
					for _, g := range []string{"model_group", "batch", "token_count", "files", "skills", "web_search"} {
						var want []string
						for _, e := range entries {
							if e.Get("group.type").String() == g {
								want = append(want, e.Raw)
							}
						}
						r := admin.Req(http.MethodGet, path, "admin/workspace_rate_limit_list", nil)
						r.Query = url.Values{"group_type": {g}}
						var got []string
						for _, e := range t.OK(r).Get("data").Array() {
							got = append(got, e.Raw)
						}
						t.Expect(got).To(Equal(want), "workspace %s, group_type=%s", w.Get("id"), g)
						checked++
					}
				}
				t.Need("workspace rate-limit overrides", checked, 1)
			}},
	)
}

// stamp writes a time as the RFC 3339 bound of a filter.
func stamp(at time.Time) string { return at.UTC().Format(time.RFC3339Nano) }

func later(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}

func earlier(a, b time.Time) time.Time {
	if b.Before(a) {
		return b
	}
	return a
}
