package sessions

import (
	"encoding/json"
	"sync"
	"time"

	"github.com/platformkit/platformkit/fake/internal/core"
)

// The area's part of a snapshot (sessions.json), in the shape its loader reads
// (sessions_fixtures.go): every session with its events, its resources and the calls its agent
// waits for, so that a loaded world answers every read as before and a waiting turn continues
// when its results arrive. Open streams are not written: they are connections, not the world.

// sessionsSnapshot is the area's part of a snapshot.
var sessionsSnapshot = &core.SnapshotArea{Lock: core.LockArea(sessionStores, func(a *Store) *sync.Mutex { return &a.mu }), Export: exportSessions}

// sessionFixture is a session as sessions.json holds it (schema fixtures/sessions). The agent and
// the events are each one JSON text, as the API answers them: they are copies of answers, and the
// IDs inside them (the agent's, its model's, a tool input's) are no records of the data set, so
// the check of duplicate IDs must not read them.
type sessionFixture struct {
	OrganizationID     string            `json:"organization_id"`
	ID                 string            `json:"id"`
	EnvironmentID      string            `json:"environment_id"`
	SelfHosted         *bool             `json:"self_hosted,omitempty"`
	WorkID             string            `json:"work_id,omitempty"`
	Agent              string            `json:"agent"`
	AgentWithOverrides bool              `json:"agent_with_overrides,omitempty"`
	Title              *string           `json:"title,omitempty"`
	Metadata           map[string]string `json:"metadata,omitempty"`
	Budget             json.RawMessage   `json:"budget,omitempty"`
	DeploymentID       *string           `json:"deployment_id,omitempty"`
	VaultIDs           []string          `json:"vault_ids,omitempty"`
	Status             string            `json:"status,omitempty"`
	CreatedAt          time.Time         `json:"created_at"`
	UpdatedAt          *time.Time        `json:"updated_at,omitempty"`
	ArchivedAt         *time.Time        `json:"archived_at,omitempty"`
	ActiveSeconds      float64           `json:"active_seconds,omitempty"`
	Usage              *Usage            `json:"usage,omitempty"`
	OutcomeEvaluations []json.RawMessage `json:"outcome_evaluations,omitempty"`
	Resources          []json.RawMessage `json:"resources,omitempty"`
	ResourcePlaces     []int             `json:"resource_places,omitempty"`
	ResourcesAdded     int               `json:"resources_added,omitempty"`
	Events             []string          `json:"events,omitempty"`
	UnseenEvents       int               `json:"unseen_events,omitempty"`
	Awaiting           []awaitedCall     `json:"awaiting,omitempty"`
	// Replies and CallIDs are how the conversation the agent's next turn sends names what the
	// model answered (sessions_turn_thread.go): each answer's content as answered (a JSON text),
	// by its span.model_request_end event, and each call's ID in its answer, by the call's event.
	Replies map[string]string `json:"replies,omitempty"`
	CallIDs map[string]string `json:"call_ids,omitempty"`
}

// awaitedCall is a call the session's agent waits for: the agent.tool_use or
// agent.custom_tool_use event, and the type of the event that answers it.
type awaitedCall struct {
	EventID string `json:"event_id"`
	Waiting string `json:"waiting"`
}

// exportSessions writes every session in list order (created_at, then ID). Held events are
// written with the others and counted in unseen_events, so that a stream opened on the loaded
// world still carries them.
func exportSessions(st *core.State, out map[string]any) error {
	a := sessionStores.In(st.Stores).Built()
	list := []sessionFixture{}
	for _, ss := range core.OldestFirstOf(a.byID, func(ss *session) core.ListKey { return sessionKey(ss) }) {
		f, err := ss.fixture()
		if err != nil {
			return err
		}
		list = append(list, f)
	}
	out["sessions.json"] = struct {
		Sessions []sessionFixture `json:"sessions"`
	}{list}
	return nil
}

// fixture is the session as sessions.json holds it; the caller holds the store's lock.
func (ss *session) fixture() (sessionFixture, error) {
	r := ss.rec
	selfHosted, updated, usage := ss.selfHosted, r.UpdatedAt, r.Usage
	f := sessionFixture{OrganizationID: ss.org.ID, ID: r.ID, EnvironmentID: r.EnvironmentID, SelfHosted: &selfHosted,
		WorkID: ss.workID, Agent: string(r.Agent), AgentWithOverrides: !ss.agentRef, Title: r.Title, Metadata: r.Metadata,
		DeploymentID: r.DeploymentID, VaultIDs: r.VaultIDs, Status: r.Status, CreatedAt: r.CreatedAt, UpdatedAt: &updated,
		ArchivedAt: r.ArchivedAt, ActiveSeconds: r.Stats.ActiveSeconds, Usage: &usage, UnseenEvents: len(ss.held)}
	var err error
	if r.Budget != nil {
		if f.Budget, err = core.EncodeRecord(r.Budget); err != nil {
			return f, err
		}
	}
	for _, x := range r.OutcomeEvaluations {
		b, err := core.EncodeRecord(x)
		if err != nil {
			return f, err
		}
		f.OutcomeEvaluations = append(f.OutcomeEvaluations, b)
	}
	// A resource's place in the order of additions is in its list's page tokens: written when
	// removals left gaps, or the last added was removed.
	trivial := ss.resSeq == len(ss.resources)
	for i, e := range ss.resources {
		b, err := core.EncodeRecord(e.v)
		if err != nil {
			return f, err
		}
		f.Resources = append(f.Resources, b)
		f.ResourcePlaces = append(f.ResourcePlaces, e.seq)
		trivial = trivial && e.seq == i+1
	}
	if trivial {
		f.ResourcePlaces = nil
	} else {
		f.ResourcesAdded = ss.resSeq
	}
	for _, log := range [][]stored{ss.events, ss.held} {
		for _, e := range log {
			b, err := core.EncodeRecord(e.ev)
			if err != nil {
				return f, err
			}
			f.Events = append(f.Events, string(b))
		}
	}
	for _, p := range ss.turn.calls {
		f.Awaiting = append(f.Awaiting, awaitedCall{EventID: p.id, Waiting: p.waiting})
	}
	for end, reply := range ss.replies {
		b, err := core.EncodeRecord(reply)
		if err != nil {
			return f, err
		}
		if f.Replies == nil {
			f.Replies = map[string]string{}
		}
		f.Replies[end] = string(b)
	}
	if len(ss.callIDs) > 0 {
		f.CallIDs = ss.callIDs
	}
	return f, nil
}

// The types of a session's state, named for the test that fails when one gains a field a
// snapshot does not carry yet (TestSnapshotCoversState). Not carried: the thread (message
// threads are not in snapshots: a loaded session's next turn creates one, and is answered as
// the continue would have been), the open streams and the journal's notes of a request.
type (
	SessionState  = session
	TurnState     = turn
	PendingCall   = pending
	StoredEvent   = stored
	ResourceEntry = resourceEntry
)
