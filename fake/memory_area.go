package fake

// memoryStoresArea is the area of memory stores and their versioned memories.
var memoryStoresArea = &area{routes: memoryRoutes, load: loadMemoryStores, snapshot: memorySnapshot}

var (
	memorySection = newSection[memoryFixtures]()
	memoryStores  = newStore[memoryArea]()
)

func memoryRoutes() []*route {
	return []*route{
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
	}
}

var (
	qMemoryStores = query(timeParams("created_at", "gte", "lte"),
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

// viewParam is the memory view parameter (gaps §7); def differs between retrieve and the rest.
func viewParam(def string) []param {
	return enumParam("view", def, "basic leaves out the content; full includes it.", memViewBasic, memViewFull)
}
