package fake

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// toolUse is a stub reply that calls a tool.
func toolUse(name string, input map[string]any) Reply {
	return Reply{Content: []map[string]any{{"type": "tool_use", "id": "toolu_stub", "name": name, "input": input}}}
}

func textAnswer(text string) Reply {
	return Reply{Content: []map[string]any{{"type": "text", "text": text}}}
}

// agentTurns are the journal's entries of the model requests a session's agent made.
func agentTurns(ts *TestServer, session string) []JournalEntry {
	var out []JournalEntry
	for _, e := range ts.Fake.Journal() {
		if e.SessionID == session {
			out = append(out, e)
		}
	}
	return out
}

// The recipe of docs/sessions-agent.md, end to end: two stubs script a self-hosted session's
// agent. The first, on the user's message, calls bash with a command of the test's choosing;
// the second, on the follow-up (the only request left that has the bash tool), answers with
// text that quotes the tool's output. Each turn is a POST /v1/messages in the journal, marked
// with the session's ID and the stub that answered it, and the session's usage is the sum of
// the turns' usage, which count_tokens counts for each journaled request.
func TestSessionAgentScriptedByStubs(t *testing.T) {
	ts := NewTestServer(t)
	api, worker := apiClient(t, ts), envKeyClient(t, ts)
	first, err := ts.Fake.AddStub(Stub{Match: StubMatch{UserTextContains: "what is here"}, Replies: []Reply{toolUse("bash", map[string]any{"command": "ls /srv"})}})
	if err != nil {
		t.Fatal(err)
	}
	second, err := ts.Fake.AddStub(Stub{Match: StubMatch{ToolName: "bash"}, Replies: []Reply{textAnswer("The folder holds app.conf and data/.")}})
	if err != nil {
		t.Fatal(err)
	}
	id := api.ok("POST", "/v1/sessions", map[string]any{"agent": newAgent(t, api, ""), "environment_id": acmePrimary}).get("id").String()
	api.ok("POST", "/v1/sessions/"+id+"/events", userMessage("what is here?"))
	types, r := eventTypes(t, worker, id)
	want := []string{"user.message", "session.status_running", "span.model_request_start", "agent.tool_use", "span.model_request_end", "session.status_idle"}
	if strings.Join(types, " ") != strings.Join(want, " ") {
		t.Fatalf("events = %v, want %v", types, want)
	}
	use := r.get("data.3")
	if use.Get("name").String() != "bash" || use.Get("input.command").String() != "ls /srv" || use.Get("evaluated_permission").String() != "allow" {
		t.Fatalf("tool use = %s, want the stub's bash {command: ls /srv}, allowed", use.Raw)
	}
	if idle := r.get("data.5.stop_reason"); idle.Get("type").String() != "requires_action" || idle.Get("event_ids.0").String() != use.Get("id").String() {
		t.Fatalf("idle = %s, want requires_action naming %s", idle.Raw, use.Get("id"))
	}
	worker.ok("POST", "/v1/sessions/"+id+"/events", map[string]any{"events": []any{map[string]any{
		"type": "user.tool_result", "tool_use_id": use.Get("id").String(), "is_error": false,
		"content": []any{map[string]any{"type": "text", "text": "app.conf\ndata/"}}}}})
	types, r = eventTypes(t, api, id)
	want = append(want, "user.tool_result", "session.status_running", "span.model_request_start", "agent.message", "span.model_request_end", "session.status_idle")
	if strings.Join(types, " ") != strings.Join(want, " ") {
		t.Fatalf("events = %v, want %v", types, want)
	}
	if got := r.get("data.9.content.0.text").String(); got != "The folder holds app.conf and data/." {
		t.Errorf("agent message = %q, want the second stub's text", got)
	}
	if got := r.get("data.11.stop_reason.type").String(); got != "end_turn" {
		t.Errorf("last stop_reason = %s, want end_turn", got)
	}

	turns := agentTurns(ts, id)
	if len(turns) != 2 {
		t.Fatalf("the journal holds %d model requests of session %s, want 2", len(turns), id)
	}
	// The first turn creates a message thread; the second continues from the first's answer,
	// sending only its tool_result: the thread stands for the rest, tools included (which the
	// second stub matched).
	if th := turns[0].Thread; th == nil || th.Type != "create" {
		t.Errorf("turn 0 thread = %+v, want create", th)
	}
	if th := turns[1].Thread; th == nil || th.Type != "continue" || th.PreviousMessageID == nil || !strings.HasPrefix(*th.PreviousMessageID, "msg_") {
		t.Errorf("turn 1 thread = %+v, want a continue of the first answer", th)
	}
	var first0, next struct {
		Messages []any `json:"messages"`
		Tools    []any `json:"tools"`
	}
	if err := json.Unmarshal(turns[0].Body, &first0); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(turns[1].Body, &next); err != nil {
		t.Fatal(err)
	}
	if len(next.Messages) != 1 || next.Tools != nil {
		t.Errorf("the continue sent %d messages and tools %v, want the one tool_result turn and no tools", len(next.Messages), next.Tools)
	}
	// The whole conversation each turn stands for: the continue's is the create's, the first
	// answer as answered (its tool_use ID the stub's), and the new turn.
	whole := []map[string]any{{}, {}}
	if err := json.Unmarshal(turns[0].Body, &whole[0]); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(turns[0].Body, &whole[1]); err != nil {
		t.Fatal(err)
	}
	whole[1]["messages"] = append(append(first0.Messages, map[string]any{"role": "assistant", "content": []any{
		map[string]any{"type": "tool_use", "id": "toolu_stub", "name": "bash", "input": map[string]any{"command": "ls /srv"}}}}), next.Messages...)
	var in, out int64
	for i, e := range turns {
		stub := []string{first.ID, second.ID}[i]
		if e.Method != "POST" || e.Path != "/v1/messages" || e.Status != 200 || e.Stub != stub {
			t.Errorf("turn %d = %s %s %d stub %q, want POST /v1/messages 200 answered by %s", i, e.Method, e.Path, e.Status, e.Stub, stub)
		}
		// The oracle of the input: count_tokens of the whole request the turn stands for.
		body := whole[i]
		delete(body, "max_tokens")
		delete(body, "thread")
		in += api.ok("POST", "/v1/messages/count_tokens", body).get("input_tokens").Int()
		end := r.get(`data.#(type=="span.model_request_end")#|` + []string{"0", "1"}[i])
		out += end.Get("model_usage.output_tokens").Int()
	}
	// The tool result turn's last block is the tool_result, for the call as the answer named it.
	if last := string(turns[1].Body); !strings.Contains(last, `"tool_use_id":"toolu_stub"`) || !strings.Contains(last, "app.conf") {
		t.Errorf("the second turn's request = %s, want the tool_result of toolu_stub", last)
	}
	sess := api.ok("GET", "/v1/sessions/"+id, nil)
	if got := sess.get("usage.input_tokens").Int(); got != in {
		t.Errorf("session input_tokens = %d, want %d, what count_tokens counts of its two requests", got, in)
	}
	if got := sess.get("usage.output_tokens").Int(); got != out || out < 2 {
		t.Errorf("session output_tokens = %d, want %d, the sum of its spans' model_usage", got, out)
	}
}

