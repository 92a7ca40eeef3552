package fake

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/platformkit/platformkit/fake/internal/areas/sessions"
	"github.com/platformkit/platformkit/fake/internal/core"
)

// newAgent creates an agent with the agent toolset (bash under policy) and a custom tool.
func newAgent(t *testing.T, api *workClient, policy string) string {
	t.Helper()
	b := agentBody("worker agent")
	if policy != "" {
		b["tools"].([]any)[0].(map[string]any)["default_config"] = map[string]any{"permission_policy": map[string]any{"type": policy}}
	}
	return api.ok("POST", "/v1/agents", b).get("id").String()
}

// cloudEnv creates an environment of the cloud type, whose sessions the fake's agent runs itself.
func cloudEnv(t *testing.T, api *workClient) string {
	t.Helper()
	return api.ok("POST", "/v1/environments", map[string]any{"name": "cloud", "config": map[string]any{"type": "cloud"}}).get("id").String()
}

// cloudSession creates a session of a new agent (newAgent) in a new cloud environment.
func cloudSession(t *testing.T, api *workClient) string {
	t.Helper()
	return api.ok("POST", "/v1/sessions", map[string]any{"agent": newAgent(t, api, ""), "environment_id": cloudEnv(t, api)}).get("id").String()
}

func userMessage(text string) map[string]any {
	return map[string]any{"events": []any{map[string]any{"type": "user.message", "content": []any{map[string]any{"type": "text", "text": text}}}}}
}

// eventTypes lists a session's events (one page of up to 1,000, as the official tool runner asks).
func eventTypes(t *testing.T, c *workClient, id string) (types []string, r reply) {
	t.Helper()
	r = c.ok("GET", "/v1/sessions/"+id+"/events?limit=1000", nil)
	for _, x := range r.get("data.#.type").Array() {
		types = append(types, x.String())
	}
	return types, r
}

// The self-hosted turn the official worker serves: creating the session queues a work item
// whose data.id is the session's ID; a user message makes the agent call bash with pwd and wait;
// the worker, with the environment key, reads the session and posts the tool's result; the agent
// answers with it and ends the turn.
func TestSessionSelfHostedTurn(t *testing.T) {
	ts := NewTestServer(t)
	api, worker := apiClient(t, ts), envKeyClient(t, ts)
	agent := newAgent(t, api, "")
	sess := api.ok("POST", "/v1/sessions", map[string]any{"agent": agent, "environment_id": acmePrimary, "title": "t"})
	id := sess.get("id").String()
	if !strings.HasPrefix(id, "sesn_") || sess.get("status").String() != "idle" || sess.get("agent.version").Int() != 1 || sess.get("agent.id").String() != agent {
		t.Fatalf("session = %s, want sesn_..., idle, agent %s version 1", sess.body, agent)
	}
	items := api.ok("GET", "/v1/environments/"+acmePrimary+"/work?limit=100", nil)
	found := false
	for _, it := range items.get("data").Array() {
		if it.Get("data.id").String() == id {
			found = it.Get("data.type").String() == "session" && it.Get("state").String() == "queued"
		}
	}
	if !found {
		t.Fatalf("no queued work item of type session with data.id %s in %s", id, items.body)
	}
	if got := worker.ok("GET", "/v1/sessions/"+id, nil).get("id").String(); got != id {
		t.Fatalf("the worker read session %s, want %s", got, id)
	}

	sent := api.ok("POST", "/v1/sessions/"+id+"/events", userMessage("where am I?"))
	if sent.get("data.0.type").String() != "user.message" || !strings.HasPrefix(sent.get("data.0.id").String(), "sevt_") || !sent.get("data.0.processed_at").Exists() {
		t.Fatalf("sent = %s, want the stored user.message with its sevt_ id and processed_at", sent.body)
	}
	types, r := eventTypes(t, worker, id)
	want := []string{"user.message", "session.status_running", "span.model_request_start", "agent.tool_use", "span.model_request_end", "session.status_idle"}
	if strings.Join(types, " ") != strings.Join(want, " ") {
		t.Fatalf("events = %v, want %v", types, want)
	}
	use := r.get("data.3")
	if use.Get("name").String() != "bash" || use.Get("input.command").String() != "pwd" || use.Get("evaluated_permission").String() != "allow" {
		t.Errorf("tool use = %s, want bash {command: pwd}, allowed", use.Raw)
	}
	idle := r.get("data.5.stop_reason")
	if idle.Get("type").String() != "requires_action" || idle.Get("event_ids.0").String() != use.Get("id").String() {
		t.Errorf("idle stop_reason = %s, want requires_action naming %s", idle.Raw, use.Get("id"))
	}
	if r.get("data.4.model_request_start_id").String() != r.get("data.2.id").String() {
		t.Errorf("span end = %s, want it to name the start %s", r.get("data.4").Raw, r.get("data.2.id"))
	}

	worker.ok("POST", "/v1/sessions/"+id+"/events", map[string]any{"events": []any{map[string]any{
		"type": "user.tool_result", "tool_use_id": use.Get("id").String(), "is_error": false,
		"content": []any{map[string]any{"type": "text", "text": "/home/worker"}}}}})
	types, r = eventTypes(t, api, id)
	want = append(want, "user.tool_result", "session.status_running", "span.model_request_start", "agent.message", "span.model_request_end", "session.status_idle")
	if strings.Join(types, " ") != strings.Join(want, " ") {
		t.Fatalf("events = %v, want %v", types, want)
	}
	if got := r.get("data.9.content.0.text").String(); got != "The tool returned: /home/worker" {
		t.Errorf("agent message = %q, want the tool's output", got)
	}
	if got := r.get("data.11.stop_reason.type").String(); got != "end_turn" {
		t.Errorf("last stop_reason = %s, want end_turn", got)
	}
	s := api.ok("GET", "/v1/sessions/"+id, nil)
	if s.get("status").String() != "idle" || s.get("usage.output_tokens").Int() < 1 {
		t.Errorf("session = %s, want idle with usage", s.body)
	}
}

