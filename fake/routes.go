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
	}
}
