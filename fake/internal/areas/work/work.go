package work

import (
	"encoding/json"
	"fmt"
	"io/fs"
	"maps"
	"net/http"
	"slices"
	"sync"
	"time"

	"github.com/platformkit/platformkit/fake/internal/core"
)

// Environments and the work queue (spec 2.16, 3.1, 4.8, 8; gaps §8).
//
// Every item lives in its environment's list in creation order (the work list), and in two
// indexes while it needs them: the queue (state queued, served oldest queuedAt first) and the
// leases (a claimed heartbeat record). Leases lapse on the virtual clock; the store applies
// lapses lazily (settle) before every operation reads an environment, so that no timer goroutine
// is needed and the outcome depends only on the clock.

// Work item states (spec 2.16, 3.1).
const (
	workQueued   = "queued"
	workStarting = "starting"
	workActive   = "active"
	workStopping = "stopping"
	workStopped  = "stopped"
)

const (
	// NoHeartbeat is the expected_last_heartbeat that claims an unclaimed lease (spec 4.8).
	NoHeartbeat = "NO_HEARTBEAT"
	// DefaultLeaseSeconds is the lease when desired_ttl_seconds is absent (gaps §8).
	DefaultLeaseSeconds = 30.0
	// MaxLeaseSeconds caps desired_ttl_seconds (any positive number is accepted); the heartbeat
	// answers the TTL it applied.
	MaxLeaseSeconds = 300.0
	// defaultReclaimMS is how long a polled, unacknowledged item stays invisible (spec 8).
	defaultReclaimMS = 5000
	// workerWindow is how recently a worker must have polled to count in workers_polling.
	workerWindow = 60 * time.Second
)

// WorkItem is the face's WorkItem (package fake), which documents it.
type WorkItem struct {
	ID                string            `json:"id"`
	Type              string            `json:"type"`
	AcknowledgedAt    *time.Time        `json:"acknowledged_at"`
	CreatedAt         time.Time         `json:"created_at"`
	Data              WorkData          `json:"data"`
	EnvironmentID     string            `json:"environment_id"`
	LatestHeartbeatAt *time.Time        `json:"latest_heartbeat_at"`
	Metadata          map[string]string `json:"metadata"`
	StartedAt         *time.Time        `json:"started_at"`
	State             string            `json:"state"`
	StopRequestedAt   *time.Time        `json:"stop_requested_at"`
	StoppedAt         *time.Time        `json:"stopped_at"`
	// Secret is the item's secret, which the worker that takes the item needs (the official
	// SDKs' field): URL-safe base64 of {"sessions_token": ...}, the item's sessions token
	// (work_tokens.go). Derived from the ID when the item is made, so every answer carries the same.
	Secret string `json:"secret"`
}

// WorkData is the face's WorkData (package fake), which documents it.
type WorkData struct {
	ID   string `json:"id"`
	Type string `json:"type"`
}

// QueueItem is a work item with the queue's and the lease's bookkeeping, which clients never see.
type QueueItem struct {
	rec      WorkItem
	queuedAt time.Time  // when it last entered the queue: its place in line
	polledAt *time.Time // when a poll last handed it out while queued; nil if never since queued
	// lastHeartbeat is the heartbeat record: the exact last_heartbeat a worker must echo; ""
	// while the lease is unclaimed. leaseUntil is when the lease lapses.
	lastHeartbeat string
	leaseUntil    time.Time
}

// EnvRecord is an environment as the API answers it (gaps §8).
type EnvRecord struct {
	ID          string            `json:"id"`
	Type        string            `json:"type"`
	Name        string            `json:"name"`
	Description string            `json:"description"`
	Metadata    map[string]string `json:"metadata"`
	Config      map[string]any    `json:"config"`
	Scope       string            `json:"scope"`
	CreatedAt   time.Time         `json:"created_at"`
	UpdatedAt   time.Time         `json:"updated_at"`
	ArchivedAt  *time.Time        `json:"archived_at"`
}

// Environment is one environment with its work. rec's maps are replaced, never changed in
// place, so a copy of rec handed to the encoder outside the lock stays valid.
type Environment struct {
	rec     EnvRecord       // changed only through set, which drops encoded
	encoded core.RecordJSON // rec as JSON, encoded by the first list page after a change
	org     *core.Org
	items   []*QueueItem          // creation order
	byID    map[string]*QueueItem // the same items by ID
	queue   map[string]*QueueItem // the items in state queued, which polls choose from
	leased  map[string]*QueueItem // the items whose lease is claimed, which settle watches
	workers map[string]time.Time  // Vendor-Worker-ID → its latest poll
}

