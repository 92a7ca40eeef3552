package fake

import "net/http"

// route is one line of the route table: method and path, the interface whose credentials and
// headers it takes (nil for the control API), the schema of its 200 body ("" for bodies that are
// not one JSON document), and the handler.
type route struct {
	method string
	path   string
	ifc    *iface
	schema string
	h      handler
}

const (
	get  = http.MethodGet
	post = http.MethodPost
	del  = http.MethodDelete
)

// routes is the whole API, one line per route. Reading it tells you what the fake serves.
func (s *Server) routes() []*route {
	return []*route{
		// Test control (DESIGN.md): no credential, never journaled.
		{get, "/_fake/health", nil, "control/health", s.health},
		{post, "/_fake/reset", nil, "control/clock", s.reset},
		{get, "/_fake/clock", nil, "control/clock", s.getClock},
		{post, "/_fake/clock/advance", nil, "control/clock", s.advanceClock},

		// Models (spec 2.10, 4.5).
		{get, "/v1/models", ifModels, "models/model_list", s.listModels},
		{get, "/v1/models/:model_id", ifModels, "models/model", s.getModel},

		// Compliance (spec 2.2-2.7, 4.1-4.3, gaps §10). Static segments (files, generated-files)
		// sit beside :chat_id; compliance_test.go proves gin routes each to its handler.
		{get, "/v1/compliance/apps/chats", ifCompliance, "compliance/chat_list", s.listComplianceChats},
		{get, "/v1/compliance/apps/chats/:chat_id/messages", ifCompliance, "compliance/chat_messages", s.getChatMessages},
		{del, "/v1/compliance/apps/chats/:chat_id", ifCompliance, "compliance/chat_deleted", s.deleteComplianceChat},
		{get, "/v1/compliance/apps/chats/files/:file_id", ifCompliance, "compliance/file", s.getComplianceFile},
		{get, "/v1/compliance/apps/chats/files/:file_id/content", ifCompliance, "", s.getComplianceFileContent},
		{del, "/v1/compliance/apps/chats/files/:file_id", ifCompliance, "compliance/file_deleted", s.deleteComplianceFile},
		{get, "/v1/compliance/apps/chats/generated-files/:generated_file_id", ifCompliance, "compliance/generated_file", s.getGeneratedFile},
		{get, "/v1/compliance/apps/chats/generated-files/:generated_file_id/content", ifCompliance, "", s.getGeneratedFileContent},
		{get, "/v1/compliance/apps/artifacts/:artifact_version_id", ifCompliance, "compliance/artifact", s.getArtifact},
		{get, "/v1/compliance/apps/artifacts/:artifact_version_id/content", ifCompliance, "", s.getArtifactContent},
		{get, "/v1/compliance/apps/projects", ifCompliance, "compliance/project_list", s.listComplianceProjects},
		{get, "/v1/compliance/organizations", ifCompliance, "compliance/organization_list", s.listComplianceOrganizations},
		{get, "/v1/compliance/organizations/:org_uuid/users", ifCompliance, "compliance/user_list", s.listComplianceUsers},
	}
}
