package core

import (
	"encoding/json"
	"net/http"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/gin-gonic/gin"
)

// JournalEntry is the face's JournalEntry (package fake), which documents it.
type JournalEntry struct {
	RequestID    string            `json:"request_id"`
	At           time.Time         `json:"at"` // on the server's clock, when the request arrived
	Method       string            `json:"method"`
	Path         string            `json:"path"`
	Query        string            `json:"query"`
	Headers      map[string]string `json:"headers"`       // as sent, less X-Api-Key and Authorization
	Body         json.RawMessage   `json:"body"`          // the JSON body, if any and at most 64 KiB; never for tunnels
	BodyBytes    int               `json:"body_bytes"`    // the size of the body the handler read
	Interface    string            `json:"interface"`     // which interface of spec 5; "" if no route matched
	CredentialID string            `json:"credential_id"` // the ID of the key used; "" if none was accepted
	// CredentialHeader is the header that carried the accepted credential, "x-api-key" or
	// "authorization" (never its value); "" if none was accepted.
	CredentialHeader string `json:"credential_header"`
	// APIVersion is the API version whose rules answered the request (versions.go), "" when it
	// named none the fake serves or its interface takes none.
	APIVersion string `json:"api_version"`
	Status     int    `json:"status"`     // 0 when the connection was dropped
	ErrorType  string `json:"error_type"` // "" on success
	// Valid is false when the fake refused the request as malformed (invalid_request_error or
	// request_too_large): a client test asserts it to prove it sent what the API accepts.
	Valid bool   `json:"valid"`
	Fault bool   `json:"fault"` // answered by an injected fault
	Stub  string `json:"stub"`  // the ID of the stub whose reply answered; "" if none did
	// StubNearMiss, when no stub answered a Create a Message request but one nearly matched (all
	// of its match's clauses held but one), names that stub and the clause that did not hold, as
	// the answer's Fake-Stub-Near-Miss header does; "" otherwise.
	StubNearMiss string `json:"stub_near_miss"`
	// RateLimit names the limit that refused the request with a 429 while rate limits are
	// enforced: "organization" or "workspace", the group's ID and the limiter type
	// ("workspace rlg_... input_tokens_per_minute"); "" if none did.
	RateLimit string `json:"rate_limit"`
	// Thread is the message thread a Messages request named (beta message-threads-2026-08-12):
	// its type and, for a continue, the reply it continues; null without one.
	Thread *JournalThread `json:"thread"`
	// SessionID, on a Messages request the fake made itself for a turn of a session's agent
	// (POST /v1/messages, journaled after the request that made it run), is that session's ID;
	// "" on every request a client sent.
	SessionID string `json:"session_id"`
	// SessionEvents are the session events the request appended, in order: the user events a
	// POST /v1/sessions/{id}/events sent (a worker's tool results among them), and on a turn's
	// model request the events its turn emitted (its span, the answer's agent events, the
	// status that follows); null when it appended none.
	SessionEvents []JournalSessionEvent `json:"session_events"`
	// Batch marks the entry of one request of a message batch (Call.Journal): the batch's ID and
	// the request's custom_id; null for a request a client sent.
	Batch *JournalBatch `json:"batch"`
	// Truncated names what the entry shortened or left out to stay bounded, in order: "path",
	// "query", "headers.NAME" (a value cut to 1 KiB), "headers" (headers beyond 16 KiB left
	// out), "body" (a JSON body over 64 KiB, recorded as null). Empty when the entry is whole.
	Truncated []string `json:"truncated"`

	// session is the session the request worked on (a client's request on the session's routes,
	// or a turn's model request), for the journal's session_id filter; "" for none.
	session string
	seq     uint64 // order of recording: the journal's cursor
}

// JournalSessionEvent is the face's JournalSessionEvent (package fake), which documents it.
type JournalSessionEvent struct {
	ID   string `json:"id"`
	Type string `json:"type"`
}

// The journal's bounds. An entry holds at most about 90 KiB whatever the request, and the journal
// at most journalCap entries and journalBytes bytes: older entries are dropped first.
const (
	JournalCap        = 10000
	JournalBytes      = 32 << 20
	JournalBodyCap    = 64 << 10 // the largest body kept
	JournalValueCap   = 1 << 10  // the longest header value kept whole
	JournalHeadersCap = 16 << 10 // the headers kept per entry, names and values
	JournalURLCap     = 4 << 10  // the longest path, and query, kept whole
	JournalEntryBase  = 256      // an entry's fixed cost: the struct, its map and strings
	// JournalEventsCap is the most session events an entry lists; past it the entry notes
	// "session_events" in Truncated.
	JournalEventsCap = 1000
)