// Store is the state of the area. Its mutex is held only for bookkeeping, never while a
// poll waits.
type Store struct {
	mu   sync.Mutex
	envs map[string]*Environment
	// byOrg is each organization's environments oldest first (envKey, which never changes for
	// an environment; a new one is appended), kept as environments are created and deleted: a
	// list page walks it back instead of collecting and sorting every environment per request.
	byOrg map[*core.Org][]*Environment
	// arrived is closed and replaced whenever work is enqueued, waking blocked polls.
	arrived chan struct{}
}

// add puts a new environment in the store; the caller holds mu.
func (st *Store) add(env *Environment) {
	st.envs[env.rec.ID] = env
	st.byOrg[env.org] = core.InsertInOrder(st.byOrg[env.org], env, envKey, core.OldestFirst)
}

// remove takes an environment out of the store; the caller holds mu.
func (st *Store) remove(env *Environment) {
	delete(st.envs, env.rec.ID)
	st.byOrg[env.org] = core.RemoveInOrder(st.byOrg[env.org], env, envKey, core.OldestFirst)
}

// --- Fixtures ---

// envFixture is one environment of fixtures/environments.json with its queued work. The file
// gives the record's own fields but type, updated_at and archived_at.
type envFixture struct {
	EnvRecord
	OrganizationID string               `json:"organization_id"`
	Work           []workFixture        `json:"work"`
	Workers        map[string]time.Time `json:"workers,omitempty"` // Vendor-Worker-ID → latest poll (snapshots)
	org            *core.Org
}

// workFixture is a work item of environments.json. Hand-written fixtures give the first four
// fields and the item is queued; a snapshot gives its whole state, with the queue's and the
// lease's bookkeeping, so that the item continues exactly.
type workFixture struct {
	ID        string            `json:"id"`
	SessionID string            `json:"session_id"`
	Metadata  map[string]string `json:"metadata"`
	CreatedAt time.Time         `json:"created_at"`

	State             string     `json:"state,omitempty"`
	AcknowledgedAt    *time.Time `json:"acknowledged_at,omitempty"`
	LatestHeartbeatAt *time.Time `json:"latest_heartbeat_at,omitempty"`
	StartedAt         *time.Time `json:"started_at,omitempty"`
	StopRequestedAt   *time.Time `json:"stop_requested_at,omitempty"`
	StoppedAt         *time.Time `json:"stopped_at,omitempty"`
	QueuedAt          *time.Time `json:"queued_at,omitempty"`
	PolledAt          *time.Time `json:"polled_at,omitempty"`
	LastHeartbeat     string     `json:"last_heartbeat,omitempty"`
	LeaseUntil        *time.Time `json:"lease_until,omitempty"`
}

// item builds the work item the fixture describes in environment envID.
func (w *workFixture) item(envID string) *QueueItem {
	it := newWorkItem(w.ID, envID, w.SessionID, w.Metadata, w.CreatedAt)
	if w.State == "" {
		it.rec.State, it.queuedAt = workQueued, w.CreatedAt
		return it
	}
	r := &it.rec
	r.State, r.AcknowledgedAt, r.LatestHeartbeatAt, r.StartedAt, r.StopRequestedAt, r.StoppedAt =
		w.State, w.AcknowledgedAt, w.LatestHeartbeatAt, w.StartedAt, w.StopRequestedAt, w.StoppedAt
	it.queuedAt, it.polledAt, it.lastHeartbeat = w.CreatedAt, w.PolledAt, w.LastHeartbeat
	if w.QueuedAt != nil {
		it.queuedAt = *w.QueuedAt
	}
	if w.LeaseUntil != nil {
		it.leaseUntil = *w.LeaseUntil
	}
	return it
}

// fixture is the item as environments.json holds it in a snapshot.
func (it *QueueItem) fixture() workFixture {
	r := it.rec
	w := workFixture{ID: r.ID, SessionID: r.Data.ID, Metadata: r.Metadata, CreatedAt: r.CreatedAt, State: r.State,
		AcknowledgedAt: r.AcknowledgedAt, LatestHeartbeatAt: r.LatestHeartbeatAt, StartedAt: r.StartedAt,
		StopRequestedAt: r.StopRequestedAt, StoppedAt: r.StoppedAt, PolledAt: it.polledAt, LastHeartbeat: it.lastHeartbeat}
	if r.State == workQueued {
		w.QueuedAt = &it.queuedAt
	}
	if it.lastHeartbeat != "" {
		w.LeaseUntil = &it.leaseUntil
	}
	return w
}

