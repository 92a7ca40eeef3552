package fake

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/platformkit/platformkit/fake/internal/core"
)

// sessionsWorld is a world of sessions in every state a snapshot must carry, built against one
// server through the API.
type sessionsWorld struct {
	waiting, asking, custom, ended, archived, resources, deleted string
	waitingCall, askingCall, customCall                          string
	work, token                                                  string // the waiting session's work item and its sessions token
	kept                                                         string // a file a resource may name
	pages                                                        []string
}

// buildSessionsWorld makes, on ts: a self-hosted session through several turns whose last call
// waits for its result; one whose call (always_ask) waits for its confirmation; a cloud one whose
// custom tool call waits; one whose turns ended, with its agent's tools changed by an update; an
// archived one; one with resources of every kind, one of them removed; and one deleted.
func buildSessionsWorld(t *testing.T, ts *TestServer) sessionsWorld {
	t.Helper()
	api, worker := apiClient(t, ts), envKeyClient(t, ts)
	var w sessionsWorld
	agent, asker := newAgent(t, api, ""), newAgent(t, api, "always_ask")
	cloud := api.ok("POST", "/v1/environments", map[string]any{"name": "cloud"}).get("id").String()
	create := func(agent, env string, more map[string]any) string {
		body := map[string]any{"agent": agent, "environment_id": env}
		for k, v := range more {
			body[k] = v
		}
		return api.ok("POST", "/v1/sessions", body).get("id").String()
	}
	lastCall := func(c *workClient, id string) string {
		_, r := eventTypes(t, c, id)
		return r.get(`data.#(type=="session.status_idle")#|@reverse|0.stop_reason.event_ids.0`).String()
	}
	result := func(c *workClient, id, call, text string) {
		c.ok("POST", "/v1/sessions/"+id+"/events", map[string]any{"events": []any{map[string]any{
			"type": "user.tool_result", "tool_use_id": call, "is_error": false, "content": []any{map[string]any{"type": "text", "text": text}}}}})
	}

	w.waiting = create(agent, acmePrimary, map[string]any{"title": "several turns", "metadata": map[string]any{"k": "v"},
		"resources": []any{map[string]any{"type": "memory_store", "memory_store_id": "memstore_01AcmeSupportAgent0000001"}},
		"budget":    map[string]any{"type": "limit", "max_list_cost": map[string]any{"amount": "1500", "currency": "USD"}}})
	for i := 0; i < 10; i++ {
		item := worker.ok("GET", workPath(acmePrimary, "/poll"), nil)
		if item.get("data.id").String() == w.waiting {
			w.work, w.token = item.get("id").String(), sessionsToken(t, item.get("secret").String())
			break
		}
	}
	if w.work == "" {
		t.Fatal("no poll handed out the waiting session's item")
	}
	worker.ok("POST", workPath(acmePrimary, "/"+w.work+"/ack"), nil)
	api.ok("POST", "/v1/sessions/"+w.waiting+"/events", userMessage("hello"))
	result(worker, w.waiting, lastCall(api, w.waiting), "/srv")
	ts.Fake.AdvanceClock(90 * time.Second)
	api.ok("POST", "/v1/sessions/"+w.waiting+"/events", userMessage("$ ls -la"))
	w.waitingCall = lastCall(api, w.waiting)

	w.asking = create(asker, acmePrimary, nil)
	api.ok("POST", "/v1/sessions/"+w.asking+"/events", userMessage("$ rm -rf /tmp/x"))
	w.askingCall = lastCall(api, w.asking)

	w.custom = create(agent, cloud, map[string]any{"vault_ids": []any{}})
	api.ok("POST", "/v1/sessions/"+w.custom+"/events", userMessage("what does get_weather say of Paris?"))
	w.customCall = lastCall(api, w.custom)

	w.ended = create(agent, cloud, nil)
	api.ok("POST", "/v1/sessions/"+w.ended+"/events", userMessage("hi <there> & you"))
	api.ok("POST", "/v1/sessions/"+w.ended, map[string]any{"title": "renamed", "metadata": map[string]any{"k": "v2"},
		"agent": map[string]any{"tools": []any{map[string]any{"type": "custom", "name": "lookup", "description": "Look up",
			"input_schema": map[string]any{"type": "object", "properties": map[string]any{"id": map[string]any{"type": "string", "maxLength": 1e3}}}}}}})
	api.ok("POST", "/v1/sessions/"+w.ended+"/events", userMessage("use lookup please"))
	api.ok("POST", "/v1/sessions/"+w.ended+"/events", map[string]any{"events": []any{map[string]any{
		"type": "user.custom_tool_result", "custom_tool_use_id": lastCall(api, w.ended), "content": []any{map[string]any{"type": "text", "text": "found it"}}}}})

	w.archived = create(agent, cloud, nil)
	api.ok("POST", "/v1/sessions/"+w.archived+"/events", userMessage("bye"))
	ts.Fake.AdvanceClock(time.Minute)
	api.ok("POST", "/v1/sessions/"+w.archived+"/archive", nil)

	file, kept := uploadCSV(t, ts, core.DefaultAPIKey, "data.csv"), uploadCSV(t, ts, core.DefaultAPIKey, "more.csv")
	w.kept = kept
	w.resources = create(agent, cloud, map[string]any{"resources": []any{
		map[string]any{"type": "file", "file_id": file},
		map[string]any{"type": "github_repository", "url": "https://github.com/acme/app.git", "authorization_token": "ghp_x", "checkout": map[string]any{"type": "branch", "name": "main"}},
		map[string]any{"type": "memory_store", "memory_store_id": "memstore_01prefs", "access": "read_only", "instructions": "Preferences."}}})
	first := api.ok("GET", "/v1/sessions/"+w.resources+"/resources", nil).get("data.0.id").String()
	api.ok("POST", "/v1/sessions/"+w.resources+"/resources", map[string]any{"type": "file", "file_id": kept})
	api.ok("DELETE", "/v1/sessions/"+w.resources+"/resources/"+first, nil)
	api.ok("DELETE", "/v1/files/"+file, nil) // the session still names it

	w.deleted = create(agent, cloud, nil)
	api.ok("DELETE", "/v1/sessions/"+w.deleted, nil)
	ts.Fake.AdvanceClock(30 * time.Second)

	// Page tokens a client holds across the snapshot.
	w.pages = []string{
		api.ok("GET", "/v1/sessions?limit=2", nil).get("next_page").String(),
		api.ok("GET", "/v1/sessions/"+w.waiting+"/events?limit=3", nil).get("next_page").String(),
		api.ok("GET", "/v1/sessions/"+w.resources+"/resources?limit=1", nil).get("next_page").String(),
	}
	return w
}

