package compliance

import "github.com/platformkit/platformkit/fake/internal/core"

// complianceArea is the area of compliance review: an organization's chats, files, artifacts and projects.
var Area = &core.Area{Routes: complianceRoutes, Load: loadCompliance, Snapshot: complianceSnapshot}

var (
	Section          = core.NewSection[Data]()
	complianceStores = core.NewStore[Store]()
)

func complianceRoutes() []*core.Route {
	return []*core.Route{
		// Compliance (spec 2.2-2.7, 4.1-4.3, gaps §10). Static segments (files, generated-files)
		// sit beside :chat_id; fake/compliance_test.go proves gin routes each to its handler.
		core.Line(core.Get, "/v1/compliance/apps/chats", core.IfCompliance, core.In{Query: qChats}, "compliance/chat_list", listComplianceChats),
		core.Line(core.Get, "/v1/compliance/apps/chats/:chat_id/messages", core.IfCompliance, core.In{Query: qChatMessages}, "compliance/chat_messages", getChatMessages),
		core.Line(core.Del, "/v1/compliance/apps/chats/:chat_id", core.IfCompliance, core.In{}, "compliance/chat_deleted", deleteComplianceChat),
		core.Line(core.Get, "/v1/compliance/apps/chats/files/:file_id", core.IfCompliance, core.In{}, "compliance/file", getComplianceFile),
		core.Line(core.Get, "/v1/compliance/apps/chats/files/:file_id/content", core.IfCompliance, core.In{}, "", getComplianceFileContent),
		core.Line(core.Del, "/v1/compliance/apps/chats/files/:file_id", core.IfCompliance, core.In{}, "compliance/file_deleted", deleteComplianceFile),
		core.Line(core.Get, "/v1/compliance/apps/chats/generated-files/:generated_file_id", core.IfCompliance, core.In{}, "compliance/generated_file", getGeneratedFile),
		core.Line(core.Get, "/v1/compliance/apps/chats/generated-files/:generated_file_id/content", core.IfCompliance, core.In{}, "", getGeneratedFileContent),
		core.Line(core.Get, "/v1/compliance/apps/artifacts/:artifact_version_id", core.IfCompliance, core.In{}, "compliance/artifact", getArtifact),
		core.Line(core.Get, "/v1/compliance/apps/artifacts/:artifact_version_id/content", core.IfCompliance, core.In{}, "", getArtifactContent),
		core.Line(core.Get, "/v1/compliance/apps/projects", core.IfCompliance, core.In{Query: qProjects}, "compliance/project_list", listComplianceProjects),
		core.Line(core.Get, "/v1/compliance/organizations", core.IfCompliance, core.In{}, "compliance/organization_list", listComplianceOrganizations),
		core.Line(core.Get, "/v1/compliance/organizations/:org_uuid/users", core.IfCompliance, core.In{Query: core.TokenParams(100, 1000)}, "compliance/user_list", listComplianceUsers),
	}
}

var (
	qChats = core.Query(
		[]core.Param{{Name: "user_ids", Kind: core.PStrings, Required: true, MaxItems: 10, Doc: "The users whose chats to list: 1 to 10 IDs."}},
		qComplianceOrgs,
		core.ListParam("project_ids", "Only the chats of these projects."),
		core.CursorParams(100, 1000), core.TimeParams("created_at"), core.TimeParams("updated_at"))
	qChatMessages = core.Query(core.CursorParams(0, 1000), core.TimeParams("created_at"), core.TimeParams("updated_at"),
		core.EnumParam("order", "asc", "The order of the messages, by created_at.", "asc", "desc"))
	qProjects = core.Query(core.TokenParams(20, 100), core.TimeParams("created_at"),
		core.ListParam("user_ids", "Only the projects of these users."), qComplianceOrgs)
	qComplianceOrgs = core.ListParam("organization_ids", "Only if the caller's organization is one of these (org_ IDs or UUIDs).")
)
