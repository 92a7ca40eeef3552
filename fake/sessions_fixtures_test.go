package fake

import (
	"encoding/json"
	"fmt"
	"io/fs"
	"slices"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/platformkit/platformkit/fake/internal/areas/sessions"
	"github.com/platformkit/platformkit/fake/internal/core"
	"github.com/platformkit/platformkit/fixtures"
)

// editSessions returns snap with its sessions.json changed by edit, which gets the file's
// sessions decoded.
func editSessions(t *testing.T, snap Snapshot, edit func(sessions []map[string]any) []map[string]any) Snapshot {
	t.Helper()
	var file struct {
		Sessions []map[string]any `json:"sessions"`
	}
	if err := json.Unmarshal([]byte(snap["sessions.json"]), &file); err != nil {
		t.Fatal(err)
	}
	file.Sessions = edit(file.Sessions)
	data, err := json.MarshalIndent(file, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	out := Snapshot{}
	for k, v := range snap {
		out[k] = v
	}
	out["sessions.json"] = string(data)
	return out
}

// ownSessions returns snap without the default data set's sessions, so that the test's own come
// first: its items give their state, as a snapshot's do, and load without their sessions.
func ownSessions(t *testing.T, snap Snapshot) Snapshot {
	t.Helper()
	defaults := fixtureSessions(t, "")
	return editSessions(t, snap, func(ss []map[string]any) []map[string]any {
		return slices.DeleteFunc(ss, func(s map[string]any) bool { return slices.Contains(defaults, s["id"].(string)) })
	})
}

// fixtureSessions is the IDs of the default data set's sessions (fixtures/sessions.json), oldest
// first; with status, those in it.
func fixtureSessions(t *testing.T, status string) []string {
	t.Helper()
	raw, err := fs.ReadFile(fixtures.FS(), "sessions.json")
	if err != nil {
		t.Fatal(err)
	}
	var file struct{ Sessions []struct{ ID, Status string } }
	if err := json.Unmarshal(raw, &file); err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, s := range file.Sessions {
		if status == "" || s.Status == status {
			ids = append(ids, s.ID)
		}
	}
	return ids
}

// Every mistake in sessions.json is refused naming the file and the field, the whole data set
// with it; what the API lets dangle (an environment or a file deleted under a session) loads.
func TestSessionsFixturesNameTheirMistakes(t *testing.T) {
	ts := NewTestServer(t)
	api := apiClient(t, ts)
	file := uploadCSV(t, ts, core.DefaultAPIKey, "data.csv")
	foreign := uploadCSV(t, ts, core.DefaultAPIKey+core.SecondOrganizationSuffix, "other.csv")
	id := api.ok("POST", "/v1/sessions", map[string]any{"agent": newAgent(t, api, ""), "environment_id": acmePrimary,
		"resources": []any{map[string]any{"type": "file", "file_id": file}}}).get("id").String()
	api.ok("POST", "/v1/sessions/"+id+"/events", userMessage("hello"))
	snap, err := ts.Fake.Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	snap = ownSessions(t, snap)
	if _, err := snap.Fixtures(); err != nil {
		t.Fatalf("the snapshot does not load: %v", err)
	}
	events := func(s map[string]any) []any { return s["events"].([]any) }
	firstID := func(s map[string]any) string {
		var ev map[string]any
		_ = json.Unmarshal([]byte(events(s)[0].(string)), &ev)
		return ev["id"].(string)
	}
	for _, tc := range []struct {
		name string
		edit func(s map[string]any)
		want string // "" when the data set loads
	}{
		{"unknown organization", func(s map[string]any) { s["organization_id"] = "org_nope" }, "sessions.json: sessions.0.organization_id: unknown organization org_nope"},
		{"another organization's environment", func(s map[string]any) { s["environment_id"] = globexPrimary },
			"sessions.json: sessions.0.environment_id: environment " + globexPrimary + " is another organization's"},
		{"unknown environment", func(s map[string]any) {
			s["environment_id"] = "env_gone"
			delete(s, "self_hosted")
			delete(s, "work_id")
		},
			"sessions.json: sessions.0.environment_id: environments.json has no environment env_gone"},
		{"deleted environment", func(s map[string]any) { s["environment_id"] = "env_gone"; delete(s, "work_id") }, ""},
		{"another session's work item", func(s map[string]any) { s["work_id"] = "work_01AcmeQueuedReview0000001" }, "sessions.json: sessions.0.work_id: environments.json has no work item"},
		{"another organization's file", func(s map[string]any) {
			r := s["resources"].([]any)[0].(map[string]any)
			r["file_id"] = foreign
		}, "sessions.json: sessions.0.resources.0.file_id: file " + foreign + " is another organization's"},
		{"deleted file", func(s map[string]any) { s["resources"].([]any)[0].(map[string]any)["file_id"] = "file_gone" }, ""},
		{"agent not JSON", func(s map[string]any) { s["agent"] = "{agent" }, "sessions.json: sessions.0.agent: not a JSON text"},
		{"agent not a session's", func(s map[string]any) { s["agent"] = `{"id":"agent_x","type":"agent"}` }, "sessions.json: sessions.0 (" + id + ") is not a session as the API answers it"},
		{"not an event", func(s map[string]any) {
			events(s)[1] = `{"id":"sevt_x","type":"nope","processed_at":"2026-01-01T00:00:00Z"}`
		}, "sessions.json: sessions.0.events.1: not an event as the API lists it"},
		{"event ID twice", func(s map[string]any) { events(s)[1] = events(s)[0] }, "sessions.json: sessions.0.events.1: event ID " + firstID(snapMap(t, snap)) + " is used twice: at sessions.0.events.0"},
		{"events out of order", func(s map[string]any) {
			events(s)[1] = `{"id":"sevt_early","type":"session.status_running","processed_at":"2025-01-01T00:00:00Z"}`
		}, "sessions.json: sessions.0.events.1.processed_at: 2025-01-01T00:00:00Z is before the event before it"},
		{"awaiting no call", func(s map[string]any) { s["awaiting"].([]any)[0].(map[string]any)["event_id"] = firstID(s) },
			"sessions.json: sessions.0.awaiting.0.event_id: event " + firstID(snapMap(t, snap)) + " is a user.message, not a call"},
		{"awaiting the wrong answer", func(s map[string]any) {
			s["awaiting"].([]any)[0].(map[string]any)["waiting"] = "user.tool_confirmation"
		},
			"sessions.json: sessions.0.awaiting.0.waiting: the call"},
		{"awaiting while terminated", func(s map[string]any) { s["status"] = "terminated" }, "sessions.json: sessions.0.awaiting: a session waits for calls only while idle; this one is terminated"},
		{"archived, not terminated", func(s map[string]any) { s["archived_at"] = "2026-01-01T00:00:00Z"; delete(s, "awaiting") },
			"sessions.json: sessions.0.status: an archived session is terminated, not idle"},
		{"too many unseen events", func(s map[string]any) { s["unseen_events"] = 99 }, "sessions.json: sessions.0.unseen_events: 99, but the session has"},
		{"places of resources", func(s map[string]any) { s["resource_places"] = []any{2, 1} }, "sessions.json: sessions.0.resource_places: gives 2 places for 1 resources"},
		{"a reply kept by no answer", func(s map[string]any) { s["replies"] = map[string]any{firstID(s): "[]"} },
			"sessions.json: sessions.0.replies." + firstID(snapMap(t, snap)) + ": an answer is kept by its span.model_request_end event; " + firstID(snapMap(t, snap)) + " is user.message"},
		{"a reply not blocks", func(s map[string]any) {
			for k := range s["replies"].(map[string]any) {
				s["replies"].(map[string]any)[k] = "{x"
			}
		}, "the content of an answer, a JSON array of blocks"},
		{"a call ID of no call", func(s map[string]any) { s["call_ids"] = map[string]any{"sevt_gone": "toolu_x"} },
			"sessions.json: sessions.0.call_ids.sevt_gone: a call's ID is kept by its call event (agent.tool_use, agent.custom_tool_use, agent.mcp_tool_use); sevt_gone is no event of the session"},
		{"a status the schema has not", func(s map[string]any) { s["status"] = "sleeping" }, "sessions.json: fixtures/sessions: sessions.0.status: value must be one of"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			bad := editSessions(t, snap, func(ss []map[string]any) []map[string]any { tc.edit(ss[0]); return ss })
			_, err := bad.Fixtures()
			switch {
			case tc.want == "" && err != nil:
				t.Errorf("refused: %v", err)
			case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
				t.Errorf("error = %v, want one naming %q", err, tc.want)
			}
		})
	}
	// The shared check of duplicate IDs names both places.
	twice := editSessions(t, snap, func(ss []map[string]any) []map[string]any {
		c := map[string]any{}
		for k, v := range ss[0] {
			c[k] = v
		}
		c["events"] = []any{}
		delete(c, "awaiting")
		delete(c, "resources")
		delete(c, "replies")
		delete(c, "call_ids")
		return append(ss, c)
	})
	if _, err := twice.Fixtures(); err == nil || !strings.Contains(err.Error(), `id "`+id+`" is used twice: at sessions.json:`) || !strings.Contains(err.Error(), "(sessions.1.id)") {
		t.Errorf("a session ID twice: %v, want both places named", err)
	}
}