// An answer with two calls waits for both: a first result re-emits requires_action naming the
// other, and only the second makes the next model request.
func TestSessionAgentAwaitsEveryCall(t *testing.T) {
	ts := NewTestServer(t)
	api := apiClient(t, ts)
	two := Reply{Content: []map[string]any{
		{"type": "tool_use", "id": "toolu_a", "name": "bash", "input": map[string]any{"command": "date"}},
		{"type": "tool_use", "id": "toolu_b", "name": "get_weather", "input": map[string]any{"city": "Paris"}},
	}}
	if _, err := ts.Fake.AddStub(Stub{Match: StubMatch{UserTextContains: "both"}, Replies: []Reply{two}}); err != nil {
		t.Fatal(err)
	}
	id := api.ok("POST", "/v1/sessions", map[string]any{"agent": newAgent(t, api, ""), "environment_id": acmePrimary}).get("id").String()
	api.ok("POST", "/v1/sessions/"+id+"/events", userMessage("do both"))
	_, r := eventTypes(t, api, id)
	bash, custom := r.get(`data.#(type=="agent.tool_use")`), r.get(`data.#(type=="agent.custom_tool_use")`)
	if bash.Get("input.command").String() != "date" || custom.Get("name").String() != "get_weather" {
		t.Fatalf("events = %s, want bash date and get_weather", r.get("data.#.type").Raw)
	}
	if ids := r.get("data.@reverse.0.stop_reason.event_ids").Raw; ids != `["`+bash.Get("id").String()+`","`+custom.Get("id").String()+`"]` {
		t.Fatalf("requires_action names %s, want both calls", ids)
	}
	api.ok("POST", "/v1/sessions/"+id+"/events", map[string]any{"events": []any{map[string]any{
		"type": "user.custom_tool_result", "custom_tool_use_id": custom.Get("id").String(), "content": []any{map[string]any{"type": "text", "text": "sunny"}}}}})
	types, r := eventTypes(t, api, id)
	if last := r.get("data.@reverse.0"); types[len(types)-2] != "user.custom_tool_result" || last.Get("stop_reason.event_ids").Raw != `["`+bash.Get("id").String()+`"]` {
		t.Fatalf("after one result: %v %s, want session.status_idle naming the bash call only", types, last.Raw)
	}
	if n := len(agentTurns(ts, id)); n != 1 {
		t.Fatalf("%d model requests after one of two results, want 1", n)
	}
	api.ok("POST", "/v1/sessions/"+id+"/events", map[string]any{"events": []any{map[string]any{
		"type": "user.tool_result", "tool_use_id": bash.Get("id").String(), "content": []any{map[string]any{"type": "text", "text": "Mon"}}}}})
	if _, r = eventTypes(t, api, id); r.get("data.@reverse.0.stop_reason.type").String() != "end_turn" ||
		r.get(`data.#(type=="agent.message")#.content.0.text|0`).String() != "The tool returned: Mon" {
		t.Errorf("after both results: %s, want the script's answer to the last result and end_turn", r.get("data.@reverse.1").Raw)
	}
}