// sessionReads are the answers of every read of the world's sessions, in order, each as
// "METHOD path -> status body".
func sessionReads(t *testing.T, ts *TestServer, w sessionsWorld) []string {
	t.Helper()
	api, worker := apiClient(t, ts), envKeyClient(t, ts)
	token := &workClient{t, ts, "Authorization", "Bearer " + w.token}
	type read struct {
		c    *workClient
		path string
	}
	reads := []read{
		// First, before any read of a session: the memory stores a session mounts are what its
		// sessions token reaches.
		{token, "/v1/memory_stores/memstore_01AcmeSupportAgent0000001/memories"},
		{api, "/v1/sessions"}, {api, "/v1/sessions?include_archived=true&order=asc"}, {api, "/v1/sessions?limit=2"},
		{api, "/v1/sessions?limit=2&page=" + w.pages[0]}, {api, "/v1/sessions?statuses[]=terminated&include_archived=true"},
		{api, "/v1/sessions?memory_store_id=memstore_01prefs"},
		{api, "/v1/sessions/" + w.waiting + "/events?limit=3&page=" + w.pages[1]},
		{api, "/v1/sessions/" + w.resources + "/resources?limit=1&page=" + w.pages[2]},
		{token, "/v1/sessions/" + w.waiting}, {token, "/v1/sessions/" + w.waiting + "/events"},
		{token, workPath(acmePrimary, "/"+w.work)},
	}
	for _, id := range []string{w.waiting, w.asking, w.custom, w.ended, w.archived, w.resources} {
		thread := "sthr_" + strings.TrimPrefix(id, "sesn_")
		for _, p := range []string{"", "/events?limit=1000", "/events?order=desc&limit=2", "/events?types[]=agent.message",
			"/resources", "/resources?limit=1", "/threads", "/threads/" + thread, "/threads/" + thread + "/events"} {
			reads = append(reads, read{api, "/v1/sessions/" + id + p})
		}
		reads = append(reads, read{worker, "/v1/sessions/" + id})
	}
	reads = append(reads, read{api, "/v1/sessions/" + w.deleted})
	var out []string
	for _, r := range reads {
		got := r.c.do("GET", r.path, nil)
		out = append(out, fmt.Sprintf("GET %s -> %d %s", r.path, got.status, got.body))
	}
	return out
}