func loadEnvironments(fsys fs.FS, fx *core.Fixtures) error {
	var file struct {
		Environments []*envFixture `json:"environments"`
		Deleted      []string      `json:"deleted_environment_ids"`
	}
	found, err := core.ReadFixture(fsys, "environments.json", &file)
	if err != nil || !found {
		return err
	}
	envOrg := map[string]*core.Org{}
	for _, e := range file.Environments {
		if e.org = fx.OrgByID(e.OrganizationID); e.org == nil {
			return fmt.Errorf("environments.json: environment %s names unknown organization %s", e.ID, e.OrganizationID)
		}
		envOrg[e.ID] = e.org
	}
	// A key outlives its environment (the API deletes environments, not keys): a snapshot lists
	// the environments deleted under a key, which the key may still name; any other key must
	// name an environment of its own organization.
	deleted := map[string]bool{}
	for _, id := range file.Deleted {
		if envOrg[id] != nil {
			return fmt.Errorf("environments.json: environment %s is both listed and deleted", id)
		}
		deleted[id] = true
	}
	for _, c := range fx.Creds {
		if c.Kind == core.KindEnvironmentKey && envOrg[c.EnvironmentID] != c.Org && !deleted[c.EnvironmentID] {
			return fmt.Errorf("environments.json: environment key %s names %s, which is not an environment of its organization", c.ID, c.EnvironmentID)
		}
	}
	*EnvsSection.In(fx.Sections) = file.Environments
	return nil
}

// newWorkStore copies the fixtures into a fresh store.
func newWorkStore(fx *core.Fixtures) *Store {
	st := &Store{envs: map[string]*Environment{}, byOrg: map[*core.Org][]*Environment{}, arrived: make(chan struct{})}
	for _, f := range *EnvsSection.In(fx.Sections) {
		rec := f.EnvRecord
		if rec.UpdatedAt.IsZero() {
			rec.UpdatedAt = rec.CreatedAt
		}
		env := newEnvironment(rec, f.org)
		for _, w := range f.Work {
			it := w.item(f.ID)
			env.items = append(env.items, it)
			env.byID[it.rec.ID] = it
			if it.rec.State == workQueued {
				env.queue[it.rec.ID] = it
			}
			if it.lastHeartbeat != "" {
				env.leased[it.rec.ID] = it
			}
		}
		maps.Copy(env.workers, f.Workers)
		slices.SortFunc(env.items, func(a, b *QueueItem) int { return core.OldestFirst(workItemKey(a), workItemKey(b)) })
		st.add(env)
	}
	return st
}

// newEnvironment completes a record with the defaults of gaps §8 (config cloud, scope
// organization, empty metadata) and gives it an empty queue.
func newEnvironment(rec EnvRecord, o *core.Org) *Environment {
	rec.Type, rec.Metadata = "environment", orEmpty(rec.Metadata)
	rec.Config = completeConfig(rec.Config)
	if rec.Scope == "" {
		rec.Scope = "organization"
	}
	return &Environment{rec: rec, org: o, byID: map[string]*QueueItem{}, queue: map[string]*QueueItem{},
		leased: map[string]*QueueItem{}, workers: map[string]time.Time{}}
}

// set makes rec the environment's record; the caller holds the area's lock.
func (e *Environment) set(rec EnvRecord) { e.rec = rec; e.encoded.Drop() }

// json returns the record as writeJSON would encode it, encoding it once per change; the
// caller holds the area's lock.
func (e *Environment) json() (json.RawMessage, error) {
	return e.encoded.Get("", func() any { return e.rec })
}

