package fake

// complianceArea is the area of compliance review: an organization's chats, files, artifacts and projects.
var complianceArea = &area{routes: complianceRoutes, load: loadCompliance, snapshot: complianceSnapshot}

var (
	complianceSection = newSection[complianceData]()
	complianceStores  = newStore[complianceStore]()
)

func complianceRoutes() []*route {
	return []*route{
		// Compliance (spec 2.2-2.7, 4.1-4.3, gaps §10). Static segments (files, generated-files)
		// sit beside :chat_id; compliance_test.go proves gin routes each to its handler.
		{get, "/v1/compliance/apps/chats", ifCompliance, in{query: qChats}, "compliance/chat_list", listComplianceChats},
		{get, "/v1/compliance/apps/chats/:chat_id/messages", ifCompliance, in{query: qChatMessages}, "compliance/chat_messages", getChatMessages},
		{del, "/v1/compliance/apps/chats/:chat_id", ifCompliance, in{}, "compliance/chat_deleted", deleteComplianceChat},
		{get, "/v1/compliance/apps/chats/files/:file_id", ifCompliance, in{}, "compliance/file", getComplianceFile},
		{get, "/v1/compliance/apps/chats/files/:file_id/content", ifCompliance, in{}, "", getComplianceFileContent},
		{del, "/v1/compliance/apps/chats/files/:file_id", ifCompliance, in{}, "compliance/file_deleted", deleteComplianceFile},
		{get, "/v1/compliance/apps/chats/generated-files/:generated_file_id", ifCompliance, in{}, "compliance/generated_file", getGeneratedFile},
		{get, "/v1/compliance/apps/chats/generated-files/:generated_file_id/content", ifCompliance, in{}, "", getGeneratedFileContent},
		{get, "/v1/compliance/apps/artifacts/:artifact_version_id", ifCompliance, in{}, "compliance/artifact", getArtifact},
		{get, "/v1/compliance/apps/artifacts/:artifact_version_id/content", ifCompliance, in{}, "", getArtifactContent},
		{get, "/v1/compliance/apps/projects", ifCompliance, in{query: qProjects}, "compliance/project_list", listComplianceProjects},
		{get, "/v1/compliance/organizations", ifCompliance, in{}, "compliance/organization_list", listComplianceOrganizations},
		{get, "/v1/compliance/organizations/:org_uuid/users", ifCompliance, in{query: tokenParams(100, 1000)}, "compliance/user_list", listComplianceUsers},
	}
}

var (
	qChats = query(
		[]param{{name: "user_ids", kind: pStrings, required: true, maxItems: 10, doc: "The users whose chats to list: 1 to 10 IDs."}},
		qComplianceOrgs,
		listParam("project_ids", "Only the chats of these projects."),
		cursorParams(100, 1000), timeParams("created_at"), timeParams("updated_at"))
	qChatMessages = query(cursorParams(0, 1000), timeParams("created_at"), timeParams("updated_at"),
		enumParam("order", "asc", "The order of the messages, by created_at.", "asc", "desc"))
	qProjects = query(tokenParams(20, 100), timeParams("created_at"),
		listParam("user_ids", "Only the projects of these users."), qComplianceOrgs)
	qComplianceOrgs = listParam("organization_ids", "Only if the caller's organization is one of these (org_ IDs or UUIDs).")
)
