package versions

import (
	"net/http"
	"net/url"

	. "github.com/onsi/gomega"
	"github.com/tidwall/gjson"

	"github.com/platformkit/platformkit/conformance/admin"
	"github.com/platformkit/platformkit/conformance/kit"
)

// workspaceRateLimitsRoute matches a workspace's rate-limit list and its update.
const workspaceRateLimitsRoute = "^/v1/organizations/workspaces/[^/]+/rate_limits(/[^/]+)?$"

// workspaceRateLimitEntries creates a workspace, sets an override of the organization's first
// group on it, and returns the update's answer and every entry of the workspace's list, with
// and without include_inherited.
func workspaceRateLimitEntries(t *kit.T) (updated *kit.Response, listed []gjson.Result) {
	entries := admin.OrgRateLimits(t)
	if len(entries) == 0 || entries[0].Get("id").String() == "" {
		t.Unsupported("the organization's rate limits have no entry with an id to update")
	}
	rl := entries[0]
	ws := admin.CreateWorkspace(t, map[string]any{"name": "conformance rate-limit versions"}).Get("id").String()
	path := "/v1/organizations/workspaces/" + ws + "/rate_limits"
	updated = t.OK(admin.Req(http.MethodPost, path+"/"+rl.Get("id").String(), "", map[string]any{
		"limits": []any{map[string]any{"type": rl.Get("limits.0.type").String(), "value": 7}}}))
	for _, q := range []url.Values{nil, {"include_inherited": {"true"}}} {
		listed = append(listed, t.OK(kit.Request{Area: kit.Admin, Path: path, Query: q, Schema: "admin/workspace_rate_limit_list"}).Get("data").Array()...)
	}
	t.Need("workspace rate-limit entries", len(listed), 1)
	return updated, listed
}

// onWorkspaceRateLimits matches the workspace rate-limit list and update.
func onWorkspaceRateLimits(r *http.Request) bool {
	return kit.On(http.MethodGet, workspaceRateLimitsRoute)(r) || kit.On(http.MethodPost, workspaceRateLimitsRoute)(r)
}

func init() {
	kit.Register(
		kit.Check{ID: "admin/v2026-workspace-rate-limits-without-group-type", Clause: "9", Labels: []kit.Label{kit.Admin, kit.Extension, kit.V20261021},
			Title: "at API version 2026-10-21, a workspace's rate-limit entries and the workspace rate-limit update's answer leave out group_type (group.type names the group)",
			Bug: &kit.Bug{Says: "workspace rate-limit entries keep group_type at 2026-10-21", Want: "no group_type",
				Break: kit.InOKAnswers(onWorkspaceRateLimits, func(_ *http.Request, m map[string]any) {
					add := func(e map[string]any) {
						if g, ok := e["group"].(map[string]any); ok {
							e["group_type"] = g["type"]
						}
					}
					add(m)
					kit.EachDataItem(m, add)
				})},
			Run: func(t *kit.T) {
				updated, listed := workspaceRateLimitEntries(t)
				for _, e := range append(listed, updated.JSON()) {
					t.Expect(e.Get("group_type").Exists()).To(BeFalse(), "an entry has no group_type at 2026-10-21: %s", e.Raw)
					t.Expect(e.Get("group.type").String()).NotTo(BeEmpty(), "an entry names its group.type: %s", e.Raw)
				}
			}},
		kit.Check{ID: "admin/v2023-workspace-rate-limits-group-type", Clause: "9", Labels: []kit.Label{kit.Admin, kit.Extension, kit.V20230601},
			Title: "at API version 2023-06-01, a workspace's rate-limit entries and the workspace rate-limit update's answer carry group_type equal to group.type",
			Bug: &kit.Bug{Says: "the workspace rate-limit update's answer lacks group_type at 2023-06-01", Want: "group_type",
				Break: kit.DropsField(kit.On(http.MethodPost, workspaceRateLimitsRoute), "group_type")},
			Run: func(t *kit.T) {
				updated, listed := workspaceRateLimitEntries(t)
				for _, e := range append(listed, updated.JSON()) {
					t.Expect(e.Get("group_type").Exists()).To(BeTrue(), "an entry has group_type at 2023-06-01: %s", e.Raw)
					t.Expect(e.Get("group_type").String()).To(Equal(e.Get("group.type").String()), "group_type equals group.type: %s", e.Raw)
				}
			}},
	)
}
