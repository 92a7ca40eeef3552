package sessions

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io/fs"
	"maps"
	"slices"
	"time"

	"github.com/platformkit/platformkit/fake/internal/areas/agents"
	"github.com/platformkit/platformkit/fake/internal/areas/files"
	"github.com/platformkit/platformkit/fake/internal/areas/work"
	"github.com/platformkit/platformkit/fake/internal/core"
	"github.com/platformkit/platformkit/schemas"
)

// sessions.json: the sessions of a data set (a snapshot writes it, sessions_snapshot.go). Each is
// read into what a session holds, and a server's store is built from these on first use, charged
// to the byte budget as the requests that made them were.
//
// What the loader checks, each mistake named by file and field: the organization is known; the
// environment, when environments.json holds it, is the session's organization's, and its work_id
// one of its items that serves the session; a session whose environment environments.json does
// not hold (the API deletes environments under their sessions) says self_hosted itself; a file
// resource's file, when files.json holds it, is the organization's; the agent and every event
// are what the API answers (their schemas), event IDs unique; the calls awaited are calls of the
// session, waiting for the event their kind takes, and only while it is idle; and the bounds of
// the area (sessions, events, resources, bytes). A file or memory store that the data set does
// not hold is accepted: the API deletes them under the sessions that mount them, and mounts
// memory stores without looking them up. vault_ids are not checked either: vaults load later.
// And every queued work item that environments.json writes by hand serves a session of the data
// set in the item's environment (checkWorkSessions), whether sessions.json is there or not.

// sessionsSection is the sessions of the fixtures, as loaded; never changed (build copies).
var sessionsSection = core.NewSection[[]*loadedSession]()

// loadedSession is a session of sessions.json as a store holds it.
type loadedSession struct {
	org        *core.Org
	rec        Session // Resources are set from resources at build
	agentID    string
	version    int
	agentRef   bool
	model      agents.Agent
	selfHosted bool
	workID     string
	resources  []resourceEntry
	resSeq     int
	events     []stored
	unseen     int
	calls      []pending
	replies    map[string][]any
	callIDs    map[string]string
	bytes      int
}

// loadSessions reads sessions.json, if present, into its section of fx.
func loadSessions(fsys fs.FS, fx *core.Fixtures) error {
	var file struct {
		Sessions []sessionFixture `json:"sessions"`
	}
	found, err := core.ReadFixture(fsys, "sessions.json", &file)
	if err != nil {
		return err
	}
	if !found {
		return checkWorkSessions(fx, nil)
	}
	if n := len(file.Sessions); n > MaxSessions {
		return fmt.Errorf("sessions.json: sessions: %d sessions, more than the %d a server (or namespace) keeps", n, MaxSessions)
	}
	events := map[string]string{} // event ID → its place
	total := 0
	var out []*loadedSession
	for i := range file.Sessions {
		at := fmt.Sprintf("sessions.json: sessions.%d", i)
		ls, err := file.Sessions[i].parse(fx, events, fmt.Sprintf("sessions.%d", i))
		if err != nil {
			return fmt.Errorf("%s%w", at, err)
		}
		total += ls.bytes
		if total > MaxBytes {
			return fmt.Errorf("%s: the sessions up to this one hold %d bytes in memory, more than the %d the sessions of a server (or namespace) may keep", at, total, MaxBytes)
		}
		out = append(out, ls)
	}
	*sessionsSection.In(fx.Sections) = out
	return checkWorkSessions(fx, out)
}

// checkWorkSessions refuses a hand-written work item of environments.json (one without its
// state: queued) whose session loaded does not hold in the item's environment: the API queues
// work only for a session it holds (when it is made, or when a dormant one gets a message),
// and a worker that takes the item asks for its session. An item that gives its state, as a
// snapshot writes every item, is not checked: the API deletes sessions under their items, and
// the control API enqueues work for any session ID, so a snapshot of a live server holds such
// items and must load.
func checkWorkSessions(fx *core.Fixtures, loaded []*loadedSession) error {
	byID := make(map[string]*loadedSession, len(loaded))
	for _, ls := range loaded {
		byID[ls.rec.ID] = ls
	}
	for _, it := range work.FixtureItems(fx) {
		if it.Stated {
			continue
		}
		ls := byID[it.SessionID]
		switch {
		case ls == nil:
			return fmt.Errorf("environments.json: %s.session_id: sessions.json holds no session %s; a queued item serves a session of the data set (only an item that gives its state, as snapshots write them, may name a session the API deleted)", it.Place, it.SessionID)
		case ls.rec.EnvironmentID != it.EnvironmentID:
			return fmt.Errorf("environments.json: %s.session_id: session %s is in environment %s, not in the item's, %s", it.Place, it.SessionID, ls.rec.EnvironmentID, it.EnvironmentID)
		}
	}
	return nil
}

