package fake

import (
	"slices"
)

// Rate limits (spec 2.12, 4.6, 8, gaps §6). They come from the fixtures and never change.

// groupTypes are the group_type values of spec 2.12.
var groupTypes = []string{"model_group", "batch", "token_count", "files", "skills", "web_search"}

// rateLimitEntry is an organization rate-limit entry (spec 2.12).
type rateLimitEntry struct {
	Type      string    `json:"type"`
	GroupType string    `json:"group_type"`
	Limits    []limiter `json:"limits"`
	Models    []string  `json:"models"`
}

// workspaceLimiter is one limiter of a workspace entry: the override and the organization value
// it overrides, null when the organization has none for that limiter type.
type workspaceLimiter struct {
	OrgLimit *int64 `json:"org_limit"`
	Type     string `json:"type"`
	Value    int64  `json:"value"`
}

// workspaceRateLimitEntry is a workspace rate-limit entry (spec 2.12).
type workspaceRateLimitEntry struct {
	Type      string             `json:"type"`
	GroupType string             `json:"group_type"`
	Limits    []workspaceLimiter `json:"limits"`
	Models    []string           `json:"models"`
	key       listKey
}

// groupKey and wsEntryKey place rate-limit entries in their lists: fixture order.
func groupKey(g *rateLimitGroup) listKey           { return g.key }
func wsEntryKey(e workspaceRateLimitEntry) listKey { return e.key }

// rateLimitPaging reads the parameters both lists share: group_type, page (a token of the list
// named scope) and limit (omitted: every entry in one page, gaps §6).
func (c *call) rateLimitPaging(scope string) (groupType string, after *listKey, limit int, err error) {
	if groupType, err = c.queryEnum("group_type"); err != nil {
		return
	}
	if after, err = c.pageToken(scope); err != nil {
		return
	}
	limit, _, err = c.queryInt("limit")
	return
}

// listRateLimits lists the organization's rate-limit groups. model (an ID or an alias) selects
// the single group that lists it; an unknown model or one without limits is a 404 (spec 7).
func (s *Server) listRateLimits(c *call) (any, error) {
	groupType, after, limit, err := c.rateLimitPaging("rate_limits:" + c.org.UUID)
	if err != nil {
		return nil, err
	}
	model, byModel := c.queryString("model")
	var groups []*rateLimitGroup
	for _, g := range c.st.fx.admin.rateLimits[c.org] {
		if (groupType == "" || g.GroupType == groupType) && (!byModel || slices.Contains(g.Models, model)) {
			groups = append(groups, g)
		}
	}
	if byModel && len(groups) == 0 {
		return nil, newError(errNotFound, "model %q has no rate limits in this organization; pass a model ID or alias listed in the models of a model_group entry", model)
	}
	page := pageByToken(groups, groupKey, oldestFirst, "rate_limits:"+c.org.UUID, after, limit)
	out := tokenPage[rateLimitEntry]{Data: make([]rateLimitEntry, 0, len(page.Data)), NextPage: page.NextPage}
	for _, g := range page.Data {
		out.Data = append(out.Data, rateLimitEntry{Type: "rate_limit", GroupType: g.GroupType, Limits: g.Limits, Models: g.Models})
	}
	return out, nil
}

// listWorkspaceRateLimits lists only the groups and limiter types the workspace overrides; the
// others inherit the organization's values (spec 4.6).
func (s *Server) listWorkspaceRateLimits(c *call) (any, error) {
	wsID, a := c.Param("workspace_id"), s.admin(c)
	a.mu.Lock()
	_, err := a.findWorkspace(c.org, wsID)
	a.mu.Unlock()
	if err != nil {
		return nil, err
	}
	groupType, after, limit, err := c.rateLimitPaging("workspace_rate_limits:" + wsID)
	if err != nil {
		return nil, err
	}
	var entries []workspaceRateLimitEntry
	for _, g := range c.st.fx.admin.rateLimits[c.org] {
		over, ok := g.overrides[wsID]
		if !ok || (groupType != "" && g.GroupType != groupType) {
			continue
		}
		e := workspaceRateLimitEntry{Type: "workspace_rate_limit", GroupType: g.GroupType, Models: g.Models, key: g.key}
		for _, l := range over {
			wl := workspaceLimiter{Type: l.Type, Value: l.Value}
			if i := slices.IndexFunc(g.Limits, func(o limiter) bool { return o.Type == l.Type }); i >= 0 {
				wl.OrgLimit = &g.Limits[i].Value
			}
			e.Limits = append(e.Limits, wl)
		}
		entries = append(entries, e)
	}
	return pageByToken(entries, wsEntryKey, oldestFirst, "workspace_rate_limits:"+wsID, after, limit), nil
}
