package fake

import (
	"fmt"
	"math"
	"net/http"
)

// route is one line of the route table: method and path, the interface whose credentials and
// headers it takes (nil for the control API), what it reads from the request, the schema of its
// 200 body ("" for bodies that are not one JSON document), and the handler. The OpenAPI
// documents (openapi.go) are generated from these lines alone.
type route struct {
	method string
	path   string
	ifc    *iface
	in
	schema string
	h      handler
}

// in is what a route reads from a request besides its path parameters, the shape of a streamed
// answer, and whether a tape records and replays the route. Handlers read query parameters and
// bodies only through these declarations (params.go, body.go), so a parameter or body the table
// does not declare cannot be read.
type in struct {
	query   []param // the query parameters the handler reads
	headers []param // the request headers the handler reads, besides credentials and spec 9's
	body    string  // the schema of the JSON request body; "" when the route reads none
	events  string  // the schema of each event when the body asks for a stream ("stream": true)
	limit   int64   // the largest body, when it is not the interface's (or the control API's)
	tape    string  // when a tape records and replays the route: its recordings' name in file names
}

const (
	get  = http.MethodGet
	post = http.MethodPost
	del  = http.MethodDelete
	put  = http.MethodPut
)

// routes is the whole API, one line per route. Reading it tells you what the fake serves.
// Handlers are method expressions: the table, and the router built from it, exist once per
// process and serve every Server (the request carries which one).
func routes() []*route {
	return []*route{
		// Test control: no credential, never journaled, never faulted.
		{get, "/_fake/health", nil, in{}, "control/health", (*Server).health},
		{post, "/_fake/reset", nil, in{}, "control/clock", (*Server).reset},
		{get, "/_fake/clock", nil, in{}, "control/clock", (*Server).getClock},
		{post, "/_fake/clock/advance", nil, in{body: "control/clock_advance_request"}, "control/clock", (*Server).advanceClock},
		{get, "/_fake/journal", nil, in{query: cursorParams(0, journalCap)}, "control/journal", (*Server).getJournal},
		{del, "/_fake/journal", nil, in{}, "control/cleared", (*Server).clearJournal},
		{post, "/_fake/faults", nil, in{body: "control/fault_request"}, "control/fault", (*Server).injectFault},
		{get, "/_fake/faults", nil, in{}, "control/fault_list", (*Server).listFaults},
		{del, "/_fake/faults", nil, in{}, "control/cleared", (*Server).clearFaults},
		{get, "/_fake/namespaces", nil, in{}, "control/namespace_list", (*Server).listNamespaces},
		{del, "/_fake/namespaces", nil, in{}, "control/cleared", (*Server).clearNamespaces},
		{del, "/_fake/namespaces/:name", nil, in{}, "control/cleared", (*Server).deleteNamespace},
		{get, "/_fake/snapshot", nil, in{}, "control/snapshot", (*Server).getSnapshot},
		{post, "/_fake/snapshot", nil, in{body: "control/snapshot", limit: snapshotBodyLimit}, "control/clock", (*Server).loadSnapshot},
		{post, "/_fake/snapshot/save", nil, in{body: "control/snapshot_save_request"}, "control/snapshot_save", (*Server).saveSnapshot},
		{get, "/_fake/cache", nil, in{}, "control/cache_list", listCache},
		{del, "/_fake/cache", nil, in{}, "control/cleared", clearCache},
		{get, "/_fake/coverage", nil, in{query: boolParam("all", false, "Count the requests of the whole server, in every namespace, instead of only those of the namespace addressed.")}, "control/coverage", (*Server).getCoverage},
		{get, "/_fake/rate_limits", nil, in{}, "control/rate_limits", getRateLimits},
		{put, "/_fake/rate_limits", nil, in{body: "control/rate_limits_request"}, "control/rate_limits", putRateLimits},
		{get, "/_fake/retry_after", nil, in{}, "control/retry_after", (*Server).getRetryAfter},
		{put, "/_fake/retry_after", nil, in{body: "control/retry_after"}, "control/retry_after", (*Server).putRetryAfter},
		{get, "/_fake/openapi.json", nil, in{}, "", (*Server).openAPI},
		{get, "/_fake/openapi-control.json", nil, in{}, "", (*Server).controlOpenAPI},

		// Models (spec 2.10, 4.5).
		{get, "/v1/models", ifModels, in{query: cursorParams(20, 1000), tape: "models"}, "models/model_list", listModels},
		{get, "/v1/models/:model_id", ifModels, in{tape: "model"}, "models/model", getModel},

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

		// Tunnels and tunnel certificates (spec 2.17, 3.3, 3.4, 4.9, gaps §9).
		{get, "/v1/organizations/tunnels", ifTunnels, in{query: query(qTunnelList, strParam("workspace_id", "Only the tunnels of this workspace (wrkspc_...)."))}, "tunnels/tunnel_list", listTunnels},
		{get, "/v1/organizations/tunnels/:tunnel_id", ifTunnels, in{}, "tunnels/tunnel", getTunnel},
		{post, "/v1/organizations/tunnels/:tunnel_id/reveal_token", ifTunnels, in{}, "tunnels/tunnel_token", revealTunnelToken},
		{post, "/v1/organizations/tunnels/:tunnel_id/rotate_token", ifTunnels, in{body: "tunnels/rotate_token_request"}, "tunnels/tunnel_token", rotateTunnelToken},
		{post, "/v1/organizations/tunnels/:tunnel_id/archive", ifTunnels, in{}, "tunnels/tunnel", archiveTunnel},
		{post, "/v1/organizations/tunnels/:tunnel_id/certificates", ifTunnels, in{body: "tunnels/certificate_create_request"}, "tunnels/certificate", createTunnelCertificate},
		{get, "/v1/organizations/tunnels/:tunnel_id/certificates", ifTunnels, in{query: qTunnelList}, "tunnels/certificate_list", listTunnelCertificates},
		{get, "/v1/organizations/tunnels/:tunnel_id/certificates/:certificate_id", ifTunnels, in{}, "tunnels/certificate", getTunnelCertificate},
		{post, "/v1/organizations/tunnels/:tunnel_id/certificates/:certificate_id/archive", ifTunnels, in{}, "tunnels/certificate", archiveTunnelCertificate},
		// The same tunnels under /v1/tunnels, as the official SDKs call them (tunnels_api.go).
		{get, "/v1/tunnels", ifTunnelsAPI, in{query: qTunnelList, headers: hTunnelWorkspace}, "tunnels/tunnel_list", listTunnelsAPI},
		{post, "/v1/tunnels", ifTunnelsAPI, in{headers: hTunnelWorkspace, body: "tunnels/tunnel_create_request"}, "tunnels/tunnel", createTunnelAPI},
		{get, "/v1/tunnels/:tunnel_id", ifTunnelsAPI, in{headers: hTunnelWorkspace}, "tunnels/tunnel", getTunnelAPI},
		{post, "/v1/tunnels/:tunnel_id", ifTunnelsAPI, in{headers: hTunnelWorkspace, body: "tunnels/tunnel_update_request"}, "tunnels/tunnel", updateTunnelAPI},
		{post, "/v1/tunnels/:tunnel_id/reveal_token", ifTunnelsAPI, in{headers: hTunnelWorkspace}, "tunnels/tunnel_token", revealTunnelTokenAPI},
		{post, "/v1/tunnels/:tunnel_id/rotate_token", ifTunnelsAPI, in{headers: hTunnelWorkspace, body: "tunnels/rotate_token_request"}, "tunnels/tunnel_token", rotateTunnelTokenAPI},
		{post, "/v1/tunnels/:tunnel_id/archive", ifTunnelsAPI, in{headers: hTunnelWorkspace}, "tunnels/tunnel", archiveTunnelAPI},
		{post, "/v1/tunnels/:tunnel_id/certificates", ifTunnelsAPI, in{headers: hTunnelWorkspace, body: "tunnels/certificate_create_request"}, "tunnels/certificate", createTunnelCertificateAPI},
		{get, "/v1/tunnels/:tunnel_id/certificates", ifTunnelsAPI, in{query: qTunnelList, headers: hTunnelWorkspace}, "tunnels/certificate_list", listTunnelCertificatesAPI},
		{get, "/v1/tunnels/:tunnel_id/certificates/:certificate_id", ifTunnelsAPI, in{headers: hTunnelWorkspace}, "tunnels/certificate", getTunnelCertificateAPI},
		{post, "/v1/tunnels/:tunnel_id/certificates/:certificate_id/archive", ifTunnelsAPI, in{headers: hTunnelWorkspace}, "tunnels/certificate", archiveTunnelCertificateAPI},
		{post, "/_fake/tunnels", nil, in{body: "tunnels/control_create_tunnel_request"}, "tunnels/tunnel", controlCreateTunnel},
		{post, "/_fake/tunnels/token_check", nil, in{body: "tunnels/control_token_check_request"}, "tunnels/control_token_check", controlCheckTunnelToken},
		{post, "/_fake/tunnels/:tunnel_id/gateway_check", nil, in{body: "tunnels/control_gateway_check_request"}, "tunnels/control_gateway_check", controlCheckGateway},

		// Environments and the work queue (spec 2.16, 3.1, 4.8; gaps §8).
		{post, "/_fake/environments/:environment_id/work", nil, in{body: "work/enqueue"}, "work/work", enqueueWork},
		{post, "/v1/environments", ifEnvironments, in{body: "work/environment_create"}, "work/environment", createEnvironment},
		{get, "/v1/environments", ifEnvironments, in{query: query(tokenParams(20, 100), boolParam("include_archived", false, "Include archived environments."))}, "work/environment_list", listEnvironments},
		{get, "/v1/environments/:environment_id", ifEnvironments, in{}, "work/environment", getEnvironment},
		{post, "/v1/environments/:environment_id", ifEnvironments, in{body: "work/environment_update"}, "work/environment", updateEnvironment},
		{post, "/v1/environments/:environment_id/archive", ifEnvironments, in{}, "work/environment", archiveEnvironment},
		{del, "/v1/environments/:environment_id", ifEnvironments, in{}, "work/environment_deleted", deleteEnvironment},
		{get, "/v1/environments/:environment_id/work", ifWork, in{query: tokenParams(20, 100)}, "work/work_list", listWork},
		{get, "/v1/environments/:environment_id/work/stats", ifWork, in{}, "work/stats", workStats},
		{get, "/v1/environments/:environment_id/work/poll", ifWork, in{query: qPoll, headers: hWorker}, "work/poll", pollWork},
		{get, "/v1/environments/:environment_id/work/:work_id", ifWork, in{}, "work/work", getWork},
		{post, "/v1/environments/:environment_id/work/:work_id", ifWork, in{body: "work/work_update"}, "work/work", updateWork},
		{post, "/v1/environments/:environment_id/work/:work_id/ack", ifWork, in{}, "work/work", ackWork},
		{post, "/v1/environments/:environment_id/work/:work_id/heartbeat", ifWork, in{query: qHeartbeat}, "work/heartbeat", heartbeatWork},
		{post, "/v1/environments/:environment_id/work/:work_id/stop", ifWork, in{body: "work/stop"}, "work/work", stopWork},

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

		// Memory stores (spec 2.13-2.15, 3.5, 4.7; create, retrieve, update, archive, delete of
		// stores, memory list and delete, and redact from gaps §7).
		{get, "/v1/memory_stores", ifMemory, in{query: qMemoryStores}, "memory/memory_store_list", listMemoryStores},
		{post, "/v1/memory_stores", ifMemory, in{body: "memory/memory_store_create_request"}, "memory/memory_store", createMemoryStore},
		{get, "/v1/memory_stores/:memory_store_id", ifMemory, in{}, "memory/memory_store", getMemoryStore},
		{post, "/v1/memory_stores/:memory_store_id", ifMemory, in{body: "memory/memory_store_update_request"}, "memory/memory_store", updateMemoryStore},
		{del, "/v1/memory_stores/:memory_store_id", ifMemory, in{}, "memory/memory_store_deleted", deleteMemoryStore},
		{post, "/v1/memory_stores/:memory_store_id/archive", ifMemory, in{}, "memory/memory_store", archiveMemoryStore},
		{get, "/v1/memory_stores/:memory_store_id/memories", ifMemory, in{query: qMemories}, "memory/memory_list", listMemories},
		{post, "/v1/memory_stores/:memory_store_id/memories", ifMemory, in{query: viewParam(memViewBasic), body: "memory/memory_create_request"}, "memory/memory", createMemory},
		{get, "/v1/memory_stores/:memory_store_id/memories/:memory_id", ifMemory, in{query: viewParam(memViewFull)}, "memory/memory", getMemory},
		{post, "/v1/memory_stores/:memory_store_id/memories/:memory_id", ifMemory, in{query: viewParam(memViewBasic), body: "memory/memory_update_request"}, "memory/memory", updateMemory},
		{del, "/v1/memory_stores/:memory_store_id/memories/:memory_id", ifMemory, in{query: strParam("expected_content_sha256", "Delete only if the memory's content_sha256 is this (64 lowercase hex characters); 409 otherwise.")}, "memory/memory_deleted", deleteMemory},
		{get, "/v1/memory_stores/:memory_store_id/memory_versions", ifMemory, in{query: qMemoryVersions}, "memory/memory_version_list", listMemoryVersions},
		{get, "/v1/memory_stores/:memory_store_id/memory_versions/:memory_version_id", ifMemory, in{query: viewParam(memViewFull)}, "memory/memory_version", getMemoryVersion},
		{post, "/v1/memory_stores/:memory_store_id/memory_versions/:memory_version_id/redact", ifMemory, in{}, "memory/memory_version", redactMemoryVersion},

		// Messages and legacy completions (spec 2.8, 2.9, 4.4; gaps §4, §5). A streamed answer
		// is an sseStream that checks each event against its own schema.
		{post, "/v1/messages", ifMessages, in{headers: hScenario, body: "messages/create_message_request", events: "messages/stream_event", tape: "messages"}, "messages/message", createMessage},
		{post, "/v1/messages/count_tokens", ifMessages, in{body: "messages/count_tokens_request", tape: "count_tokens"}, "messages/count_tokens", countTokens},
		{post, "/v1/complete", ifMessages, in{body: "messages/complete_request", events: "messages/completion_stream_event", tape: "complete"}, "messages/completion", complete},
		{get, "/_fake/messages/scenarios", nil, in{}, "messages/scenario_list", listScenarios},
		{post, "/_fake/messages/stubs", nil, in{body: "messages/stub_request"}, "messages/stub", registerStub},
		{get, "/_fake/messages/stubs", nil, in{}, "messages/stub_list", listStubs},
		{del, "/_fake/messages/stubs", nil, in{}, "control/cleared", clearStubs},
	}
}

