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

		// Messages and legacy completions (spec 2.8, 2.9, 4.4; gaps §4, §5). A streamed answer
		// is an sseStream that checks each event against its own schema.
		{post, "/v1/messages", ifMessages, "messages/message", s.createMessage},
		{post, "/v1/messages/count_tokens", ifMessages, "messages/count_tokens", s.countTokens},
		{post, "/v1/complete", ifMessages, "messages/completion", s.complete},
		{get, "/_fake/messages/scenarios", nil, "messages/scenario_list", s.listScenarios},
	}
}
