package consistency

import (
	"net/http"
	"net/url"
	"strconv"

	. "github.com/onsi/gomega"
	"github.com/tidwall/gjson"

	"github.com/platformkit/platformkit/conformance/kit"

	"github.com/platformkit/platformkit/conformance/tunnels"

	"github.com/platformkit/platformkit/conformance/memory"

	"github.com/platformkit/platformkit/conformance/compliance"

	"github.com/platformkit/platformkit/conformance/admin"
)

// Cross-field consistency of what is read: statements of the specification that relate two
// fields of a record, or two responses, checked on whatever data the target holds (its fixtures
// or a deployment's own records), read only. The statements that hold of every response
// (request-id, refusal records) are checked by the harness on every answer (kit/seen.go).

// cursorList is a cursor-by-ID list (spec 2.1) that any target serves.
type cursorList struct {
	name string
	req  kit.Request
}

func cursorLists() []cursorList {
	return []cursorList{
		{"models", kit.Request{Area: kit.Models, Path: "/v1/models", Schema: "models/model_list"}},
		{"invites", kit.Request{Area: kit.Admin, Path: "/v1/organizations/invites", Schema: "admin/invite_list"}},
		{"users", kit.Request{Area: kit.Admin, Path: "/v1/organizations/users", Schema: "admin/user_list"}},
		{"workspaces", kit.Request{Area: kit.Admin, Path: "/v1/organizations/workspaces", Query: url.Values{"include_archived": {"true"}}, Schema: "admin/workspace_list"}},
	}
}

// page reads one page of a cursor list with the cursor parameter set (none when param is "").
func page(t *kit.T, l cursorList, limit int, param, cursor string) *kit.Response {
	r := l.req
	r.Query = kit.CloneQuery(r.Query)
	r.Query.Set("limit", strconv.Itoa(limit))
	if param != "" {
		r.Query.Set(param, cursor)
	}
	return t.OK(r)
}

