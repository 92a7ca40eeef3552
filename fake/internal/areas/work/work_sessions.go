package work

import (
	"fmt"
	"time"

	"github.com/platformkit/platformkit/fake/internal/core"
)

// What the sessions area reads of environments: a session names its environment, and creating
// one in a self-hosted environment queues its work (Enqueue).

// EnvironmentInfo is what a session needs to know of its environment.
type EnvironmentInfo struct {
	SelfHosted bool // config.type is self_hosted: a worker runs the session's tools
	Archived   bool
}

// LookupEnvironment returns what a session needs of the organization's environment id in st; false
// when the organization has no such environment.
func LookupEnvironment(st *core.State, org *core.Org, id string) (EnvironmentInfo, bool) {
	ws := StoreOf(st)
	ws.mu.Lock()
	defer ws.mu.Unlock()
	env := ws.envs[id]
	if env == nil || env.org != org {
		return EnvironmentInfo{}, false
	}
	return EnvironmentInfo{SelfHosted: env.rec.Config["type"] == "self_hosted", Archived: env.rec.ArchivedAt != nil}, true
}

// ItemState returns the state of the work item id of environment envID in st as of now (its
// lapsed lease applied); false when there is no such item.
func ItemState(st *core.State, envID, id string, now time.Time) (string, bool) {
	ws := StoreOf(st)
	ws.mu.Lock()
	defer ws.mu.Unlock()
	env := ws.envs[envID]
	if env == nil {
		return "", false
	}
	env.settle(now)
	it := env.byID[id]
	if it == nil {
		return "", false
	}
	return it.rec.State, true
}

// FixtureEnvironment is what the loader of sessions.json checks of environment id in fx
// (environments.json): its organization, whether it is self-hosted, and the session each of its
// work items serves, by item ID; ok is false when fx holds no such environment.
func FixtureEnvironment(fx *core.Fixtures, id string) (org *core.Org, selfHosted bool, items map[string]string, ok bool) {
	for _, e := range *EnvsSection.In(fx.Sections) {
		if e.ID == id {
			items = make(map[string]string, len(e.Work))
			for _, w := range e.Work {
				items[w.ID] = w.SessionID
			}
			return e.org, e.Config["type"] == "self_hosted", items, true
		}
	}
	return nil, false, nil, false
}

// FixtureItem is a work item of environments.json as the loader of sessions.json checks it.
type FixtureItem struct {
	Place         string // its place in environments.json: environments.<i>.work.<j>
	ID, SessionID string
	EnvironmentID string
	// Stated: the item gives its state, as a snapshot writes every item; a hand-written item
	// does not, and is queued.
	Stated bool
}

// FixtureItems is every work item of fx (environments.json), in the file's order.
func FixtureItems(fx *core.Fixtures) []FixtureItem {
	var out []FixtureItem
	for i, e := range *EnvsSection.In(fx.Sections) {
		for j, w := range e.Work {
			out = append(out, FixtureItem{Place: fmt.Sprintf("environments.%d.work.%d", i, j), ID: w.ID,
				SessionID: w.SessionID, EnvironmentID: e.ID, Stated: w.State != ""})
		}
	}
	return out
}
