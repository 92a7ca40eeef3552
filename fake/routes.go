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
		{get, "/_fake/journal", nil, "control/journal", s.getJournal},
		{del, "/_fake/journal", nil, "control/cleared", s.clearJournal},
		{post, "/_fake/faults", nil, "control/fault", s.injectFault},
		{get, "/_fake/faults", nil, "control/fault_list", s.listFaults},
		{del, "/_fake/faults", nil, "control/cleared", s.clearFaults},

		// Models (spec 2.10, 4.5).
		{get, "/v1/models", ifModels, "models/model_list", s.listModels},
		{get, "/v1/models/:model_id", ifModels, "models/model", s.getModel},

		// Administration (spec 2.11, 2.12, 4.6; gaps §6 for workspace list, update and archive).
		{get, "/v1/organizations/me", ifAdmin, "admin/organization", s.getOrganization},
		{post, "/v1/organizations/invites", ifAdmin, "admin/invite", s.createInvite},
		{get, "/v1/organizations/invites", ifAdmin, "admin/invite_list", s.listInvites},
		{get, "/v1/organizations/invites/:invite_id", ifAdmin, "admin/invite", s.getInvite},
		{del, "/v1/organizations/invites/:invite_id", ifAdmin, "admin/invite_deleted", s.deleteInvite},
		{get, "/v1/organizations/users", ifAdmin, "admin/user_list", s.listUsers},
		{get, "/v1/organizations/users/:user_id", ifAdmin, "admin/user", s.getUser},
		{post, "/v1/organizations/users/:user_id", ifAdmin, "admin/user", s.updateUser},
		{del, "/v1/organizations/users/:user_id", ifAdmin, "admin/user_deleted", s.removeUser},
		{post, "/v1/organizations/workspaces", ifAdmin, "admin/workspace", s.createWorkspace},
		{get, "/v1/organizations/workspaces", ifAdmin, "admin/workspace_list", s.listWorkspaces},
		{get, "/v1/organizations/workspaces/:workspace_id", ifAdmin, "admin/workspace", s.getWorkspace},
		{post, "/v1/organizations/workspaces/:workspace_id", ifAdmin, "admin/workspace", s.updateWorkspace},
		{post, "/v1/organizations/workspaces/:workspace_id/archive", ifAdmin, "admin/workspace", s.archiveWorkspace},
		{get, "/v1/organizations/workspaces/:workspace_id/rate_limits", ifAdmin, "admin/workspace_rate_limit_list", s.listWorkspaceRateLimits},
		{get, "/v1/organizations/rate_limits", ifAdmin, "admin/rate_limit_list", s.listRateLimits},

		// Tunnels and tunnel certificates (spec 2.17, 3.3, 3.4, 4.9, gaps §9).
		{get, "/v1/organizations/tunnels", ifTunnels, "tunnels/tunnel_list", s.listTunnels},
		{get, "/v1/organizations/tunnels/:tunnel_id", ifTunnels, "tunnels/tunnel", s.getTunnel},
		{post, "/v1/organizations/tunnels/:tunnel_id/reveal_token", ifTunnels, "tunnels/tunnel_token", s.revealTunnelToken},
		{post, "/v1/organizations/tunnels/:tunnel_id/rotate_token", ifTunnels, "tunnels/tunnel_token", s.rotateTunnelToken},
		{post, "/v1/organizations/tunnels/:tunnel_id/archive", ifTunnels, "tunnels/tunnel", s.archiveTunnel},
		{post, "/v1/organizations/tunnels/:tunnel_id/certificates", ifTunnels, "tunnels/certificate", s.createTunnelCertificate},
		{get, "/v1/organizations/tunnels/:tunnel_id/certificates", ifTunnels, "tunnels/certificate_list", s.listTunnelCertificates},
		{get, "/v1/organizations/tunnels/:tunnel_id/certificates/:certificate_id", ifTunnels, "tunnels/certificate", s.getTunnelCertificate},
		{post, "/v1/organizations/tunnels/:tunnel_id/certificates/:certificate_id/archive", ifTunnels, "tunnels/certificate", s.archiveTunnelCertificate},
		{post, "/_fake/tunnels", nil, "tunnels/tunnel", s.controlCreateTunnel},
		{post, "/_fake/tunnels/token_check", nil, "tunnels/control_token_check", s.controlCheckTunnelToken},
		{post, "/_fake/tunnels/:tunnel_id/gateway_check", nil, "tunnels/control_gateway_check", s.controlCheckGateway},

		// Environments and the work queue (spec 2.16, 3.1, 4.8; gaps §8).
		{post, "/_fake/environments/:environment_id/work", nil, "work/work", s.enqueueWork},
		{post, "/v1/environments", ifEnvironments, "work/environment", s.createEnvironment},
		{get, "/v1/environments", ifEnvironments, "work/environment_list", s.listEnvironments},
		{get, "/v1/environments/:environment_id", ifEnvironments, "work/environment", s.getEnvironment},
		{post, "/v1/environments/:environment_id", ifEnvironments, "work/environment", s.updateEnvironment},
		{post, "/v1/environments/:environment_id/archive", ifEnvironments, "work/environment", s.archiveEnvironment},
		{del, "/v1/environments/:environment_id", ifEnvironments, "work/environment_deleted", s.deleteEnvironment},
		{get, "/v1/environments/:environment_id/work", ifWork, "work/work_list", s.listWork},
		{get, "/v1/environments/:environment_id/work/stats", ifWork, "work/stats", s.workStats},
		{get, "/v1/environments/:environment_id/work/poll", ifWork, "work/poll", s.pollWork},
		{get, "/v1/environments/:environment_id/work/:work_id", ifWork, "work/work", s.getWork},
		{post, "/v1/environments/:environment_id/work/:work_id/ack", ifWork, "work/work", s.ackWork},
		{post, "/v1/environments/:environment_id/work/:work_id/heartbeat", ifWork, "work/heartbeat", s.heartbeatWork},
		{post, "/v1/environments/:environment_id/work/:work_id/stop", ifWork, "work/work", s.stopWork},

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

		// Memory stores (spec 2.13-2.15, 3.5, 4.7; create, retrieve, update, archive, delete of
		// stores, memory list and delete, and redact from gaps §7).
		{get, "/v1/memory_stores", ifMemory, "memory/memory_store_list", s.listMemoryStores},
		{post, "/v1/memory_stores", ifMemory, "memory/memory_store", s.createMemoryStore},
		{get, "/v1/memory_stores/:memory_store_id", ifMemory, "memory/memory_store", s.getMemoryStore},
		{post, "/v1/memory_stores/:memory_store_id", ifMemory, "memory/memory_store", s.updateMemoryStore},
		{del, "/v1/memory_stores/:memory_store_id", ifMemory, "memory/memory_store_deleted", s.deleteMemoryStore},
		{post, "/v1/memory_stores/:memory_store_id/archive", ifMemory, "memory/memory_store", s.archiveMemoryStore},
		{get, "/v1/memory_stores/:memory_store_id/memories", ifMemory, "memory/memory_list", s.listMemories},
		{post, "/v1/memory_stores/:memory_store_id/memories", ifMemory, "memory/memory", s.createMemory},
		{get, "/v1/memory_stores/:memory_store_id/memories/:memory_id", ifMemory, "memory/memory", s.getMemory},
		{post, "/v1/memory_stores/:memory_store_id/memories/:memory_id", ifMemory, "memory/memory", s.updateMemory},
		{del, "/v1/memory_stores/:memory_store_id/memories/:memory_id", ifMemory, "memory/memory_deleted", s.deleteMemory},
		{get, "/v1/memory_stores/:memory_store_id/memory_versions", ifMemory, "memory/memory_version_list", s.listMemoryVersions},
		{get, "/v1/memory_stores/:memory_store_id/memory_versions/:memory_version_id", ifMemory, "memory/memory_version", s.getMemoryVersion},
		{post, "/v1/memory_stores/:memory_store_id/memory_versions/:memory_version_id/redact", ifMemory, "memory/memory_version", s.redactMemoryVersion},

		// Messages and legacy completions (spec 2.8, 2.9, 4.4; gaps §4, §5). A streamed answer
		// is an sseStream that checks each event against its own schema.
		{post, "/v1/messages", ifMessages, "messages/message", s.createMessage},
		{post, "/v1/messages/count_tokens", ifMessages, "messages/count_tokens", s.countTokens},
		{post, "/v1/complete", ifMessages, "messages/completion", s.complete},
		{get, "/_fake/messages/scenarios", nil, "messages/scenario_list", s.listScenarios},
	}
}
