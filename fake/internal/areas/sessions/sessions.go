package sessions

import (
	"encoding/json"
	"maps"
	"net/http"
	"slices"
	"sort"
	"strconv"
	"sync"
	"time"

	"github.com/platformkit/platformkit/fake/internal/areas/agents"
	"github.com/platformkit/platformkit/fake/internal/areas/work"
	"github.com/platformkit/platformkit/fake/internal/core"
)

const (
	// DefaultPage and MaxPage are the limit of the session list; DefaultEventPage and
	// MaxEventPage of the event list (the official SDK's tool runner asks for 1,000).
	DefaultPage      = 20
	MaxPage          = 100
	DefaultEventPage = 100
	MaxEventPage     = 1000
	// MaxSessions is how many sessions one server (or namespace) keeps, archived ones included.
	MaxSessions = 1000
	// MaxEvents is how many events one session keeps.
	MaxEvents = 10_000
	// MaxBytes is what the sessions of one server (or namespace) keep, events included, by the
	// heap estimate of core.HeldSize; MaxBytesAll is what every namespace's keep together.
	MaxBytes    = 32 << 20
	MaxBytesAll = 128 << 20
)

// Session statuses.
const (
	StatusIdle        = "idle"
	StatusRunning     = "running"
	StatusTerminated  = "terminated"
	statusRescheduled = "rescheduling"
)

// Session is a session as the API answers it.
type Session struct {
	ID                 string            `json:"id"`
	Type               string            `json:"type"`
	Agent              json.RawMessage   `json:"agent"` // the version it runs, encoded once (snapshot)
	ArchivedAt         *time.Time        `json:"archived_at"`
	Budget             any               `json:"budget"`
	CreatedAt          time.Time         `json:"created_at"`
	UpdatedAt          time.Time         `json:"updated_at"`
	DeploymentID       *string           `json:"deployment_id"`
	EnvironmentID      string            `json:"environment_id"`
	Metadata           map[string]string `json:"metadata"`
	OutcomeEvaluations []any             `json:"outcome_evaluations"`
	Resources          []any             `json:"resources"`
	Stats              Stats             `json:"stats"`
	Status             string            `json:"status"`
	Title              *string           `json:"title"`
	Usage              Usage             `json:"usage"`
	VaultIDs           []string          `json:"vault_ids"`
}

// Stats are a session's times, in seconds of the virtual clock.
type Stats struct {
	ActiveSeconds   float64 `json:"active_seconds"`
	DurationSeconds float64 `json:"duration_seconds"`
}

// Usage is what a session's model requests used.
type Usage struct {
	InputTokens          int `json:"input_tokens"`
	OutputTokens         int `json:"output_tokens"`
	CacheReadInputTokens int `json:"cache_read_input_tokens"`
	// CacheCreation is the input its model requests wrote to the prompt cache, by lifetime.
	CacheCreation struct {
		Ephemeral5m int `json:"ephemeral_5m_input_tokens"`
		Ephemeral1h int `json:"ephemeral_1h_input_tokens"`
	} `json:"cache_creation"`
}

// Event is a stored event: id, type, processed_at and the fields of its type.
type Event = map[string]any

// session is a session with its events and the state of its agent.
type session struct {
	rec        Session
	org        *core.Org
	agentID    string // the agent it runs, for the list's filters
	agentRef   bool   // created from an agent reference (not agent_with_overrides): its tools may change
	version    int
	model      agents.Agent // the version it runs, with the overrides applied
	selfHosted bool
	workID     string          // the work item last queued for it (self-hosted)
	resources  []resourceEntry // rec.Resources with their places in the list (sessions_resources.go)
	resSeq     int
	events     []stored // what clients see
	// unordered is set when an event was logged before the one ahead of it in processed_at (a
	// data set's log ahead of the clock): the event list then cannot bound created_at by search.
	// Snapshots leave it out: a data set's log is in order (its loader refuses one that is not).
	unordered bool
	// idles is how far the primary thread's look for a session.status_idle went (idled): a cache
	// of the log, which a loaded session fills again.
	idles struct {
		scanned int
		seen    bool
	}
	// held are the events a send made that no client has looked at yet (release): the fake's
	// agent answers at once, and a client that sends and then opens a stream (as the official
	// SDK's examples do) must still see the turn on it.
	held    []stored
	streams int  // open streams, which see a send's events at once
	turn    turn // the deterministic agent's state (sessions_agent.go)
	// thread is the message thread its turns continue, replies the content of each answer by
	// its span.model_request_end's ID, and callIDs the ID each call has in its answer, by the
	// call's event ID (sessions_turn_thread.go).
	thread  turnThread
	replies map[string][]any
	callIDs map[string]string
	// notes are the events appended while a request works on the session, for the journal
	// (sessions_journal.go); nil when none does.
	notes *[]note
	bytes int
	// changed is closed and replaced when events are appended or the session is deleted,
	// waking its streams.
	changed chan struct{}
	deleted bool
	// encoded is the session as answered (view), encoded by the first read after a change: every
	// request on the session but a read drops it (withHeld), and the bytes are kept for one
	// instant of the virtual clock, since the duration runs with it.
	encoded core.RecordJSON
}