// JournalsBytes bounds the journals of a server and of all its namespaces together: each
// journal's own bound, times the 1,000 namespaces a server keeps, would allow 32 GB.
const JournalsBytes = 256 << 20

// journal is a ring of the last entries, bounded by count and by bytes: recording costs the
// same however long the server has run.
type journal struct {
	Mu     sync.Mutex
	ring   []storedEntry // grows by doubling to journalCap
	head   int           // index of the oldest entry
	N      int           // entries held
	Bytes  int           // their estimated size
	seq    uint64        // entries ever recorded
	budget *ByteBudget   // shared with the server's namespaces; nil once a namespace is dropped
	// spare is the blob of the entry dropped last, which the next entry is packed into if it
	// fits (storeEntry); nil once used.
	spare []byte
}

// maxSpareBlob keeps a rare large entry's blob (headers up to 16 KiB) from being kept as spare.
const maxSpareBlob = 1 << 10

// Add records e, whose headers are none, and reports whether the journals sharing its budget
// now hold more than the limit.
func (j *journal) Add(e *JournalEntry) (over bool) { return j.add(e, nil) }

// add records e with its headers as name, value pairs (recordHeaders), and reports whether the
// journals sharing its budget now hold more than the limit. Packing the entry (storeEntry) is
// done before the lock is taken.
func (j *journal) add(e *JournalEntry, headers []string) (over bool) {
	size := JournalEntryBase + len(e.Path) + len(e.Query) + cap(e.Body) + eventsSize(e.SessionEvents)
	for _, h := range headers {
		size += len(h)
	}
	j.Mu.Lock()
	defer j.Mu.Unlock()
	before := j.Bytes
	for j.N > 0 && (j.N == JournalCap || j.Bytes+size > JournalBytes) {
		j.dropOldest()
	}
	// Packed under the lock, into the blob of the entry just dropped when there is one: a full
	// journal records without allocating for it.
	st := storeEntry(e, headers, j.spare)
	st.size, j.spare = size, nil
	if j.N == len(j.ring) {
		grown := make([]storedEntry, min(max(2*len(j.ring), 16), JournalCap))
		j.copyTo(grown)
		j.ring, j.head = grown, 0
	}
	j.seq++
	e.seq, st.seq = j.seq, j.seq
	j.ring[(j.head+j.N)%len(j.ring)] = st // the one copy of the entry
	j.N++
	j.Bytes += st.size
	if j.budget == nil {
		return false
	}
	return j.budget.Add(j.Bytes - before)
}

// at returns the entry seq, nil if the journal no longer holds it; the caller holds mu.
func (j *journal) at(seq uint64) *storedEntry {
	if j.N == 0 {
		return nil
	}
	first := j.ring[j.head].seq
	if seq < first || seq >= first+uint64(j.N) {
		return nil
	}
	return &j.ring[(j.head+int(seq-first))%len(j.ring)]
}

// amend sets the outcome of the entry seq, if the journal still holds it: a stream's entry is
// made when its status goes out, and an error event or a dropped connection ends it later.
func (j *journal) amend(seq uint64, status int, errorType string, fault bool) {
	j.Mu.Lock()
	defer j.Mu.Unlock()
	if e := j.at(seq); e != nil {
		e.status, e.errorType, e.fault = status, errorType, fault
		e.valid = errorType != ErrInvalidRequest && errorType != ErrRequestTooLarge
	}
}

// amendEvents sets the session events of the entry seq, if the journal still holds it: a turn's
// model request is journaled before its answer's events are appended.
func (j *journal) amendEvents(seq uint64, events []JournalSessionEvent, truncated bool) {
	j.Mu.Lock()
	defer j.Mu.Unlock()
	e := j.at(seq)
	if e == nil {
		return
	}
	if e.more == nil {
		e.more = &entryMore{}
	}
	m := e.more
	grown := eventsSize(events) - eventsSize(m.events)
	m.events, e.size, j.Bytes = events, e.size+grown, j.Bytes+grown
	if truncated && !slices.Contains(m.truncated, "session_events") {
		m.truncated = append(slices.Clip(m.truncated), "session_events")
	}
	if j.budget != nil {
		j.budget.Add(grown)
	}
}

// eventsSize is what an entry's session events hold.
func eventsSize(events []JournalSessionEvent) int {
	n := 32 * cap(events)
	for _, ev := range events {
		n += len(ev.ID) + len(ev.Type)
	}
	return n
}

// NoteSessionEvents adds to the request's journal entry session events it appended (at most
// JournalEventsCap in all): to the entry it will have, or, once it has one (a turn's model
// request, journaled before its answer's events are appended), to that entry.
func (c *Call) NoteSessionEvents(events ...JournalSessionEvent) {
	x := c.X
	if len(events) == 0 {
		return
	}
	room := JournalEventsCap - len(x.sessionEvents)
	x.eventsCut = x.eventsCut || len(events) > room
	x.sessionEvents = append(slices.Clip(x.sessionEvents), events[:min(len(events), max(room, 0))]...)
	if x.entry.seq != 0 {
		c.Srv.RequestLog.amendEvents(x.entry.seq, x.sessionEvents, x.eventsCut)
	}
}

