package sdkroutes

import (
	"net/http"

	. "github.com/onsi/gomega"

	"github.com/platformkit/platformkit/conformance/kit"

	"github.com/platformkit/platformkit/conformance/work"

	"github.com/platformkit/platformkit/conformance/tunnels"

	"github.com/platformkit/platformkit/conformance/admin"
)

// Routes the official SDKs call that the reference does not describe (EXTENSIONS.md §11): the
// work item update, the workspace rate-limit update and /v1/tunnels. A target that does not
// serve a route (404 or 405 to a probe) makes its check unsupported.

func init() {
	ext := func(l kit.Label) []kit.Label { return []kit.Label{l, kit.Extension} }
	kit.Register(
		kit.Check{ID: "work/update-merges-metadata", Clause: "2.16", Labels: ext(kit.Work),
			Title: "POST .../work/{work_id} patches metadata: a string upserts its key, null deletes it, keys not named stay",
			Run: func(t *kit.T) {
				env := work.CreateEnv(t)
				id := work.Enqueue(t, env)
				update := func(md map[string]any) kit.Request {
					r := work.Req(http.MethodPost, env, "/"+id, nil, "work/work")
					r.Body = map[string]any{"metadata": md}
					return r
				}
				first := t.Do(update(map[string]any{"keep": "1", "drop": "2"}))
				kit.Served(t, first, "POST /v1/environments/{environment_id}/work/{work_id}")
				t.Expect(first.Status).To(Equal(http.StatusOK), "%s", first)
				second := t.OK(update(map[string]any{"drop": nil, "add": "3"}))
				t.Expect(second.Get("metadata").Raw).To(MatchJSON(`{"keep":"1","add":"3"}`))
				t.Expect(t.OK(work.GetItem(env, id)).Get("metadata").Raw).To(MatchJSON(`{"keep":"1","add":"3"}`), "the item read back")
			},
			Bug: &kit.Bug{Says: "a work-item update replaces metadata with the patch: keys not named are deleted", Break: work.ReplacesItemMetadata}},
		kit.Check{ID: "admin/workspace-rate-limit-update", Clause: "2.12", Labels: ext(kit.Admin),
			Title: "a workspace rate-limit update sets an override that the workspace's list then shows, with source workspace, and null clears it",
			Bug: &kit.Bug{Says: "a workspace's overrides are listed with source organization", Want: "source workspace",
				Break: kit.Both(kit.SetsField(kit.On(http.MethodGet, admin.WorkspaceLimitsRoute), "data.*.limits.*.source.type", "organization"),
					kit.SetsField(kit.On(http.MethodPost, `^/v1/organizations/workspaces/[^/]+/rate_limits/[^/]+$`), "limits.*.source.type", "organization"))},
			Run: func(t *kit.T) {
				entries := admin.OrgRateLimits(t)
				if len(entries) == 0 || entries[0].Get("id").String() == "" {
					t.Unsupported("the organization's rate limits have no entry with an id to update")
				}
				rl := entries[0]
				limiter := rl.Get("limits.0.type").String()
				ws := admin.CreateWorkspace(t, map[string]any{"name": "conformance rate limits"}).Get("id").String()
				path := "/v1/organizations/workspaces/" + ws + "/rate_limits"
				set := func(value any) kit.Request {
					return admin.Req(http.MethodPost, path+"/"+rl.Get("id").String(), "admin/workspace_rate_limit",
						map[string]any{"limits": []map[string]any{{"type": limiter, "value": value}}})
				}
				resp := t.Do(set(7))
				kit.Served(t, resp, "POST /v1/organizations/workspaces/{workspace_id}/rate_limits/{rate_limit_id}")
				t.Expect(resp.Status).To(Equal(http.StatusOK), "%s", resp)
				listed := t.OK(admin.Req(http.MethodGet, path, "admin/workspace_rate_limit_list", nil)).Get("data").Array()
				t.Expect(listed).To(HaveLen(1), "the new workspace's overrides")
				t.Expect(listed[0].Get("rate_limit_id").String()).To(Equal(rl.Get("id").String()))
				t.Expect(listed[0].Get("limits").Raw).To(MatchJSON(resp.Get("limits").Raw), "the list shows what the update answered")
				t.Expect(listed[0].Get(`limits.#(type=="` + limiter + `").value`).Int()).To(BeEquivalentTo(7))
				t.Expect(listed[0].Get(`limits.#(type=="`+limiter+`").source.type`).String()).To(Equal("workspace"), "the override has source workspace: %s", listed[0].Raw)
				t.OK(set(nil))
				t.Expect(t.OK(admin.Req(http.MethodGet, path, "admin/workspace_rate_limit_list", nil)).Get("data").Array()).To(BeEmpty(), "after clearing")
			}},
		kit.Check{ID: "tunnels/v1-tunnels-same-state", Clause: "4.9", Labels: append(ext(kit.Tunnels), kit.Destructive),
			Title: "a tunnel created under /v1/tunnels (beta mcp-tunnels-2026-06-22) reads the same under /v1/organizations/tunnels, and an archive through either shows in both",
			Run: func(t *kit.T) {
				resp := t.Do(tunnels.BetaRequest(http.MethodPost, "", "tunnels/tunnel", map[string]any{"display_name": "conformance"}))
				kit.Served(t, resp, "POST /v1/tunnels")
				t.Expect(resp.Status).To(Equal(http.StatusOK), "%s", resp)
				id := resp.Get("id").String()
				t.Cleanup("archive tunnel "+id, t.Delete(kit.Request{Area: kit.Tunnels, Method: http.MethodPost, Path: tunnels.Path + "/" + id + "/archive"}))
				t.Expect(resp.Get("display_name").String()).To(Equal("conformance"))
				org := t.OK(kit.Request{Area: kit.Tunnels, Path: tunnels.Path + "/" + id, Schema: "tunnels/tunnel"})
				t.Expect(org.Body).To(MatchJSON(resp.Body), "the same tunnel under /v1/organizations/tunnels")
				t.OK(kit.Request{Area: kit.Tunnels, Method: http.MethodPost, Path: tunnels.Path + "/" + id + "/archive", Schema: "tunnels/tunnel"})
				again := t.OK(tunnels.BetaRequest(http.MethodGet, "/"+id, "tunnels/tunnel", nil))
				t.Expect(again.Get("archived_at").String()).NotTo(BeEmpty(), "archived through /v1/organizations/tunnels, as /v1/tunnels reads it")
			},
			Bug: &kit.Bug{Says: "an archive through /v1/organizations/tunnels does not show under /v1/tunnels", Want: "archived through",
				Break: kit.InRouteOKAnswers(http.MethodGet, `^/v1/tunnels/[^/]+$`, func(_ *http.Request, m map[string]any) { m["archived_at"] = nil })}},
	)
}
