package work

import (
	"encoding/json"
	"slices"
	"sync"
	"time"

	"github.com/platformkit/platformkit/fake/internal/core"
)

// workSnapshot is the area's part of a snapshot (environments.json), written from its store
// in the shape its loader reads.
var workSnapshot = &core.SnapshotArea{Lock: core.LockArea(workStores, func(w *Store) *sync.Mutex { return &w.mu }), Export: exportWork}

// exportWork writes every environment with its work items in their whole state. Lapsed leases
// are written as they stand, not settled: the loading server settles them when a request reads
// the environment, at the same instant the original would have.
func exportWork(st *core.State, out map[string]any) error {
	ws := workStores.In(st.Stores).Built()
	var list core.RecordList
	for _, env := range core.OldestFirstOf(ws.envs, func(e *Environment) core.ListKey { return core.ListKey{At: e.rec.CreatedAt, ID: e.rec.ID} }) {
		work := make([]workFixture, len(env.items))
		for i, it := range env.items {
			work[i] = it.fixture()
		}
		var workers map[string]time.Time
		if len(env.workers) > 0 {
			workers = env.workers
		}
		list.Add(env.org.ID, struct {
			EnvRecord
			Workers map[string]time.Time `json:"workers,omitempty"`
			Work    []workFixture        `json:"work"`
		}{env.rec, workers, work}, "type")
	}
	if list.Err != nil {
		return list.Err
	}
	// The environments of keys that the API deleted: the keys stay, and must still load.
	var deleted []string
	for _, c := range st.Fx.Creds {
		if c.Kind == core.KindEnvironmentKey && ws.envs[c.EnvironmentID] == nil && !slices.Contains(deleted, c.EnvironmentID) {
			deleted = append(deleted, c.EnvironmentID)
		}
	}
	slices.Sort(deleted)
	out["environments.json"] = struct {
		Environments []json.RawMessage `json:"environments"`
		Deleted      []string          `json:"deleted_environment_ids,omitempty"`
	}{core.OrEmptyList(list.List), deleted}
	return nil
}
