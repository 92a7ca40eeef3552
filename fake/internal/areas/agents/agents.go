package agents

import (
	"encoding/json"
	"reflect"
	"strconv"
	"sync"
	"time"

	"github.com/platformkit/platformkit/fake/internal/core"
)

// Agents are versioned: every change makes a new version, kept whole, and a request that changes
// nothing makes none. Reads take ?version= to read an older one; sessions snapshot the version
// they start from (Resolve).

const (
	// DefaultPage and MaxPage are the limit of the agent and version lists.
	DefaultPage = 20
	MaxPage     = 100
	// MaxAgents is how many agents one server (or namespace) keeps, archived ones included.
	MaxAgents = 1000
	// MaxVersions is how many versions one agent keeps.
	MaxVersions = 500
	// MaxBytes is what the agents of one server (or namespace) keep in memory, by the heap
	// estimate of core.HeldSize; MaxBytesAll is what every namespace's keep together.
	MaxBytes    = 16 << 20
	MaxBytesAll = 64 << 20
	// DefaultEffort is the effort the fake resolves a model's effort to when the request gives
	// none: the reference resolves it "to the per-model default at save time", which it does
	// not publish.
	DefaultEffort = "high"
)

// Agent is one version of an agent, as the API answers it.
type Agent struct {
	ID                string            `json:"id"`
	Type              string            `json:"type"`
	ArchivedAt        *time.Time        `json:"archived_at"`
	CreatedAt         time.Time         `json:"created_at"`
	UpdatedAt         time.Time         `json:"updated_at"`
	Description       *string           `json:"description"`
	System            *string           `json:"system"`
	ExecutionIdentity any               `json:"execution_identity"`
	MCPServers        []any             `json:"mcp_servers"`
	Metadata          map[string]string `json:"metadata"`
	Model             map[string]any    `json:"model"`
	Multiagent        any               `json:"multiagent"`
	Name              string            `json:"name"`
	Skills            []any             `json:"skills"`
	Tools             []any             `json:"tools"`
	Version           int               `json:"version"`
}

// entry is an agent with every version, oldest first (versions[i] is version i+1).
type entry struct {
	org      *core.Org
	versions []Agent
	bytes    int
	encoded  core.RecordJSON // the latest version as JSON, for list pages
}

func (e *entry) latest() Agent { return e.versions[len(e.versions)-1] }

// json is the latest version as writeJSON would encode it (a read and a list page answer it),
// encoded once per change: a version never changes but for archived_at, so the count of versions
// and whether the agent is archived name the bytes. The caller holds the store's lock.
func (e *entry) json() (json.RawMessage, error) {
	// Both in one number, so that the key of an agent of fewer than 50 versions is one of
	// strconv's own strings, and the version is copied only to be encoded: a page of 20 agents
	// made 20 keys and 20 copies.
	key := 2 * len(e.versions)
	if e.latest().ArchivedAt != nil {
		key++
	}
	return e.encoded.Get(strconv.Itoa(key), func() any { return e.latest() })
}

func entryKey(e *entry) core.ListKey {
	return core.ListKey{At: e.versions[0].CreatedAt, ID: e.versions[0].ID}
}

// Store is the area's state in one server (or namespace).
type Store struct {
	mu    sync.Mutex
	byID  map[string]*entry
	byOrg map[*core.Org][]*entry // oldest first
	core.Charged
}

func storeOf(c *core.Call, s *core.Server) *Store { return StoreOf(s, c.St) }

// StoreOf is the agents of a server's state st, built from its fixtures on first use.
func StoreOf(s *core.Server, st *core.State) *Store {
	return agentStores.In(st.Stores).Get(func() *Store { return build(st.Fx, s.Cfg.Budget(budget)) })
}

func newStore(b *core.ByteBudget) *Store {
	return &Store{byID: map[string]*entry{}, byOrg: map[*core.Org][]*entry{}, Charged: core.Charged{Budget: b}}
}

// release gives back the store's bytes: its state was replaced or its namespace dropped.
func release(st *core.State) {
	a := agentStores.In(st.Stores).Get(func() *Store { return build(st.Fx, nil) })
	a.mu.Lock()
	defer a.mu.Unlock()
	a.Leave()
	clear(a.byID)
	clear(a.byOrg)
}