// A cloud environment queues no work and its agent runs no sandbox tool: it answers at once.
func TestSessionCloudAnswers(t *testing.T) {
	ts := NewTestServer(t)
	api := apiClient(t, ts)
	env := cloudEnv(t, api)
	id := api.ok("POST", "/v1/sessions", map[string]any{"agent": map[string]any{"type": "agent", "id": newAgent(t, api, ""), "version": 1}, "environment_id": env}).get("id").String()
	if n := api.ok("GET", "/v1/environments/"+env+"/work", nil).get("data.#").Int(); n != 0 {
		t.Errorf("a cloud environment's queue holds %d items, want 0", n)
	}
	api.ok("POST", "/v1/sessions/"+id+"/events", userMessage("hello"))
	types, r := eventTypes(t, api, id)
	want := "user.message session.status_running span.model_request_start agent.message span.model_request_end session.status_idle"
	if strings.Join(types, " ") != want || r.get("data.3.content.0.text").String() != "You said: hello" {
		t.Errorf("events = %v %s, want %s answering \"You said: hello\"", types, r.get("data.3").Raw, want)
	}
	// A custom tool named in the message is called, and its result answered.
	api.ok("POST", "/v1/sessions/"+id+"/events", userMessage("please get_weather for Paris"))
	types, r = eventTypes(t, api, id)
	call := r.get("data.9")
	if call.Get("type").String() != "agent.custom_tool_use" || call.Get("name").String() != "get_weather" {
		t.Fatalf("events = %v, want an agent.custom_tool_use of get_weather at 9", types)
	}
	api.ok("POST", "/v1/sessions/"+id+"/events", map[string]any{"events": []any{map[string]any{
		"type": "user.custom_tool_result", "custom_tool_use_id": call.Get("id").String(), "content": []any{map[string]any{"type": "text", "text": "sunny"}}}}})
	if _, r = eventTypes(t, api, id); r.get("data.#(type==\"agent.message\")#.content.0.text|1").String() != "The tool returned: sunny" {
		t.Errorf("events = %s, want the custom tool's result answered", r.get("data.#.type").Raw)
	}
}

