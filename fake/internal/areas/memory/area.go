package memory

import "github.com/platformkit/platformkit/fake/internal/core"

// Area is the area of memory stores and their versioned memories.
var Area = &core.Area{Routes: memoryRoutes, Load: loadMemoryStores, Snapshot: memorySnapshot}

var (
	MemorySection = core.NewSection[memoryFixtures]()
	MemoryStores  = core.NewStore[Store]()
)

func memoryRoutes() []*core.Route {
	return []*core.Route{
		// Memory stores (spec 2.13-2.15, 3.5, 4.7; create, retrieve, update, archive, delete of
		// stores, memory list and delete, and redact from gaps §7).
		core.Line(core.Get, "/v1/memory_stores", core.IfMemory, core.In{Query: qMemoryStores}, "memory/memory_store_list", listMemoryStores),
		core.Line(core.Post, "/v1/memory_stores", core.IfMemory, core.In{Body: "memory/memory_store_create_request"}, "memory/memory_store", createMemoryStore),
		core.Line(core.Get, "/v1/memory_stores/:memory_store_id", core.IfMemory, core.In{}, "memory/memory_store", getMemoryStore),
		core.Line(core.Post, "/v1/memory_stores/:memory_store_id", core.IfMemory, core.In{Body: "memory/memory_store_update_request"}, "memory/memory_store", updateMemoryStore),
		core.Line(core.Del, "/v1/memory_stores/:memory_store_id", core.IfMemory, core.In{}, "memory/memory_store_deleted", deleteMemoryStore),
		core.Line(core.Post, "/v1/memory_stores/:memory_store_id/archive", core.IfMemory, core.In{}, "memory/memory_store", archiveMemoryStore),
		core.Line(core.Get, "/v1/memory_stores/:memory_store_id/memories", core.IfMemory, core.In{Query: qMemories}, "memory/memory_list", listMemories),
		core.Line(core.Post, "/v1/memory_stores/:memory_store_id/memories", core.IfMemory, core.In{Query: viewParam(memViewBasic), Body: "memory/memory_create_request"}, "memory/memory", createMemory),
		core.Line(core.Get, "/v1/memory_stores/:memory_store_id/memories/:memory_id", core.IfMemory, core.In{Query: viewParam(memViewFull)}, "memory/memory", getMemory),
		core.Line(core.Post, "/v1/memory_stores/:memory_store_id/memories/:memory_id", core.IfMemory, core.In{Query: viewParam(memViewBasic), Body: "memory/memory_update_request"}, "memory/memory", updateMemory),
		core.Line(core.Del, "/v1/memory_stores/:memory_store_id/memories/:memory_id", core.IfMemory, core.In{Query: core.StrParam("expected_content_sha256", "Delete only if the memory's content_sha256 is this (64 lowercase hex characters); 409 otherwise.")}, "memory/memory_deleted", deleteMemory),
		core.Line(core.Get, "/v1/memory_stores/:memory_store_id/memory_versions", core.IfMemory, core.In{Query: qMemoryVersions}, "memory/memory_version_list", listMemoryVersions),
		core.Line(core.Get, "/v1/memory_stores/:memory_store_id/memory_versions/:memory_version_id", core.IfMemory, core.In{Query: viewParam(memViewFull)}, "memory/memory_version", getMemoryVersion),
		core.Line(core.Post, "/v1/memory_stores/:memory_store_id/memory_versions/:memory_version_id/redact", core.IfMemory, core.In{}, "memory/memory_version", redactMemoryVersion),
	}
}

var (
	qMemoryStores = core.Query(core.TimeParams("created_at", "gte", "lte"),
		core.BoolParam("include_archived", false, "Include archived stores."),
		core.TokenParams(DefaultMemoryPage, maxMemoryPage))
	qMemories = core.Query(
		core.StrParam("path_prefix", "Only the memories under this prefix, which starts and ends with \"/\"."),
		core.IntParam("depth", 0, 0, maxMemoryPath, "Roll anything deeper than this many segments below the prefix into one memory_prefix item per directory; 0: no roll-up."),
		core.TokenParams(DefaultMemoryPage, maxMemoryPage), viewParam(memViewBasic))
	qMemoryVersions = core.Query(viewParam(memViewBasic), core.TokenParams(DefaultMemoryPage, maxMemoryPage),
		core.StrParam("memory_id", "Only the versions of this memory."),
		core.StrParam("api_key_id", "Only the versions written with this API key."),
		core.StrParam("session_id", "Only the versions written in this session."),
		core.TimeParams("created_at", "gte", "lte"),
		core.EnumParam("operation", "", "Only the versions of this operation.", MemOpCreated, MemOpModified, memOpDeleted))
)

// viewParam is the memory view parameter (gaps §7); def differs between retrieve and the rest.
func viewParam(def string) []core.Param {
	return core.EnumParam("view", def, "basic leaves out the content; full includes it.", memViewBasic, memViewFull)
}