// completeConfig is an environment's config as answered: none is a cloud one, and a cloud one
// has the networking (unrestricted) and the packages (none of each manager) it does not name,
// as the official SDKs' type of a cloud config requires them (BetaCloudConfig). It copies what
// it changes, so that a record never shares a map with the request.
func completeConfig(cfg map[string]any) map[string]any {
	if cfg == nil {
		cfg = map[string]any{"type": "cloud"}
	}
	if cfg["type"] != "cloud" {
		return cfg
	}
	out := maps.Clone(cfg)
	if out["networking"] == nil {
		out["networking"] = map[string]any{"type": "unrestricted"}
	}
	pk, _ := out["packages"].(map[string]any)
	pk = maps.Clone(pk)
	if pk == nil {
		pk = map[string]any{}
	}
	if pk["type"] == nil {
		pk["type"] = "packages"
	}
	for _, m := range []string{"apt", "cargo", "gem", "go", "npm", "pip"} {
		if pk[m] == nil {
			pk[m] = []any{}
		}
	}
	out["packages"] = pk
	return out
}

// orEmpty copies a metadata map, so that a record never shares one with the request or the
// fixtures; absent metadata is emitted as {}.
func orEmpty(m map[string]string) map[string]string {
	if m == nil {
		return map[string]string{}
	}
	return maps.Clone(m)
}

// newWorkItem builds an item created at createdAt; env.add puts it in the queue.
func newWorkItem(id, envID, sessionID string, metadata map[string]string, createdAt time.Time) *QueueItem {
	return &QueueItem{
		rec: WorkItem{
			ID: id, Type: "work", CreatedAt: createdAt, Data: WorkData{ID: sessionID, Type: "session"},
			EnvironmentID: envID, Metadata: orEmpty(metadata), Secret: workSecret(id),
		},
	}
}

// add appends a new item and queues it.
func (env *Environment) add(it *QueueItem) {
	env.items = append(env.items, it)
	env.byID[it.rec.ID] = it
	env.enqueue(it, it.rec.CreatedAt)
}

// enqueue puts an item (back) in line as of at, not yet handed out by any poll.
func (env *Environment) enqueue(it *QueueItem, at time.Time) {
	it.rec.State, it.queuedAt, it.polledAt = workQueued, at, nil
	env.queue[it.rec.ID] = it
}

// dequeue takes an item out of line (acknowledged or stopped).
func (env *Environment) dequeue(it *QueueItem) {
	delete(env.queue, it.rec.ID)
	it.polledAt = nil
}

// claim records a heartbeat: the value the next heartbeat must echo. The lease's end is the
// caller's to set, since a stopping item's lease is not extended.
func (env *Environment) claim(it *QueueItem, now time.Time) {
	it.lastHeartbeat = now.Format(time.RFC3339Nano)
	it.rec.LatestHeartbeatAt = &now
	env.leased[it.rec.ID] = it
}

// release clears the heartbeat record: the lease is gone.
func (env *Environment) release(it *QueueItem) {
	it.lastHeartbeat = ""
	delete(env.leased, it.rec.ID)
}

func workItemKey(it *QueueItem) core.ListKey {
	return core.ListKey{At: it.rec.CreatedAt, ID: it.rec.ID}
}

// --- Leases ---

// settle applies every lease that lapsed by now (gaps §8): an active item goes back to the queue
// with its heartbeat record cleared, so the old worker's next heartbeat gets 412; a stopping item
// is stopped. Each change is dated at the instant the lease lapsed, not when it was noticed.
func (env *Environment) settle(now time.Time) {
	for _, it := range env.leased {
		if now.Before(it.leaseUntil) {
			continue
		}
		at := it.leaseUntil
		env.release(it)
		switch it.rec.State {
		case workActive:
			env.enqueue(it, at)
			it.rec.AcknowledgedAt, it.rec.StartedAt, it.rec.LatestHeartbeatAt = nil, nil, nil
		case workStopping:
			it.rec.State = workStopped
			it.rec.StoppedAt = &at
		}
	}
}

// --- Lookups ---

// environment finds the caller's environment: another organization's, or another environment's
// when the caller holds an environment key, is answered 404 like an unknown one.
func (st *Store) environment(c *core.Call, id string) (*Environment, error) {
	env := st.envs[id]
	if env == nil || env.org != c.Org || (c.Cred.Kind == core.KindEnvironmentKey && c.Cred.EnvironmentID != id) {
		return nil, core.NotFound("environment", id)
	}
	return env, nil
}

// withEnv runs f with the store locked, on the caller's environment of the path, with its lapsed
// leases applied.
func withEnv(s *core.Server, c *core.Call, f func(st *Store, env *Environment, now time.Time) (any, error)) (any, error) {
	if err := tokenScope(c); err != nil {
		return nil, err
	}
	st := work(s, c)
	st.mu.Lock()
	defer st.mu.Unlock()
	env, err := st.environment(c, c.Param("environment_id"))
	if err != nil {
		return nil, err
	}
	now := s.Clock.Now()
	env.settle(now)
	return f(st, env, now)
}