// A model request the pipeline refuses (here an injected 529 on POST /v1/messages) ends the
// turn: the span ends in error, session.error names model_overloaded_error, and the session is
// idle with retries_exhausted; the next message is answered again.
func TestSessionAgentModelError(t *testing.T) {
	ts := NewTestServer(t)
	api := apiClient(t, ts)
	id := cloudSession(t, api)
	if _, err := ts.Fake.InjectFault(Fault{Method: "POST", Path: "/v1/messages", Status: 529, RetryAfter: time.Second}); err != nil {
		t.Fatal(err)
	}
	api.ok("POST", "/v1/sessions/"+id+"/events", userMessage("hello"))
	types, r := eventTypes(t, api, id)
	want := "user.message session.status_running span.model_request_start span.model_request_end session.error session.status_idle"
	if strings.Join(types, " ") != want {
		t.Fatalf("events = %v, want %s", types, want)
	}
	if r.get("data.3.is_error").Bool() != true || r.get("data.4.error.type").String() != "model_overloaded_error" ||
		r.get("data.4.error.retry_status.type").String() != "exhausted" || r.get("data.5.stop_reason.type").String() != "retries_exhausted" {
		t.Errorf("events = %s, want an errored span, model_overloaded_error exhausted, retries_exhausted", r.get("data").Raw)
	}
	if turns := agentTurns(ts, id); len(turns) != 1 || turns[0].Status != 529 || !turns[0].Fault || turns[0].ErrorType != "overloaded_error" {
		t.Errorf("journal = %+v, want the faulted turn, 529 overloaded_error", turns)
	}
	api.ok("POST", "/v1/sessions/"+id+"/events", userMessage("again"))
	if _, r = eventTypes(t, api, id); r.get("data.@reverse.1.type").String() != "span.model_request_end" || r.get("data.@reverse.0.stop_reason.type").String() != "end_turn" {
		t.Errorf("after the fault: %s, want a turn answered", r.get("data.#.type").Raw)
	}
	if s := api.ok("GET", "/v1/sessions/"+id, nil); s.status != http.StatusOK || s.get("status").String() != "idle" {
		t.Errorf("session = %s, want idle", s.body)
	}
}

