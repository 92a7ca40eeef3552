package agents

import (
	"encoding/base64"
	"encoding/json"
	"net/http"
	"strings"

	. "github.com/onsi/gomega"

	"github.com/platformkit/platformkit/conformance/kit"
)

// Checks of what a session names outside itself (files, vaults) and of the per-item sessions
// token a self-hosted worker serves it with.

func init() {
	labels := []kit.Label{kit.Agents, kit.Extension, kit.Destructive}
	kit.Register(
		kit.Check{ID: "agents/session-unknown-file-resource-404", Clause: "gaps §8", Labels: labels,
			Title: "a session whose file resource names no file of the caller is refused with 404 naming resources.N.file_id, as a Messages block's file_id is",
			Run: func(t *kit.T) {
				resp := t.Do(req(http.MethodPost, "/v1/sessions", map[string]any{"agent": createAgent(t), "environment_id": createEnv(t),
					"resources": []any{map[string]any{"type": "file", "file_id": "file_0conformanceNoSuchFile01"}}}, ""))
				if resp.Status == http.StatusOK {
					t.Cleanup("delete session", t.Delete(kit.Request{Area: kit.Agents, Method: http.MethodDelete, Path: "/v1/sessions/" + resp.Get("id").String()}))
				}
				t.ExpectError(resp, http.StatusNotFound, "not_found_error")
				t.Expect(resp.Get("error.message").String()).To(HavePrefix("resources.0.file_id"), "the error names the field: %s", resp)
			},
			Bug: &kit.Bug{Says: "a session mounts a file that does not exist",
				Break: kit.InRouteRequests(http.MethodPost, sessionsRoute, func(_ *http.Request, b map[string]any) { delete(b, "resources") })}},
		kit.Check{ID: "agents/session-unknown-vault-400", Clause: "gaps §8", Labels: labels,
			Title: "a session whose vault_ids names no vault of the caller is refused with 400 naming vault_ids.N",
			Run: func(t *kit.T) {
				resp := t.Do(req(http.MethodPost, "/v1/sessions", map[string]any{"agent": createAgent(t), "environment_id": createEnv(t),
					"vault_ids": []any{"vlt_0conformanceNoSuchVault01"}}, ""))
				if resp.Status == http.StatusOK {
					t.Cleanup("delete session", t.Delete(kit.Request{Area: kit.Agents, Method: http.MethodDelete, Path: "/v1/sessions/" + resp.Get("id").String()}))
				}
				expectInvalid(t, resp, "vault_ids.0")
			},
			Bug: &kit.Bug{Says: "a session names a vault that does not exist",
				Break: kit.InRouteRequests(http.MethodPost, sessionsRoute, func(_ *http.Request, b map[string]any) { delete(b, "vault_ids") })}},
		kit.Check{ID: "agents/session-sessions-token", Clause: "gaps §8", Labels: labels,
			Title: "a polled work item's secret carries a sessions token (URL-safe base64 JSON, as the official workers decode it) that reads its own session and its events; another session is 404 to it, and deleting its session is 403",
			Run: func(t *kit.T) {
				own := ownEnvironment(t)
				agent := createAgent(t)
				mine, other := createSession(t, agent, own), createSession(t, agent, own)
				token := pollToken(t, own, mine)
				asToken := func(method, path string) *kit.Response {
					r := req(method, path, nil, "")
					r.As, r.Header = kit.NoCred, http.Header{"vendor-beta": {managedAgentsBeta}, "Authorization": {"Bearer " + token}}
					return t.Do(r)
				}
				t.Expect(asToken(http.MethodGet, "/v1/sessions/"+mine).Status).To(Equal(http.StatusOK), "the worker reads its session with the token")
				t.Expect(asToken(http.MethodGet, "/v1/sessions/"+mine+"/events").Status).To(Equal(http.StatusOK), "and lists its events")
				t.ExpectError(asToken(http.MethodGet, "/v1/sessions/"+other), http.StatusNotFound, "not_found_error")
				t.ExpectError(asToken(http.MethodDelete, "/v1/sessions/"+mine), http.StatusForbidden, "permission_error")
			},
			Bug: &kit.Bug{Says: "a sessions token reaches every session of its organization", Want: "404",
				Break: tokenAsAPIKey(kit.On(http.MethodGet, `^/v1/sessions/[^/]+$`))}},
		kit.Check{ID: "agents/session-token-memory-stores", Clause: "gaps §8", Labels: labels,
			Title: "a sessions token reads the memories of the memory stores its session mounts (the official workers mount them with it); a store the session does not mount is 404 to it",
			Run: func(t *kit.T) {
				own := ownEnvironment(t)
				mounted, other := createStore(t), createStore(t)
				resp := t.OK(req(http.MethodPost, "/v1/sessions", map[string]any{"agent": createAgent(t), "environment_id": own,
					"resources": []any{map[string]any{"type": "memory_store", "memory_store_id": mounted}}}, "sessions/session"))
				session := resp.Get("id").String()
				t.Cleanup("delete session "+session, t.Delete(kit.Request{Area: kit.Agents, Method: http.MethodDelete, Path: "/v1/sessions/" + session}))
				token := pollToken(t, own, session)
				asToken := func(path string) *kit.Response {
					return t.Do(kit.Request{Area: kit.Memory, Path: path, As: kit.NoCred, Header: http.Header{"Authorization": {"Bearer " + token}}})
				}
				t.Expect(asToken("/v1/memory_stores/"+mounted+"/memories?view=basic&limit=100").Status).To(Equal(http.StatusOK), "the worker lists the mounted store's memories with the token")
				t.ExpectError(asToken("/v1/memory_stores/"+other+"/memories?view=basic&limit=100"), http.StatusNotFound, "not_found_error")
			},
			Bug: &kit.Bug{Says: "a sessions token reaches every memory store of its organization", Want: "404",
				Break: tokenAsAPIKey(kit.On(http.MethodGet, `^/v1/memory_stores/[^/]+/memories$`))}},
	)
}