// fieldError is a mistake at a field of a session, below its place in the file.
func fieldError(field, format string, args ...any) error {
	return fmt.Errorf("."+field+": "+format, args...)
}

// parse checks one session (at is its place, for the places of its events) and reads it.
func (f *sessionFixture) parse(fx *core.Fixtures, eventPlaces map[string]string, at string) (*loadedSession, error) {
	ls := &loadedSession{org: fx.OrgByID(f.OrganizationID), agentRef: !f.AgentWithOverrides, workID: f.WorkID}
	if ls.org == nil {
		return nil, fieldError("organization_id", "unknown organization %s", f.OrganizationID)
	}
	envOrg, selfHosted, items, known := work.FixtureEnvironment(fx, f.EnvironmentID)
	switch {
	case known && envOrg != ls.org:
		return nil, fieldError("environment_id", "environment %s is another organization's", f.EnvironmentID)
	case known && f.WorkID != "" && items[f.WorkID] != f.ID:
		return nil, fieldError("work_id", "environments.json has no work item %s of environment %s serving session %s", f.WorkID, f.EnvironmentID, f.ID)
	case !known && f.SelfHosted == nil:
		return nil, fieldError("environment_id", "environments.json has no environment %s; a session whose environment was deleted says self_hosted", f.EnvironmentID)
	}
	ls.selfHosted = selfHosted
	if f.SelfHosted != nil {
		ls.selfHosted = *f.SelfHosted
	}
	if f.WorkID != "" && !ls.selfHosted {
		return nil, fieldError("work_id", "only a self-hosted session has work items")
	}
	agent := []byte(f.Agent)
	var compact bytes.Buffer
	if err := json.Compact(&compact, agent); err != nil {
		return nil, fieldError("agent", "not a JSON text: %v", err)
	}
	if err := decodeNumbers(agent, &ls.model); err != nil {
		return nil, fieldError("agent", "not the agent as a session answers it: %v", err)
	}
	ls.agentID, ls.version = ls.model.ID, ls.model.Version
	r := Session{ID: f.ID, Type: "session", Agent: compact.Bytes(), ArchivedAt: f.ArchivedAt, CreatedAt: f.CreatedAt,
		UpdatedAt: f.CreatedAt, DeploymentID: f.DeploymentID, EnvironmentID: f.EnvironmentID, Metadata: f.Metadata,
		OutcomeEvaluations: []any{}, Resources: []any{}, Stats: Stats{ActiveSeconds: f.ActiveSeconds}, Status: f.Status,
		Title: f.Title, VaultIDs: f.VaultIDs}
	if f.UpdatedAt != nil {
		r.UpdatedAt = *f.UpdatedAt
	}
	if r.Metadata == nil {
		r.Metadata = map[string]string{}
	}
	if r.VaultIDs == nil {
		r.VaultIDs = []string{}
	}
	if r.Status == "" {
		r.Status = StatusIdle
	}
	if f.Usage != nil {
		r.Usage = *f.Usage
	}
	if f.Budget != nil {
		if err := decodeNumbers(f.Budget, &r.Budget); err != nil {
			return nil, fieldError("budget", "%v", err)
		}
	}
	for _, raw := range f.OutcomeEvaluations {
		var x any
		if err := decodeNumbers(raw, &x); err != nil {
			return nil, fieldError("outcome_evaluations", "%v", err)
		}
		r.OutcomeEvaluations = append(r.OutcomeEvaluations, x)
	}
	if r.ArchivedAt != nil && r.Status != StatusTerminated {
		return nil, fieldError("status", "an archived session is terminated, not %s", r.Status)
	}
	if err := ls.parseResources(fx, f); err != nil {
		return nil, err
	}
	ls.rec = r
	ls.rec.Resources = resourceList(ls.resources)
	// The whole record as the API answers it, so that its schema names a mistake's field.
	doc, err := core.EncodeRecord(ls.rec)
	if err == nil {
		err = schemas.Validate("sessions/session", doc, schemas.Strict)
	}
	if err != nil {
		return nil, fmt.Errorf(" (%s) is not a session as the API answers it: %w", f.ID, err)
	}
	ls.bytes = core.HeldSizeOf(ls.rec)
	if err := ls.parseEvents(f, eventPlaces, at); err != nil {
		return nil, err
	}
	if err := ls.parseAwaiting(f); err != nil {
		return nil, err
	}
	return ls, ls.parseReplies(f)
}

