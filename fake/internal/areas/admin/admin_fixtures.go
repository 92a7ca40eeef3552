package admin

import (
	"fmt"
	"io/fs"
	"slices"
	"time"

	"github.com/platformkit/platformkit/fake/internal/core"
)

// adminFixtures is the administration data set of fixtures/admin.json: invites, workspaces and
// rate limits of every organization. Members come from users.json (Fixtures.users), which
// compliance shares.
type adminFixtures struct {
	Invites    []Invite
	Workspaces []Workspace
	// RateLimits holds each organization's rate-limit groups in list order.
	RateLimits map[*core.Org][]*RateLimitGroup
}

// RateLimitGroup is one organization rate-limit entry (spec 2.12) with the workspace overrides
// of the same group. Fixtures are read-only, so handlers read groups without copying.
type RateLimitGroup struct {
	key       core.ListKey // position in the organization's list, for page tokens
	ID        string       // the organization's entry (rl_), which an update names
	Group     rateLimitGroupRef
	GroupType string
	Models    []string // nil unless GroupType is model_group
	Limits    []limiter
	// overrides maps a workspace ID to its limiter overrides for this group in the fixtures;
	// each server changes its own copy (adminStore.overrides).
	overrides map[string][]limiter
	// encoded is the group's list entry, encoded at load, since no request changes it: [0]
	// without group_type, [1] with it (versions.go).
	encoded [2][]byte
}

// limiter is one {type, value} pair of a rate-limit entry.
type limiter struct {
	Type  string `json:"type"`
	Value int64  `json:"value"`
}

// adminFile is the shape of fixtures/admin.json (schema fixtures/admin).
type adminFile struct {
	Invites []struct {
		OrganizationID string    `json:"organization_id"`
		ID             string    `json:"id"`
		Email          string    `json:"email"`
		Role           string    `json:"role"`
		Status         string    `json:"status"`
		InvitedAt      time.Time `json:"invited_at"`
	} `json:"invites"`
	Workspaces []struct {
		OrganizationID string `json:"organization_id"`
		Workspace
	} `json:"workspaces"`
	RateLimits []struct {
		OrganizationID string    `json:"organization_id"`
		GroupType      string    `json:"group_type"`
		Models         []string  `json:"models"`
		Limits         []limiter `json:"limits"`
	} `json:"rate_limits"`
	WorkspaceRateLimits []struct {
		WorkspaceID string    `json:"workspace_id"`
		GroupType   string    `json:"group_type"`
		Model       string    `json:"model"` // any model of the group, for model_group overrides
		Limits      []limiter `json:"limits"`
	} `json:"workspace_rate_limits"`
}

// loadAdmin reads fixtures/admin.json. Expiry of invites is not stored: an invite stored as
// pending reads expired once 21 days have passed since invited_at (gaps §6).
func loadAdmin(fsys fs.FS, fx *core.Fixtures) error {
	var file adminFile
	found, err := core.ReadFixture(fsys, "admin.json", &file)
	if err != nil {
		return err
	}
	a := AdminSection.In(fx.Sections)
	a.RateLimits = map[*core.Org][]*RateLimitGroup{}
	orgOf := func(what, id, orgID string) (*core.Org, error) {
		if o := fx.OrgByID(orgID); o != nil {
			return o, nil
		}
		return nil, fmt.Errorf("admin.json: %s %s names unknown organization %s", what, id, orgID)
	}
	for _, in := range file.Invites {
		o, err := orgOf("invite", in.ID, in.OrganizationID)
		if err != nil {
			return err
		}
		inv := Invite{ID: in.ID, Email: in.Email, Role: in.Role, Stored: in.Status, RBACGroupIDs: []string{},
			InvitedAt: in.InvitedAt, ExpiresAt: in.InvitedAt.Add(InviteLifetime), Type: "invite", Org: o}
		if in.Status == "accepted" {
			// The fixtures do not record when an invite was accepted; the earliest time it could
			// have been is the one the record shows.
			accepted := in.InvitedAt
			inv.AcceptedAt = &accepted
		}
		a.Invites = append(a.Invites, inv)
	}
	wsOrg := map[string]*core.Org{}
	for _, w := range file.Workspaces {
		o, err := orgOf("workspace", w.ID, w.OrganizationID)
		if err != nil {
			return err
		}
		ws := w.Workspace
		ws.Type, ws.Org, ws.CompartmentID = "workspace", o, compartmentID(ws.ID)
		if ws.Tags == nil {
			ws.Tags = map[string]string{}
		}
		a.Workspaces = append(a.Workspaces, ws)
		wsOrg[ws.ID] = o
	}
	for i, rl := range file.RateLimits {
		o, err := orgOf("rate limit group", rl.GroupType, rl.OrganizationID)
		if err != nil {
			return err
		}
		if (rl.GroupType == "model_group") != (len(rl.Models) > 0) {
			return fmt.Errorf("admin.json: rate limit group %d (%s): models must be a non-empty list for model_group and null otherwise", i, rl.GroupType)
		}
		g := &RateLimitGroup{key: core.ListKey{ID: fmt.Sprintf("%06d", i)}, GroupType: rl.GroupType, Models: rl.Models,
			Limits: rl.Limits, overrides: map[string][]limiter{}}
		g.setIDs(o)
		for i, groupType := range []string{"", g.GroupType} {
			if g.encoded[i], err = core.EncodeRecord(g.entry(groupType)); err != nil {
				return fmt.Errorf("admin.json: rate limit group %s: %v", g.ID, err)
			}
		}
		a.RateLimits[o] = append(a.RateLimits[o], g)
	}
	for _, wl := range file.WorkspaceRateLimits {
		o := wsOrg[wl.WorkspaceID]
		if o == nil {
			return fmt.Errorf("admin.json: workspace rate limits name unknown workspace %s", wl.WorkspaceID)
		}
		i := slices.IndexFunc(a.RateLimits[o], func(g *RateLimitGroup) bool {
			return g.GroupType == wl.GroupType && (wl.Model == "" || slices.Contains(g.Models, wl.Model))
		})
		if i < 0 {
			return fmt.Errorf("admin.json: workspace %s overrides group %s %s, which its organization does not have", wl.WorkspaceID, wl.GroupType, wl.Model)
		}
		a.RateLimits[o][i].overrides[wl.WorkspaceID] = wl.Limits
	}
	// A key's workspace is checked against admin.json; a data set without it has no workspaces,
	// and no rate limits for a key's workspace to apply.
	for _, c := range fx.Creds {
		if !found {
			break
		}
		if c.WorkspaceID != "" && c.Kind != core.KindAPIKey {
			return fmt.Errorf("organizations.json: credential %s is %s; only an API key belongs to a workspace", c.ID, core.KindNames[c.Kind])
		}
		if c.WorkspaceID != "" && wsOrg[c.WorkspaceID] != c.Org {
			return fmt.Errorf("organizations.json: key %s belongs to workspace %s, which is not a workspace of its organization in admin.json", c.ID, c.WorkspaceID)
		}
	}
	return nil
}