// always_ask: the call asks; a confirmation allows it, then its result is awaited; an event that
// answers no pending call, or a message while one waits, is a 400 naming the field.
func TestSessionPermissionAndEventOrder(t *testing.T) {
	ts := NewTestServer(t)
	api := apiClient(t, ts)
	id := api.ok("POST", "/v1/sessions", map[string]any{"agent": newAgent(t, api, "always_ask"), "environment_id": acmePrimary}).get("id").String()
	bad := func(body map[string]any, field string) {
		t.Helper()
		r := api.do("POST", "/v1/sessions/"+id+"/events", body)
		if r.status != http.StatusBadRequest || !strings.HasPrefix(r.get("error.message").String(), field+":") {
			t.Errorf("%v = %d %s, want 400 naming %s", body, r.status, r.body, field)
		}
	}
	result := func(typ, key, callID string) map[string]any {
		return map[string]any{"events": []any{map[string]any{"type": typ, key: callID, "content": []any{map[string]any{"type": "text", "text": "ok"}}}}}
	}
	bad(result("user.tool_result", "tool_use_id", "sevt_nothing"), "events.0.tool_use_id")
	api.ok("POST", "/v1/sessions/"+id+"/events", userMessage("$ ls -la"))
	_, r := eventTypes(t, api, id)
	use := r.get("data.3")
	if use.Get("evaluated_permission").String() != "ask" || use.Get("evaluation.type").String() != "always_ask" || use.Get("input.command").String() != "ls -la" {
		t.Fatalf("tool use = %s, want ls -la asked under always_ask", use.Raw)
	}
	callID := use.Get("id").String()
	before, _ := eventTypes(t, api, id)
	bad(result("user.tool_result", "tool_use_id", callID), "events.0.tool_use_id") // a result before the confirmation
	bad(userMessage("again"), "events.0.type")
	bad(result("user.custom_tool_result", "custom_tool_use_id", callID), "events.0.custom_tool_use_id")
	// A batch is all or nothing: a good confirmation followed by a bad event stores neither.
	confirm := map[string]any{"type": "user.tool_confirmation", "tool_use_id": callID, "result": "allow"}
	bad(map[string]any{"events": []any{confirm, map[string]any{"type": "user.tool_result", "tool_use_id": "sevt_other"}}}, "events.1.tool_use_id")
	if after, _ := eventTypes(t, api, id); len(after) != len(before) {
		t.Fatalf("a refused batch left %d events, want %d", len(after), len(before))
	}
	api.ok("POST", "/v1/sessions/"+id+"/events", map[string]any{"events": []any{confirm}})
	types, r := eventTypes(t, api, id)
	if last := r.get("data.#(type==\"session.status_idle\")#.stop_reason|1"); last.Get("type").String() != "requires_action" || last.Get("event_ids.0").String() != callID {
		t.Fatalf("after allow: %v %s, want the call's result awaited", types, last.Raw)
	}
	api.ok("POST", "/v1/sessions/"+id+"/events", result("user.tool_result", "tool_use_id", callID))
	if s := api.ok("GET", "/v1/sessions/"+id, nil); s.get("status").String() != "idle" {
		t.Errorf("status = %s, want idle", s.get("status"))
	}
	// An interrupt ends a waiting turn.
	api.ok("POST", "/v1/sessions/"+id+"/events", userMessage("$ sleep 100"))
	api.ok("POST", "/v1/sessions/"+id+"/events", map[string]any{"events": []any{map[string]any{"type": "user.interrupt"}}})
	_, r = eventTypes(t, api, id)
	if got := r.get("data.@reverse.0.stop_reason.type").String(); got != "end_turn" {
		t.Errorf("after an interrupt the last stop_reason = %s, want end_turn", got)
	}
	api.ok("POST", "/v1/sessions/"+id+"/events", userMessage("a new turn")) // nothing waits any more
}