// Reset ends every session, and with the journal goes every turn's model request; a snapshot
// leaves sessions out (they refer to agents and work of the test that made them), so loading
// one finds none of the sessions made since.
func TestSessionResetAndSnapshot(t *testing.T) {
	ts := NewTestServer(t)
	api := apiClient(t, ts)
	snap, err := ts.Fake.Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	id := api.ok("POST", "/v1/sessions", map[string]any{"agent": newAgent(t, api, ""), "environment_id": acmePrimary}).get("id").String()
	api.ok("POST", "/v1/sessions/"+id+"/events", userMessage("hello"))
	if len(agentTurns(ts, id)) != 1 {
		t.Fatalf("no model request of %s in the journal", id)
	}
	ts.Fake.Reset()
	if r := api.do("GET", "/v1/sessions/"+id, nil); r.status != http.StatusNotFound {
		t.Errorf("after a reset, GET the session = %d, want 404", r.status)
	}
	if n := len(agentTurns(ts, id)); n != 0 {
		t.Errorf("after a reset the journal holds %d model requests of the session, want 0", n)
	}
	id = api.ok("POST", "/v1/sessions", map[string]any{"agent": newAgent(t, api, ""), "environment_id": acmePrimary}).get("id").String()
	if err := ts.Fake.LoadSnapshot(snap); err != nil {
		t.Fatal(err)
	}
	if r := api.do("GET", "/v1/sessions/"+id, nil); r.status != http.StatusNotFound {
		t.Errorf("after loading a snapshot taken before it, GET the session = %d, want 404", r.status)
	}
}

// A turn's model request carries the conversation from the earliest user.message among the
// session's last TurnWindow (100) events. Each turn here is 6 events, so when the 21st message
// is sent the request is built from 123 events (the message, session.status_running and
// span.model_request_start included): the last 100 are events 23 to 122, whose earliest
// user.message is event 24, the 5th message ("m4"); 17 user turns and the 16 answers between.
func TestSessionTurnWindow(t *testing.T) {
	ts := NewTestServer(t)
	api := apiClient(t, ts)
	id := cloudSession(t, api)
	for i := range 21 {
		api.ok("POST", "/v1/sessions/"+id+"/events", userMessage(fmt.Sprintf("m%d", i)))
	}
	turns := agentTurns(ts, id)
	var body struct {
		Messages []struct {
			Role    string `json:"role"`
			Content []struct {
				Text string `json:"text"`
			} `json:"content"`
		} `json:"messages"`
	}
	if err := json.Unmarshal(turns[len(turns)-1].Body, &body); err != nil {
		t.Fatal(err)
	}
	if n := len(body.Messages); n != 33 || body.Messages[0].Content[0].Text != "m4" || body.Messages[n-1].Content[0].Text != "m20" {
		t.Errorf("the last turn's request has %d messages from %+v, want 33 from m4 to m20", n, body.Messages[0])
	}
}