// continueSessions answers every waiting call and starts a session, and returns what each
// answer and the sessions' events then are.
func continueSessions(t *testing.T, ts *TestServer, w sessionsWorld) []string {
	t.Helper()
	api := apiClient(t, ts)
	token := &workClient{t, ts, "Authorization", "Bearer " + w.token}
	var out []string
	send := func(c *workClient, id string, ev map[string]any) {
		r := c.do("POST", "/v1/sessions/"+id+"/events", map[string]any{"events": []any{ev}})
		out = append(out, fmt.Sprintf("send to %s -> %d %s", id, r.status, r.body))
	}
	send(token, w.waiting, map[string]any{"type": "user.tool_result", "tool_use_id": w.waitingCall, "content": []any{map[string]any{"type": "text", "text": "total 0"}}})
	send(api, w.asking, map[string]any{"type": "user.tool_confirmation", "tool_use_id": w.askingCall, "result": "allow"})
	send(api, w.asking, map[string]any{"type": "user.tool_result", "tool_use_id": w.askingCall, "is_error": true, "content": []any{map[string]any{"type": "text", "text": "denied by fs"}}})
	send(api, w.custom, map[string]any{"type": "user.custom_tool_result", "custom_tool_use_id": w.customCall, "content": []any{map[string]any{"type": "text", "text": "sunny"}}})
	send(api, w.ended, map[string]any{"type": "user.message", "content": []any{map[string]any{"type": "text", "text": "again"}}})
	// The worker lets go of the waiting session (its item stops): the session's next message
	// queues a new work item for it.
	r := token.do("POST", workPath(acmePrimary, "/"+w.work+"/stop"), map[string]any{"force": true})
	out = append(out, fmt.Sprintf("stop -> %d %s", r.status, r.body))
	send(api, w.waiting, map[string]any{"type": "user.message", "content": []any{map[string]any{"type": "text", "text": "$ whoami"}}})
	r = api.do("GET", workPath(acmePrimary, "?limit=100"), nil)
	out = append(out, fmt.Sprintf("work -> %d %s", r.status, r.body))
	// A repository's token changes (its updated_at with it).
	repo := api.do("GET", "/v1/sessions/"+w.resources+"/resources", nil).get(`data.#(type=="github_repository").id`).String()
	r = api.do("POST", "/v1/sessions/"+w.resources+"/resources/"+repo, map[string]any{"authorization_token": "ghp_new"})
	out = append(out, fmt.Sprintf("update a resource -> %d %s", r.status, r.body))
	// A new resource gets the next ID (and the next place in the resources' order).
	r = api.do("POST", "/v1/sessions/"+w.resources+"/resources", map[string]any{"type": "file", "file_id": w.kept})
	out = append(out, fmt.Sprintf("add a resource -> %d %s", r.status, r.body))
	r = api.do("GET", "/v1/sessions/"+w.resources+"/resources?limit=2", nil)
	out = append(out, fmt.Sprintf("resources -> %d %s", r.status, r.body))
	for _, id := range []string{w.waiting, w.asking, w.custom, w.ended} {
		r := api.do("GET", "/v1/sessions/"+id+"/events?limit=1000", nil)
		out = append(out, fmt.Sprintf("events of %s -> %d %s", id, r.status, r.body))
		r = api.do("GET", "/v1/sessions/"+id, nil)
		out = append(out, fmt.Sprintf("session %s -> %d %s", id, r.status, r.body))
	}
	return out
}

