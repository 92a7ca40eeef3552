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
// Handlers are method expressions: the table, and the router built from it, exist once per
// process and serve every Server (the request carries which one).
func routes() []*route {
	return []*route{
		// Test control: no credential, never journaled, never faulted.
		{get, "/_fake/health", nil, "control/health", (*Server).health},
		{post, "/_fake/reset", nil, "control/clock", (*Server).reset},
		{get, "/_fake/clock", nil, "control/clock", (*Server).getClock},
		{post, "/_fake/clock/advance", nil, "control/clock", (*Server).advanceClock},
		{get, "/_fake/journal", nil, "control/journal", (*Server).getJournal},
		{del, "/_fake/journal", nil, "control/cleared", (*Server).clearJournal},
		{post, "/_fake/faults", nil, "control/fault", (*Server).injectFault},
		{get, "/_fake/faults", nil, "control/fault_list", (*Server).listFaults},
		{del, "/_fake/faults", nil, "control/cleared", (*Server).clearFaults},
		{get, "/_fake/namespaces", nil, "control/namespace_list", (*Server).listNamespaces},
		{del, "/_fake/namespaces", nil, "control/cleared", (*Server).clearNamespaces},
		{del, "/_fake/namespaces/:name", nil, "control/cleared", (*Server).deleteNamespace},

		// Models (spec 2.10, 4.5).
		{get, "/v1/models", ifModels, "models/model_list", (*Server).listModels},
		{get, "/v1/models/:model_id", ifModels, "models/model", (*Server).getModel},

		// Administration (spec 2.11, 2.12, 4.6; gaps §6 for workspace list, update and archive).
		{get, "/v1/organizations/me", ifAdmin, "admin/organization", (*Server).getOrganization},
		{post, "/v1/organizations/invites", ifAdmin, "admin/invite", (*Server).createInvite},
		{get, "/v1/organizations/invites", ifAdmin, "admin/invite_list", (*Server).listInvites},
		{get, "/v1/organizations/invites/:invite_id", ifAdmin, "admin/invite", (*Server).getInvite},
		{del, "/v1/organizations/invites/:invite_id", ifAdmin, "admin/invite_deleted", (*Server).deleteInvite},
		{get, "/v1/organizations/users", ifAdmin, "admin/user_list", (*Server).listUsers},
		{get, "/v1/organizations/users/:user_id", ifAdmin, "admin/user", (*Server).getUser},
		{post, "/v1/organizations/users/:user_id", ifAdmin, "admin/user", (*Server).updateUser},
		{del, "/v1/organizations/users/:user_id", ifAdmin, "admin/user_deleted", (*Server).removeUser},
		{post, "/v1/organizations/workspaces", ifAdmin, "admin/workspace", (*Server).createWorkspace},
		{get, "/v1/organizations/workspaces", ifAdmin, "admin/workspace_list", (*Server).listWorkspaces},
		{get, "/v1/organizations/workspaces/:workspace_id", ifAdmin, "admin/workspace", (*Server).getWorkspace},
		{post, "/v1/organizations/workspaces/:workspace_id", ifAdmin, "admin/workspace", (*Server).updateWorkspace},
		{post, "/v1/organizations/workspaces/:workspace_id/archive", ifAdmin, "admin/workspace", (*Server).archiveWorkspace},
		{get, "/v1/organizations/workspaces/:workspace_id/rate_limits", ifAdmin, "admin/workspace_rate_limit_list", (*Server).listWorkspaceRateLimits},
		{get, "/v1/organizations/rate_limits", ifAdmin, "admin/rate_limit_list", (*Server).listRateLimits},

		// Tunnels and tunnel certificates (spec 2.17, 3.3, 3.4, 4.9, gaps §9).
		{get, "/v1/organizations/tunnels", ifTunnels, "tunnels/tunnel_list", (*Server).listTunnels},
		{get, "/v1/organizations/tunnels/:tunnel_id", ifTunnels, "tunnels/tunnel", (*Server).getTunnel},
		{post, "/v1/organizations/tunnels/:tunnel_id/reveal_token", ifTunnels, "tunnels/tunnel_token", (*Server).revealTunnelToken},
		{post, "/v1/organizations/tunnels/:tunnel_id/rotate_token", ifTunnels, "tunnels/tunnel_token", (*Server).rotateTunnelToken},
		{post, "/v1/organizations/tunnels/:tunnel_id/archive", ifTunnels, "tunnels/tunnel", (*Server).archiveTunnel},
		{post, "/v1/organizations/tunnels/:tunnel_id/certificates", ifTunnels, "tunnels/certificate", (*Server).createTunnelCertificate},
		{get, "/v1/organizations/tunnels/:tunnel_id/certificates", ifTunnels, "tunnels/certificate_list", (*Server).listTunnelCertificates},
		{get, "/v1/organizations/tunnels/:tunnel_id/certificates/:certificate_id", ifTunnels, "tunnels/certificate", (*Server).getTunnelCertificate},
		{post, "/v1/organizations/tunnels/:tunnel_id/certificates/:certificate_id/archive", ifTunnels, "tunnels/certificate", (*Server).archiveTunnelCertificate},
		{post, "/_fake/tunnels", nil, "tunnels/tunnel", (*Server).controlCreateTunnel},
		{post, "/_fake/tunnels/token_check", nil, "tunnels/control_token_check", (*Server).controlCheckTunnelToken},
		{post, "/_fake/tunnels/:tunnel_id/gateway_check", nil, "tunnels/control_gateway_check", (*Server).controlCheckGateway},

		// Environments and the work queue (spec 2.16, 3.1, 4.8; gaps §8).
		{post, "/_fake/environments/:environment_id/work", nil, "work/work", (*Server).enqueueWork},
		{post, "/v1/environments", ifEnvironments, "work/environment", (*Server).createEnvironment},
		{get, "/v1/environments", ifEnvironments, "work/environment_list", (*Server).listEnvironments},
		{get, "/v1/environments/:environment_id", ifEnvironments, "work/environment", (*Server).getEnvironment},
		{post, "/v1/environments/:environment_id", ifEnvironments, "work/environment", (*Server).updateEnvironment},
		{post, "/v1/environments/:environment_id/archive", ifEnvironments, "work/environment", (*Server).archiveEnvironment},
		{del, "/v1/environments/:environment_id", ifEnvironments, "work/environment_deleted", (*Server).deleteEnvironment},
		{get, "/v1/environments/:environment_id/work", ifWork, "work/work_list", (*Server).listWork},
		{get, "/v1/environments/:environment_id/work/stats", ifWork, "work/stats", (*Server).workStats},
		{get, "/v1/environments/:environment_id/work/poll", ifWork, "work/poll", (*Server).pollWork},
		{get, "/v1/environments/:environment_id/work/:work_id", ifWork, "work/work", (*Server).getWork},
		{post, "/v1/environments/:environment_id/work/:work_id/ack", ifWork, "work/work", (*Server).ackWork},
		{post, "/v1/environments/:environment_id/work/:work_id/heartbeat", ifWork, "work/heartbeat", (*Server).heartbeatWork},
		{post, "/v1/environments/:environment_id/work/:work_id/stop", ifWork, "work/work", (*Server).stopWork},

		// Compliance (spec 2.2-2.7, 4.1-4.3, gaps §10). Static segments (files, generated-files)
		// sit beside :chat_id; compliance_test.go proves gin routes each to its handler.
		{get, "/v1/compliance/apps/chats", ifCompliance, "compliance/chat_list", (*Server).listComplianceChats},
		{get, "/v1/compliance/apps/chats/:chat_id/messages", ifCompliance, "compliance/chat_messages", (*Server).getChatMessages},
		{del, "/v1/compliance/apps/chats/:chat_id", ifCompliance, "compliance/chat_deleted", (*Server).deleteComplianceChat},
		{get, "/v1/compliance/apps/chats/files/:file_id", ifCompliance, "compliance/file", (*Server).getComplianceFile},
		{get, "/v1/compliance/apps/chats/files/:file_id/content", ifCompliance, "", (*Server).getComplianceFileContent},
		{del, "/v1/compliance/apps/chats/files/:file_id", ifCompliance, "compliance/file_deleted", (*Server).deleteComplianceFile},
		{get, "/v1/compliance/apps/chats/generated-files/:generated_file_id", ifCompliance, "compliance/generated_file", (*Server).getGeneratedFile},
		{get, "/v1/compliance/apps/chats/generated-files/:generated_file_id/content", ifCompliance, "", (*Server).getGeneratedFileContent},
		{get, "/v1/compliance/apps/artifacts/:artifact_version_id", ifCompliance, "compliance/artifact", (*Server).getArtifact},
		{get, "/v1/compliance/apps/artifacts/:artifact_version_id/content", ifCompliance, "", (*Server).getArtifactContent},
		{get, "/v1/compliance/apps/projects", ifCompliance, "compliance/project_list", (*Server).listComplianceProjects},
		{get, "/v1/compliance/organizations", ifCompliance, "compliance/organization_list", (*Server).listComplianceOrganizations},
		{get, "/v1/compliance/organizations/:org_uuid/users", ifCompliance, "compliance/user_list", (*Server).listComplianceUsers},

		// Memory stores (spec 2.13-2.15, 3.5, 4.7; create, retrieve, update, archive, delete of
		// stores, memory list and delete, and redact from gaps §7).
		{get, "/v1/memory_stores", ifMemory, "memory/memory_store_list", (*Server).listMemoryStores},
		{post, "/v1/memory_stores", ifMemory, "memory/memory_store", (*Server).createMemoryStore},
		{get, "/v1/memory_stores/:memory_store_id", ifMemory, "memory/memory_store", (*Server).getMemoryStore},
		{post, "/v1/memory_stores/:memory_store_id", ifMemory, "memory/memory_store", (*Server).updateMemoryStore},
		{del, "/v1/memory_stores/:memory_store_id", ifMemory, "memory/memory_store_deleted", (*Server).deleteMemoryStore},
		{post, "/v1/memory_stores/:memory_store_id/archive", ifMemory, "memory/memory_store", (*Server).archiveMemoryStore},
		{get, "/v1/memory_stores/:memory_store_id/memories", ifMemory, "memory/memory_list", (*Server).listMemories},
		{post, "/v1/memory_stores/:memory_store_id/memories", ifMemory, "memory/memory", (*Server).createMemory},
		{get, "/v1/memory_stores/:memory_store_id/memories/:memory_id", ifMemory, "memory/memory", (*Server).getMemory},
		{post, "/v1/memory_stores/:memory_store_id/memories/:memory_id", ifMemory, "memory/memory", (*Server).updateMemory},
		{del, "/v1/memory_stores/:memory_store_id/memories/:memory_id", ifMemory, "memory/memory_deleted", (*Server).deleteMemory},
		{get, "/v1/memory_stores/:memory_store_id/memory_versions", ifMemory, "memory/memory_version_list", (*Server).listMemoryVersions},
		{get, "/v1/memory_stores/:memory_store_id/memory_versions/:memory_version_id", ifMemory, "memory/memory_version", (*Server).getMemoryVersion},
		{post, "/v1/memory_stores/:memory_store_id/memory_versions/:memory_version_id/redact", ifMemory, "memory/memory_version", (*Server).redactMemoryVersion},

		// Messages and legacy completions (spec 2.8, 2.9, 4.4; gaps §4, §5). A streamed answer
		// is an sseStream that checks each event against its own schema.
		{post, "/v1/messages", ifMessages, "messages/message", (*Server).createMessage},
		{post, "/v1/messages/count_tokens", ifMessages, "messages/count_tokens", (*Server).countTokens},
		{post, "/v1/complete", ifMessages, "messages/completion", (*Server).complete},
		{get, "/_fake/messages/scenarios", nil, "messages/scenario_list", (*Server).listScenarios},
		{post, "/_fake/messages/stubs", nil, "messages/stub", (*Server).registerStub},
		{get, "/_fake/messages/stubs", nil, "messages/stub_list", (*Server).listStubs},
		{del, "/_fake/messages/stubs", nil, "control/cleared", (*Server).clearStubs},
	}
}