// parseReplies reads the answers' content and the calls' IDs the conversation names them by:
// each keyed by an event of the session of the kind it belongs to, charged as a turn keeps it.
func (ls *loadedSession) parseReplies(f *sessionFixture) error {
	typeOf := func(id string) any {
		j := slices.IndexFunc(ls.events, func(e stored) bool { return e.ev["id"] == id })
		if j < 0 {
			return nil
		}
		return ls.events[j].ev["type"]
	}
	for _, end := range slices.Sorted(maps.Keys(f.Replies)) {
		field := "replies." + end
		if t := typeOf(end); t != "span.model_request_end" {
			return fieldError(field, "an answer is kept by its span.model_request_end event; %s is %v", end, orNone(t))
		}
		var reply []any
		if err := decodeNumbers([]byte(f.Replies[end]), &reply); err != nil {
			return fieldError(field, "the content of an answer, a JSON array of blocks: %v", err)
		}
		if ls.replies == nil {
			ls.replies = map[string][]any{}
		}
		ls.replies[end] = reply
		ls.bytes += len(end) + core.HeldSize(reply)
	}
	for _, event := range slices.Sorted(maps.Keys(f.CallIDs)) {
		field := "call_ids." + event
		switch t := typeOf(event); t {
		case "agent.tool_use", "agent.custom_tool_use", "agent.mcp_tool_use":
		default:
			return fieldError(field, "a call's ID is kept by its call event (agent.tool_use, agent.custom_tool_use, agent.mcp_tool_use); %s is %v", event, orNone(t))
		}
		id := f.CallIDs[event]
		if id == "" {
			return fieldError(field, "the ID the answer gave the call, not empty")
		}
		if ls.callIDs == nil {
			ls.callIDs = map[string]string{}
		}
		ls.callIDs[event] = id
		ls.bytes += len(event) + len(id)
	}
	return nil
}

// orNone names an event type for a message: "no event of the session" for none.
func orNone(t any) any {
	if t == nil {
		return "no event of the session"
	}
	return t
}

// parseResources reads the resources with their places in the order of additions.
func (ls *loadedSession) parseResources(fx *core.Fixtures, f *sessionFixture) error {
	if n := len(f.Resources); n > MaxResources {
		return fieldError("resources", "%d resources, more than the %d a session holds", n, MaxResources)
	}
	if f.ResourcePlaces != nil && len(f.ResourcePlaces) != len(f.Resources) {
		return fieldError("resource_places", "gives %d places for %d resources", len(f.ResourcePlaces), len(f.Resources))
	}
	for i, raw := range f.Resources {
		var v map[string]any
		if err := decodeNumbers(raw, &v); err != nil {
			return fieldError(fmt.Sprintf("resources.%d", i), "%v", err)
		}
		if v["type"] == "file" {
			if err := checkFixtureFile(fx, ls.org, v["file_id"]); err != nil {
				return fieldError(fmt.Sprintf("resources.%d.file_id", i), "%v", err)
			}
		}
		seq := i + 1
		if f.ResourcePlaces != nil {
			seq = f.ResourcePlaces[i]
		}
		if i > 0 && seq <= ls.resources[i-1].seq || seq < 1 {
			return fieldError(fmt.Sprintf("resource_places.%d", i), "%d: the places of the resources rise from 1, in list order", seq)
		}
		ls.resources = append(ls.resources, resourceEntry{seq, v})
		ls.resSeq = seq
	}
	if f.ResourcesAdded != 0 {
		if f.ResourcesAdded < ls.resSeq {
			return fieldError("resources_added", "%d, but a resource has the place %d", f.ResourcesAdded, ls.resSeq)
		}
		ls.resSeq = f.ResourcesAdded
	}
	return nil
}

// checkFixtureFile refuses a file resource naming a file of files.json that is another
// organization's.
func checkFixtureFile(fx *core.Fixtures, org *core.Org, id any) error {
	for _, f := range *files.FilesSection.In(fx.Sections) {
		if f.ID == id && fx.OrgByID(f.OrganizationID) != org {
			return fmt.Errorf("file %s is another organization's", f.ID)
		}
	}
	return nil
}

