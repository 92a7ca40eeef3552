package fake

// adminArea is the area of administration: the organization, its users, invites, workspaces and rate limits.
var adminArea = &area{routes: adminRoutes, load: loadAdmin, snapshot: adminSnapshot}

var (
	adminSection = newSection[adminFixtures]()
	adminStores  = newStore[adminStore]()
)

func adminRoutes() []*route {
	return []*route{
		// Administration (spec 2.11, 2.12, 4.6; gaps §6 for workspace list, update and archive).
		{get, "/v1/organizations/me", ifAdmin, in{}, "admin/organization", getOrganization},
		{post, "/v1/organizations/invites", ifAdmin, in{body: "admin/invite_create"}, "admin/invite", createInvite},
		{get, "/v1/organizations/invites", ifAdmin, in{query: qInvites}, "admin/invite_list", listInvites},
		{get, "/v1/organizations/invites/:invite_id", ifAdmin, in{}, "admin/invite", getInvite},
		{del, "/v1/organizations/invites/:invite_id", ifAdmin, in{}, "admin/invite_deleted", deleteInvite},
		{get, "/v1/organizations/users", ifAdmin, in{query: qUsers}, "admin/user_list", listUsers},
		{get, "/v1/organizations/users/:user_id", ifAdmin, in{}, "admin/user", getUser},
		{post, "/v1/organizations/users/:user_id", ifAdmin, in{body: "admin/user_update"}, "admin/user", updateUser},
		{del, "/v1/organizations/users/:user_id", ifAdmin, in{}, "admin/user_deleted", removeUser},
		{post, "/v1/organizations/users/:user_id/sign_out", ifAdminSignOut, in{}, "admin/user", signOutUser},
		{post, "/v1/organizations/workspaces", ifAdmin, in{body: "admin/workspace_create"}, "admin/workspace", createWorkspace},
		{get, "/v1/organizations/workspaces", ifAdmin, in{query: qWorkspaces}, "admin/workspace_list", listWorkspaces},
		{get, "/v1/organizations/workspaces/:workspace_id", ifAdmin, in{}, "admin/workspace", getWorkspace},
		{post, "/v1/organizations/workspaces/:workspace_id", ifAdmin, in{body: "admin/workspace_update"}, "admin/workspace", updateWorkspace},
		{post, "/v1/organizations/workspaces/:workspace_id/archive", ifAdmin, in{}, "admin/workspace", archiveWorkspace},
		{get, "/v1/organizations/workspaces/:workspace_id/rate_limits", ifAdmin, in{query: query(qRateLimits, boolParam("include_inherited", false, "Also list the values the workspace inherits from the organization, each marked by source."))}, "admin/workspace_rate_limit_list", listWorkspaceRateLimits},
		{post, "/v1/organizations/workspaces/:workspace_id/rate_limits/:rate_limit_id", ifAdmin, in{body: "admin/workspace_rate_limit_update"}, "admin/workspace_rate_limit", updateWorkspaceRateLimit},
		{get, "/v1/organizations/rate_limits", ifAdmin, in{query: query(qRateLimits, strParam("model", "Only the group that lists this model (an ID or an alias)."))}, "admin/rate_limit_list", listRateLimits},
	}
}

var (
	qUsers = query(cursorParams(20, 1000),
		strParam("email", "Only the user with this email address (exact, case-insensitive)."),
		listParam("roles", "Only the users with one of these roles."))
	qInvites = query(cursorParams(20, 1000),
		strParam("email", "Only the invites to this email address (exact, case-insensitive)."),
		listParam("roles", "Only the invites with one of these roles."),
		listParam("statuses", "Only the invites in one of these statuses: accepted, expired, pending."))
	qWorkspaces = query(cursorParams(20, 1000),
		boolParam("include_archived", false, "Include archived workspaces."),
		boolParam("include_default", false, "Include the default workspace; the fake lists none, so it changes nothing."),
		[]param{{name: "ids", kind: pStrings, maxItems: 100, doc: "Only the workspaces with these IDs, at most 100 (include_archived still applies; unknown IDs are left out)."}})
	qRateLimits = query(
		enumParam("group_type", "", "Only the groups of this type.", groupTypes...),
		tokenParams(0, 1000))
)
