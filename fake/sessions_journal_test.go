package fake

import (
	"net/http"
	"slices"
	"strings"
	"testing"
)

// The journal shows a session's events: each entry lists, by ID and type, the session events its
// request appended, and ?session_id= keeps the entries of the requests that worked on that
// session. The oracle is the session's own event list: every event is in exactly one entry (a
// turn's entry comes before the send that made it run), and a user event in the entry of the
// request that sent it. A turn's events, from its
// span on, are in its model request's entry (journaled before the answer's events existed); a
// batch refused lists nothing, as the session keeps nothing of it; a request on another session,
// or on none, is left out.
func TestJournalSessionEvents(t *testing.T) {
	ts := NewTestServer(t)
	api, worker := apiClient(t, ts), envKeyClient(t, ts)
	id := api.ok("POST", "/v1/sessions", map[string]any{"agent": newAgent(t, api, ""), "environment_id": acmePrimary}).get("id").String()
	other := api.ok("POST", "/v1/sessions", map[string]any{"agent": newAgent(t, api, ""), "environment_id": acmePrimary}).get("id").String()
	api.ok("POST", "/v1/sessions/"+other+"/events", userMessage("elsewhere"))
	api.ok("POST", "/v1/messages", map[string]any{"model": "assistant-sonnet-4-5", "max_tokens": 10, "messages": []any{map[string]any{"role": "user", "content": "hi"}}})

	api.ok("POST", "/v1/sessions/"+id+"/events", userMessage("where am I?")) // the script calls bash
	_, r := eventTypes(t, worker, id)
	call := r.get(`data.#(type=="agent.tool_use").id`).String()
	// A batch refused: its message ran a turn before its second event was refused.
	if got := api.do("POST", "/v1/sessions/"+id+"/events", map[string]any{"events": []any{
		map[string]any{"type": "user.tool_result", "tool_use_id": call, "content": []any{map[string]any{"type": "text", "text": "/home"}}},
		map[string]any{"type": "user.tool_result", "tool_use_id": "sevt_none"}}}); got.status != http.StatusBadRequest {
		t.Fatalf("refused batch = %d, want 400", got.status)
	}
	worker.ok("POST", "/v1/sessions/"+id+"/events", map[string]any{"events": []any{map[string]any{
		"type": "user.tool_result", "tool_use_id": call, "content": []any{map[string]any{"type": "text", "text": "/home"}}}}})
	_, r = eventTypes(t, api, id)
	// The session forgot the refused batch's turn, and its thread with it: the next turn starts a
	// new thread and ends well.
	if r.get(`data.#(type=="session.error")`).Exists() || r.get("data.@reverse.0.stop_reason.type").String() != "end_turn" {
		t.Errorf("after the refused batch the session's events end %s, want end_turn and no session.error", r.get("data.@reverse.0").Raw)
	}

	j := api.ok("GET", "/_fake/journal?session_id="+id, nil)
	var listed []string // "id type" of every event the entries list, in order
	var where []string  // the request that listed each
	for _, e := range j.get("data").Array() {
		what := e.Get("method").String() + " " + e.Get("path").String()
		if sid := e.Get("session_id").String(); sid != "" && sid != id {
			t.Errorf("entry %s of session %s under session_id=%s", e.Get("request_id"), sid, id)
		}
		if strings.Contains(e.Get("path").String(), other) || (what == "POST /v1/messages" && e.Get("session_id").String() == "") {
			t.Errorf("entry %s (%s) did not work on session %s", e.Get("request_id"), what, id)
		}
		for _, ev := range e.Get("session_events").Array() {
			listed = append(listed, ev.Get("id").String()+" "+ev.Get("type").String())
			where = append(where, what)
		}
	}
	var want []string
	for _, ev := range r.get("data").Array() {
		want = append(want, ev.Get("id").String()+" "+ev.Get("type").String())
	}
	slices.Sort(want) // event IDs are in the order made
	order := slices.Clone(listed)
	slices.Sort(order)
	if !slices.Equal(order, want) {
		t.Fatalf("the entries list\n%v\nwant the session's events\n%v", listed, want)
	}
	for i, ev := range listed {
		typ := strings.Fields(ev)[1]
		turnEvent := strings.HasPrefix(typ, "span.") || strings.HasPrefix(typ, "agent.") || typ == "session.status_idle"
		if turnEvent != (where[i] == "POST /v1/messages") || (!turnEvent && where[i] != "POST /v1/sessions/"+id+"/events") {
			t.Errorf("%s is in the entry of %s", ev, where[i])
		}
	}
	// The entries: the creation (no events), both sends and both turns, and the refused batch
	// with its turn, which list none.
	var creates, refused, turns int
	for _, e := range j.get("data").Array() {
		switch {
		case e.Get("method").String() == "POST" && e.Get("path").String() == "/v1/sessions":
			creates++
			if e.Get("session_events").Raw != "null" {
				t.Errorf("the creation lists %s, want null", e.Get("session_events").Raw)
			}
		case e.Get("status").Int() == http.StatusBadRequest:
			refused++
			if e.Get("session_events").Raw != "null" {
				t.Errorf("the refused batch lists %s, want null", e.Get("session_events").Raw)
			}
		case e.Get("session_id").String() == id:
			turns++
		}
	}
	if creates != 1 || refused != 1 || turns != 3 {
		t.Errorf("%d creations, %d refused sends and %d turns under session_id, want 1, 1 and 3", creates, refused, turns)
	}
	all := api.ok("GET", "/_fake/journal", nil).get("data.#").Int()
	if n := j.get("data.#").Int(); n >= all {
		t.Errorf("session_id kept %d of %d entries, want fewer", n, all)
	}
}
