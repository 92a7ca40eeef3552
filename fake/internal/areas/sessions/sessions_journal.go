package sessions

import (
	"github.com/platformkit/platformkit/fake/internal/core"
)

// The journal shows a session's events: each entry lists the session events its request
// appended (core.Call.NoteSessionEvents), and GET /_fake/journal?session_id= keeps the entries
// of the requests that worked on a session. While a request works on a session (withHeld) the
// events appended are noted; those a turn emitted, from its span.model_request_start on, are
// its model request's, and the rest the request's own. They go to the entries when the request
// is done with the session, so that a batch of events refused, which the session forgets, is
// in no entry.

// note is an event appended while a request works on the session: by is the model request
// of the turn that emitted it, nil for the request's own.
type note struct {
	by *core.Call
	ev core.JournalSessionEvent
}

// noting starts noting the events c appends to the session, and returns what ends it: each
// event goes to its request's journal entry.
func (ss *session) noting(c *core.Call) func() {
	var notes []note
	ss.notes = &notes
	return func() {
		ss.notes = nil
		for i := 0; i < len(notes); {
			by, j := notes[i].by, i
			evs := []core.JournalSessionEvent{}
			for ; j < len(notes) && notes[j].by == by; j++ {
				evs = append(evs, notes[j].ev)
			}
			if by == nil {
				by = c
			}
			by.NoteSessionEvents(evs...)
			i = j
		}
	}
}

// noted notes an event appended, when a request is noting.
func (ss *session) noted(ev Event) {
	if ss.notes != nil {
		id, _ := ev["id"].(string)
		typ, _ := ev["type"].(string)
		*ss.notes = append(*ss.notes, note{ev: core.JournalSessionEvent{ID: id, Type: typ}})
	}
}

// mark is how many events are noted so far: where a turn's, or a batch's, begin.
func (ss *session) mark() int {
	if ss.notes == nil {
		return 0
	}
	return len(*ss.notes)
}

// noteTurn gives the events noted since from to the turn's model request by.
func (ss *session) noteTurn(from int, by *core.Call) {
	if ss.notes == nil || by == nil {
		return
	}
	for i := from; i < len(*ss.notes); i++ {
		(*ss.notes)[i].by = by
	}
}

// unnote forgets the events noted since from: the batch that appended them was refused.
func (ss *session) unnote(from int) {
	if ss.notes != nil {
		*ss.notes = (*ss.notes)[:from]
	}
}