// The headers a turn's answer sets reach the response of the send that made it run: a stub that
// nearly matched the turn is named in Fake-Stub-Near-Miss, as on POST /v1/messages.
func TestSessionTurnNearMissHeader(t *testing.T) {
	ts := NewTestServer(t)
	api := apiClient(t, ts)
	st, err := ts.Fake.AddStub(Stub{Match: StubMatch{UserTextContains: "Hello"}, Replies: []Reply{textAnswer("hi")}})
	if err != nil {
		t.Fatal(err)
	}
	id := api.ok("POST", "/v1/sessions", map[string]any{"agent": newAgent(t, api, ""), "environment_id": acmePrimary}).get("id").String()
	r := api.ok("POST", "/v1/sessions/"+id+"/events", userMessage("hello there"))
	if got := r.header.Get("Fake-Stub-Near-Miss"); !strings.HasPrefix(got, st.ID+": user_text_contains") {
		t.Errorf("Fake-Stub-Near-Miss = %q, want %s's user_text_contains clause", got, st.ID)
	}
	if turns := agentTurns(ts, id); len(turns) != 1 || !strings.HasPrefix(turns[0].StubNearMiss, st.ID) {
		t.Errorf("journal = %+v, want the turn with its near miss", turns)
	}
}

// The tape records and replays an agent's turn as it does a POST /v1/messages: recorded, the
// turn is answered by the upstream (here another fake, whose scripted model writes its own
// text, not the agent's script); replayed, by the recording, with no upstream at all.
func TestSessionTurnRecordAndReplay(t *testing.T) {
	dir := t.TempDir()
	up := httptest.NewServer(New())
	t.Cleanup(up.Close)
	answer := func(ts *TestServer) string {
		t.Helper()
		api := apiClient(t, ts)
		env := cloudEnv(t, api)
		agent := api.ok("POST", "/v1/agents", map[string]any{"name": "taped", "model": "assistant-sonnet-4-5"}).get("id").String()
		id := api.ok("POST", "/v1/sessions", map[string]any{"agent": agent, "environment_id": env}).get("id").String()
		api.ok("POST", "/v1/sessions/"+id+"/events", userMessage("hello"))
		_, r := eventTypes(t, api, id)
		return r.get(`data.#(type=="agent.message").content.0.text`).String()
	}
	recorded := answer(tapeServer(t, TapeConfig{Upstream: up.URL, Record: dir}))
	if recorded == "" || recorded == "You said: hello" {
		t.Fatalf("recorded turn = %q, want the upstream's answer, not the agent's script", recorded)
	}
	if n := len(recordings(t, dir)); n != 1 {
		t.Fatalf("%d recordings, want the turn's one", n)
	}
	up.Close()
	if replayed := answer(tapeServer(t, TapeConfig{Replay: dir, OnMiss: "error"})); replayed != recorded {
		t.Errorf("replayed turn = %q, want the recording's %q", replayed, recorded)
	}
}

// Rate limits admit a turn as they admit POST /v1/messages: with the workspace's opus group at
// one request a minute, a session of an opus agent answers its first message, and its second
// turn is refused with a 429, which ends it with model_rate_limited_error; the journal names
// the limit.
func TestSessionTurnRateLimited(t *testing.T) {
	ts := NewTestServer(t, WithRateLimits())
	setWorkspaceLimits(t, ts.Fake, `[{"type":"requests_per_minute","value":1}]`)
	api := &workClient{t, ts, "X-Api-Key", researchKey}
	env := cloudEnv(t, api)
	agent := api.ok("POST", "/v1/agents", map[string]any{"name": "limited", "model": "assistant-opus-4-7"}).get("id").String()
	id := api.ok("POST", "/v1/sessions", map[string]any{"agent": agent, "environment_id": env}).get("id").String()
	api.ok("POST", "/v1/sessions/"+id+"/events", userMessage("one"))
	api.ok("POST", "/v1/sessions/"+id+"/events", userMessage("two"))
	_, r := eventTypes(t, api, id)
	if got := r.get(`data.#(type=="agent.message").content.0.text`).String(); got != "You said: one" {
		t.Errorf("first turn answered %q, want \"You said: one\"", got)
	}
	if e := r.get(`data.#(type=="session.error").error`); e.Get("type").String() != "model_rate_limited_error" || r.get("data.@reverse.0.stop_reason.type").String() != "retries_exhausted" {
		t.Errorf("events = %s, want the second turn ended by model_rate_limited_error", r.get("data").Raw)
	}
	turns := agentTurns(ts, id)
	if len(turns) != 2 || turns[1].Status != http.StatusTooManyRequests || !strings.Contains(turns[1].RateLimit, "requests_per_minute") {
		t.Errorf("journal = %+v, want the second turn refused by requests_per_minute", turns)
	}
}

