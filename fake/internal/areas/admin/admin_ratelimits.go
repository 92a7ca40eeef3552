package admin

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"maps"
	"slices"

	"github.com/platformkit/platformkit/fake/internal/core"
)

// Rate limits (spec 2.12, 4.6, 8, gaps §6). The organization's groups come from the fixtures and
// never change; a workspace's overrides start from the fixtures and change with the update the
// official SDKs call (POST .../workspaces/{workspace_id}/rate_limits/{rate_limit_id}).

// GroupTypes are the group_type values of spec 2.12.
var GroupTypes = []string{"model_group", "batch", "token_count", "files", "skills", "web_search"}

// sdkLimiterTypes are the limiter types the official SDKs name for a workspace override, besides
// the types a group already lists.
var sdkLimiterTypes = []string{"fast_itpmca", "fast_otpm", "input_tokens_per_minute", "input_tokens_per_minute_cache_aware",
	"output_tokens_per_minute", "requests_per_minute", "tokens_per_day", "tokens_per_minute", "tool_uses_per_second"}

// rateLimitGroupRef is the group an entry's limits apply to, as the official SDKs read it:
// display_name only for a model_group.
type rateLimitGroupRef struct {
	ID          string `json:"id"`
	DisplayName string `json:"display_name,omitempty"`
	Type        string `json:"type"`
}

// rateLimitEntry is an organization rate-limit entry (spec 2.12), with the SDKs' id and group.
type rateLimitEntry struct {
	ID        string            `json:"id"`
	Group     rateLimitGroupRef `json:"group"`
	Type      string            `json:"type"`
	GroupType string            `json:"group_type,omitempty"` // left out at versions without it (versions.go)
	Limits    []limiter         `json:"limits"`
	Models    []string          `json:"models"`
}

// limitSource says where a workspace limiter's value comes from (the SDKs' source).
type limitSource struct {
	Type string `json:"type"` // "workspace" (an override) or "organization" (inherited)
}

// workspaceLimiter is one limiter of a workspace entry: the override and the organization value
// it overrides, null when the organization has none for that limiter type.
type workspaceLimiter struct {
	OrgLimit *int64      `json:"org_limit"`
	Source   limitSource `json:"source"`
	Type     string      `json:"type"`
	Value    int64       `json:"value"`
}

// workspaceRateLimitEntry is a workspace rate-limit entry (spec 2.12), with the SDKs' group,
// rate_limit_id and workspace_id.
type workspaceRateLimitEntry struct {
	Group       rateLimitGroupRef  `json:"group"`
	Type        string             `json:"type"`
	GroupType   string             `json:"group_type,omitempty"` // left out at versions without it (versions.go)
	Limits      []workspaceLimiter `json:"limits"`
	Models      []string           `json:"models"`
	RateLimitID string             `json:"rate_limit_id"`
	WorkspaceID string             `json:"workspace_id"`
	key         core.ListKey
}

// setIDs names a fixture group of organization o: the group's ID is the same in every organization (derived
// from its type and, for a model group, its first model), the entry's ID differs per
// organization, and a model group's display name is its first model.
func (g *RateLimitGroup) setIDs(o *core.Org) {
	first := ""
	if len(g.Models) > 0 {
		first = g.Models[0]
		g.Group.DisplayName = first
	}
	g.Group.ID = "rlg_" + shortHash("rate limit group", g.GroupType, first)
	g.Group.Type = g.GroupType
	g.ID = "rl_" + shortHash("rate limit", o.UUID, g.Group.ID)
}

// shortHash is 24 hex characters of the SHA-256 of parts: a stable, opaque ID suffix.
func shortHash(parts ...string) string {
	h := sha256.New()
	for _, p := range parts {
		h.Write([]byte(p))
		h.Write([]byte{0})
	}
	return hex.EncodeToString(h.Sum(nil))[:24]
}

// groupKey and wsEntryKey place rate-limit entries in their lists: fixture order.
func groupKey(g *RateLimitGroup) core.ListKey           { return g.key }
func wsEntryKey(e workspaceRateLimitEntry) core.ListKey { return e.key }