// sameAnswers fails t where two runs' answers differ, naming the first difference.
func sameAnswers(t *testing.T, what string, want, got []string) {
	t.Helper()
	if len(want) != len(got) {
		t.Fatalf("%s: %d answers, want %d", what, len(got), len(want))
	}
	for i := range want {
		if want[i] != got[i] {
			t.Errorf("%s differs:\n got %s\nwant %s", what, got[i], want[i])
			return
		}
	}
}

// A world of sessions saved and loaded into a new server continues exactly: every read of its
// sessions (sessions, lists with their page tokens, events, resources, threads, through the API
// key, the environment key and the waiting session's per-item sessions token) answers byte for
// byte as on the original; answering the calls that wait (a tool result, a confirmation then a
// result, a custom tool's result) runs the rest of each turn with the same events, byte for byte,
// and a new resource gets the ID it would have got. POST /_fake/reset on a server that loaded the
// snapshot comes back to the snapshot's sessions.
func TestSessionsSnapshotContinues(t *testing.T) {
	orig := NewTestServer(t)
	w := buildSessionsWorld(t, orig)
	snap, err := orig.Fake.Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(snap["sessions.json"], w.waitingCall) {
		t.Fatalf("sessions.json does not hold the waiting call:\n%s", snap["sessions.json"])
	}
	fx, err := snap.Fixtures()
	if err != nil {
		t.Fatalf("the snapshot does not load: %v", err)
	}
	loaded := NewTestServer(t, WithFixtures(fx))
	reloaded := NewTestServer(t)
	if err := reloaded.Fake.LoadSnapshot(snap); err != nil {
		t.Fatal(err)
	}

	want := sessionReads(t, orig, w)
	if !strings.Contains(want[0], "-> 200 ") {
		t.Fatalf("the sessions token does not reach the memory store its session mounts: %s", want[0])
	}
	sameAnswers(t, "a read of the loaded world", want, sessionReads(t, loaded, w))
	sameAnswers(t, "a read of the world loaded by LoadSnapshot", want, sessionReads(t, reloaded, w))

	cont := continueSessions(t, orig, w)
	for _, r := range cont[:10] {
		if !strings.Contains(r, "-> 200 ") {
			t.Fatalf("continuing the original world: %s", r)
		}
	}
	sameAnswers(t, "the continued turn of the loaded world", cont, continueSessions(t, loaded, w))
	sameAnswers(t, "the continued turn of the world loaded by LoadSnapshot", cont, continueSessions(t, reloaded, w))

	if r := send(t, reloaded.Fake, http.MethodPost, "/_fake/reset", ""); r.Code != http.StatusOK {
		t.Fatalf("reset: %d %s", r.Code, r.Body)
	}
	sameAnswers(t, "a read after POST /_fake/reset of the world loaded by LoadSnapshot", want, sessionReads(t, reloaded, w))
	sameAnswers(t, "the continued turn after the reset", cont, continueSessions(t, reloaded, w))
}

