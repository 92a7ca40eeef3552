package agents

import (
	"net/http"
	"strings"

	. "github.com/onsi/gomega"

	"github.com/platformkit/platformkit/conformance/kit"
)

// Sessions and their events (the producer of the work queue).

func sessionChecks() []kit.Check {
	labels := []kit.Label{kit.Agents, kit.Extension, kit.Destructive}
	return []kit.Check{
		{ID: "agents/session-queues-work", Clause: "2.16", Labels: labels,
			Title: "a session created in a self-hosted environment starts idle and queues a work item of type session whose data.id is the session's ID",
			Run: func(t *kit.T) {
				env := createEnv(t)
				session := createSession(t, createAgent(t), env)
				got := t.OK(req(http.MethodGet, "/v1/sessions/"+session, nil, "sessions/session"))
				t.Expect(got.Get("status").String()).To(Equal("idle"), "sessions start idle: %s", got)
				t.Expect(got.Get("environment_id").String()).To(Equal(env))
				work := t.OK(req(http.MethodGet, "/v1/environments/"+env+"/work", nil, "work/work_list"))
				item := work.Get(`data.#(data.id=="` + session + `")`)
				t.Expect(item.Exists()).To(BeTrue(), "a work item whose data.id is the session's ID %s: %s", session, work)
				t.Expect(item.Get("data.type").String()).To(Equal("session"))
				t.Expect(item.Get("state").String()).To(Equal("queued"))
			},
			Bug: &kit.Bug{Says: "the work item's data.id is a placeholder, not the session's ID (which the worker reads)",
				Want: "a work item whose data.id is the session's ID",
				Break: kit.InRouteOKAnswers(http.MethodGet, workListRoute, func(_ *http.Request, m map[string]any) {
					kit.EachDataItem(m, func(item map[string]any) {
						if d, ok := item["data"].(map[string]any); ok {
							d["id"] = strings.Replace(kit.Str(d, "id"), "sesn_", "session_", 1)
						}
					})
				})}},
		{ID: "agents/session-create-invalid-400", Clause: "gaps §1", Labels: labels,
			Title: "a session of an unknown environment, or of an unknown agent, is refused with 400 naming environment_id or agent",
			Run: func(t *kit.T) {
				agent, env := createAgent(t), createEnv(t)
				expectInvalid(t, t.Do(req(http.MethodPost, "/v1/sessions", map[string]any{"agent": agent, "environment_id": "env_0conformanceunknown"}, "")), "environment_id")
				expectInvalid(t, t.Do(req(http.MethodPost, "/v1/sessions", map[string]any{"agent": "agent_0conformanceunknown", "environment_id": env}, "")), "agent")
			},
			Bug: &kit.Bug{Says: "a refused session does not say which field is wrong",
				Break: kit.ErrorMessageOnly(kit.On(http.MethodPost, sessionsRoute), "invalid request")}},
		{ID: "agents/session-tool-result-for-no-call-400", Clause: "gaps §1", Labels: labels,
			Title: "a user.tool_result that answers no agent.tool_use of the session is refused with 400 naming events.0.tool_use_id, and stored nowhere",
			Run: func(t *kit.T) {
				session := createSession(t, createAgent(t), createEnv(t))
				resp := t.Do(req(http.MethodPost, "/v1/sessions/"+session+"/events", map[string]any{"events": []any{map[string]any{
					"type": "user.tool_result", "tool_use_id": "sevt_0conformancenocall", "content": []any{map[string]any{"type": "text", "text": "x"}}}}}, ""))
				expectInvalid(t, resp, "events.0.tool_use_id")
				t.Expect(events(t, session).Get(`data.#(type=="user.tool_result")`).Exists()).To(BeFalse(), "a refused event was stored")
			},
			Bug: &kit.Bug{Says: "a tool result for no call is accepted",
				Break: kit.InRouteRequests(http.MethodPost, eventsRoute, func(_ *http.Request, b map[string]any) {
					evs, _ := b["events"].([]any)
					for _, e := range evs {
						if ev, ok := e.(map[string]any); ok && ev["type"] == "user.tool_result" {
							ev["type"], ev["content"] = "user.message", []any{map[string]any{"type": "text", "text": "x"}}
							delete(ev, "tool_use_id")
						}
					}
				})}},
		{ID: "agents/session-environment-key", Clause: "gaps §2", Labels: labels,
			Title: "an environment key reads its own environment's sessions and their events, as the worker does; another environment's session is 404 to it, and deleting a session is 403",
			Run: func(t *kit.T) {
				own := ownEnvironment(t)
				agent := createAgent(t)
				mine, other := createSession(t, agent, own), createSession(t, agent, createEnv(t))
				asKey := func(method, path string) *kit.Response {
					r := req(method, path, nil, "")
					r.As = kit.EnvironmentKey
					return t.Do(r)
				}
				t.Expect(asKey(http.MethodGet, "/v1/sessions/"+mine).Status).To(Equal(http.StatusOK), "the worker reads its session")
				t.Expect(asKey(http.MethodGet, "/v1/sessions/"+mine+"/events").Status).To(Equal(http.StatusOK), "the worker lists its session's events")
				t.ExpectError(asKey(http.MethodGet, "/v1/sessions/"+other), http.StatusNotFound, "not_found_error")
				t.ExpectError(asKey(http.MethodDelete, "/v1/sessions/"+mine), http.StatusForbidden, "permission_error")
			},
			Bug: &kit.Bug{Says: "an environment key is taken for the organization's key when deleting a session", Want: "403",
				Break: asAPIKey(kit.On(http.MethodDelete, `^/v1/sessions/[^/]+$`))}},
		{ID: "agents/session-self-hosted-turn", Clause: kit.ClauseFake, Labels: []kit.Label{kit.Agents, kit.Extension, kit.FakeOnly},
			Title: "the fake's agent, in a self-hosted environment, calls bash and waits (status_idle, requires_action naming the call); the tool's result resumes it, and it answers with the result and ends the turn",
			Run: func(t *kit.T) {
				session := createSession(t, createAgent(t), createEnv(t))
				t.OK(req(http.MethodPost, "/v1/sessions/"+session+"/events", message("$ pwd"), "sessions/events_sent"))
				log := events(t, session)
				use := log.Get(`data.#(type=="agent.tool_use")`)
				t.Expect(use.Get("name").String()).To(Equal("bash"), "%s", log)
				t.Expect(use.Get("input.command").String()).To(Equal("pwd"))
				idle := log.Get(`data.#(type=="session.status_idle")#|@reverse|0`)
				t.Expect(idle.Get("stop_reason.type").String()).To(Equal("requires_action"), "the session waits for the call's result: %s", log)
				t.Expect(idle.Get("stop_reason.event_ids.0").String()).To(Equal(use.Get("id").String()))
				t.OK(req(http.MethodPost, "/v1/sessions/"+session+"/events", map[string]any{"events": []any{map[string]any{
					"type": "user.tool_result", "tool_use_id": use.Get("id").String(), "content": []any{map[string]any{"type": "text", "text": "/work"}}}}}, "sessions/events_sent"))
				log = events(t, session)
				t.Expect(log.Get(`data.#(type=="agent.message")#.content.0.text|@reverse|0`).String()).To(Equal("The tool returned: /work"), "%s", log)
				t.Expect(log.Get(`data.#(type=="session.status_idle")#|@reverse|0.stop_reason.type`).String()).To(Equal("end_turn"))
			},
			Bug: &kit.Bug{Says: "the session does not wait for the tool's result: its idle after the call says end_turn",
				Want: "the session waits for the call's result",
				Break: kit.InRouteOKAnswers(http.MethodGet, eventsRoute, func(_ *http.Request, m map[string]any) {
					kit.EachDataItem(m, func(ev map[string]any) {
						if sr, ok := ev["stop_reason"].(map[string]any); ok && sr["type"] == "requires_action" {
							ev["stop_reason"] = map[string]any{"type": "end_turn"}
						}
					})
				})}},
	}
}

// ownEnvironment finds the environment of the suite's environment key among the first page of
// environments (the one whose work stats it may read); unsupported when there is none.
func ownEnvironment(t *kit.T) string {
	list := t.OK(req(http.MethodGet, "/v1/environments?limit=100", nil, "work/environment_list"))
	for _, e := range list.Get("data").Array() {
		r := req(http.MethodGet, "/v1/environments/"+e.Get("id").String()+"/work/stats", nil, "")
		r.As = kit.EnvironmentKey
		if t.Do(r).Status == http.StatusOK {
			return e.Get("id").String()
		}
	}
	t.Unsupported("the environment key reaches none of the first page of environments")
	return ""
}

// asAPIKey is the bug of a target that serves the requests match accepts as if the environment
// key were the organization's API key.
func asAPIKey(match func(*http.Request) bool) func(http.Handler) http.Handler {
	return func(h http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if match(r) && r.Header.Get("Authorization") == "Bearer "+kit.FakeEnvironmentKey {
				r.Header.Del("Authorization")
				r.Header.Set("X-Api-Key", kit.FakeAPIKey)
			}
			h.ServeHTTP(w, r)
		})
	}
}