// Credentials: an environment key reads its own environment's sessions only, and creates none.
func TestSessionEnvironmentKey(t *testing.T) {
	ts := NewTestServer(t)
	api, worker := apiClient(t, ts), envKeyClient(t, ts)
	agent := newAgent(t, api, "")
	other := api.ok("POST", "/v1/sessions", map[string]any{"agent": agent, "environment_id": acmeStaging}).get("id").String()
	mine := api.ok("POST", "/v1/sessions", map[string]any{"agent": agent, "environment_id": acmePrimary}).get("id").String()
	if r := worker.do("GET", "/v1/sessions/"+other, nil); r.status != http.StatusNotFound {
		t.Errorf("another environment's session with the environment key = %d, want 404", r.status)
	}
	if r := worker.do("POST", "/v1/sessions", map[string]any{"agent": agent, "environment_id": acmePrimary}); r.status != http.StatusForbidden {
		t.Errorf("create with the environment key = %d, want 403", r.status)
	}
	for _, m := range []string{"POST /v1/sessions/%s", "POST /v1/sessions/%s/archive", "DELETE /v1/sessions/%s"} {
		method, path, _ := strings.Cut(fmt.Sprintf(m, mine), " ")
		if r := worker.do(method, path, map[string]any{}); r.status != http.StatusForbidden {
			t.Errorf("%s %s with the environment key = %d, want 403", method, path, r.status)
		}
	}
	second := &workClient{t, ts, "X-Api-Key", "test-api-key-2"}
	if r := second.do("GET", "/v1/sessions/"+other, nil); r.status != http.StatusNotFound {
		t.Errorf("another organization's session = %d, want 404", r.status)
	}
	for name, tc := range map[string]struct {
		body  map[string]any
		field string
	}{
		"environment":  {map[string]any{"agent": agent, "environment_id": "env_nope"}, "environment_id"},
		"agent":        {map[string]any{"agent": "agent_nope", "environment_id": acmePrimary}, "agent"},
		"version":      {map[string]any{"agent": map[string]any{"type": "agent", "id": agent, "version": 7}, "environment_id": acmePrimary}, "agent.version"},
		"override":     {map[string]any{"agent": map[string]any{"type": "agent_with_overrides", "id": agent, "mcp_servers": []any{map[string]any{"name": "x", "type": "url", "url": "https://x"}}}, "environment_id": acmePrimary}, "agent.mcp_servers.0"},
		"resource":     {map[string]any{"agent": agent, "environment_id": acmePrimary, "resources": []any{map[string]any{"type": "file"}}}, "resources.0"},
		"initial type": {map[string]any{"agent": agent, "environment_id": acmePrimary, "initial_events": []any{map[string]any{"type": "user.interrupt"}}}, "initial_events.0"},
	} {
		r := api.do("POST", "/v1/sessions", tc.body)
		if r.status != http.StatusBadRequest || !strings.HasPrefix(r.get("error.message").String(), tc.field) {
			t.Errorf("%s: %d %s, want 400 naming %s", name, r.status, r.body, tc.field)
		}
	}
}

// The stream sends its headers at once, then the events made after it opened, with previews of
// agent messages when asked, the same events the list shows; a deleted session ends it.
func TestSessionStream(t *testing.T) {
	ts := NewTestServer(t)
	api := apiClient(t, ts)
	id := cloudSession(t, api)
	api.ok("POST", "/v1/sessions/"+id+"/events", userMessage("before"))
	eventTypes(t, api, id) // seen: not sent again on the stream
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, "GET", ts.URL+"/v1/sessions/"+id+"/events/stream?event_deltas[]=agent.message", nil)
	req.Header.Set("X-Api-Key", core.DefaultAPIKey)
	req.Header.Set("Vendor-Version", core.APIVersion)
	resp, err := ts.Server.Client().Do(req) // returns once the headers arrived, before any event
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if ct := resp.Header.Get("Content-Type"); resp.StatusCode != 200 || ct != "text/event-stream" {
		t.Fatalf("stream = %d %s, want 200 text/event-stream", resp.StatusCode, ct)
	}
	api.ok("POST", "/v1/sessions/"+id+"/events", userMessage("after"))
	_, listed := eventTypes(t, api, id)
	api.ok("DELETE", "/v1/sessions/"+id, nil)
	var names, ids []string
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		if name, ok := strings.CutPrefix(sc.Text(), "event: "); ok {
			names = append(names, name)
		}
		if data, ok := strings.CutPrefix(sc.Text(), "data: "); ok && strings.Contains(data, `"processed_at"`) {
			ids = append(ids, reply{body: []byte(data)}.get("id").String())
		}
	}
	want := "user.message session.status_running span.model_request_start event_start event_delta agent.message span.model_request_end session.status_idle session.deleted"
	if got := strings.Join(names, " "); got != want {
		t.Fatalf("stream = %s, want %s", got, want)
	}
	if len(ids) != 7 || !strings.HasPrefix(ids[0], "sevt_") {
		t.Fatalf("stream ids = %v, want 7 events (six of the turn and session.deleted)", ids)
	}
	all := listed.get("data.#.id").Array()
	for i, id := range ids[:6] {
		if want := all[len(all)-6+i].String(); id != want {
			t.Errorf("streamed event %d = %s, listed %s: the same events either way", i, id, want)
		}
	}
	if r := api.do("GET", "/v1/sessions/"+id, nil); r.status != http.StatusNotFound {
		t.Errorf("a deleted session = %d, want 404", r.status)
	}
}