// Query parameters that several routes share, or too many for one line of the table.
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
	qTunnelList = query(boolParam("include_archived", false, "Include archived items."), tokenParams(20, 1000))
	qPoll       = query(
		intParam("block_ms", 0, 1, 999, "Wait up to this long for work to arrive; without it, answer at once."),
		intParam("reclaim_older_than_ms", defaultReclaimMS, 0, 86_400_000, "Also hand out items whose lease holder has been silent this long."))
	qHeartbeat = query(
		numberParam("desired_ttl_seconds", defaultLeaseSeconds, 0, math.MaxFloat64, fmt.Sprintf("The lease to hold, in seconds; at most %v are granted.", maxLeaseSeconds)),
		[]param{{name: "expected_last_heartbeat", kind: pString, required: true,
			doc: "The last_heartbeat of the previous heartbeat, or " + noHeartbeat + " to claim an unclaimed lease; 412 when it is not the current one."}})
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
	qMemoryStores   = query(timeParams("created_at", "gte", "lte"),
		boolParam("include_archived", false, "Include archived stores."),
		tokenParams(defaultMemoryPage, maxMemoryPage))
	qMemories = query(
		strParam("path_prefix", "Only the memories under this prefix, which starts and ends with \"/\"."),
		intParam("depth", 0, 0, maxMemoryPath, "Roll anything deeper than this many segments below the prefix into one memory_prefix item per directory; 0: no roll-up."),
		tokenParams(defaultMemoryPage, maxMemoryPage), viewParam(memViewBasic))
	qMemoryVersions = query(viewParam(memViewBasic), tokenParams(defaultMemoryPage, maxMemoryPage),
		strParam("memory_id", "Only the versions of this memory."),
		strParam("api_key_id", "Only the versions written with this API key."),
		strParam("session_id", "Only the versions written in this session."),
		timeParams("created_at", "gte", "lte"),
		enumParam("operation", "", "Only the versions of this operation.", memOpCreated, memOpModified, memOpDeleted))
)

// Request headers that routes read (in.headers).
var (
	hScenario = []param{{name: headerScenario, kind: pString,
		doc: "Fake only: answer with this canned scenario of the library (GET /_fake/messages/scenarios lists the names); an unknown name is a 400."}}
	hWorker = []param{{name: headerWorkerID, kind: pString,
		doc: "Identifies the polling worker, for the environment's metrics (workers_polling); not a credential."}}
)

// viewParam is the memory view parameter (gaps §7); def differs between retrieve and the rest.
func viewParam(def string) []param {
	return enumParam("view", def, "basic leaves out the content; full includes it.", memViewBasic, memViewFull)
}