// The prompt cache applies to a turn as to any request, through the breakpoint on its last
// block: an agent whose system prompt is long enough to cache writes it on the first turn and
// reads it on the second; the session's usage and the spans' model_usage say so.
func TestSessionTurnCaches(t *testing.T) {
	ts := NewTestServer(t)
	api := apiClient(t, ts)
	env := cloudEnv(t, api)
	system := strings.Repeat("Answer briefly and cite the tool's output. ", 400)
	agent := api.ok("POST", "/v1/agents", map[string]any{"name": "cached", "model": "assistant-sonnet-4-5", "system": system}).get("id").String()
	id := api.ok("POST", "/v1/sessions", map[string]any{"agent": agent, "environment_id": env}).get("id").String()
	api.ok("POST", "/v1/sessions/"+id+"/events", userMessage("one"))
	api.ok("POST", "/v1/sessions/"+id+"/events", userMessage("two"))
	_, r := eventTypes(t, api, id)
	ends := r.get(`data.#(type=="span.model_request_end")#.model_usage`).Array()
	if len(ends) != 2 || ends[0].Get("cache_creation_input_tokens").Int() == 0 || ends[1].Get("cache_read_input_tokens").Int() == 0 {
		t.Fatalf("model_usage = %v, want the first turn writing the cache and the second reading it", ends)
	}
	s := api.ok("GET", "/v1/sessions/"+id, nil)
	if got, want := s.get("usage.cache_read_input_tokens").Int(), ends[1].Get("cache_read_input_tokens").Int(); got != want {
		t.Errorf("session cache_read_input_tokens = %d, want %d", got, want)
	}
	if got, want := s.get("usage.cache_creation.ephemeral_5m_input_tokens").Int(), ends[0].Get("cache_creation_input_tokens").Int()+ends[1].Get("cache_creation_input_tokens").Int(); got != want {
		t.Errorf("session cache_creation.ephemeral_5m_input_tokens = %d, want %d", got, want)
	}
}

// A Fake-Scenario header on the send answers its turn as it answers POST /v1/messages: the
// library's refusal-bio refuses, and the session goes idle with refusal and its stop_details.
func TestSessionTurnScenarioRefusal(t *testing.T) {
	ts := NewTestServer(t)
	api := apiClient(t, ts)
	id := api.ok("POST", "/v1/sessions", map[string]any{"agent": newAgent(t, api, ""), "environment_id": acmePrimary}).get("id").String()
	api.ok("POST", "/v1/sessions/"+id+"/events", userMessage("where am I?"), "Fake-Scenario", "refusal-bio")
	types, r := eventTypes(t, api, id)
	want := "user.message session.status_running span.model_request_start span.model_request_end session.status_idle"
	if strings.Join(types, " ") != want {
		t.Fatalf("events = %v, want %s", types, want)
	}
	idle := r.get("data.4")
	if idle.Get("stop_reason.type").String() != "refusal" || idle.Get("stop_details.type").String() != "refusal" || idle.Get("stop_details.category").String() != "bio" {
		t.Errorf("idle = %s, want refusal with stop_details {refusal, bio}", idle.Raw)
	}
}