func init() {
	kit.Register(
		kit.Check{ID: "core/request-ids-unique", Clause: "gaps §1", Labels: []kit.Label{kit.Core, kit.Extension},
			Title: "every answer carries its own request-id: no two answers of the run share one (the harness checks every answer; this check sends a burst of alike requests)",
			Run: func(t *kit.T) {
				t.NoItemsNeeded()
				seen := map[string]bool{}
				for range 5 {
					for _, r := range []kit.Request{
						{Area: kit.Models, Path: "/v1/models", Query: url.Values{"limit": {"1"}}, Schema: "models/model_list"},
						{Area: kit.Models, Path: "/v1/models/conformance-no-such-model"},
						{Area: kit.Core, Path: "/v1/conformance-no-such-route"},
					} {
						resp := t.Do(r)
						id := resp.Header.Get("request-id")
						t.Expect(id).NotTo(BeEmpty(), "every answer carries a request-id header: %s", resp)
						t.Expect(seen).NotTo(HaveKey(id), "request-id %s answered two requests", id)
						seen[id] = true
					}
				}
			},
			Bug: &kit.Bug{Says: "every page of the model list answers with the same request-id", Want: "req_repeated",
				Break: kit.InAnswers(kit.On(http.MethodGet, "^/v1/models$"), func(_ *http.Request, _ int, h http.Header, body []byte) []byte {
					h.Set("request-id", "req_repeated")
					return body
				})}},
		kit.Check{ID: "core/cursor-has-more-agrees", Clause: "2.1", Labels: []kit.Label{kit.Core},
			Title: "on every cursor list, has_more is false exactly when nothing follows: after the last page's last_id, and before the first page's first_id, nothing is listed",
			Run: func(t *kit.T) {
				lists := map[string][]gjson.Result{}
				most := 0
				for _, l := range cursorLists() {
					lists[l.name] = t.WalkCursor(l.req, "data", 2)
					most = max(most, len(lists[l.name]))
				}
				t.Need("items in one cursor list", most, 3)
				for _, l := range cursorLists() {
					all := lists[l.name]
					if len(all) == 0 {
						continue
					}
					lastID, firstID := all[len(all)-1].Get("id").String(), all[0].Get("id").String()
					after := page(t, l, 2, "after_id", lastID)
					t.Expect(after.Get("data").Array()).To(BeEmpty(), "%s: has_more was false, yet after the last item: %s", l.name, after)
					t.Expect(after.Get("has_more").Bool()).To(BeFalse(), "%s: %s", l.name, after)
					before := page(t, l, 2, "before_id", firstID)
					t.Expect(before.Get("data").Array()).To(BeEmpty(), "%s: before the first item: %s", l.name, before)
					t.Expect(before.Get("has_more").Bool()).To(BeFalse(), "%s: %s", l.name, before)
					if len(all) > 2 {
						first := page(t, l, 2, "", "")
						t.Expect(first.Get("has_more").Bool()).To(BeTrue(), "%s holds %d items, so a page of 2 has more: %s", l.name, len(all), first)
					}
				}
			},
			Bug: &kit.Bug{Says: "has_more is true on the last page of the user list", Want: "has_more",
				Break: kit.InOKAnswers(kit.On(http.MethodGet, "^/v1/organizations/users$"), func(_ *http.Request, m map[string]any) { m["has_more"] = true })}},
		kit.Check{ID: "core/cursor-ids-are-item-ids", Clause: "gaps §3", Labels: []kit.Label{kit.Core, kit.Extension},
			Title: "on every cursor list, first_id and last_id are the IDs of the first and last items of data, null when data is empty",
			Run: func(t *kit.T) {
				pages := map[string]*kit.Response{}
				most := 0
				for _, l := range cursorLists() {
					pages[l.name] = page(t, l, 3, "", "")
					most = max(most, len(pages[l.name].Get("data").Array()))
				}
				t.Need("items in one cursor list", most, 2)
				for _, l := range cursorLists() {
					resp := pages[l.name]
					data := resp.Get("data").Array()
					if len(data) == 0 {
						t.Expect(resp.Get("first_id").Type).To(Equal(gjson.Null), "%s: %s", l.name, resp)
						t.Expect(resp.Get("last_id").Type).To(Equal(gjson.Null), "%s: %s", l.name, resp)
						continue
					}
					t.Expect(resp.Get("first_id").String()).To(Equal(data[0].Get("id").String()), "%s: first_id is the first item's ID: %s", l.name, resp)
					t.Expect(resp.Get("last_id").String()).To(Equal(data[len(data)-1].Get("id").String()), "%s: last_id is the last item's ID: %s", l.name, resp)
				}
			},
			Bug: &kit.Bug{Says: "last_id of the invite list is not the last item's ID", Want: "last_id",
				Break: kit.InOKAnswers(kit.On(http.MethodGet, "^/v1/organizations/invites$"), func(_ *http.Request, m map[string]any) {
					if id, ok := m["last_id"].(string); ok {
						m["last_id"] = "x" + id
					}
				})}},
		kit.Check{ID: "admin/invite-status-agrees-with-expiry", Clause: "3.2", Labels: []kit.Label{kit.Admin},
			Title: "no invite whose expires_at has passed (on the target's clock) reads pending, none reads expired before its expires_at, and each expires after it was sent",
			Bug: &kit.Bug{Says: "an invite whose expires_at has passed still reads pending in the list", Want: "before the target's now",
				Break: kit.InOKAnswers(kit.On(http.MethodGet, admin.InvitesRoute), func(_ *http.Request, m map[string]any) {
					kit.EachDataItem(m, func(in map[string]any) {
						if in["status"] == "expired" {
							in["status"] = "pending"
						}
					})
				})},
			Run: func(t *kit.T) {
				// The target's clock, read from what it just stamped: the fake's is virtual.
				now := admin.CreateInvite(t, "clock", "user").Get("invited_at").Time()
				invites := admin.WalkCursor(t, "/v1/organizations/invites", "admin/invite_list", nil, 1000)
				// The invite just sent shows a pending one; an expired one cannot be made.
				lapsed := 0
				for _, in := range invites {
					if !in.Get("expires_at").Time().After(now) {
						lapsed++
					}
				}
				t.Need("invites whose expires_at has passed", lapsed, 1)
				for _, in := range invites {
					exp, status := in.Get("expires_at").Time(), in.Get("status").String()
					t.Expect(exp.After(in.Get("invited_at").Time())).To(BeTrue(), "expires_at after invited_at: %s", in.Raw)
					if !exp.After(now) {
						t.Expect(status).NotTo(Equal("pending"), "the invite expired at %s, before the target's now %s: %s", exp, now, in.Raw)
					}
					if status == "expired" {
						t.Expect(exp.After(now)).To(BeFalse(), "the invite reads expired before its expires_at (now %s): %s", now, in.Raw)
					}
				}
			}},
		kit.Check{ID: "admin/workspaces-consistent", Clause: "4.6", Labels: []kit.Label{kit.Admin},
			Title: "every workspace's default_inference_geo is one of its allowed_inference_geos (unless unrestricted), and archived_at is not before created_at",
			Bug: &kit.Bug{Says: "a workspace with an explicit allowed_inference_geos list lists a default_inference_geo outside it", Want: "the default geo is one of the allowed ones",
				Break: kit.InOKAnswers(kit.On(http.MethodGet, admin.WorkspacesRoute), func(_ *http.Request, m map[string]any) {
					kit.EachDataItem(m, func(w map[string]any) { admin.DefaultOutsideAllowed(w) })
				})},
			Run: func(t *kit.T) {
				all := admin.WalkCursor(t, "/v1/organizations/workspaces", "admin/workspace_list", url.Values{"include_archived": {"true"}}, 1000)
				t.Need("workspaces", len(all), 1)
				for _, w := range all {
					allowed := w.Get("data_residency.allowed_inference_geos")
					if allowed.IsArray() {
						var geos []string
						for _, g := range allowed.Array() {
							geos = append(geos, g.String())
						}
						t.Expect(geos).To(ContainElement(w.Get("data_residency.default_inference_geo").String()), "the default geo is one of the allowed ones: %s", w.Raw)
					}
					if a := w.Get("archived_at"); a.Type == gjson.String {
						t.Expect(a.Time().Before(w.Get("created_at").Time())).To(BeFalse(), "archived_at is not before created_at: %s", w.Raw)
					}
				}
			}},
		kit.Check{ID: "tunnels/certificates-agree-with-tunnels", Clause: "3.3", Labels: []kit.Label{kit.Tunnels},
			Title: "every certificate names its tunnel; a tunnel holds at most two non-archived certificates, an archived tunnel none; the default certificate list is exactly the non-archived ones",
			Run: func(t *kit.T) {
				type tunnelCerts struct {
					tunnel gjson.Result
					certs  []gjson.Result
				}
				var all []tunnelCerts
				n := 0
				for _, tn := range tunnels.Walk(t, tunnels.IncludeArchived, 0, false) {
					path := tunnels.Path + "/" + tn.Get("id").String() + "/certificates"
					certs := t.WalkPages(kit.Request{Area: kit.Tunnels, Path: path, Query: tunnels.IncludeArchived, Schema: "tunnels/certificate_list"}, 0)
					all, n = append(all, tunnelCerts{tn, certs}), n+len(certs)
				}
				t.Need("certificates", n, 1)
				for _, tc := range all {
					tn := tc.tunnel
					id := tn.Get("id").String()
					path := tunnels.Path + "/" + id + "/certificates"
					var active []string
					for _, c := range tc.certs {
						t.Expect(c.Get("tunnel_id").String()).To(Equal(id), "a certificate names its tunnel: %s", c.Raw)
						if c.Get("archived_at").Type == gjson.Null {
							active = append(active, c.Get("id").String())
						}
					}
					t.Expect(len(active)).To(BeNumerically("<=", 2), "tunnel %s has %d non-archived certificates (spec 3.4)", id, len(active))
					if tn.Get("archived_at").Type != gjson.Null {
						t.Expect(active).To(BeEmpty(), "archiving tunnel %s archives its certificates (spec 3.3)", id)
					}
					listed := kit.IDsOf(t.WalkPages(kit.Request{Area: kit.Tunnels, Path: path, Schema: "tunnels/certificate_list"}, 0))
					t.Expect(listed).To(ConsistOf(active), "tunnel %s: the default list is the non-archived certificates", id)
				}
			},
			Bug: &kit.Bug{Says: "the default certificate list includes archived certificates", Want: "the default list is the non-archived certificates",
				Break: kit.InRouteQuery(http.MethodGet, tunnels.CertsRoute, func(q url.Values) {
					if !q.Has("include_archived") {
						q.Set("include_archived", "true")
					}
				})}},
		kit.Check{ID: "memory/memories-agree-with-versions", Clause: "2.14", Labels: []kit.Label{kit.Memory},
			Title: "for the memories named in the version lists, content_sha256 and content_size_bytes are of the content, and memory_version_id points to a version of that memory with the same hash and path",
			Run: func(t *kit.T) {
				checked := 0
				for _, s := range memory.ListStores(t, url.Values{"include_archived": {"true"}, "limit": {"100"}}) {
					store := s.Get("id").String()
					seen := map[string]bool{}
					for _, v := range memory.ListVersions(t, store, url.Values{"limit": {"100"}}) {
						id := v.Get("memory_id").String()
						if seen[id] || checked >= 40 {
							continue
						}
						seen[id] = true
						resp := t.Do(memory.Req(http.MethodGet, memory.StoresPath+"/"+store+"/memories/"+id, url.Values{"view": {"full"}}, nil, "memory/memory"))
						if resp.Status == http.StatusNotFound {
							continue // deleted
						}
						t.Expect(resp.Status).To(Equal(http.StatusOK), "%s", resp)
						m := resp.JSON()
						content := m.Get("content").String()
						t.Expect(m.Get("content_sha256").String()).To(Equal(kit.SHA256Hex(content)), "%s", resp)
						t.Expect(m.Get("content_size_bytes").Int()).To(BeNumerically("==", len(content)), "%s", resp)
						t.Expect(m.Get("memory_store_id").String()).To(Equal(store), "%s", resp)
						cur := t.OK(memory.Req(http.MethodGet, memory.StoresPath+"/"+store+"/memory_versions/"+m.Get("memory_version_id").String(), nil, nil, "memory/memory_version")).JSON()
						t.Expect(cur.Get("memory_id").String()).To(Equal(id), "the current version of %s: %s", id, cur.Raw)
						t.Expect(cur.Get("operation").String()).NotTo(Equal("deleted"), "the current version of a live memory: %s", cur.Raw)
						if cur.Get("redacted_at").Type == gjson.Null {
							t.Expect(cur.Get("content_sha256").String()).To(Equal(m.Get("content_sha256").String()), "the current version of %s: %s", id, cur.Raw)
							t.Expect(cur.Get("path").String()).To(Equal(m.Get("path").String()), "the current version of %s: %s", id, cur.Raw)
						}
						checked++
					}
				}
				t.Need("live memories", checked, 1)
			},
			Bug: &kit.Bug{Says: "a memory's content_size_bytes counts characters, not UTF-8 bytes",
				Break: kit.InRouteOKAnswers(http.MethodGet, memory.MemoryRoute, func(_ *http.Request, m map[string]any) { memory.RuneSizes(m) })}},
		kit.Check{ID: "admin/listed-read-as-get", Clause: "4.6", Labels: []kit.Label{kit.Admin},
			Title: "every listed invite and workspace reads by its ID exactly as the list gives it",
			Bug: &kit.Bug{Says: "the workspace list shows every workspace's display_color as black", Want: "workspaces",
				Break: kit.SetsField(kit.On(http.MethodGet, admin.WorkspacesRoute), "data.*.display_color", "#000000")},
			Run: func(t *kit.T) {
				listed := map[string][]gjson.Result{}
				n := 0
				for kind, q := range map[string]url.Values{"invites": nil, "workspaces": {"include_archived": {"true"}}} {
					listed[kind] = admin.WalkCursor(t, "/v1/organizations/"+kind, "admin/"+kind[:len(kind)-1]+"_list", q, 1000)
					n += len(listed[kind])
				}
				t.Need("invites and workspaces", n, 1)
				for kind, items := range listed {
					for _, it := range items {
						one := t.OK(admin.Req(http.MethodGet, "/v1/organizations/"+kind+"/"+it.Get("id").String(), "admin/"+kind[:len(kind)-1], nil))
						t.Expect(one.Body).To(MatchJSON(it.Raw), "%s %s", kind, it.Get("id"))
					}
				}
			}},
		kit.Check{ID: "tunnels/certificate-list-reads-as-get", Clause: "4.9", Labels: []kit.Label{kit.Tunnels},
			Title: "every listed certificate, archived or not, reads by its ID through its tunnel exactly as the list gives it",
			Run: func(t *kit.T) {
				seen := 0
				for _, tn := range tunnels.Walk(t, tunnels.IncludeArchived, 0, false) {
					path := tunnels.Path + "/" + tn.Get("id").String() + "/certificates"
					for _, c := range t.WalkPages(kit.Request{Area: kit.Tunnels, Path: path, Query: tunnels.IncludeArchived, Schema: "tunnels/certificate_list"}, 0) {
						one := t.OK(kit.Request{Area: kit.Tunnels, Path: path + "/" + c.Get("id").String(), Schema: "tunnels/certificate"})
						t.Expect(one.Body).To(MatchJSON(c.Raw))
						seen++
					}
				}
				t.Need("certificates", seen, 1)
			},
			Bug: &kit.Bug{Says: "a certificate read by its ID gives a created_at a second off the list's",
				Break: kit.InRouteOKAnswers(http.MethodGet, tunnels.CertRoute, func(_ *http.Request, m map[string]any) { kit.SecondLater(m, "created_at") })}},
		kit.Check{ID: "memory/store-list-reads-as-get", Clause: "gaps §7", Labels: []kit.Label{kit.Memory, kit.Extension},
			Title: "every listed store, archived or not, reads by its ID exactly as the list gives it",
			Run: func(t *kit.T) {
				memory.NewStore(t)
				for _, s := range memory.ListStores(t, url.Values{"include_archived": {"true"}, "limit": {"100"}}) {
					one := t.OK(memory.Req(http.MethodGet, memory.StoresPath+"/"+s.Get("id").String(), nil, nil, "memory/memory_store"))
					t.Expect(one.Body).To(MatchJSON(s.Raw))
				}
			},
			Bug: &kit.Bug{Says: "a store read by its ID lacks its metadata",
				Break: kit.InRouteOKAnswers(http.MethodGet, memory.StoreRoute, func(_ *http.Request, m map[string]any) { delete(m, "metadata") })}},
		kit.Check{ID: "compliance/chat-projects-listed", Clause: "4.3", Labels: []kit.Label{kit.Compliance},
			Title: "the project_id of every chat of the busiest user names a project of the project list, of the same organization",
			Bug: &kit.Bug{Says: "the project list starts after the oldest project, which chats still name",
				Want: "chat assistant_chat_", Break: compliance.InOKAnswers(compliance.ProjectsRoute, func(r *http.Request, m map[string]any) {
					if list, _ := m["data"].([]any); len(list) > 0 && r.URL.Query().Get("page") == "" {
						m["data"] = list[1:]
					}
				})},
			Run: func(t *kit.T) {
				_, chats := compliance.BusiestUser(t)
				projects := map[string]string{}
				for _, p := range compliance.WalkProjects(t, url.Values{}, 100) {
					projects[p.Get("id").String()] = p.Get("organization_uuid").String()
				}
				for _, c := range chats {
					if p := c.Get("project_id"); p.Type == gjson.String {
						t.Expect(projects).To(HaveKey(p.String()), "chat %s", c.Get("id"))
						t.Expect(projects[p.String()]).To(Equal(c.Get("organization_uuid").String()), "chat %s", c.Get("id"))
					}
				}
			}},
		kit.Check{ID: "memory/versions-hash-their-content", Clause: "2.15", Labels: []kit.Label{kit.Memory},
			Title: "every version read with view=full has content_sha256 and content_size_bytes of its content, all three null when redacted, content null when deleted",
			Run: func(t *kit.T) {
				seen := 0
				for _, s := range memory.ListStores(t, url.Values{"include_archived": {"true"}, "limit": {"100"}}) {
					for _, v := range memory.ListVersions(t, s.Get("id").String(), url.Values{"limit": {"100"}, "view": {"full"}}) {
						seen++
						switch {
						case v.Get("redacted_at").Type != gjson.Null:
							for _, f := range []string{"content", "content_sha256", "content_size_bytes", "path"} {
								t.Expect(v.Get(f).Type).To(Equal(gjson.Null), "%s of a redacted version: %s", f, v.Raw)
							}
						case v.Get("operation").String() == "deleted":
							t.Expect(v.Get("content").Type).To(Equal(gjson.Null), "content of a deleted version: %s", v.Raw)
						default:
							content := v.Get("content").String()
							t.Expect(v.Get("content").Type).To(Equal(gjson.String), "content with view=full: %s", v.Raw)
							t.Expect(v.Get("content_sha256").String()).To(Equal(kit.SHA256Hex(content)), "%s", v.Raw)
							t.Expect(v.Get("content_size_bytes").Int()).To(BeNumerically("==", len(content)), "%s", v.Raw)
						}
					}
				}
				t.Need("memory versions", seen, 1)
			},
			Bug: &kit.Bug{Says: "listed versions count content_size_bytes in characters, not UTF-8 bytes",
				Break: kit.InRouteOKAnswers(http.MethodGet, memory.VersionsRoute, func(_ *http.Request, m map[string]any) { kit.EachDataItem(m, memory.RuneSizes) })}},
	)
}