// createStore creates a memory store for one check and deletes it afterwards.
func createStore(t *kit.T) string {
	resp := t.OK(kit.Request{Area: kit.Memory, Method: http.MethodPost, Path: "/v1/memory_stores", Body: map[string]any{"name": "conformance"}, Schema: "memory/memory_store"})
	id := resp.Get("id").String()
	t.Cleanup("delete memory store "+id, t.Delete(kit.Request{Area: kit.Memory, Method: http.MethodDelete, Path: "/v1/memory_stores/" + id}))
	return id
}

// pollToken polls the environment with its key until the session's item is handed out (at most
// 20 polls: other items may be queued before it), and returns the sessions token of its secret.
func pollToken(t *kit.T, env, session string) string {
	for i := 0; i < 20; i++ {
		r := req(http.MethodGet, "/v1/environments/"+env+"/work/poll", nil, "")
		r.As = kit.EnvironmentKey
		item := t.OK(r)
		if item.Get("data.id").String() != session {
			continue
		}
		secret := item.Get("secret").String()
		raw, err := base64.URLEncoding.DecodeString(secret + strings.Repeat("=", (4-len(secret)%4)%4))
		t.Expect(err).NotTo(HaveOccurred(), "the secret is URL-safe base64: %s", item)
		var payload struct {
			SessionsToken string `json:"sessions_token"`
		}
		t.Expect(json.Unmarshal(raw, &payload)).To(Succeed(), "the secret is JSON: %s", raw)
		t.Expect(payload.SessionsToken).NotTo(BeEmpty(), "the secret carries a sessions_token: %s", raw)
		return payload.SessionsToken
	}
	t.Unsupported("20 polls of the environment did not hand out the session's work item")
	return ""
}

// tokenAsAPIKey is the bug of a target that serves the requests match accepts with a sessions
// token as if it were the organization's API key.
func tokenAsAPIKey(match func(*http.Request) bool) func(http.Handler) http.Handler {
	return func(h http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if auth := r.Header.Get("Authorization"); match(r) && strings.HasPrefix(auth, "Bearer ") && auth != "Bearer "+kit.FakeEnvironmentKey && !strings.HasPrefix(auth, "Bearer test-") {
				r.Header.Del("Authorization")
				r.Header.Set("X-Api-Key", kit.FakeAPIKey)
			}
			h.ServeHTTP(w, r)
		})
	}
}
