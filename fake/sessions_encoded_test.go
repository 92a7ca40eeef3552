package fake

import (
	"net/http"
	"strings"
	"testing"
)

// TestSessionReadsAfterChange: a session's read and its list item are the bytes encoded by the
// first read after a change (sessions keep them). After each kind of change the next read and
// the next page show it, and both agree byte for byte.
func TestSessionReadsAfterChange(t *testing.T) {
	ts := NewTestServer(t)
	api := apiClient(t, ts)
	env := api.ok("POST", "/v1/environments", map[string]any{"name": "cloud", "config": map[string]any{"type": "cloud"}}).get("id").String()
	agent := api.ok("POST", "/v1/agents", agentBody("cached")).get("id").String()
	id := api.ok("POST", "/v1/sessions", map[string]any{"agent": agent, "environment_id": env, "title": "first"}).get("id").String()
	// read returns the session as read alone, after checking that the list gives the same bytes.
	read := func(after string) reply {
		t.Helper()
		one := api.ok("GET", "/v1/sessions/"+id, nil)
		listed := api.ok("GET", "/v1/sessions?include_archived=true&limit=100", nil).get(`data.#(id=="` + id + `")`).Raw
		if listed != strings.TrimSpace(string(one.body)) {
			t.Fatalf("after %s the list gives\n%s\nand reading the session\n%s", after, listed, one.body)
		}
		return one
	}
	if got := read("create").get("title").String(); got != "first" {
		t.Fatalf("title %q after create, want first", got)
	}
	read("a second read") // from the bytes the first encoded

	api.ok("POST", "/v1/sessions/"+id, map[string]any{"title": "second", "metadata": map[string]any{"k": "v"}})
	if r := read("update"); r.get("title").String() != "second" || r.get("metadata.k").String() != "v" {
		t.Fatalf("after update: title %q, metadata.k %q; want second, v", r.get("title").String(), r.get("metadata.k").String())
	}

	before := read("update").get("stats.duration_seconds").Float()
	advance(ts, 60)
	if got := read("the clock moved").get("stats.duration_seconds").Float(); got != before+60 {
		t.Fatalf("duration_seconds %v after 60 s, want %v", got, before+60)
	}

	if got := read("nothing").get("usage.output_tokens").Int(); got != 0 {
		t.Fatalf("output_tokens %d before any turn, want 0", got)
	}
	api.ok("POST", "/v1/sessions/"+id+"/events", userMessage("hello"))
	if r := read("a turn"); r.get("usage.output_tokens").Int() == 0 || r.get("status").String() != "idle" {
		t.Fatalf("after a turn: usage %s, status %q; want output tokens counted and idle", r.get("usage").Raw, r.get("status").String())
	}

	api.ok("POST", "/v1/sessions/"+id+"/archive", nil)
	if got := read("archive").get("archived_at").String(); got == "" {
		t.Fatal("archived_at is null after archive")
	}
}

// TestSessionThreadArchive: the primary thread is archived with its session. Archiving it alone
// is a 400 naming thread_id and the route that archives both; once the session is archived it
// answers the thread, archived, again and again; an unknown thread is a 404, and the
// environment key, which may read a session but not end it, gets a 403.
func TestSessionThreadArchive(t *testing.T) {
	ts := NewTestServer(t)
	api, worker := apiClient(t, ts), envKeyClient(t, ts)
	id := api.ok("POST", "/v1/sessions", map[string]any{"agent": newAgent(t, api, ""), "environment_id": acmePrimary}).get("id").String()
	thread := "/v1/sessions/" + id + "/threads/" + api.ok("GET", "/v1/sessions/"+id+"/threads", nil).get("data.0.id").String()
	r := api.do("POST", thread+"/archive", nil)
	if msg := r.get("error.message").String(); r.status != http.StatusBadRequest || !strings.HasPrefix(msg, "thread_id: ") || !strings.Contains(msg, "/v1/sessions/"+id+"/archive") {
		t.Fatalf("archiving the primary thread of a live session = %d %s, want 400 naming thread_id and the session's archive", r.status, r.body)
	}
	if r := worker.do("POST", thread+"/archive", nil); r.status != http.StatusForbidden {
		t.Errorf("archiving with the environment key = %d, want 403", r.status)
	}
	if r := api.do("POST", "/v1/sessions/"+id+"/threads/sthr_nope/archive", nil); r.status != http.StatusNotFound {
		t.Errorf("archiving an unknown thread = %d, want 404", r.status)
	}
	archivedAt := api.ok("POST", "/v1/sessions/"+id+"/archive", nil).get("archived_at").String()
	for range 2 {
		if got := api.ok("POST", thread+"/archive", nil); got.get("archived_at").String() != archivedAt || got.get("type").String() != "session_thread" {
			t.Fatalf("archiving the thread of an archived session = %s, want the thread archived at %s", got.body, archivedAt)
		}
	}
}
