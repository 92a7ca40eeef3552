package fake

import (
	"encoding/json"
	"net/http"
	"testing"
	"time"
)

// threadRun is what a session's three turns came to: the agent's messages, each turn's
// model_usage, and the journal's entries of its model requests.
type threadRun struct {
	texts  []string
	usage  []map[string]int64
	turns  []JournalEntry
	counts []int // the messages each request sent
}

// runThreadedSession runs one conversation in a cloud session of the agentBody agent: a
// message naming its custom tool (the script calls get_weather), the tool's result (the script
// answers with it), then another message. gap is how far the virtual clock moves before each
// turn after the first.
func runThreadedSession(t *testing.T, gap time.Duration) threadRun {
	t.Helper()
	ts := NewTestServer(t)
	api := apiClient(t, ts)
	env := api.ok("POST", "/v1/environments", map[string]any{"name": "cloud", "config": map[string]any{"type": "cloud"}}).get("id").String()
	agent := api.ok("POST", "/v1/agents", agentBody("threaded")).get("id").String()
	id := api.ok("POST", "/v1/sessions", map[string]any{"agent": agent, "environment_id": env}).get("id").String()
	api.ok("POST", "/v1/sessions/"+id+"/events", userMessage("use get_weather for Paris"))
	_, r := eventTypes(t, api, id)
	call := r.get(`data.#(type=="agent.custom_tool_use").id`).String()
	if call == "" {
		t.Fatalf("no custom tool call: %s", r.get("data").Raw)
	}
	ts.Fake.AdvanceClock(gap)
	api.ok("POST", "/v1/sessions/"+id+"/events", map[string]any{"events": []any{map[string]any{
		"type": "user.custom_tool_result", "custom_tool_use_id": call, "content": []any{map[string]any{"type": "text", "text": "sunny"}}}}})
	ts.Fake.AdvanceClock(gap)
	api.ok("POST", "/v1/sessions/"+id+"/events", userMessage("thanks"))
	_, r = eventTypes(t, api, id)
	var run threadRun
	for _, x := range r.get(`data.#(type=="agent.message")#.content.0.text`).Array() {
		run.texts = append(run.texts, x.String())
	}
	for _, x := range r.get(`data.#(type=="span.model_request_end")#.model_usage`).Array() {
		u := map[string]int64{}
		for k, v := range x.Map() {
			u[k] = v.Int()
		}
		run.usage = append(run.usage, u)
	}
	run.turns = agentTurns(ts, id)
	for _, e := range run.turns {
		var body struct {
			Messages []any `json:"messages"`
		}
		if err := json.Unmarshal(e.Body, &body); err != nil {
			t.Fatal(err)
		}
		run.counts = append(run.counts, len(body.Messages))
	}
	return run
}