// Archive ends the session; it takes no more events, and lists leave it out unless asked.
func TestSessionArchiveUpdateAndList(t *testing.T) {
	ts := NewTestServer(t)
	api := apiClient(t, ts)
	agent := newAgent(t, api, "")
	var ids []string
	for range 3 {
		ids = append(ids, api.ok("POST", "/v1/sessions", map[string]any{"agent": agent, "environment_id": acmeStaging}).get("id").String())
		ts.Fake.AdvanceClock(time.Second)
	}
	up := api.ok("POST", "/v1/sessions/"+ids[0], map[string]any{"title": "renamed", "metadata": map[string]any{"k": "v"}})
	if up.get("title").String() != "renamed" || up.get("metadata.k").String() != "v" {
		t.Errorf("update = %s", up.body)
	}
	if types, r := eventTypes(t, api, ids[0]); len(types) != 1 || types[0] != "session.updated" || r.get("data.0.title").String() != "renamed" {
		t.Errorf("events after update = %v, want one session.updated with the title", types)
	}
	if r := api.do("POST", "/v1/sessions/"+ids[0], map[string]any{"vault_ids": []any{}}); r.status != 400 || !strings.HasPrefix(r.get("error.message").String(), "vault_ids:") {
		t.Errorf("vault_ids update = %d %s, want 400 naming vault_ids", r.status, r.body)
	}
	arch := api.ok("POST", "/v1/sessions/"+ids[0]+"/archive", nil)
	if arch.get("status").String() != "terminated" || arch.get("archived_at").Type == 0 {
		t.Errorf("archive = %s, want terminated with archived_at", arch.body)
	}
	if r := api.do("POST", "/v1/sessions/"+ids[0]+"/events", userMessage("hi")); r.status != 400 {
		t.Errorf("a message to an archived session = %d, want 400", r.status)
	}
	page := api.ok("GET", "/v1/sessions?limit=1", nil)
	if page.get("data.0.id").String() != ids[2] || page.get("prev_page").Type != 0 || page.get("next_page").Type == 0 {
		t.Fatalf("first page = %s, want the newest session, a next_page and no prev_page", page.body)
	}
	second := api.ok("GET", "/v1/sessions?limit=1&page="+page.get("next_page").String(), nil)
	if second.get("data.0.id").String() != ids[1] || second.get("next_page").Type != 0 {
		t.Fatalf("second page = %s, want %s and the end (the archived one is left out)", second.body, ids[1])
	}
	back := api.ok("GET", "/v1/sessions?limit=1&page="+second.get("prev_page").String(), nil)
	if back.get("data.0.id").String() != ids[2] {
		t.Errorf("prev_page = %s, want %s", back.body, ids[2])
	}
	// The default data set's archived sessions are older.
	want, _ := json.Marshal(append(fixtureSessions(t, "terminated"), ids[0]))
	if got := api.ok("GET", "/v1/sessions?include_archived=true&order=asc&statuses[]=terminated", nil).get("data.#.id").String(); got != string(want) {
		t.Errorf("terminated sessions = %s, want %s", got, want)
	}
	if r := api.do("GET", "/v1/sessions?statuses[]=sleeping", nil); r.status != 400 || !strings.HasPrefix(r.get("error.message").String(), "statuses:") {
		t.Errorf("an unknown status = %d %s, want 400 naming statuses", r.status, r.body)
	}
}