// snapMap is the first session of a snapshot's sessions.json.
func snapMap(t *testing.T, snap Snapshot) map[string]any {
	t.Helper()
	var file struct {
		Sessions []map[string]any `json:"sessions"`
	}
	if err := json.Unmarshal([]byte(snap["sessions.json"]), &file); err != nil {
		t.Fatal(err)
	}
	return file.Sessions[0]
}

// Loaded sessions are charged to the byte budget as the requests that made them were: a session
// loaded with nearly the bytes a server's sessions may keep leaves room for less than a new one
// would, and a data set holding more than they may keep is refused naming the session.
func TestSessionsLoadIsCharged(t *testing.T) {
	if raceDetector {
		t.Skip("loads 33 MB of sessions twice: make resources holds it without -race")
	}
	ts := NewTestServer(t)
	api := apiClient(t, ts)
	id := api.ok("POST", "/v1/sessions", map[string]any{"agent": newAgent(t, api, ""), "environment_id": acmeStaging}).get("id").String()
	snap, err := ts.Fake.Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	snap = ownSessions(t, snap)
	big := strings.Repeat("x", 900_000) // a text block holds at most 1,000,000
	withEvents := func(n int) Snapshot {
		return editSessions(t, snap, func(ss []map[string]any) []map[string]any {
			var evs []any
			for i := range n {
				ev, _ := json.Marshal(map[string]any{"id": fmt.Sprintf("sevt_big%d", i), "type": "user.message", "processed_at": "2026-01-01T00:00:00Z",
					"content": []any{map[string]any{"type": "text", "text": big}}})
				evs = append(evs, string(ev))
			}
			ss[0]["events"] = evs
			return ss
		})
	}
	fx, err := withEvents(37).Fixtures()
	if err != nil {
		t.Fatal(err)
	}
	loaded := NewTestServer(t, WithFixtures(fx))
	msg := userMessage(strings.Repeat("y", 900_000)) // what a new session takes
	if r := apiClient(t, loaded).do("POST", "/v1/sessions/"+id+"/events", msg); r.status != 400 || !strings.Contains(r.get("error.message").String(), fmt.Sprintf("at most %d bytes", sessions.MaxBytes)) {
		t.Errorf("a send past the bytes the loaded sessions leave: %d %.300s, want 400 naming the bound", r.status, r.body)
	}
	if _, err := withEvents(38).Fixtures(); err == nil || !strings.Contains(err.Error(), "sessions.json: sessions.0: the sessions up to this one hold") {
		t.Errorf("a data set past the bound: %v, want it refused naming the session", err)
	}
}