// The events a send made that no client has looked at yet are what a stream opened next carries
// first: on the loaded world as on the original.
func TestSessionsSnapshotKeepsUnseenEvents(t *testing.T) {
	orig := NewTestServer(t)
	api := apiClient(t, orig)
	id := api.ok("POST", "/v1/sessions", map[string]any{"agent": newAgent(t, api, ""), "environment_id": acmeStaging}).get("id").String()
	api.ok("POST", "/v1/sessions/"+id+"/events", userMessage("hello"))
	snap, err := orig.Fake.Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	loaded := NewTestServer(t)
	if err := loaded.Fake.LoadSnapshot(snap); err != nil {
		t.Fatal(err)
	}
	want := streamUntilIdle(t, orig, id)
	if !strings.Contains(want, "event: user.message") {
		t.Fatalf("the original's stream does not carry the send's turn:\n%s", want)
	}
	if got := streamUntilIdle(t, loaded, id); got != want {
		t.Errorf("the loaded world's stream carries\n%s\nwant\n%s", got, want)
	}
}

// streamUntilIdle opens a session's event stream and reads it up to the first
// session.status_idle, or for two seconds.
func streamUntilIdle(t *testing.T, ts *TestServer, id string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, "GET", ts.URL+"/v1/sessions/"+id+"/events/stream", nil)
	req.Header.Set("X-Api-Key", "test-api-key")
	req.Header.Set("vendor-version", core.APIVersion)
	req.Header.Set("vendor-beta", "managed-agents-2026-04-01")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var b bytes.Buffer
	buf := make([]byte, 4096)
	for !strings.Contains(b.String(), "event: session.status_idle") {
		n, err := resp.Body.Read(buf)
		b.Write(buf[:n])
		if err != nil {
			break
		}
	}
	return b.String()
}

// Snapshots taken while a self-hosted session takes messages neither wait forever nor miss a
// part: a send holds the sessions' lock while it asks the work area of its item, so a snapshot
// that held the work area's lock and waited for the sessions' would wait for that send forever.
func TestSessionsSnapshotDuringTurns(t *testing.T) {
	ts := NewTestServer(t)
	api := apiClient(t, ts)
	id := api.ok("POST", "/v1/sessions", map[string]any{"agent": newAgent(t, api, ""), "environment_id": acmePrimary}).get("id").String()
	done := make(chan struct{})
	go func() {
		defer close(done)
		for i := 0; i < 40; i++ {
			// do, not ok: FailNow belongs to the test's goroutine.
			if r := api.do("POST", "/v1/sessions/"+id+"/events", userMessage(fmt.Sprintf("$ echo %d", i))); r.status != http.StatusOK {
				t.Errorf("message %d: %d %s", i, r.status, r.body)
				return
			}
			call := api.do("GET", "/v1/sessions/"+id+"/events?limit=1000", nil).get(`data.#(type=="agent.tool_use")#|@reverse|0.id`).String()
			if r := api.do("POST", "/v1/sessions/"+id+"/events", map[string]any{"events": []any{map[string]any{
				"type": "user.tool_result", "tool_use_id": call, "content": []any{map[string]any{"type": "text", "text": "ok"}}}}}); r.status != http.StatusOK {
				t.Errorf("result %d: %d %s", i, r.status, r.body)
				return
			}
		}
	}()
	snaps := make(chan error)
	go func() {
		for {
			select {
			case <-done:
				close(snaps)
				return
			default:
			}
			_, err := ts.Fake.Snapshot()
			snaps <- err
		}
	}()
	timeout := time.After(20 * time.Second) // a snapshot of this world takes milliseconds
	for n := 0; ; n++ {
		select {
		case err, ok := <-snaps:
			if !ok {
				t.Logf("%d snapshots during the turns", n)
				return
			}
			if err != nil {
				t.Fatal(err)
			}
		case <-timeout:
			t.Fatalf("no snapshot and no send for 20 s after %d snapshots: they wait for each other", n)
		}
	}
}