// A session's turns are one message thread: the first creates it with the whole conversation,
// each later one continues from the previous answer sending only what is new (a tool result, a
// message). When the thread is gone (here: expired, 5 minutes of the virtual clock after its
// last answer) the continue is answered thread_not_found and the turn sends the whole
// conversation again in a new thread, as the SDK helpers recover. Either way the turn is
// answered alike: the same messages, and the same input tokens in all (the cache aside, which
// expires with the thread), which is what the whole conversation counts. The conversation
// names the call by the ID its answer gave it, as the thread keeps the answer: with the event's
// ID instead, the whole conversation would not be the thread's, and would count otherwise.
func TestSessionTurnThread(t *testing.T) {
	threaded := runThreadedSession(t, 0)
	whole := runThreadedSession(t, 5*time.Minute)

	want := []string{"The tool returned: sunny", "You said: thanks"}
	for _, run := range []threadRun{threaded, whole} {
		if len(run.texts) != 2 || run.texts[0] != want[0] || run.texts[1] != want[1] {
			t.Errorf("agent messages = %q, want %q", run.texts, want)
		}
	}
	// Threaded: create, continue, continue, each continue of the answer before it.
	if n := len(threaded.turns); n != 3 {
		t.Fatalf("threaded: %d model requests, want 3", n)
	}
	for i, e := range threaded.turns {
		typ := []string{"create", "continue", "continue"}[i]
		if e.Thread == nil || e.Thread.Type != typ || e.Status != http.StatusOK {
			t.Errorf("threaded turn %d = %d thread %+v, want 200 %s", i, e.Status, e.Thread, typ)
		}
	}
	if p1, p2 := threaded.turns[1].Thread.PreviousMessageID, threaded.turns[2].Thread.PreviousMessageID; p1 == nil || p2 == nil || *p1 == *p2 {
		t.Errorf("continues from %v and %v, want two different answers", p1, p2)
	}
	if c := threaded.counts; c[0] != 1 || c[1] != 1 || c[2] != 1 {
		t.Errorf("threaded requests sent %v messages, want 1 each: only what is new", c)
	}
	// Expired: each later turn's continue is refused, then the whole conversation is sent.
	if n := len(whole.turns); n != 5 {
		t.Fatalf("expired: %d model requests, want 5", n)
	}
	for i, e := range whole.turns {
		typ, status := "create", http.StatusOK
		if i%2 == 1 {
			typ, status = "continue", http.StatusNotFound
		}
		if e.Thread == nil || e.Thread.Type != typ || e.Status != status {
			t.Errorf("expired turn %d = %d thread %+v, want %d %s", i, e.Status, e.Thread, status, typ)
		}
	}
	if c := whole.counts; c[2] != 3 || c[4] != 5 {
		t.Errorf("the recovering creates sent %d and %d messages, want the whole conversation: 3 and 5", c[2], c[4])
	}
	// The same answer to the continue and to the whole conversation.
	total := func(u map[string]int64) int64 {
		return u["input_tokens"] + u["cache_read_input_tokens"] + u["cache_creation_input_tokens"]
	}
	for i := range 3 {
		a, b := threaded.usage[i], whole.usage[i]
		if total(a) != total(b) || a["output_tokens"] != b["output_tokens"] || total(a) == 0 {
			t.Errorf("turn %d: threaded usage %v, whole %v; want the same input in all and output", i, a, b)
		}
	}
}

// A thread keeps the system and tools of the request that created it, and a continue may not
// send them: when the session's agent changes its tools, the next turn starts a new thread
// with the whole conversation, so that the new tools reach the model (here, a stub that matches
// the tool added).
func TestSessionTurnThreadAgentChanged(t *testing.T) {
	ts := NewTestServer(t)
	api := apiClient(t, ts)
	if _, err := ts.Fake.AddStub(Stub{Match: StubMatch{ToolName: "lookup"}, Replies: []Reply{textAnswer("I can look it up now.")}}); err != nil {
		t.Fatal(err)
	}
	env := api.ok("POST", "/v1/environments", map[string]any{"name": "cloud", "config": map[string]any{"type": "cloud"}}).get("id").String()
	agent := api.ok("POST", "/v1/agents", map[string]any{"name": "plain", "model": "assistant-sonnet-4-5"}).get("id").String()
	id := api.ok("POST", "/v1/sessions", map[string]any{"agent": agent, "environment_id": env}).get("id").String()
	api.ok("POST", "/v1/sessions/"+id+"/events", userMessage("one"))
	api.ok("POST", "/v1/sessions/"+id, map[string]any{"agent": map[string]any{"tools": []any{map[string]any{
		"type": "custom", "name": "lookup", "description": "Looks a word up", "input_schema": map[string]any{"type": "object"}}}}})
	api.ok("POST", "/v1/sessions/"+id+"/events", userMessage("two"))
	_, r := eventTypes(t, api, id)
	if got := r.get(`data.#(type=="agent.message")#.content.0.text`).String(); got != `["You said: one","I can look it up now."]` {
		t.Errorf("agent messages = %s, want the second answered by the stub of the tool added", got)
	}
	turns := agentTurns(ts, id)
	if len(turns) != 2 || turns[1].Thread == nil || turns[1].Thread.Type != "create" {
		t.Errorf("turns = %+v, want the second a create", turns)
	}
}
