package fake

import (
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

// routes is the whole API, one line per route: the control API's, then each area's in the order
// the face lists them (areas.go). Handlers are functions of the server: the table, and the router
// built from it, exist once per process and serve every Server (the request carries which one).
func routes() []*route {
	rts := controlRoutes()
	for _, a := range areaList {
		if a.routes != nil {
			rts = append(rts, a.routes()...)
		}
	}
	return rts
}

// controlRoutes are the lines of the test-control API that belong to no area.
func controlRoutes() []*route {
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
		{get, "/_fake/coverage", nil, in{query: boolParam("all", false, "Count the requests of the whole server, in every namespace, instead of only those of the namespace addressed.")}, "control/coverage", (*Server).getCoverage},
		{get, "/_fake/retry_after", nil, in{}, "control/retry_after", (*Server).getRetryAfter},
		{put, "/_fake/retry_after", nil, in{body: "control/retry_after"}, "control/retry_after", (*Server).putRetryAfter},
		{get, "/_fake/openapi.json", nil, in{}, "", (*Server).openAPI},
		{get, "/_fake/openapi-control.json", nil, in{}, "", (*Server).controlOpenAPI},
	}
}

// Query parameters that several routes share, or too many for one line of the table.
var ()

// Request headers that routes read (in.headers).
var ()
