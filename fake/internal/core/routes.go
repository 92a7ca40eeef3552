package core

import (
	"net/http"
)

// Route is one line of the route table: method and path, the interface whose credentials and
// headers it takes (nil for the control API), what it reads from the request, the schema of its
// 200 body ("" for bodies that are not one JSON document), and the handler. The OpenAPI
// documents (openapi.go) are generated from these lines alone.
type Route struct {
	Method string
	Path   string
	Ifc    *Iface
	In
	Schema string
	H      handler
}

// In is what a route reads from a request besides its path parameters, the shape of a streamed
// answer, and whether a tape records and replays the route. Handlers read query parameters and
// bodies only through these declarations (params.go, body.go), so a parameter or body the table
// does not declare cannot be read.
type In struct {
	Query   []Param // the query parameters the handler reads
	Headers []Param // the request headers the handler reads, besides credentials and spec 9's
	Body    string  // the schema of the JSON request body; "" when the route reads none
	// Multipart is the schema of the fields of a multipart/form-data body (file uploads, read with
	// MultipartReader); "" when the route reads none.
	Multipart string
	Events    string // the schema of each event when the body asks for a stream ("stream": true)
	limit     int64  // the largest body, when it is not the interface's (or the control API's)
	Tape      string // when a tape records and replays the route: its recordings' name in file names
}

const (
	Get  = http.MethodGet
	Post = http.MethodPost
	Del  = http.MethodDelete
	Put  = http.MethodPut
)

// Routes is the whole API, one line per route: the control API's, then each area's in the order
// the face lists them (areas.go). Handlers are functions of the server: the table, and the router
// built from it, exist once per process and serve every Server (the request carries which one).
func Routes() []*Route {
	rts := controlRoutes()
	for _, a := range areaList {
		if a.Routes != nil {
			rts = append(rts, a.Routes()...)
		}
	}
	return rts
}

// controlRoutes are the lines of the test-control API that belong to no area.
func controlRoutes() []*Route {
	return []*Route{
		// Test control: no credential, never journaled, never faulted.
		{Get, "/_fake/health", nil, In{}, "control/health", (*Server).health},
		{Post, "/_fake/reset", nil, In{}, "control/clock", (*Server).reset},
		{Get, "/_fake/clock", nil, In{}, "control/clock", (*Server).getClock},
		{Post, "/_fake/clock/advance", nil, In{Body: "control/clock_advance_request"}, "control/clock", (*Server).advanceClock},
		{Get, "/_fake/journal", nil, In{Query: Query(CursorParams(0, JournalCap), StrParam("session_id", "Only the entries of the requests that worked on this session: the client's requests on its routes, its creation included, and its turns' model requests."))}, "control/journal", (*Server).getJournal},
		{Del, "/_fake/journal", nil, In{}, "control/cleared", (*Server).clearJournal},
		{Post, "/_fake/faults", nil, In{Body: "control/fault_request"}, "control/fault", (*Server).injectFault},
		{Get, "/_fake/faults", nil, In{}, "control/fault_list", (*Server).listFaults},
		{Del, "/_fake/faults", nil, In{}, "control/cleared", (*Server).clearFaults},
		{Get, "/_fake/namespaces", nil, In{}, "control/namespace_list", (*Server).listNamespaces},
		{Del, "/_fake/namespaces", nil, In{}, "control/cleared", (*Server).clearNamespaces},
		{Del, "/_fake/namespaces/:name", nil, In{}, "control/cleared", (*Server).deleteNamespace},
		{Get, "/_fake/snapshot", nil, In{}, "control/snapshot", (*Server).getSnapshot},
		{Post, "/_fake/snapshot", nil, In{Body: "control/snapshot", limit: SnapshotBodyLimit}, "control/clock", (*Server).loadSnapshot},
		{Post, "/_fake/snapshot/save", nil, In{Body: "control/snapshot_save_request"}, "control/snapshot_save", (*Server).saveSnapshot},
		{Get, "/_fake/coverage", nil, In{Query: BoolParam("all", false, "Count the requests of the whole server, in every namespace, instead of only those of the namespace addressed.")}, "control/coverage", (*Server).getCoverage},
		{Get, "/_fake/retry_after", nil, In{}, "control/retry_after", (*Server).getRetryAfter},
		{Put, "/_fake/retry_after", nil, In{Body: "control/retry_after"}, "control/retry_after", (*Server).putRetryAfter},
		{Get, "/_fake/openapi.json", nil, In{}, "", (*Server).openAPI},
		{Get, "/_fake/openapi-control.json", nil, In{}, "", (*Server).controlOpenAPI},
	}
}

// Query parameters that several routes share, or too many for one line of the table.
var ()

// Request headers that routes read (in.headers).
var ()

// Line is one line of an area's part of the route table, its fields in the order of Route.
func Line(method, path string, ifc *Iface, in In, schema string, h handler) *Route {
	return &Route{Method: method, Path: path, Ifc: ifc, In: in, Schema: schema, H: h}
}
