package admin

import "github.com/platformkit/platformkit/fake/internal/core"

// Area is the area of administration: the organization, its users, invites, workspaces and rate limits.
var Area = &core.Area{Routes: adminRoutes, Load: loadAdmin, Snapshot: adminSnapshot}

var (
	AdminSection = core.NewSection[adminFixtures]()
	adminStores  = core.NewStore[Store]()
)

func adminRoutes() []*core.Route {
	return []*core.Route{
		// Administration (spec 2.11, 2.12, 4.6; gaps §6 for workspace list, update and archive).
		core.Line(core.Get, "/v1/organizations/me", core.IfAdmin, core.In{}, "admin/organization", getOrganization),
		core.Line(core.Post, "/v1/organizations/invites", core.IfAdmin, core.In{Body: "admin/invite_create"}, "admin/invite", createInvite),
		core.Line(core.Get, "/v1/organizations/invites", core.IfAdmin, core.In{Query: qInvites}, "admin/invite_list", listInvites),
		core.Line(core.Get, "/v1/organizations/invites/:invite_id", core.IfAdmin, core.In{}, "admin/invite", getInvite),
		core.Line(core.Del, "/v1/organizations/invites/:invite_id", core.IfAdmin, core.In{}, "admin/invite_deleted", deleteInvite),
		core.Line(core.Get, "/v1/organizations/users", core.IfAdmin, core.In{Query: qUsers}, "admin/user_list", listUsers),
		core.Line(core.Get, "/v1/organizations/users/:user_id", core.IfAdmin, core.In{}, "admin/user", getUser),
		core.Line(core.Post, "/v1/organizations/users/:user_id", core.IfAdmin, core.In{Body: "admin/user_update"}, "admin/user", updateUser),
		core.Line(core.Del, "/v1/organizations/users/:user_id", core.IfAdmin, core.In{}, "admin/user_deleted", removeUser),
		core.Line(core.Post, "/v1/organizations/users/:user_id/sign_out", core.IfAdminSignOut, core.In{}, "admin/user", signOutUser),
		core.Line(core.Post, "/v1/organizations/workspaces", core.IfAdmin, core.In{Body: "admin/workspace_create"}, "admin/workspace", createWorkspace),
		core.Line(core.Get, "/v1/organizations/workspaces", core.IfAdmin, core.In{Query: qWorkspaces}, "admin/workspace_list", listWorkspaces),
		core.Line(core.Get, "/v1/organizations/workspaces/:workspace_id", core.IfAdmin, core.In{}, "admin/workspace", getWorkspace),
		core.Line(core.Post, "/v1/organizations/workspaces/:workspace_id", core.IfAdmin, core.In{Body: "admin/workspace_update"}, "admin/workspace", updateWorkspace),
		core.Line(core.Post, "/v1/organizations/workspaces/:workspace_id/archive", core.IfAdmin, core.In{}, "admin/workspace", archiveWorkspace),
		core.Line(core.Get, "/v1/organizations/workspaces/:workspace_id/rate_limits", core.IfAdmin, core.In{Query: core.Query(qRateLimits, core.BoolParam("include_inherited", false, "Also list the values the workspace inherits from the organization, each marked by source."))}, "admin/workspace_rate_limit_list", listWorkspaceRateLimits),
		core.Line(core.Post, "/v1/organizations/workspaces/:workspace_id/rate_limits/:rate_limit_id", core.IfAdmin, core.In{Body: "admin/workspace_rate_limit_update"}, "admin/workspace_rate_limit", updateWorkspaceRateLimit),
		core.Line(core.Get, "/v1/organizations/rate_limits", core.IfAdmin, core.In{Query: core.Query(qRateLimits, core.StrParam("model", "Only the group that lists this model (an ID or an alias)."))}, "admin/rate_limit_list", listRateLimits),
	}
}

var (
	qUsers = core.Query(core.CursorParams(20, 1000),
		core.StrParam("email", "Only the user with this email address (exact, case-insensitive)."),
		core.ListParam("roles", "Only the users with one of these roles."))
	qInvites = core.Query(core.CursorParams(20, 1000),
		core.StrParam("email", "Only the invites to this email address (exact, case-insensitive)."),
		core.ListParam("roles", "Only the invites with one of these roles."),
		core.ListParam("statuses", "Only the invites in one of these statuses: accepted, expired, pending."))
	qWorkspaces = core.Query(core.CursorParams(20, 1000),
		core.BoolParam("include_archived", false, "Include archived workspaces."),
		core.BoolParam("include_default", false, "Include the default workspace; the fake lists none, so it changes nothing."),
		[]core.Param{{Name: "ids", Kind: core.PStrings, MaxItems: 100, Doc: "Only the workspaces with these IDs, at most 100 (include_archived still applies; unknown IDs are left out)."}})
	qRateLimits = core.Query(
		core.EnumParam("group_type", "", "Only the groups of this type.", GroupTypes...),
		core.TokenParams(0, 1000))
)
