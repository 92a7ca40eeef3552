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
	}
}