// charge counts n more bytes kept by e, or refuses them past the store's or the shared bound;
// the caller holds mu.
func (a *Store) charge(e *entry, n int) error {
	if !a.Released && a.Bytes+n > MaxBytes {
		return core.Invalid("the agents of this server (or namespace) may keep at most %d bytes in memory together; archive and forget agents by resetting the server (POST /_fake/reset) or use a fresh namespace", MaxBytes).Because(core.ReasonOutOfRange)
	}
	if !a.Reserve(n) {
		return core.Invalid("the agents of every namespace of this server may keep at most %d bytes in memory together; drop idle namespaces (DELETE /_fake/namespaces)", a.Budget.Limit).Because(core.ReasonOutOfRange)
	}
	e.bytes += n
	return nil
}

// find returns the caller's agent: another organization's is answered 404 like an unknown one.
func (a *Store) find(org *core.Org, id string) (*entry, error) {
	e := a.byID[id]
	if e == nil || e.org != org {
		return nil, core.NotFound("agent", id)
	}
	return e, nil
}

// Resolve returns the version of the organization's agent a session starts from: version 0 is
// the latest. An archived agent starts no session.
func Resolve(s *core.Server, st *core.State, org *core.Org, id string, version int, field string) (Agent, error) {
	a := StoreOf(s, st)
	a.mu.Lock()
	defer a.mu.Unlock()
	e := a.byID[id]
	if e == nil || e.org != org {
		return Agent{}, core.InvalidField(field, "agent %s was not found", core.Quoted(id, core.MaxExcerpt))
	}
	if e.latest().ArchivedAt != nil {
		return Agent{}, core.InvalidField(field, "agent %s is archived; an archived agent starts no session", id)
	}
	if version == 0 {
		return e.latest(), nil
	}
	if version > len(e.versions) {
		return Agent{}, core.InvalidField(field+".version", "agent %s has no version %d; its latest is %d", id, version, len(e.versions))
	}
	return e.versions[version-1], nil
}

// --- Handlers ---

func createAgent(s *core.Server, c *core.Call) (any, error) {
	_, doc, err := c.DecodeBody()
	if err != nil {
		return nil, err
	}
	body := doc.(map[string]any)
	v := newVersion(s.Clock.Now())
	if err := apply(&v, body, nil, ""); err != nil {
		return nil, err
	}
	a := storeOf(c, s)
	a.mu.Lock()
	defer a.mu.Unlock()
	if len(a.byID) >= MaxAgents {
		return nil, core.Invalid("this server (or namespace) keeps at most %d agents; reset it (POST /_fake/reset) or use a fresh namespace", MaxAgents).Because(core.ReasonOutOfRange)
	}
	v.ID = s.IDs.Next("agent_")
	e := &entry{org: c.Org}
	if err := a.charge(e, core.HeldSizeOf(v)); err != nil {
		return nil, err
	}
	e.versions = []Agent{v}
	a.byID[v.ID] = e
	a.byOrg[c.Org] = core.InsertInOrder(a.byOrg[c.Org], e, entryKey, core.OldestFirst)
	return v, nil
}

func getAgent(s *core.Server, c *core.Call) (any, error) {
	version, set, err := c.QueryInt("version")
	if err != nil {
		return nil, err
	}
	a := storeOf(c, s)
	a.mu.Lock()
	defer a.mu.Unlock()
	e, err := a.find(c.Org, c.Param("agent_id"))
	if err != nil {
		return nil, err
	}
	if !set {
		return e.json()
	}
	if version > len(e.versions) {
		return nil, core.NotFound("version of agent "+e.latest().ID, strconv.Itoa(version))
	}
	v := e.versions[version-1]
	v.ArchivedAt = e.latest().ArchivedAt // archived_at is the agent's, not the version's
	return v, nil
}

