package memory

import (
	"encoding/json"
	"slices"
	"strings"
	"sync"

	"github.com/platformkit/platformkit/fake/internal/core"
)

// memorySnapshot is the area's part of a snapshot (memory_stores.json), written from its store
// in the shape its loader reads.
var memorySnapshot = &core.SnapshotArea{Lock: core.LockArea(MemoryStores, func(m *Store) *sync.Mutex { return &m.Mu }), Export: exportMemory}

// exportMemory writes every store with its whole history, redactions included; live memories
// are what the history leaves behind, as the loader replays it.
func exportMemory(st *core.State, out map[string]any) error {
	ma := MemoryStores.In(st.Stores).Built()
	var list core.RecordList
	for _, ms := range core.OldestFirstOf(ma.Stores, func(m *MemStoreState) core.ListKey { return core.ListKey{At: m.Rec.CreatedAt, ID: m.Rec.ID} }) {
		var versions core.RecordList
		for _, v := range ms.versions {
			versions.Add("", v, "type", "memory_store_id", "content_sha256", "content_size_bytes")
		}
		if versions.Err != nil {
			return versions.Err
		}
		var heads []redactedHead
		for _, m := range ms.Memories {
			if ms.byID[m.MemoryVersionID].RedactedAt != nil {
				heads = append(heads, redactedHead{m.ID, m.Path, *m.Content})
			}
		}
		slices.SortFunc(heads, func(a, b redactedHead) int { return strings.Compare(a.MemoryID, b.MemoryID) })
		list.Add(ms.org.ID, struct {
			MemoryStore
			Versions      []json.RawMessage `json:"versions"`
			RedactedHeads []redactedHead    `json:"redacted_heads,omitempty"`
		}{ms.Rec.MemoryStore, core.OrEmptyList(versions.List), heads}, "type")
	}
	if list.Err != nil {
		return list.Err
	}
	out["memory_stores.json"] = struct {
		MemoryStores []json.RawMessage `json:"memory_stores"`
	}{core.OrEmptyList(list.List)}
	return nil
}