// A queued work item that environments.json writes by hand serves a session of the data set in
// its environment, as the API's items do; the loader refuses one that does not, naming its
// place. An item that gives its state (a snapshot's) may name a session the API deleted, or one a
// control call's enqueue invented, and loads.
func TestWorkFixturesNameTheirSessions(t *testing.T) {
	defaults := func(edits map[string]func(string) string) fstest.MapFS {
		fsys := fstest.MapFS{}
		names, err := fs.Glob(fixtures.FS(), "*.json")
		if err != nil {
			t.Fatal(err)
		}
		for _, name := range names {
			raw, _ := fs.ReadFile(fixtures.FS(), name)
			if edit := edits[name]; edit != nil {
				raw = []byte(edit(string(raw)))
			}
			fsys[name] = &fstest.MapFile{Data: raw}
		}
		return fsys
	}
	noWorkID := func(work string) func(string) string {
		return func(s string) string { return strings.Replace(s, "\n      \"work_id\": \""+work+"\",", "", 1) }
	}
	for _, tc := range []struct {
		name  string
		edits map[string]func(string) string
		want  string // "" when the data set loads
	}{
		{"the default data set", nil, ""},
		// The session no longer names the item as its own (work_id), which would be refused first.
		{"a session the data set does not hold", map[string]func(string) string{"environments.json": func(s string) string {
			return strings.Replace(s, `"sesn_01AcmeCodeReview00000001"`, `"sesn_01AcmeNoSuchSession00001"`, 1)
		}, "sessions.json": noWorkID("work_01AcmeQueuedReview0000001")},
			"environments.json: environments.0.work.1.session_id: sessions.json holds no session sesn_01AcmeNoSuchSession00001"},
		{"the old IDs of sessions that never were", map[string]func(string) string{"environments.json": func(s string) string {
			return strings.Replace(s, `"sesn_01GlobexReportJob0000001"`, `"session_01GlobexJob000000001"`, 1)
		}, "sessions.json": noWorkID("work_01GlobexQueuedJob00000001")},
			"environments.json: environments.2.work.0.session_id: sessions.json holds no session session_01GlobexJob000000001"},
		{"no sessions.json", map[string]func(string) string{"sessions.json": func(string) string { return "" }},
			"environments.json: environments.0.work.0.session_id: sessions.json holds no session sesn_01AcmeBuildNightly000001"},
		{"a session of another environment", map[string]func(string) string{"sessions.json": func(s string) string {
			// The Globex session moves to an environment with no items, which the loader allows.
			return strings.Replace(s, `"environment_id": "env_01GlobexPrimary0000000001",
      "self_hosted": true,
      "work_id": "work_01GlobexQueuedJob00000001",`, `"environment_id": "env_01GlobexGone000000000001",
      "self_hosted": true,`, 1)
		}}, "environments.json: environments.2.work.0.session_id: session sesn_01GlobexReportJob0000001 is in environment env_01GlobexGone000000000001, not in the item's, env_01GlobexPrimary0000000001"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fsys := defaults(tc.edits)
			for name, f := range fsys {
				if len(f.Data) == 0 {
					delete(fsys, name)
				}
			}
			_, err := LoadFixtures(fsys)
			switch {
			case tc.want == "" && err != nil:
				t.Errorf("refused: %v", err)
			case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
				t.Errorf("error = %v, want one naming %q", err, tc.want)
			}
		})
	}

	// A snapshot's items give their state: the item of a deleted session, and one enqueued by the
	// control API for a session that never was, load.
	ts := NewTestServer(t)
	api := apiClient(t, ts)
	id := api.ok("POST", "/v1/sessions", map[string]any{"agent": acmeAgent, "environment_id": acmePrimary}).get("id").String()
	api.ok("DELETE", "/v1/sessions/"+id, nil)
	if _, err := ts.Fake.EnqueueWork(acmePrimary, "sesn_01NeverMadeByTheApi000001", nil); err != nil {
		t.Fatal(err)
	}
	snap, err := ts.Fake.Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	for _, session := range []string{id, "sesn_01NeverMadeByTheApi000001"} {
		if !strings.Contains(snap["environments.json"], `"session_id": "`+session+`"`) || strings.Contains(snap["sessions.json"], session) {
			t.Fatalf("the snapshot does not hold an item of %s without its session:\n%s", session, snap["environments.json"])
		}
	}
	if _, err := snap.Fixtures(); err != nil {
		t.Errorf("a snapshot with items of sessions it does not hold: %v, want it loaded", err)
	}
}