// updateAgent applies the fields given to the latest version; a result equal to it makes no new
// version (and leaves updated_at alone). version, when given, must be the latest.
func updateAgent(s *core.Server, c *core.Call) (any, error) {
	_, doc, err := c.DecodeBody()
	if err != nil {
		return nil, err
	}
	body := doc.(map[string]any)
	a := storeOf(c, s)
	a.mu.Lock()
	defer a.mu.Unlock()
	e, err := a.find(c.Org, c.Param("agent_id"))
	if err != nil {
		return nil, err
	}
	cur := e.latest()
	if cur.ArchivedAt != nil {
		return nil, core.Invalid("agent %s is archived; an archived agent cannot be changed", cur.ID)
	}
	if want, ok := body["version"].(json.Number); ok {
		if n, _ := want.Int64(); int(n) != cur.Version {
			return nil, core.InvalidField("version", "agent %s is at version %d, not %s; read it again and retry", cur.ID, cur.Version, want).WithStatus(409)
		}
	}
	next := cur
	if err := apply(&next, body, &cur, ""); err != nil {
		return nil, err
	}
	if sameContent(next, cur) {
		return cur, nil
	}
	if len(e.versions) >= MaxVersions {
		return nil, core.Invalid("agent %s has %d versions, the most the fake keeps; create a new agent", cur.ID, MaxVersions).Because(core.ReasonOutOfRange)
	}
	next.Version, next.UpdatedAt = cur.Version+1, s.Clock.Now()
	if err := a.charge(e, core.HeldSizeOf(next)); err != nil {
		return nil, err
	}
	e.versions = append(e.versions, next)
	return next, nil
}

// sameContent reports whether two versions configure the same agent (timestamps and the version
// number aside).
func sameContent(x, y Agent) bool {
	x.UpdatedAt, x.Version, y.UpdatedAt, y.Version = time.Time{}, 0, time.Time{}, 0
	bx, _ := json.Marshal(x)
	by, _ := json.Marshal(y)
	return reflect.DeepEqual(bx, by)
}

// archiveAgent sets archived_at on the agent (every version reads it); again, it changes nothing.
func archiveAgent(s *core.Server, c *core.Call) (any, error) {
	a := storeOf(c, s)
	a.mu.Lock()
	defer a.mu.Unlock()
	e, err := a.find(c.Org, c.Param("agent_id"))
	if err != nil {
		return nil, err
	}
	last := &e.versions[len(e.versions)-1]
	if last.ArchivedAt == nil {
		now := s.Clock.Now()
		last.ArchivedAt = &now
	}
	return *last, nil
}

// listAgents lists the latest version of each agent, newest first.
func listAgents(s *core.Server, c *core.Call) (any, error) {
	created, err := c.QueryTimeRange("created_at")
	if err != nil {
		return nil, err
	}
	q, err := c.ListQuery("agents", true)
	if err != nil {
		return nil, err
	}
	a := storeOf(c, s)
	a.mu.Lock()
	defer a.mu.Unlock()
	page := core.PageNewestKept(a.byOrg[c.Org], func(e *entry) bool {
		return (q.Archived || e.latest().ArchivedAt == nil) && created.Contains(e.versions[0].CreatedAt)
	}, entryKey, "agents", q.After, q.Limit)
	return core.EncodedTokenPage(page, (*entry).json)
}

// listVersions lists an agent's versions, newest first.
func listVersions(s *core.Server, c *core.Call) (any, error) {
	q, err := c.ListQuery("agent_versions", false)
	if err != nil {
		return nil, err
	}
	a := storeOf(c, s)
	a.mu.Lock()
	defer a.mu.Unlock()
	e, err := a.find(c.Org, c.Param("agent_id"))
	if err != nil {
		return nil, err
	}
	archivedAt := e.latest().ArchivedAt
	// The key of a version is its number, as a time, so that versions made in one instant of
	// the virtual clock still page in order.
	key := func(v Agent) core.ListKey { return core.ListKey{At: time.Unix(int64(v.Version), 0), ID: v.ID} }
	page := core.PageNewestKept(e.versions, func(Agent) bool { return true }, key, "agent_versions", q.After, q.Limit)
	for i := range page.Data {
		page.Data[i].ArchivedAt = archivedAt
	}
	return page, nil
}