// A server keeps at most MaxSessions sessions; the next is refused with a 400, not kept.
func TestSessionCountIsBounded(t *testing.T) {
	ts := NewTestServer(t)
	api := apiClient(t, ts)
	env := cloudEnv(t, api)
	agent := newAgent(t, api, "")
	// The bound counts the default data set's sessions too.
	for i := range sessions.MaxSessions - len(fixtureSessions(t, "")) {
		if r := api.do("POST", "/v1/sessions", map[string]any{"agent": agent, "environment_id": env}); r.status != 200 {
			t.Fatalf("session %d = %d %s", i, r.status, r.body)
		}
	}
	if r := api.do("POST", "/v1/sessions", map[string]any{"agent": agent, "environment_id": env}); r.status != http.StatusBadRequest {
		t.Errorf("session %d = %d %s, want 400", sessions.MaxSessions+1, r.status, r.body)
	}
}

// A message to a self-hosted session whose worker let go of it (its item stopped) queues a new
// work item for it; while an item is live, messages queue nothing.
func TestSessionDormantQueuesWorkAgain(t *testing.T) {
	ts := NewTestServer(t)
	api := apiClient(t, ts)
	id := api.ok("POST", "/v1/sessions", map[string]any{"agent": newAgent(t, api, ""), "environment_id": acmeStaging}).get("id").String()
	items := func() []string {
		var out []string
		for _, it := range api.ok("GET", "/v1/environments/"+acmeStaging+"/work?limit=100", nil).get("data").Array() {
			if it.Get("data.id").String() == id {
				out = append(out, it.Get("id").String()+" "+it.Get("state").String())
			}
		}
		return out
	}
	first := items()
	if len(first) != 1 {
		t.Fatalf("items of the session = %v, want one", first)
	}
	api.ok("POST", "/v1/sessions/"+id+"/events", map[string]any{"events": []any{map[string]any{"type": "user.interrupt"}}})
	if got := items(); len(got) != 1 {
		t.Fatalf("an event while the item is queued queued more: %v", got)
	}
	workID := strings.Fields(first[0])[0]
	api.ok("POST", "/v1/environments/"+acmeStaging+"/work/"+workID+"/stop", map[string]any{"force": true})
	api.ok("POST", "/v1/sessions/"+id+"/events", userMessage("are you there?"))
	got := items()
	if len(got) != 2 || !strings.HasSuffix(got[1], " queued") {
		t.Fatalf("items of the session after a message to it, dormant = %v, want its stopped item and a new queued one", got)
	}
}

// The official SDK's examples send a message and then open the stream, and read it until the
// session is idle: the fake's agent has answered by then, and the stream carries that turn.
func TestSessionStreamAfterSend(t *testing.T) {
	ts := NewTestServer(t)
	api := apiClient(t, ts)
	id := cloudSession(t, api)
	sent := api.ok("POST", "/v1/sessions/"+id+"/events", userMessage("Hello"))
	if n := sent.get("data.#").Int(); n != 1 {
		t.Fatalf("sent = %s, want the one stored user.message", sent.body)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, "GET", ts.URL+"/v1/sessions/"+id+"/events/stream", nil)
	req.Header.Set("X-Api-Key", core.DefaultAPIKey)
	req.Header.Set("Vendor-Version", core.APIVersion)
	resp, err := ts.Server.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var names []string
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		if name, ok := strings.CutPrefix(sc.Text(), "event: "); ok {
			if names = append(names, name); name == "session.status_idle" {
				break
			}
		}
	}
	want := "user.message session.status_running span.model_request_start agent.message span.model_request_end session.status_idle"
	if got := strings.Join(names, " "); got != want {
		t.Errorf("stream after a send = %s, want %s", got, want)
	}
}