// dropOldest forgets the oldest entry; the caller holds mu and has checked that there is one.
func (j *journal) dropOldest() {
	j.Bytes -= j.ring[j.head].size
	if b := j.ring[j.head].blob; cap(b) <= maxSpareBlob {
		j.spare = b
	}
	j.ring[j.head] = storedEntry{} // let the dropped entry's memory go
	j.head = (j.head + 1) % len(j.ring)
	j.N--
}

// trim drops the oldest entries until the shared budget is within its limit or the journal is
// empty.
func (j *journal) trim() {
	j.Mu.Lock()
	defer j.Mu.Unlock()
	if j.budget == nil {
		return
	}
	before := j.Bytes
	for j.N > 0 && j.budget.Bytes.Load()-int64(before-j.Bytes) > j.budget.Limit {
		j.dropOldest()
	}
	j.budget.Add(j.Bytes - before)
}

// detach takes a dropped namespace's journal out of the shared budget.
func (j *journal) detach() {
	j.Mu.Lock()
	defer j.Mu.Unlock()
	if j.budget != nil {
		j.budget.Add(-j.Bytes)
		j.budget = nil
	}
}

// copyTo copies the entries, oldest first, to dst; the caller holds mu.
func (j *journal) copyTo(dst []storedEntry) int {
	k := copy(dst, j.ring[j.head:min(j.head+j.N, len(j.ring))])
	return k + copy(dst[k:], j.ring[:j.N-k])
}

// Journal is the face's Server.Journal (package fake), which documents it.
func (s *Server) Journal() []JournalEntry {
	j := &s.RequestLog
	j.Mu.Lock()
	defer j.Mu.Unlock()
	out := make([]JournalEntry, j.N)
	for i := range out {
		out[i] = j.ring[(j.head+i)%len(j.ring)].entry()
	}
	return out
}

// ClearJournal is the face's Server.ClearJournal (package fake), which documents it.
func (s *Server) ClearJournal() int {
	j := &s.RequestLog
	j.Mu.Lock()
	defer j.Mu.Unlock()
	n := j.N
	if j.budget != nil {
		j.budget.Add(-j.Bytes)
	}
	j.ring, j.head, j.N, j.Bytes, j.spare = nil, 0, 0, 0, nil
	return n
}

// record adds the finished request to the journal. It is on every request's path, so it does
// the least it can: it keeps references to what it keeps whole, copies only the bounded part of an
// oversized value (a substring would pin all of it), and leaves building the headers map and
// lower-casing names to the rare reader (Journal).
func (s *Server) record(gc *gin.Context, at time.Time, status int) (seq uint64) {
	r := gc.Request
	x := exchangeOf(gc)
	e := JournalEntry{
		RequestID:    x.RequestID[0],
		At:           at,
		Method:       r.Method,
		Status:       status,
		ErrorType:    x.ErrorType,
		Fault:        x.fault,
		Stub:         x.Stub,
		StubNearMiss: x.StubNearMiss,
		RateLimit:    x.RateLimit,
		Thread:       x.Thread,
	}
	e.recordSession(x, x.Session)
	if c := callOf(gc); c != nil && c.Route.Ifc != nil {
		e.Interface = c.Route.Ifc.Name
		if c.Cred != nil {
			e.CredentialID, e.CredentialHeader = c.Cred.ID, c.credHeader
		}
		e.APIVersion = c.versionName()
	}
	e.Path = e.bounded("path", r.URL.Path, JournalURLCap)
	e.Query = e.bounded("query", r.URL.RawQuery, JournalURLCap)
	var pairs [24]string // the usual request's headers, on the stack: storeEntry copies them
	headers := e.recordHeaders(pairs[:0], r.Header)
	e.recordBody(x)
	if s.RequestLog.add(&e, headers) {
		s.Root().trimIdleJournals(s)
	}
	return e.seq
}

// recordBody sets Valid from the error type, and keeps the body the handler read.
func (e *JournalEntry) recordBody(x *Exchange) {
	e.Valid = e.ErrorType != ErrInvalidRequest && e.ErrorType != ErrRequestTooLarge
	if b := x.body; b != nil {
		e.BodyBytes = len(b)
		switch {
		// A tunnel token is a secret handed out only by reveal and rotate (spec 5 rule 2); a
		// careless client might send one back in a body, so tunnel bodies are not kept.
		case e.Interface == IfTunnels.Name || e.Interface == IfTunnelsAPI.Name:
		case len(b) > JournalBodyCap:
			e.Truncated = append(e.Truncated, "body")
		case x.bodyJSON, json.Valid(b):
			e.Body = json.RawMessage(b) // the handler's copy, no longer written to
		}
	}
}