func sessionKey(s *session) core.ListKey { return core.ListKey{At: s.rec.CreatedAt, ID: s.rec.ID} }

// Store is the area's state in one server (or namespace).
type Store struct {
	mu    sync.Mutex
	byID  map[string]*session
	byOrg map[*core.Org][]*session // oldest first
	core.Charged
}

func storeOf(s *core.Server, c *core.Call) *Store {
	return sessionStores.In(c.St.Stores).Get(func() *Store { return build(c.St.Fx, s.Cfg.Budget(budget)) })
}

func newStore(b *core.ByteBudget) *Store {
	return &Store{byID: map[string]*session{}, byOrg: map[*core.Org][]*session{}, Charged: core.Charged{Budget: b}}
}

// release gives back the store's bytes: its state was replaced or its namespace dropped. Open
// streams end, as they would on a deleted session.
func release(st *core.State) {
	a := sessionStores.In(st.Stores).Get(func() *Store { return newStore(nil) })
	a.mu.Lock()
	defer a.mu.Unlock()
	a.Leave()
	for _, ss := range a.byID {
		ss.deleted = true
		ss.wake()
	}
	clear(a.byID)
	clear(a.byOrg)
}

// charge counts n more bytes kept by ss, or refuses them past the store's or the shared bound;
// the caller holds mu.
func (a *Store) charge(ss *session, n int) error {
	if !a.Released && a.Bytes+n > MaxBytes {
		return core.Invalid("the sessions of this server (or namespace) may keep at most %d bytes in memory together, events included; delete sessions (DELETE /v1/sessions/{id}) or reset the server", MaxBytes).Because(core.ReasonOutOfRange)
	}
	if !a.Reserve(n) {
		return core.Invalid("the sessions of every namespace of this server may keep at most %d bytes in memory together; delete sessions or drop idle namespaces (DELETE /_fake/namespaces)", a.Budget.Limit).Because(core.ReasonOutOfRange)
	}
	ss.bytes += n
	return nil
}

func (ss *session) wake() {
	close(ss.changed)
	ss.changed = make(chan struct{})
}

// find returns the caller's session: another organization's, another environment's when the
// caller holds an environment key, or another session when it holds a work item's sessions
// token, is answered 404 like an unknown one.
func (a *Store) find(c *core.Call, id string) (*session, error) {
	ss := a.byID[id]
	if ss == nil || ss.org != c.Org || !reaches(c.Cred, ss) {
		return nil, core.NotFound("session", id)
	}
	return ss, nil
}

// reaches reports whether a worker's credential reaches the session: an environment key the
// sessions of its environment, a sessions token the one session of its work item. The API key
// reaches every session of its organization.
func reaches(cred *core.Credential, ss *session) bool {
	switch cred.Kind {
	case core.KindEnvironmentKey:
		return cred.EnvironmentID == ss.rec.EnvironmentID
	case core.KindSessionsToken:
		return cred.SessionID == ss.rec.ID && cred.EnvironmentID == ss.rec.EnvironmentID
	}
	return true
}

// ownerOnly refuses a worker's credential (an environment key, a sessions token): its worker
// reads a session and sends, lists and streams its events, but changing or ending the session is
// for the API key.
func ownerOnly(c *core.Call) error {
	if k := c.Cred.Kind; k == core.KindEnvironmentKey || k == core.KindSessionsToken {
		return core.PermissionDenied("%s reads a session and sends, lists and streams its events; %s %s takes the API key", core.KindNames[k], c.Request.Method, c.Route.Path)
	}
	return nil
}