// rateLimitPaging reads the parameters both lists share: group_type, page (a token of the list
// named scope) and limit (omitted: every entry in one page, gaps §6).
func rateLimitPaging(c *core.Call, scope string) (groupType string, after *core.ListKey, limit int, err error) {
	if groupType, err = c.QueryEnum("group_type"); err != nil {
		return
	}
	if after, err = c.PageToken(scope); err != nil {
		return
	}
	limit, _, err = c.QueryInt("limit")
	return
}

// listRateLimits lists the organization's rate-limit groups. model (an ID or an alias) selects
// the single group that lists it; an unknown model or one without limits is a 404 (spec 7).
func listRateLimits(s *core.Server, c *core.Call) (any, error) {
	groupType, after, limit, err := rateLimitPaging(c, "rate_limits:"+c.Org.UUID)
	if err != nil {
		return nil, err
	}
	model, byModel := c.QueryString("model")
	groups := AdminSection.In(c.St.Fx.Sections).RateLimits[c.Org]
	keep := func(g *RateLimitGroup) bool {
		return (groupType == "" || g.GroupType == groupType) && (!byModel || slices.Contains(g.Models, model))
	}
	if byModel && !slices.ContainsFunc(groups, keep) {
		return nil, core.NewError(core.ErrNotFound, "model %s has no rate limits in this organization; pass a model ID or alias listed in the models of a model_group entry", core.Quoted(model, core.MaxExcerpt))
	}
	page := core.PageByTokenKept(groups, keep, groupKey, core.OldestFirst, "rate_limits:"+c.Org.UUID, after, limit)
	return core.SplicePage(page.Data, func(g *RateLimitGroup) []byte {
		if c.RateLimitGroupType(g.GroupType) == "" {
			return g.encoded[0]
		}
		return g.encoded[1]
	}, core.TokenPage[struct{}]{NextPage: page.NextPage}), nil
}

// entry is the group's list entry, with group_type as given ("" leaves it out).
func (g *RateLimitGroup) entry(groupType string) rateLimitEntry {
	return rateLimitEntry{ID: g.ID, Group: g.Group, Type: "rate_limit", GroupType: groupType, Limits: g.Limits, Models: g.Models}
}

// rateOverrides are a server's workspace overrides: per group, per workspace ID, the limiters
// in the order they were first set. Updates replace a workspace's slice, never change it.
type rateOverrides map[*RateLimitGroup]map[string][]limiter

// newRateOverrides copies the fixtures' overrides into a server's own state.
func newRateOverrides(fx *core.Fixtures) rateOverrides {
	ro := rateOverrides{}
	for _, groups := range AdminSection.In(fx.Sections).RateLimits {
		for _, g := range groups {
			ro[g] = maps.Clone(g.overrides)
		}
	}
	return ro
}

// entry is the workspace's entry for group g, as the request c reads it (group_type per its
// version): only its overrides, or with inherited also every limiter type the organization sets,
// marked by source. ok is false when there is nothing to list.
func (ro rateOverrides) entry(c *core.Call, g *RateLimitGroup, wsID string, inherited bool) (e workspaceRateLimitEntry, ok bool) {
	over := ro[g][wsID]
	e = workspaceRateLimitEntry{Group: g.Group, Type: "workspace_rate_limit", GroupType: c.RateLimitGroupType(g.GroupType), Models: g.Models,
		RateLimitID: g.ID, WorkspaceID: wsID, Limits: []workspaceLimiter{}, key: g.key}
	orgValue := func(t string) *int64 {
		if i := slices.IndexFunc(g.Limits, func(o limiter) bool { return o.Type == t }); i >= 0 {
			v := g.Limits[i].Value
			return &v
		}
		return nil
	}
	if inherited {
		for _, l := range g.Limits {
			if !slices.ContainsFunc(over, func(o limiter) bool { return o.Type == l.Type }) {
				e.Limits = append(e.Limits, workspaceLimiter{OrgLimit: orgValue(l.Type), Source: limitSource{"organization"}, Type: l.Type, Value: l.Value})
			}
		}
	}
	for _, l := range over {
		e.Limits = append(e.Limits, workspaceLimiter{OrgLimit: orgValue(l.Type), Source: limitSource{"workspace"}, Type: l.Type, Value: l.Value})
	}
	return e, len(over) > 0 || inherited
}