// withItem is withEnv for the work item of the path.
func withItem(s *core.Server, c *core.Call, f func(env *Environment, it *QueueItem, now time.Time) (any, error)) (any, error) {
	return withEnv(s, c, func(_ *Store, env *Environment, now time.Time) (any, error) {
		id := c.Param("work_id")
		it := env.byID[id]
		if it == nil {
			return nil, core.NotFound("work item", id)
		}
		return f(env, it, now)
	})
}

func work(s *core.Server, c *core.Call) *Store { return StoreOf(c.St) }

// StoreOf returns the area's store in st, built from the fixtures on first use.
func StoreOf(st *core.State) *Store {
	return workStores.In(st.Stores).Get(func() *Store { return newWorkStore(st.Fx) })
}

// wrongState answers an operation that does not apply in the item's current state.
func wrongState(it *QueueItem, op, allowed string) error {
	return core.Invalid("work item %s is %s; %s applies only to a %s item", it.rec.ID, it.rec.State, op, allowed)
}

// --- Work endpoints (spec 4.8) ---

func getWork(s *core.Server, c *core.Call) (any, error) {
	return withItem(s, c, func(_ *Environment, it *QueueItem, _ time.Time) (any, error) { return it.rec, nil })
}

// ackWork moves a queued item to starting and takes it out of the queue (spec 3.1).
func ackWork(s *core.Server, c *core.Call) (any, error) {
	return withItem(s, c, func(env *Environment, it *QueueItem, now time.Time) (any, error) {
		if it.rec.State != workQueued {
			return nil, wrongState(it, "acknowledge", "queued")
		}
		env.dequeue(it)
		it.rec.State, it.rec.AcknowledgedAt = workStarting, &now
		return it.rec, nil
	})
}

// heartbeatResponse is the heartbeat response of spec 2.16.
type heartbeatResponse struct {
	LastHeartbeat string  `json:"last_heartbeat"`
	LeaseExtended bool    `json:"lease_extended"`
	State         string  `json:"state"`
	TTLSeconds    float64 `json:"ttl_seconds"`
	Type          string  `json:"type"`
}

// heartbeatWork claims or extends the lease of an item (spec 4.8, gaps §8). The check of
// expected_last_heartbeat and the new record happen under one lock, so of two workers racing
// with the same expectation exactly one wins and the other gets 412. Without
// expected_last_heartbeat (optional in the official SDKs' types) the heartbeat is unconditional:
// nothing is compared, and it claims or extends the lease as a matching one would.
func heartbeatWork(s *core.Server, c *core.Call) (any, error) {
	ttl, err := c.QueryFloat("desired_ttl_seconds")
	if err != nil {
		return nil, err
	}
	ttl = min(ttl, MaxLeaseSeconds)
	expected, conditional := c.QueryString("expected_last_heartbeat")
	if conditional && expected == "" {
		// An empty value is a client that lost the last heartbeat, not one asking for none.
		return nil, core.InvalidField("expected_last_heartbeat", "is empty: pass %s to claim an unclaimed lease, the last_heartbeat of the previous heartbeat, or omit it for an unconditional heartbeat", NoHeartbeat)
	}
	return withItem(s, c, func(env *Environment, it *QueueItem, now time.Time) (any, error) {
		if it.rec.State == workStopped {
			return nil, wrongState(it, "heartbeat", "starting, active or stopping")
		}
		want := it.lastHeartbeat
		if want == "" {
			want = NoHeartbeat
		}
		if conditional && expected != want {
			var err *core.APIError
			switch {
			case it.rec.State == workQueued:
				err = core.InvalidField("expected_last_heartbeat", "work item %s holds no lease: it lapsed and the item is queued again; abandon the work", it.rec.ID)
			case it.lastHeartbeat == "":
				err = core.InvalidField("expected_last_heartbeat", "the lease of work item %s is not claimed; send %s to claim it", it.rec.ID, NoHeartbeat)
			default:
				err = core.InvalidField("expected_last_heartbeat", "does not match the last heartbeat of work item %s; another worker may hold its lease", it.rec.ID)
			}
			return nil, err.WithStatus(http.StatusPreconditionFailed)
		}
		if it.rec.State == workQueued {
			// After the mismatch check: a worker whose lease lapsed learns it by a 412 (gaps §8).
			return nil, wrongState(it, "heartbeat", "starting, active or stopping")
		}
		env.claim(it, now)
		resp := heartbeatResponse{LastHeartbeat: it.lastHeartbeat, Type: "work_heartbeat"}
		if it.rec.State == workStopping {
			// A stopping item keeps its lease's end: it stops when the lease lapses (gaps §8).
			resp.TTLSeconds = it.leaseUntil.Sub(now).Seconds()
		} else {
			if it.rec.State == workStarting {
				it.rec.State, it.rec.StartedAt = workActive, &now
			}
			it.leaseUntil = now.Add(time.Duration(ttl * float64(time.Second)))
			resp.LeaseExtended, resp.TTLSeconds = true, ttl
		}
		resp.State = it.rec.State
		return resp, nil
	})
}