// withSession runs f with the store locked, on the caller's session of the path, after releasing
// the events it holds: every look at a session sees what its last send made.
func withSession(s *core.Server, c *core.Call, f func(a *Store, ss *session, now time.Time) (any, error)) (any, error) {
	return withHeld(s, c, func(a *Store, ss *session, now time.Time) (any, error) {
		ss.release()
		return f(a, ss, now)
	})
}

// withHeld is withSession leaving the session's held events to f.
func withHeld(s *core.Server, c *core.Call, f func(a *Store, ss *session, now time.Time) (any, error)) (any, error) {
	a := storeOf(s, c)
	a.mu.Lock()
	defer a.mu.Unlock()
	ss, err := a.find(c, c.Param("session_id"))
	if err != nil {
		return nil, err
	}
	c.X.Session = ss.rec.ID
	if c.Request.Method != http.MethodGet { // a read appends no event
		ss.encoded.Drop()
		defer ss.noting(c)()
	}
	return f(a, ss, s.Clock.Now())
}

// view is the session as answered now: its duration runs on the virtual clock.
func (ss *session) view(now time.Time) Session {
	r := ss.rec
	end := now
	if r.ArchivedAt != nil {
		end = *r.ArchivedAt
	}
	r.Stats.DurationSeconds = end.Sub(r.CreatedAt).Seconds()
	return r
}

// json is view(now) as writeJSON would encode it, kept until the session changes or the clock
// moves; key is clockKey(now), made once for a whole page; the caller holds the store's lock.
func (ss *session) json(now time.Time, key string) (json.RawMessage, error) {
	return ss.encoded.Get(key, func() any { return ss.view(now) })
}

// clockKey is what a session's JSON depends on besides the session: the instant of the clock.
func clockKey(now time.Time) string { return strconv.FormatInt(now.UnixNano(), 36) }

// --- Create ---