// A denied call is never run: the agent says so and ends the turn; nobody posts a result.
func TestSessionDeniedCall(t *testing.T) {
	ts := NewTestServer(t)
	api := apiClient(t, ts)
	id := api.ok("POST", "/v1/sessions", map[string]any{"agent": newAgent(t, api, "always_ask"), "environment_id": acmePrimary}).get("id").String()
	api.ok("POST", "/v1/sessions/"+id+"/events", userMessage("$ rm -rf /"))
	_, r := eventTypes(t, api, id)
	callID := r.get(`data.#(type=="agent.tool_use").id`).String()
	if r := api.do("POST", "/v1/sessions/"+id+"/events", map[string]any{"events": []any{map[string]any{"type": "user.tool_confirmation", "tool_use_id": callID, "result": "allow", "deny_message": "x"}}}); r.status != 400 || !strings.HasPrefix(r.get("error.message").String(), "events.0.deny_message:") {
		t.Errorf("deny_message with allow = %d %s, want 400 naming events.0.deny_message", r.status, r.body)
	}
	api.ok("POST", "/v1/sessions/"+id+"/events", map[string]any{"events": []any{map[string]any{"type": "user.tool_confirmation", "tool_use_id": callID, "result": "deny", "deny_message": "not that"}}})
	_, r = eventTypes(t, api, id)
	if got := r.get(`data.#(type=="agent.message").content.0.text`).String(); got != "The call was denied: not that" {
		t.Errorf("answer to a denied call = %q", got)
	}
	if got := r.get("data.@reverse.0.stop_reason.type").String(); got != "end_turn" {
		t.Errorf("last stop_reason = %s, want end_turn", got)
	}
	if r := api.do("POST", "/v1/sessions/"+id+"/events", map[string]any{"events": []any{map[string]any{"type": "user.tool_result", "tool_use_id": callID}}}); r.status != 400 {
		t.Errorf("a result for the denied call = %d, want 400", r.status)
	}
}

// Resources: given at creation with their defaults, files added later, listed in order and
// paged, read, a repository's token replaced (never shown), removed.
func TestSessionResources(t *testing.T) {
	ts := NewTestServer(t)
	api := apiClient(t, ts)
	s := api.ok("POST", "/v1/sessions", map[string]any{"agent": newAgent(t, api, ""), "environment_id": acmeStaging, "resources": []any{
		map[string]any{"type": "github_repository", "url": "https://github.com/acme/widgets.git", "authorization_token": "ghp_secret"},
		map[string]any{"type": "memory_store", "memory_store_id": "memstore_01prefs"},
	}})
	id := s.get("id").String()
	repo := s.get("resources.0")
	if repo.Get("mount_path").String() != "/workspace/widgets" || repo.Get("authorization_token").Exists() || !strings.HasPrefix(repo.Get("id").String(), "sesrsc_") {
		t.Errorf("repository = %s, want /workspace/widgets, an sesrsc_ id and no token", repo.Raw)
	}
	if got := s.get("resources.1.access").String(); got != "read_write" {
		t.Errorf("memory store access = %q, want read_write", got)
	}
	fileID := uploadCSV(t, ts, core.DefaultAPIKey, "data.csv")
	file := api.ok("POST", "/v1/sessions/"+id+"/resources", map[string]any{"type": "file", "file_id": fileID})
	if got := file.get("mount_path").String(); got != "/mnt/session/uploads/"+fileID {
		t.Errorf("file mount_path = %q", got)
	}
	page := api.ok("GET", "/v1/sessions/"+id+"/resources?limit=2", nil)
	next := api.ok("GET", "/v1/sessions/"+id+"/resources?limit=2&page="+page.get("next_page").String(), nil)
	if page.get("data.#").Int() != 2 || next.get("data.0.id").String() != file.get("id").String() || next.get("next_page").Type != 0 {
		t.Fatalf("pages = %s / %s, want the three in order", page.body, next.body)
	}
	if n := api.ok("GET", "/v1/sessions/"+id+"/resources", nil).get("data.#").Int(); n != 3 {
		t.Errorf("without limit: %d resources, want all 3", n)
	}
	up := api.ok("POST", "/v1/sessions/"+id+"/resources/"+repo.Get("id").String(), map[string]any{"authorization_token": "ghp_new"})
	if up.get("authorization_token").Exists() {
		t.Errorf("update = %s, shows the token", up.body)
	}
	if r := api.do("POST", "/v1/sessions/"+id+"/resources/"+file.get("id").String(), map[string]any{"authorization_token": "x"}); r.status != 400 || !strings.HasPrefix(r.get("error.message").String(), "authorization_token:") {
		t.Errorf("a token for a file = %d %s, want 400 naming authorization_token", r.status, r.body)
	}
	api.ok("DELETE", "/v1/sessions/"+id+"/resources/"+file.get("id").String(), nil)
	if r := api.do("GET", "/v1/sessions/"+id+"/resources/"+file.get("id").String(), nil); r.status != 404 {
		t.Errorf("a removed resource = %d, want 404", r.status)
	}
	if n := api.ok("GET", "/v1/sessions/"+id, nil).get("resources.#").Int(); n != 2 {
		t.Errorf("the session lists %d resources, want 2", n)
	}
	if r := api.do("POST", "/v1/sessions/"+id+"/resources", map[string]any{"type": "file", "file_id": "nope"}); r.status != 400 || !strings.HasPrefix(r.get("error.message").String(), "file_id:") {
		t.Errorf("a malformed file_id = %d %s, want 400 naming file_id", r.status, r.body)
	}
}

