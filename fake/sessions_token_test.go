package fake

import (
	"net/http"
	"strings"
	"testing"
)

// The per-item sessions token (the official Python SDK 2.14.0's worker: "the sessions token
// extracted from it is preferred over environment_key as the Bearer credential" for the item's
// heartbeat and stop and its session's reads and events): accepted there for its own item and
// session; another session or item is 404 to it, a route of no item or one that changes the
// session 403, a forged token 401, and a stopped item's token 401.
func TestSessionsToken(t *testing.T) {
	ts := NewTestServer(t)
	api, worker := apiClient(t, ts), envKeyClient(t, ts)
	agent := newAgent(t, api, "")
	mine := api.ok("POST", "/v1/sessions", map[string]any{"agent": agent, "environment_id": acmePrimary}).get("id").String()
	other := api.ok("POST", "/v1/sessions", map[string]any{"agent": agent, "environment_id": acmePrimary}).get("id").String()
	var item reply
	for i := 0; i < 10; i++ {
		item = worker.ok("GET", workPath(acmePrimary, "/poll"), nil)
		if item.get("data.id").String() == mine {
			break
		}
	}
	if item.get("data.id").String() != mine {
		t.Fatalf("no poll handed out the session's item: %s", item.body)
	}
	work := item.get("id").String()
	tok := &workClient{t, ts, "Authorization", "Bearer " + sessionsToken(t, item.get("secret").String())}
	worker.ok("POST", workPath(acmePrimary, "/"+work+"/ack"), nil)

	tok.ok("POST", workPath(acmePrimary, "/"+work+"/heartbeat?expected_last_heartbeat=NO_HEARTBEAT"), nil)
	tok.ok("GET", "/v1/sessions/"+mine, nil)
	tok.ok("POST", "/v1/sessions/"+mine+"/events", userMessage("hello"))
	tok.ok("GET", "/v1/sessions/"+mine+"/events?limit=1000", nil)
	tok.ok("GET", "/v1/sessions/"+mine+"/threads", nil)

	for _, tc := range []struct {
		method, path string
		status       int
	}{
		{"GET", "/v1/sessions/" + other, http.StatusNotFound},
		{"GET", "/v1/sessions/" + other + "/events", http.StatusNotFound},
		{"POST", "/v1/sessions/" + mine, http.StatusForbidden},
		{"DELETE", "/v1/sessions/" + mine, http.StatusForbidden},
		{"GET", "/v1/sessions", http.StatusForbidden},
		{"POST", "/v1/agents", http.StatusForbidden},
		{"GET", "/v1/environments/" + acmePrimary, http.StatusForbidden},
		{"GET", workPath(acmePrimary, "/poll"), http.StatusForbidden},
		{"GET", workPath(acmePrimary, ""), http.StatusForbidden},
		{"GET", workPath(acmePrimary, "/work_01AcmeQueuedReview0000001"), http.StatusNotFound},
		{"GET", workPath(acmeStaging, "/"+work), http.StatusNotFound},
	} {
		if r := tok.do(tc.method, tc.path, map[string]any{}); r.status != tc.status {
			t.Errorf("%s %s with the sessions token = %d %s, want %d", tc.method, tc.path, r.status, r.body, tc.status)
		}
	}
	forged := &workClient{t, ts, "Authorization", "Bearer sktok_" + work + ".AAAA"}
	if r := forged.do("GET", "/v1/sessions/"+mine, nil); r.status != http.StatusUnauthorized {
		t.Errorf("a forged token = %d, want 401", r.status)
	}
	second := &workClient{t, ts, "X-Api-Key", "test-api-key-2"}
	if r := second.do("GET", "/v1/sessions/"+mine, nil); r.status != http.StatusNotFound {
		t.Errorf("another organization = %d, want 404", r.status)
	}

	tok.ok("POST", workPath(acmePrimary, "/"+work+"/stop"), map[string]any{"force": true})
	if r := tok.do("GET", "/v1/sessions/"+mine, nil); r.status != http.StatusUnauthorized || !strings.Contains(r.get("error.message").String(), "stopped") {
		t.Errorf("a stopped item's token = %d %s, want 401 saying it stopped", r.status, r.body)
	}
}

// pollFor polls the environment with its key until the session's item is handed out, and returns
// a client that presents the item's sessions token.
func pollFor(t *testing.T, ts *TestServer, env, session string) *workClient {
	t.Helper()
	worker := envKeyClient(t, ts)
	for i := 0; i < 10; i++ {
		item := worker.ok("GET", workPath(env, "/poll"), nil)
		if item.get("data.id").String() == session {
			return &workClient{t, ts, "Authorization", "Bearer " + sessionsToken(t, item.get("secret").String())}
		}
	}
	t.Fatalf("no poll handed out the session's item")
	return nil
}

// The memory routes take a sessions token (the official workers: "the memory_stores endpoints
// accept the per-item sessions token but reject the environment key") for the stores its session
// mounts: their memories read, and written unless the mount is read_only (writes attributed to
// the session); another store is 404, the store routes and redaction 403.
func TestSessionsTokenOnMemory(t *testing.T) {
	ts := NewTestServer(t)
	api := apiClient(t, ts)
	const rw, ro, other = "memstore_01AcmeSupportAgent0000001", "memstore_01AcmeLegacyOnboard00001", "memstore_01AcmeResearchNotes00001"
	session := api.ok("POST", "/v1/sessions", map[string]any{"agent": newAgent(t, api, ""), "environment_id": acmePrimary, "resources": []any{
		map[string]any{"type": "memory_store", "memory_store_id": rw},
		map[string]any{"type": "memory_store", "memory_store_id": ro, "access": "read_only"},
	}}).get("id").String()
	tok := pollFor(t, ts, acmePrimary, session)
	tok.ok("GET", "/v1/memory_stores/"+rw+"/memories?view=basic&limit=100", nil)
	tok.ok("GET", "/v1/memory_stores/"+ro+"/memories?view=basic&limit=100", nil)
	made := tok.ok("POST", "/v1/memory_stores/"+rw+"/memories", map[string]any{"path": "/notes/token.md", "content": "from the worker"})
	versions := tok.ok("GET", "/v1/memory_stores/"+rw+"/memory_versions?memory_id="+made.get("id").String(), nil)
	if got := versions.get("data.0.created_by.type").String() + " " + versions.get("data.0.created_by.session_id").String(); got != "session_actor "+session {
		t.Errorf("versions = %s, want the write's created_by the session_actor %s", versions.body, session)
	}
	for _, tc := range []struct {
		method, path string
		body         any
		status       int
	}{
		{"POST", "/v1/memory_stores/" + ro + "/memories", map[string]any{"path": "/x.md", "content": "x"}, http.StatusForbidden},
		{"GET", "/v1/memory_stores/" + other + "/memories", nil, http.StatusNotFound},
		{"GET", "/v1/memory_stores", nil, http.StatusForbidden},
		{"GET", "/v1/memory_stores/" + rw, nil, http.StatusForbidden},
		{"DELETE", "/v1/memory_stores/" + rw, nil, http.StatusForbidden},
	} {
		if r := tok.do(tc.method, tc.path, tc.body); r.status != tc.status {
			t.Errorf("%s %s with the sessions token = %d %s, want %d", tc.method, tc.path, r.status, r.body, tc.status)
		}
	}
	if r := envKeyClient(t, ts).do("GET", "/v1/memory_stores/"+rw+"/memories", nil); r.status != http.StatusForbidden {
		t.Errorf("the environment key on memories = %d, want 403", r.status)
	}
}
