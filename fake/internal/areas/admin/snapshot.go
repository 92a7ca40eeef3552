package admin

import (
	"encoding/json"
	"maps"
	"reflect"
	"slices"
	"sync"

	"github.com/platformkit/platformkit/fake/internal/core"

	"github.com/tidwall/gjson"
)

// adminSnapshot is the area's part of a snapshot (users.json and admin.json), written from its store
// in the shape its loader reads.
var adminSnapshot = &core.SnapshotArea{Lock: core.LockArea(adminStores, func(a *Store) *sync.Mutex { return &a.Mu }), Export: exportAdmin}

// exportAdmin writes the members (with removed ones marked, since compliance still names them
// and a removed user's ID stays a valid cursor), invites with what happened to them, and
// workspaces. The organizations' rate limits, which no request changes, are copied from the
// fixtures as loaded; the workspace overrides too, unless an update changed them.
func exportAdmin(st *core.State, out map[string]any) error {
	a := adminStores.In(st.Stores).Built()
	var users, invites, workspaces core.RecordList
	for _, o := range st.Fx.Orgs {
		for _, u := range a.users.of(o) {
			rec := *u
			rec.Removed = a.Removed[u.ID]
			users.Add("", rec)
		}
		for _, in := range a.invites.of(o) {
			rec := *in
			rec.Status = in.Stored
			invites.Add(o.ID, rec, "expires_at", "type", "accepted_at", "rbac_group_ids")
		}
		for _, w := range a.workspaces.of(o) {
			workspaces.Add(o.ID, w, "type", "compartment_id")
		}
	}
	for _, l := range []core.RecordList{users, invites, workspaces} {
		if l.Err != nil {
			return l.Err
		}
	}
	out["users.json"] = struct {
		Users []json.RawMessage `json:"users"`
	}{core.OrEmptyList(users.List)}
	file := struct {
		Invites             []json.RawMessage `json:"invites"`
		Workspaces          []json.RawMessage `json:"workspaces"`
		RateLimits          json.RawMessage   `json:"rate_limits,omitempty"`
		WorkspaceRateLimits json.RawMessage   `json:"workspace_rate_limits,omitempty"`
	}{Invites: core.OrEmptyList(invites.List), Workspaces: core.OrEmptyList(workspaces.List)}
	if raw, ok := st.Fx.Files["admin.json"]; ok {
		if rl := gjson.GetBytes(raw, "rate_limits"); rl.Exists() {
			file.RateLimits = json.RawMessage(rl.Raw)
		}
		if wl := gjson.GetBytes(raw, "workspace_rate_limits"); wl.Exists() {
			file.WorkspaceRateLimits = json.RawMessage(wl.Raw)
		}
	}
	if changed, err := exportOverrides(st.Fx, a.Overrides); err != nil {
		return err
	} else if changed != nil {
		file.WorkspaceRateLimits = changed
	}
	out["admin.json"] = file
	return nil
}

// exportOverrides writes the workspace rate-limit overrides as admin.json's workspace_rate_limits,
// when an update changed them since the fixtures; nil when it did not, so that the file keeps the
// fixtures' bytes. Groups go in the organizations' order, workspaces by ID, and an override an
// update cleared is left out.
func exportOverrides(fx *core.Fixtures, ro rateOverrides) (json.RawMessage, error) {
	same := true
	for _, groups := range AdminSection.In(fx.Sections).RateLimits {
		for _, g := range groups {
			same = same && reflect.DeepEqual(ro[g], g.overrides)
		}
	}
	if same {
		return nil, nil
	}
	type entry struct {
		WorkspaceID string    `json:"workspace_id"`
		GroupType   string    `json:"group_type"`
		Model       string    `json:"model,omitempty"`
		Limits      []limiter `json:"limits"`
	}
	list := []entry{}
	for _, o := range fx.Orgs {
		for _, g := range AdminSection.In(fx.Sections).RateLimits[o] {
			for _, ws := range slices.Sorted(maps.Keys(ro[g])) {
				if len(ro[g][ws]) == 0 {
					continue
				}
				e := entry{WorkspaceID: ws, GroupType: g.GroupType, Limits: ro[g][ws]}
				if len(g.Models) > 0 {
					e.Model = g.Models[0]
				}
				list = append(list, e)
			}
		}
	}
	return json.Marshal(list)
}