// updateWork patches a work item's metadata (the official SDKs' work update: a string upserts its
// key, null deletes it, keys not named stay), in any state: metadata is the user's, not the
// queue's. A patch that changes nothing answers the item as it is.
func updateWork(s *core.Server, c *core.Call) (any, error) {
	var req struct {
		Metadata map[string]*string `json:"metadata"`
	}
	if err := c.BindValid(&req); err != nil {
		return nil, err
	}
	return withItem(s, c, func(_ *Environment, it *QueueItem, _ time.Time) (any, error) {
		md, err := core.PatchMetadata(it.rec.Metadata, req.Metadata, "metadata", "a work item")
		if err != nil {
			return nil, err
		}
		it.rec.Metadata = md
		return it.rec, nil
	})
}

// stopWork stops an item: at once with force (or when no worker holds a lease, so there is
// nothing to shut down gracefully), otherwise it is stopping until its lease lapses (gaps §8).
func stopWork(s *core.Server, c *core.Call) (any, error) {
	var req struct {
		Force bool `json:"force"`
	}
	if err := c.BindValid(&req); err != nil {
		return nil, err
	}
	return withItem(s, c, func(env *Environment, it *QueueItem, now time.Time) (any, error) {
		switch {
		case it.rec.State == workStopped:
			return nil, wrongState(it, "stop", "queued, starting, active or stopping")
		case it.rec.State == workStopping && !req.Force:
			return it.rec, nil // a retried graceful stop changes nothing
		}
		if it.rec.StopRequestedAt == nil {
			it.rec.StopRequestedAt = &now
		}
		if req.Force || it.lastHeartbeat == "" {
			env.dequeue(it)
			env.release(it)
			it.rec.State, it.rec.StoppedAt = workStopped, &now
			return it.rec, nil
		}
		it.rec.State = workStopping
		return it.rec, nil
	})
}

// listWork lists an environment's work items (gaps §8): page tokens, oldest first.
func listWork(s *core.Server, c *core.Call) (any, error) {
	q, err := c.ListQuery("work", false)
	if err != nil {
		return nil, err
	}
	return withEnv(s, c, func(_ *Store, env *Environment, _ time.Time) (any, error) {
		page := core.PageByToken(env.items, workItemKey, core.OldestFirst, "work", q.After, q.Limit)
		out := core.TokenPage[WorkItem]{Data: make([]WorkItem, len(page.Data)), NextPage: page.NextPage}
		for i, it := range page.Data {
			out.Data[i] = it.rec
		}
		return out, nil
	})
}

// workStatsRecord is the queue statistics record of gaps §8.
type workStatsRecord struct {
	Type           string     `json:"type"`
	Depth          int        `json:"depth"`
	Pending        int        `json:"pending"`
	OldestQueuedAt *time.Time `json:"oldest_queued_at"`
	WorkersPolling int        `json:"workers_polling"`
}

func workStats(s *core.Server, c *core.Call) (any, error) {
	return withEnv(s, c, func(_ *Store, env *Environment, now time.Time) (any, error) {
		out := workStatsRecord{Type: "work_queue_stats"}
		for _, it := range env.queue {
			out.Depth++
			if it.polledAt != nil {
				out.Pending++
			}
			if out.OldestQueuedAt == nil || it.queuedAt.Before(*out.OldestQueuedAt) {
				at := it.queuedAt
				out.OldestQueuedAt = &at
			}
		}
		for _, last := range env.workers {
			if now.Sub(last) < workerWindow {
				out.WorkersPolling++
			}
		}
		return out, nil
	})
}