func createSession(s *core.Server, c *core.Call) (any, error) {
	_, doc, err := c.DecodeBody()
	if err != nil {
		return nil, err
	}
	body := doc.(map[string]any)
	envID, _ := body["environment_id"].(string)
	env, ok := work.LookupEnvironment(c.St, c.Org, envID)
	if !ok {
		return nil, core.InvalidField("environment_id", "environment %s was not found", core.Quoted(envID, core.MaxExcerpt))
	}
	if env.Archived {
		return nil, core.InvalidField("environment_id", "environment %s is archived; an archived environment starts no session", envID)
	}
	ref, version, over := agentRef(body["agent"])
	v, err := agents.Resolve(s, c.St, c.Org, ref, version, "agent")
	if err != nil {
		return nil, err
	}
	if over != nil {
		if v, err = agents.Override(v, over, "agent."); err != nil {
			return nil, err
		}
	}
	snap, err := snapshot(v)
	if err != nil {
		return nil, err
	}
	now := s.Clock.Now()
	rec := Session{
		Type: "session", Agent: snap, Budget: body["budget"], CreatedAt: now, UpdatedAt: now,
		EnvironmentID: envID, Metadata: map[string]string{}, OutcomeEvaluations: []any{}, Resources: []any{},
		Status: StatusIdle, VaultIDs: []string{},
	}
	for k, x := range mapOf(body["metadata"]) {
		rec.Metadata[k], _ = x.(string)
	}
	if t, ok := body["title"].(string); ok {
		rec.Title = &t
	}
	for _, x := range listOf(body["vault_ids"]) {
		id, _ := x.(string)
		rec.VaultIDs = append(rec.VaultIDs, id)
	}
	if err := checkRefs(s, c, rec.VaultIDs, listOf(body["resources"])); err != nil {
		return nil, err
	}
	a := storeOf(s, c)
	a.mu.Lock()
	if len(a.byID) >= MaxSessions {
		a.mu.Unlock()
		return nil, core.Invalid("this server (or namespace) keeps at most %d sessions; delete some (DELETE /v1/sessions/{id}) or reset it", MaxSessions).Because(core.ReasonOutOfRange)
	}
	rec.ID = s.IDs.Next("sesn_")
	c.X.Session = rec.ID
	ss := &session{rec: rec, org: c.Org, agentID: v.ID, agentRef: over == nil, version: v.Version, model: v,
		selfHosted: env.SelfHosted, changed: make(chan struct{})}
	for _, x := range listOf(body["resources"]) {
		ss.addResource(resource(s, mapOf(x), now))
	}
	if err := a.charge(ss, core.HeldSizeOf(ss.rec)); err != nil {
		a.mu.Unlock()
		return nil, err
	}
	a.byID[rec.ID] = ss
	a.byOrg[c.Org] = core.InsertInOrder(a.byOrg[c.Org], ss, sessionKey, core.OldestFirst)
	if initial := listOf(body["initial_events"]); len(initial) > 0 {
		if _, err := ss.send(s, c, a, initial, now, "initial_events"); err != nil {
			a.remove(ss)
			a.mu.Unlock()
			return nil, err
		}
	}
	out := ss.view(now)
	a.mu.Unlock()
	if env.SelfHosted {
		// The producer of the work queue (spec 2.16): the item's data.id is the session's ID,
		// which the worker reads. Queued after the session is visible, outside its lock.
		if err := queue(s, a, ss); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// queue queues a work item for the session in its environment and records it on the session;
// the caller holds no lock of the area (the work area takes its own).
func queue(s *core.Server, a *Store, ss *session) error {
	it, err := work.Enqueue(s, ss.rec.EnvironmentID, ss.rec.ID, nil)
	if err != nil {
		return err
	}
	a.mu.Lock()
	ss.workID = it.ID
	a.mu.Unlock()
	return nil
}

// dormant reports whether a message to the session must queue a new work item (spec 2.16: work
// is queued "when long-dormant sessions receive new messages"): it is self-hosted and no worker
// holds it any more, its last item stopped (or gone). The caller holds the store's lock.
func (ss *session) dormant(st *core.State, now time.Time) bool {
	if !ss.selfHosted || ss.workID == "" {
		return false
	}
	state, ok := work.ItemState(st, ss.rec.EnvironmentID, ss.workID, now)
	return !ok || state == "stopped"
}

// agentRef reads the agent of a create body: an ID (the latest version), {type: agent, id,
// version?}, or {type: agent_with_overrides, ...}, whose overrides it returns.
func agentRef(x any) (id string, version int, over map[string]any) {
	if s, ok := x.(string); ok {
		return s, 0, nil
	}
	m := mapOf(x)
	id, _ = m["id"].(string)
	if n, ok := m["version"].(json.Number); ok {
		v, _ := n.Int64()
		version = int(v)
	}
	if m["type"] == "agent_with_overrides" {
		over = m
	}
	return id, version, over
}

// snapshot is the agent as a session holds it: the version's configuration, without its
// agent-level fields (metadata, timestamps).
// It is encoded once, here: a session's answers carry it whole, and it never changes but by
// an update that gives a new one.
func snapshot(v agents.Agent) (json.RawMessage, error) {
	return json.Marshal(map[string]any{
		"id": v.ID, "type": "agent", "version": v.Version, "name": v.Name, "description": v.Description,
		"system": v.System, "model": v.Model, "tools": v.Tools, "mcp_servers": v.MCPServers, "skills": v.Skills,
		"execution_identity": v.ExecutionIdentity, "multiagent": v.Multiagent,
	})
}

// resource is a resource of a create body as the session holds it, with its defaults.
func resource(s *core.Server, r map[string]any, now time.Time) map[string]any {
	out := maps.Clone(r)
	switch r["type"] {
	case "file":
		id, _ := r["file_id"].(string)
		out["id"] = s.IDs.Next("sesrsc_")
		if out["mount_path"] == nil {
			out["mount_path"] = "/mnt/session/uploads/" + id
		}
		out["created_at"], out["updated_at"] = now, now
	case "github_repository":
		delete(out, "authorization_token") // write-only
		out["id"] = s.IDs.Next("sesrsc_")
		if out["mount_path"] == nil {
			url, _ := r["url"].(string)
			out["mount_path"] = "/workspace/" + repoName(url)
		}
		if _, ok := out["checkout"]; !ok {
			out["checkout"] = nil
		}
		out["created_at"], out["updated_at"] = now, now
	case "memory_store":
		id, _ := r["memory_store_id"].(string)
		if out["access"] == nil {
			out["access"] = "read_write"
		}
		out["mount_path"] = "/mnt/memory/" + id
	}
	return out
}

// repoName is the last path segment of a repository URL, without .git.
func repoName(url string) string {
	for len(url) > 0 && url[len(url)-1] == '/' {
		url = url[:len(url)-1]
	}
	if i := lastIndex(url, '/'); i >= 0 {
		url = url[i+1:]
	}
	if len(url) > 4 && url[len(url)-4:] == ".git" {
		url = url[:len(url)-4]
	}
	return url
}

func lastIndex(s string, b byte) int {
	for i := len(s) - 1; i >= 0; i-- {
		if s[i] == b {
			return i
		}
	}
	return -1
}

func mapOf(x any) map[string]any { m, _ := x.(map[string]any); return m }

func listOf(x any) []any { l, _ := x.([]any); return l }

// remove takes a session out of the store, giving back its bytes; the caller holds mu.
func (a *Store) remove(ss *session) {
	delete(a.byID, ss.rec.ID)
	a.byOrg[ss.org] = core.RemoveInOrder(a.byOrg[ss.org], ss, sessionKey, core.OldestFirst)
	if !a.Released {
		a.Grow(-ss.bytes)
	}
	ss.deleted = true
	ss.wake()
}

// --- Read, list ---

func getSession(s *core.Server, c *core.Call) (any, error) {
	return withSession(s, c, func(_ *Store, ss *session, now time.Time) (any, error) { return ss.json(now, clockKey(now)) })
}

// sessionPage is a page of the session list, which pages both ways.
// sessionPage is a page of sessions; its items are spliced in (core.SpliceEncoded), so Data is
// always nil here and only names the field's place and schema.
type sessionPage struct {
	Data     []Session `json:"data"`
	NextPage *string   `json:"next_page"`
	PrevPage *string   `json:"prev_page"`
}

// listSessions lists the organization's sessions by created_at (newest first unless order=asc),
// with the filters of the official SDK's list. A page token is either forward (next_page: the
// items after its key) or backward (prev_page: the items before it). The filters are read first,
// then limit, include_archived and the page (core.ListQuery): the first that is wrong is the
// error.
//
// A page costs O(log n + page + the sessions a filter skips): created_at bounds the walk by
// binary search in the organization's list (kept in created_at order), the page's place is found
// the same way, and the walk goes from there to one kept session past the page. agent_id has no
// index: at the most sessions a namespace keeps (MaxSessions), skipping the other agents'
// sessions costs less than an index would save (docs/performance.md has the figures).
func listSessions(s *core.Server, c *core.Call) (any, error) {
	version, versionSet, err := c.QueryInt("agent_version")
	if err != nil {
		return nil, err
	}
	agentID, _ := c.QueryString("agent_id")
	if versionSet && agentID == "" {
		return nil, core.InvalidField("agent_version", "applies only with agent_id")
	}
	order, err := c.QueryEnum("order")
	if err != nil {
		return nil, err
	}
	created, err := c.QueryTimeRange("created_at")
	if err != nil {
		return nil, err
	}
	statuses := c.QueryStrings("statuses")
	for i, st := range statuses {
		if !slices.Contains([]string{StatusIdle, StatusRunning, StatusTerminated, statusRescheduled}, st) {
			return nil, core.InvalidField("statuses", "value %d must be one of idle, running, rescheduling, terminated, got %s", i, core.Quoted(st, core.MaxExcerpt))
		}
	}
	deployment, _ := c.QueryString("deployment_id")
	store, _ := c.QueryString("memory_store_id")
	scope := "sessions_" + order
	q, err := c.ListQuery(scope, true)
	var back *core.ListKey
	if err != nil {
		// A prev_page is a token of the backward scope; limit and include_archived are read
		// again before it, so that an error of theirs is still the one answered.
		bq, berr := c.ListQuery(scope+"_back", true)
		if berr != nil {
			return nil, err
		}
		q, back = bq, bq.After
		q.After = nil
	}
	keep := func(ss *session) bool {
		r := &ss.rec
		return (q.Archived || r.ArchivedAt == nil) && (agentID == "" || ss.agentID == agentID) &&
			(!versionSet || ss.version == version) && (len(statuses) == 0 || slices.Contains(statuses, r.Status)) &&
			(store == "" || mountsStore(r.Resources, store))
	}
	a := storeOf(s, c)
	a.mu.Lock()
	defer a.mu.Unlock()
	var out sessionPage
	var page []*session
	if deployment == "" { // the fake makes no deployment: no session has one
		page, out.NextPage, out.PrevPage = pageSessions(within(a.byOrg[c.Org], func(ss *session) time.Time { return ss.rec.CreatedAt }, created), keep, order == "desc", scope, q.After, back, q.Limit)
	}
	now := s.Clock.Now()
	key := clockKey(now)
	return core.SpliceEncoded(page, func(ss *session) (json.RawMessage, error) {
		ss.release() // the page is a look at its sessions
		return ss.json(now, key)
	}, out)
}

// within is the span of items, sorted by the time at gives, whose time is in r.
func within[T any](items []T, at func(T) time.Time, r core.TimeRange) []T {
	lo, hi := core.Within(items, at, r)
	return items[lo:hi]
}

// pageSessions cuts a page of at most limit kept sessions out of list (oldest first), in list
// order (newest first when desc), after the key of a next_page token or before the key of a
// prev_page token (or from the start), with the tokens of the pages on either side: a token is
// given only when the page has sessions and a kept session lies on that side of it. It walks
// from the token's place, found by binary search, to one kept session past the page, and looks
// for one kept session on the other side.
func pageSessions(list []*session, keep func(*session) bool, desc bool, scope string, after, before *core.ListKey, limit int) (page []*session, next, prev *string) {
	// at is the index of the first session at or after k (oldest first), past is that of the first
	// after it.
	at := func(k core.ListKey) int {
		return sort.Search(len(list), func(i int) bool { return core.OldestFirst(sessionKey(list[i]), k) >= 0 })
	}
	past := func(k core.ListKey) int { return core.SearchAfter(list, sessionKey, core.OldestFirst, k) }
	// The walk goes toward older sessions (step -1) from i, or toward newer (step +1); the other
	// side of the page starts at j, in the other direction. A backward page walks against the
	// list's order, and is reversed.
	i, j, step := 0, -1, 1
	reverse := before != nil
	switch {
	case after != nil && desc:
		i, j, step = at(*after)-1, at(*after), -1
	case after != nil:
		i, j = past(*after), past(*after)-1
	case before != nil && desc:
		i, j = past(*before), past(*before)-1
	case before != nil:
		i, j, step = at(*before)-1, at(*before), -1
	case desc:
		i, j, step = len(list)-1, len(list), -1
	}
	page, more := walk(list, i, step, limit, keep)
	if len(page) == 0 {
		return page, nil, nil
	}
	// The other side has a page when a kept session lies there (a page from the start has none).
	other := (after != nil || before != nil) && len(walkOne(list, j, -step, keep)) > 0
	forward, backward := more, other
	if reverse {
		slices.Reverse(page)
		forward, backward = other, more
	}
	if forward {
		t := core.EncodePageToken(scope, sessionKey(page[len(page)-1]))
		next = &t
	}
	if backward {
		t := core.EncodePageToken(scope+"_back", sessionKey(page[0]))
		prev = &t
	}
	return page, next, prev
}

// walk collects up to limit kept sessions of list from index i by step, and reports whether
// another kept session lies past them.
func walk(list []*session, i, step, limit int, keep func(*session) bool) (page []*session, more bool) {
	page = make([]*session, 0, min(limit, len(list)))
	for ; i >= 0 && i < len(list); i += step {
		if !keep(list[i]) {
			continue
		}
		if len(page) == limit {
			return page, true
		}
		page = append(page, list[i])
	}
	return page, false
}

// walkOne is the first kept session of list from index i by step, if any.
func walkOne(list []*session, i, step int, keep func(*session) bool) []*session {
	page, _ := walk(list, i, step, 1, keep)
	return page
}

func mountsStore(resources []any, id string) bool {
	return slices.ContainsFunc(resources, func(x any) bool {
		r := mapOf(x)
		return r["type"] == "memory_store" && r["memory_store_id"] == id
	})
}
