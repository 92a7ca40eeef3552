package sessions

import (
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"slices"
	"time"

	"github.com/platformkit/platformkit/fake/internal/areas/work"
	"github.com/platformkit/platformkit/fake/internal/core"
)

// A session's events: what clients send (user.*, system.message), what the session and its agent
// emit, listed or streamed alike, stamped with the virtual clock.

// stored is an event with its place in the session's log.
type stored struct {
	seq int
	at  time.Time
	ev  Event
	// json is ev as encoded by the first page that lists it (an event never changes once a
	// client can see it); the store's lock guards it.
	json *core.RecordJSON
}

// storedKey orders a log by its sequence (events of one request share an instant of the clock).
func storedKey(e stored) core.ListKey {
	return core.ListKey{At: time.Unix(int64(e.seq), 0), ID: e.ev["id"].(string)}
}

// emit stores an event the fake makes, refusing it past the session's or the store's bounds;
// the caller holds the store's lock and rolls a refused batch back (send).
func (ss *session) emit(s *core.Server, a *Store, now time.Time, ev Event) error {
	if len(ss.events)+len(ss.held) >= MaxEvents {
		return core.Invalid("session %s holds %d events, the most the fake keeps in one session; start a new session", ss.rec.ID, MaxEvents).Because(core.ReasonOutOfRange)
	}
	ev["id"], ev["processed_at"] = s.IDs.Next("sevt_"), now
	if err := a.charge(ss, core.HeldSizeOf(ev)); err != nil {
		return err
	}
	ss.log(now, ev)
	return nil
}

// append stores an event past the bounds, and shows it: the end of a session, which must always
// be possible.
func (ss *session) append(s *core.Server, now time.Time, ev Event) {
	ev["id"], ev["processed_at"] = s.IDs.Next("sevt_"), now
	ss.log(now, ev)
	ss.release()
}

// log holds a new event until a client looks (release).
func (ss *session) log(now time.Time, ev Event) {
	if last, ok := ss.last(); ok && now.Before(last) {
		ss.unordered = true // a data set's log ahead of the clock
	}
	ss.held = append(ss.held, stored{seq: len(ss.events) + len(ss.held), at: now, ev: ev, json: new(core.RecordJSON)})
	ss.noted(ev)
}

// last is the processed_at of the session's last event, shown or held.
func (ss *session) last() (time.Time, bool) {
	switch {
	case len(ss.held) > 0:
		return ss.held[len(ss.held)-1].at, true
	case len(ss.events) > 0:
		return ss.events[len(ss.events)-1].at, true
	}
	return time.Time{}, false
}

// release shows the held events, and wakes the session's streams.
func (ss *session) release() {
	if len(ss.held) == 0 {
		return
	}
	ss.events = append(ss.events, ss.held...)
	ss.held = nil
	ss.wake()
}

// sendEvents is POST /v1/sessions/{id}/events: the events are handled in order, each answered by
// the session's agent before the next; a batch is all or nothing.
func sendEvents(s *core.Server, c *core.Call) (any, error) {
	_, doc, err := c.DecodeBody()
	if err != nil {
		return nil, err
	}
	events := listOf(mapOf(doc)["events"])
	var wake *session
	out, err := withSession(s, c, func(a *Store, ss *session, now time.Time) (any, error) {
		dormant := ss.dormant(c.St, now) && slices.ContainsFunc(events, func(x any) bool { return mapOf(x)["type"] == "user.message" })
		if env, ok := work.LookupEnvironment(c.St, c.Org, ss.rec.EnvironmentID); dormant && (!ok || env.Archived) {
			return nil, core.Invalid("session %s waits for a worker of environment %s, which is archived or deleted: no worker can take the session again", ss.rec.ID, ss.rec.EnvironmentID)
		}
		sent, err := ss.send(s, c, a, events, now, "events")
		if err != nil {
			return nil, err
		}
		if dormant {
			wake = ss
		}
		return map[string]any{"data": sent}, nil
	})
	if err == nil && wake != nil {
		err = queue(s, storeOf(s, c), wake)
	}
	return out, err
}

// send handles a batch of client events (field names them in errors); on an error, the session
// is left as it was. The caller holds the store's lock.
func (ss *session) send(s *core.Server, c *core.Call, a *Store, events []any, now time.Time, field string) ([]Event, error) {
	before, bytes, rec, tn, undo := len(ss.held), ss.bytes, ss.rec, ss.turn, ss.undoTurns()
	var sent []Event
	for i, x := range events {
		ev, err := ss.handle(s, c, a, maps.Clone(mapOf(x)), now, fmt.Sprintf("%s.%d", field, i))
		if err != nil {
			undo(ss.held[before:])
			ss.held, ss.rec, ss.turn = ss.held[:before], rec, tn
			if !a.Released {
				a.Grow(bytes - ss.bytes)
			}
			ss.bytes = bytes
			return nil, err
		}
		sent = append(sent, ev)
	}
	ss.rec.UpdatedAt = now
	if ss.streams > 0 {
		ss.release() // a client is looking
	}
	return sent, nil
}

// handle stores one client event and lets the agent answer it.
func (ss *session) handle(s *core.Server, c *core.Call, a *Store, ev Event, now time.Time, at string) (Event, error) {
	if ss.rec.Status == StatusTerminated {
		return nil, core.InvalidField(at, "session %s is terminated (or archived); it accepts no events", ss.rec.ID)
	}
	typ, _ := ev["type"].(string)
	if typ == "user.define_outcome" {
		ev["outcome_id"] = s.IDs.Next("outc_")
	}
	if err := ss.check(ev, at); err != nil {
		return nil, err
	}
	if err := ss.emit(s, a, now, ev); err != nil {
		return nil, err
	}
	return ev, ss.answer(s, c, a, ev, now)
}