// parseEvents reads the events, each checked against the schema of an event as listed, in the
// order of the log (processed_at never goes back).
func (ls *loadedSession) parseEvents(f *sessionFixture, places map[string]string, at string) error {
	if n := len(f.Events); n > MaxEvents {
		return fieldError("events", "%d events, more than the %d a session keeps", n, MaxEvents)
	}
	if f.UnseenEvents > len(f.Events) {
		return fieldError("unseen_events", "%d, but the session has %d events", f.UnseenEvents, len(f.Events))
	}
	ls.unseen = f.UnseenEvents
	for i, text := range f.Events {
		field := fmt.Sprintf("events.%d", i)
		if err := schemas.Validate("sessions/event", []byte(text), schemas.Strict); err != nil {
			return fieldError(field, "not an event as the API lists it: %v", err)
		}
		var ev Event
		if err := decodeNumbers([]byte(text), &ev); err != nil {
			return fieldError(field, "%v", err)
		}
		id, _ := ev["id"].(string)
		if first, dup := places[id]; dup {
			return fieldError(field, "event ID %s is used twice: at %s and here", id, first)
		}
		places[id] = at + "." + field
		stamp, _ := ev["processed_at"].(string)
		t, err := time.Parse(time.RFC3339Nano, stamp)
		if err != nil {
			return fieldError(field+".processed_at", "an event of a session has the time it was processed: %v", err)
		}
		if i > 0 && t.Before(ls.events[i-1].at) {
			return fieldError(field+".processed_at", "%s is before the event before it: events are listed in the order of the log", stamp)
		}
		ls.events = append(ls.events, stored{seq: i, at: t, ev: ev})
		ls.bytes += core.HeldSizeOf(ev)
	}
	return nil
}

// parseAwaiting reads the calls the agent waits for.
func (ls *loadedSession) parseAwaiting(f *sessionFixture) error {
	if len(f.Awaiting) > 0 && ls.rec.Status != StatusIdle {
		return fieldError("awaiting", "a session waits for calls only while idle; this one is %s", ls.rec.Status)
	}
	for i, w := range f.Awaiting {
		field := fmt.Sprintf("awaiting.%d", i)
		j := slices.IndexFunc(ls.events, func(e stored) bool { return e.ev["id"] == w.EventID })
		if j < 0 {
			return fieldError(field+".event_id", "the session has no event %s", w.EventID)
		}
		ev := ls.events[j].ev
		var ok bool
		switch ev["type"] {
		case "agent.custom_tool_use":
			ok = w.Waiting == waitCustom
		case "agent.tool_use":
			ok = w.Waiting == waitResult || w.Waiting == waitConfirmation && ev["evaluated_permission"] == "ask"
		default:
			return fieldError(field+".event_id", "event %s is a %v, not a call (agent.tool_use, agent.custom_tool_use)", w.EventID, ev["type"])
		}
		if !ok {
			return fieldError(field+".waiting", "the call %s (%v) does not wait for a %s", w.EventID, ev["type"], w.Waiting)
		}
		if slices.ContainsFunc(ls.calls, func(p pending) bool { return p.id == w.EventID }) {
			return fieldError(field+".event_id", "the call %s is awaited twice", w.EventID)
		}
		ls.calls = append(ls.calls, pending{id: w.EventID, waiting: w.Waiting})
	}
	return nil
}

// decodeNumbers decodes raw into v keeping numbers as written (json.Number), so that what a
// loaded session answers or sends to the model is byte for byte what the original did.
func decodeNumbers(raw []byte, v any) error {
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber()
	if err := d.Decode(v); err != nil {
		return err
	}
	if d.More() {
		return fmt.Errorf("more than one JSON value")
	}
	return nil
}

// resourceList is the resources as a session's record lists them.
func resourceList(entries []resourceEntry) []any {
	out := make([]any, len(entries))
	for i, e := range entries {
		out[i] = e.v
	}
	return out
}

// build makes a server's store from its fixtures, charged to budget (nil: none) as the requests
// that made the sessions were. Everything a session changes is copied: the fixtures serve every
// reset and namespace. Events and resources are never changed in place, so they are shared.
func build(fx *core.Fixtures, budget *core.ByteBudget) *Store {
	a := newStore(budget)
	for _, ls := range *sessionsSection.In(fx.Sections) {
		ss := &session{rec: ls.rec, org: ls.org, agentID: ls.agentID, agentRef: ls.agentRef, version: ls.version,
			model: ls.model, selfHosted: ls.selfHosted, workID: ls.workID, resources: slices.Clone(ls.resources),
			resSeq: ls.resSeq, turn: turn{calls: slices.Clone(ls.calls)}, replies: maps.Clone(ls.replies),
			callIDs: maps.Clone(ls.callIDs), changed: make(chan struct{})}
		ss.rec.Metadata = maps.Clone(ls.rec.Metadata)
		ss.syncResources()
		log := make([]stored, len(ls.events))
		for i, e := range ls.events {
			e.json = new(core.RecordJSON)
			log[i] = e
		}
		cut := len(log) - ls.unseen
		ss.events, ss.held = log[:cut:cut], log[cut:]
		a.Grow(ls.bytes)
		ss.bytes = ls.bytes
		a.byID[ss.rec.ID] = ss
		a.byOrg[ss.org] = core.InsertInOrder(a.byOrg[ss.org], ss, sessionKey, core.OldestFirst)
	}
	return a
}