// listWorkspaceRateLimits lists only the groups and limiter types the workspace overrides; the
// others inherit the organization's values (spec 4.6). include_inherited (the SDKs' parameter)
// lists every group, with the inherited values too.
func listWorkspaceRateLimits(s *core.Server, c *core.Call) (any, error) {
	wsID := c.Param("workspace_id")
	groupType, after, limit, err := rateLimitPaging(c, "workspace_rate_limits:"+wsID)
	if err != nil {
		return nil, err
	}
	inherited, err := c.QueryBool("include_inherited")
	if err != nil {
		return nil, err
	}
	a := StoreOf(s, c)
	a.Mu.Lock()
	defer a.Mu.Unlock()
	if _, err := a.FindWorkspace(c.Org, wsID); err != nil {
		return nil, err
	}
	var entries []workspaceRateLimitEntry
	for _, g := range AdminSection.In(c.St.Fx.Sections).RateLimits[c.Org] {
		if groupType != "" && g.GroupType != groupType {
			continue
		}
		if e, ok := a.Overrides.entry(c, g, wsID, inherited); ok {
			entries = append(entries, e)
		}
	}
	return core.PageByToken(entries, wsEntryKey, core.OldestFirst, "workspace_rate_limits:"+wsID, after, limit), nil
}

// limitChange is one item of a rate-limit update: a value sets the override, null clears it.
type limitChange struct {
	Type  string `json:"type"`
	Value *int64 `json:"value"`
}

// updateWorkspaceRateLimit sets (an integer) or clears (null) the workspace's overrides of the
// limiter types named, in the group of the organization entry rate_limit_id; other types keep
// theirs. A value above the organization's is stored as given. The answer is the group's entry
// as the list shows it. An archived workspace is read-only.
func updateWorkspaceRateLimit(s *core.Server, c *core.Call) (any, error) {
	var req struct {
		Limits []limitChange `json:"limits"`
	}
	if err := c.BindValid(&req); err != nil {
		return nil, err
	}
	a := StoreOf(s, c)
	a.Mu.Lock()
	defer a.Mu.Unlock()
	w, err := a.FindWorkspace(c.Org, c.Param("workspace_id"))
	if err != nil {
		return nil, err
	}
	id := c.Param("rate_limit_id")
	i := slices.IndexFunc(AdminSection.In(c.St.Fx.Sections).RateLimits[c.Org], func(g *RateLimitGroup) bool { return g.ID == id })
	if i < 0 {
		return nil, core.NotFound("rate limit", id)
	}
	g := AdminSection.In(c.St.Fx.Sections).RateLimits[c.Org][i]
	if w.ArchivedAt != nil {
		return nil, core.Invalid("workspace %s is archived and cannot be changed", w.ID)
	}
	over := slices.Clone(a.Overrides[g][w.ID])
	has := func(ls []limiter, t string) int {
		return slices.IndexFunc(ls, func(o limiter) bool { return o.Type == t })
	}
	for j, l := range req.Limits {
		field := fmt.Sprintf("limits.%d.type", j)
		switch {
		case slices.ContainsFunc(req.Limits[:j], func(p limitChange) bool { return p.Type == l.Type }):
			return nil, core.InvalidField(field, "%s is named twice; name each limiter type once", core.Quoted(l.Type, core.MaxExcerpt))
		case !slices.Contains(sdkLimiterTypes, l.Type) && has(g.Limits, l.Type) < 0 && has(over, l.Type) < 0:
			return nil, core.InvalidField(field, "%s is not a limiter type of this group; use one it lists or one of %q", core.Quoted(l.Type, core.MaxExcerpt), sdkLimiterTypes)
		}
		switch k := has(over, l.Type); {
		case l.Value == nil && k >= 0:
			over = slices.Delete(over, k, k+1)
		case l.Value != nil && k >= 0:
			over[k].Value = *l.Value
		case l.Value != nil:
			over = append(over, limiter{Type: l.Type, Value: *l.Value})
		}
	}
	if len(over) == 0 {
		delete(a.Overrides[g], w.ID)
	} else {
		a.Overrides[g][w.ID] = over
	}
	e, _ := a.Overrides.entry(c, g, w.ID, false)
	return e, nil
}