// --- List ---

// listEvents lists a session's events in order (asc by default), filtered by type and by
// processed_at. The filters are read first, then limit and the page (core.ListQuery). A page
// costs O(log n + page + the events the types filter skips): the log is in processed_at order
// (unless a data set's events lie ahead of the clock: unordered), so created_at bounds the walk
// by binary search.
func listEvents(s *core.Server, c *core.Call) (any, error) {
	order, err := c.QueryEnum("order")
	if err != nil {
		return nil, err
	}
	created, err := c.QueryTimeRange("created_at")
	if err != nil {
		return nil, err
	}
	types := c.QueryStrings("types")
	q, err := c.ListQuery("session_events", false)
	if err != nil {
		return nil, err
	}
	return withSession(s, c, func(_ *Store, ss *session, _ time.Time) (any, error) {
		log, keep := ss.events, func(e stored) bool {
			return created.Contains(e.at) && (len(types) == 0 || slices.Contains(types, e.ev["type"].(string)))
		}
		if !ss.unordered {
			log, keep = within(log, func(e stored) time.Time { return e.at }, created), func(e stored) bool { return len(types) == 0 || slices.Contains(types, e.ev["type"].(string)) }
		}
		var page core.TokenPage[stored]
		switch {
		case order == "desc":
			page = core.PageNewestKept(log, keep, storedKey, "session_events", q.After, q.Limit)
		case len(types) == 0 && (!ss.unordered || created == (core.TimeRange{})):
			// Unfiltered, the page is a span of the log, encoded before the lock is let go.
			page = core.PageByTokenIn(log, storedKey, core.OldestFirst, "session_events", q.After, q.Limit)
		default:
			page = core.PageByTokenKept(log, keep, storedKey, core.OldestFirst, "session_events", q.After, q.Limit)
		}
		return core.EncodedTokenPage(page, func(e stored) (json.RawMessage, error) { return e.json.Get("", func() any { return e.ev }) })
	})
}

// --- Stream ---

// streamEvents is GET /v1/sessions/{id}/events/stream: the events no client had seen when the
// stream opened (the turn of a send just before; the official tool runner lists the history
// itself and drops what it saw twice), then the events as they are made. Its status and headers
// are sent at once, before any event (the runner waits for them before it lists the history).
func streamEvents(s *core.Server, c *core.Call) (any, error) {
	deltas := c.QueryStrings("event_deltas")
	for i, d := range deltas {
		if d != "agent.message" && d != "agent.thinking" {
			return nil, core.InvalidField("event_deltas", "value %d must be agent.message or agent.thinking, got %s", i, core.Quoted(d, core.MaxExcerpt))
		}
	}
	return withHeld(s, c, func(a *Store, ss *session, _ time.Time) (any, error) {
		// Where the stream starts is taken before the held events are shown, so that it carries
		// the turn a send made just before it opened.
		st := &eventStream{a: a, ss: ss, from: len(ss.events), previews: slices.Contains(deltas, "agent.message")}
		ss.streams++
		ss.release()
		return st, nil
	})
}

// eventStream is a responder that follows a session's log until the client goes away or the
// session is deleted.
type eventStream struct {
	a        *Store
	ss       *session
	from     int
	previews bool // agent.message previews (event_start, event_delta) before each agent.message
}

func (st *eventStream) Respond(c *core.Call) {
	defer func() {
		st.a.mu.Lock()
		st.ss.streams--
		st.a.mu.Unlock()
	}()
	c.Header("Content-Type", "text/event-stream")
	c.Header("Cache-Control", "no-cache")
	c.Status(http.StatusOK)
	c.Writer.Flush()
	for {
		st.a.mu.Lock()
		st.from = min(st.from, len(st.ss.events))
		news := slices.Clone(st.ss.events[st.from:])
		st.from = len(st.ss.events)
		changed, deleted := st.ss.changed, st.ss.deleted
		st.a.mu.Unlock()
		for _, e := range news {
			if st.previews && e.ev["type"] == "agent.message" {
				id := e.ev["id"]
				text := firstText(e.ev["content"])
				if !write(c, "event_start", Event{"type": "event_start", "event": Event{"type": "agent.message", "id": id}}) ||
					!write(c, "event_delta", Event{"type": "event_delta", "event_id": id, "delta": Event{"type": "content_delta", "index": 0, "content": Event{"type": "text", "text": text}}}) {
					return
				}
			}
			if !write(c, e.ev["type"].(string), e.ev) {
				return
			}
		}
		if deleted {
			write(c, "session.deleted", Event{"type": "session.deleted", "id": c.Srv.IDs.Next("sevt_"), "processed_at": c.Srv.Clock.Now()})
			return
		}
		c.Writer.Flush()
		select {
		case <-changed:
		case <-c.Request.Context().Done():
			return
		}
	}
}

// write sends one frame (event: name, data: the JSON); false when the client is gone.
func write(c *core.Call, name string, data any) bool {
	b, err := json.Marshal(data)
	if err != nil {
		c.Srv.Report("encoding the %s event of %s: %v", name, c.Request.URL.Path, err)
		return false
	}
	c.Srv.CheckSchema(c.Context, c.Route.Events, b)
	b = core.InDialect(b, c.Dialect()) // checked in the reference's words, sent in the request's
	_, err = fmt.Fprintf(c.Writer, "event: %s\ndata: %s\n\n", name, b)
	return err == nil
}