// A session keeps at most MaxEvents events: the batch that would pass the bound is refused with a
// 400 and stores none of its events.
func TestSessionEventsAreBounded(t *testing.T) {
	ts := NewTestServer(t)
	api := apiClient(t, ts)
	id := cloudSession(t, api)
	batch := []any{}
	for range 50 {
		batch = append(batch, userMessage("x")["events"].([]any)[0])
	}
	for i := 0; ; i++ {
		if i > sessions.MaxEvents/50 {
			t.Fatalf("%d batches of 50 messages (6 events each) were all kept, past the bound of %d events", i, sessions.MaxEvents)
		}
		r := api.do("POST", "/v1/sessions/"+id+"/events", map[string]any{"events": batch})
		if r.status == 200 {
			continue
		}
		if r.status != http.StatusBadRequest || !strings.Contains(r.get("error.message").String(), "events") {
			t.Fatalf("batch %d = %d %s, want 400 about the session's events", i, r.status, r.body)
		}
		want := int64(i * 50 * 6)
		var n int64
		for page := ""; ; {
			r := api.ok("GET", "/v1/sessions/"+id+"/events?limit=1000"+page, nil)
			n += r.get("data.#").Int()
			if r.get("next_page").Type == 0 {
				break
			}
			page = "&page=" + r.get("next_page").String()
		}
		if n != want || n > sessions.MaxEvents {
			t.Errorf("the session keeps %d events, want the %d of the batches kept (at most %d)", n, want, sessions.MaxEvents)
		}
		return
	}
}

// A session has one thread, its primary, carrying the session's status and events.
func TestSessionPrimaryThread(t *testing.T) {
	ts := NewTestServer(t)
	api, worker := apiClient(t, ts), envKeyClient(t, ts)
	id := api.ok("POST", "/v1/sessions", map[string]any{"agent": newAgent(t, api, ""), "environment_id": acmePrimary}).get("id").String()
	list := worker.ok("GET", "/v1/sessions/"+id+"/threads", nil)
	th := list.get("data.0")
	if list.get("data.#").Int() != 1 || !strings.HasPrefix(th.Get("id").String(), "sthr_") || th.Get("session_id").String() != id ||
		th.Get("parent_thread_id").Type != 0 || th.Get("status").String() != "idle" || th.Get("usage").Type != 0 {
		t.Fatalf("threads = %s, want the primary thread, idle, without a parent or usage yet", list.body)
	}
	thread := "/v1/sessions/" + id + "/threads/" + th.Get("id").String()
	api.ok("POST", "/v1/sessions/"+id+"/events", userMessage("hello"))
	if got := api.ok("GET", thread, nil); got.get("usage.output_tokens").Int() < 1 || got.get("status").String() != "idle" {
		t.Errorf("thread after a turn = %s, want idle with usage", got.body)
	}
	sessionEvents := api.ok("GET", "/v1/sessions/"+id+"/events", nil).get("data.#.id").Raw
	if got := worker.ok("GET", thread+"/events", nil).get("data.#.id").Raw; got != sessionEvents {
		t.Errorf("thread events = %s, want the session's %s", got, sessionEvents)
	}
	if n := api.ok("GET", "/v1/sessions/"+id+"/threads?statuses[]=running", nil).get("data.#").Int(); n != 0 {
		t.Errorf("running threads of an idle session: %d, want 0", n)
	}
	if r := api.do("GET", "/v1/sessions/"+id+"/threads/sthr_nope", nil); r.status != http.StatusNotFound {
		t.Errorf("an unknown thread = %d, want 404", r.status)
	}
	if r := api.do("GET", "/v1/sessions/"+id+"/threads/sthr_nope/stream", nil); r.status != http.StatusNotFound {
		t.Errorf("the stream of an unknown thread = %d, want 404", r.status)
	}
}