// recordSession keeps the session the request worked on and the session events it appended.
func (e *JournalEntry) recordSession(x *Exchange, session string) {
	e.session, e.SessionEvents = session, x.sessionEvents
	if x.eventsCut {
		e.Truncated = append(e.Truncated, "session_events")
	}
}

// JournalBatch is the face's JournalBatch (package fake), which documents it.
type JournalBatch struct {
	ID       string `json:"id"`
	CustomID string `json:"custom_id"`
}

// bounded returns v, or a copy of its first max bytes noted in Truncated as name.
func (e *JournalEntry) bounded(name, v string, max int) string {
	if len(v) <= max {
		return v
	}
	e.Truncated = append(e.Truncated, name)
	return strings.Clone(strings.ToValidUTF8(v[:max], ""))
}

// recordHeaders appends to out the headers but credentials as name, value pairs, each value cut
// at journalValueCap and all of them at journalHeadersCap (in name order, so that the same
// request keeps the same headers), and returns it. A slice costs one allocation where a map costs
// one per header, and none when out has room.
func (e *JournalEntry) recordHeaders(out []string, h http.Header) []string {
	total := 0
	for k, vs := range h { // one pass for the usual request, whose headers all fit
		var n int
		out, n = e.addHeader(out, k, vs)
		total += n
	}
	if total <= JournalHeadersCap {
		return out
	}
	e.Truncated = slices.DeleteFunc(e.Truncated, func(t string) bool { return strings.HasPrefix(t, "headers.") })
	out, total = out[:0], 0
	names := make([]string, 0, len(h))
	for k := range h {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, k := range names {
		var n int
		if out, n = e.addHeader(out, k, h[k]); total+n > JournalHeadersCap { // left out whole
			cut := "headers." + strings.ToLower(k)
			e.Truncated = append(slices.DeleteFunc(e.Truncated, func(t string) bool { return t == cut }), "headers")
			return out[:len(out)-2]
		}
		total += n
	}
	return out
}

// addHeader appends one header unless it carries a credential, and returns the bytes it kept.
func (e *JournalEntry) addHeader(out []string, k string, vs []string) ([]string, int) {
	if strings.EqualFold(k, HeaderAPIKey) || strings.EqualFold(k, HeaderAuthorization) {
		return out, 0
	}
	v := ""
	switch n := len(vs); {
	case n == 1:
		v = vs[0]
	case n > 1:
		v = strings.Join(vs, ", ") // several values of one header: rare, and each is bounded by the server
	}
	if len(v) > JournalValueCap {
		v = e.bounded("headers."+strings.ToLower(k), v, JournalValueCap)
	}
	return append(out, k, v), len(k) + len(v)
}

// isControl reports whether the request is for the test-control API, which is never journaled
// and never faulted.
func isControl(r *http.Request) bool { return strings.HasPrefix(r.URL.Path, "/_fake/") }

// getJournal answers the journal, oldest first, paged like the API's cursor lists: limit (1 to
// 10,000; the whole journal when absent) and after_id or before_id, a request_id of an entry still
// held. first_id, last_id and has_more lead to the next page. session_id keeps the entries of the
// requests that worked on that session: the client's requests on its routes (its creation
// included) and its turns' model requests.
func (s *Server) getJournal(c *Call) (any, error) {
	q, err := c.CursorQuery()
	if err != nil {
		return nil, err
	}
	entries := s.Journal()
	if id, ok := c.QueryString("session_id"); ok {
		entries = slices.DeleteFunc(entries, func(e JournalEntry) bool { return e.session != id })
	}
	keyOf := func(e JournalEntry) ListKey { return ListKey{ID: string(AppendBase62(nil, e.seq, 11))} }
	idOf := func(e JournalEntry) string { return e.RequestID }
	return PageByCursor(entries, keyOf, idOf, OldestFirst, q, func(id string) (ListKey, bool) {
		for i := len(entries) - 1; i >= 0; i-- {
			if entries[i].RequestID == id {
				return keyOf(entries[i]), true
			}
		}
		return ListKey{}, false
	})
}

type ClearedBody struct {
	Cleared int `json:"cleared"`
}

func (s *Server) clearJournal(c *Call) (any, error) {
	return ClearedBody{s.ClearJournal()}, nil
}

// JournalThread is the face's JournalThread (package fake), which documents it.
type JournalThread struct {
	Type              string  `json:"type"`
	PreviousMessageID *string `json:"previous_message_id"`
}
