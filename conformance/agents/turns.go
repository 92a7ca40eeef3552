package agents

import (
	"net/http"
	"time"

	. "github.com/onsi/gomega"

	"github.com/platformkit/platformkit/conformance/kit"
)

// The agent's turns: each is a model request whose usage is the session's, and on the fake a
// Messages request of its one pipeline, which stubs script and the journal shows.

func init() { kit.Register(turnChecks()...) }

// turnEnded lists the session's events until its agent has made a model request and the session
// is idle again (at once on the fake; a deployment's agent runs on its own), for up to 30 s.
func turnEnded(t *kit.T, session string) *kit.Response {
	deadline := time.Now().Add(30 * time.Second)
	for {
		log := events(t, session)
		if log.Get(`data.#(type=="span.model_request_end")`).Exists() && log.Get(`data.@reverse.0.type`).String() == "session.status_idle" {
			return log
		}
		if time.Now().After(deadline) {
			t.Failf("the session's turn did not end within 30 s: %s", log)
			return log
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// createCloudEnv creates a cloud environment for one check and deletes it afterwards: its
// sessions' agent answers a message without calling the sandbox's tools.
func createCloudEnv(t *kit.T) string {
	resp := t.OK(req(http.MethodPost, "/v1/environments", map[string]any{"name": "conformance", "config": map[string]any{"type": "cloud"}}, "work/environment"))
	id := resp.Get("id").String()
	t.Cleanup("delete environment "+id, t.Delete(kit.Request{Area: kit.Work, Method: http.MethodDelete, Path: "/v1/environments/" + id}))
	return id
}

func turnChecks() []kit.Check {
	return []kit.Check{
		{ID: "agents/session-usage-is-its-turns", Clause: "gaps §8", Labels: []kit.Label{kit.Agents, kit.Extension, kit.Destructive},
			Title: "a session's usage is what its model requests used: its input_tokens and output_tokens are the sums of the model_usage of its span.model_request_end events, each of which names its span.model_request_start",
			Run: func(t *kit.T) {
				session := createSession(t, createAgent(t), createEnv(t))
				t.OK(req(http.MethodPost, "/v1/sessions/"+session+"/events", message("hello"), "sessions/events_sent"))
				log := turnEnded(t, session)
				var in, out int64
				for _, end := range log.Get(`data.#(type=="span.model_request_end")#`).Array() {
					start := end.Get("model_request_start_id").String()
					t.Expect(log.Get(`data.#(id=="`+start+`").type`).String()).To(Equal("span.model_request_start"), "the span's end names its start: %s", end)
					in += end.Get("model_usage.input_tokens").Int()
					out += end.Get("model_usage.output_tokens").Int()
				}
				got := t.OK(req(http.MethodGet, "/v1/sessions/"+session, nil, "sessions/session"))
				t.Expect(in).To(BeNumerically(">", 0), "a model request reads input: %s", log)
				t.Expect(got.Get("usage.input_tokens").Int()).To(Equal(in), "the sum of the spans' input_tokens: %s", got)
				t.Expect(got.Get("usage.output_tokens").Int()).To(Equal(out), "the sum of the spans' output_tokens: %s", got)
			},
			Bug: &kit.Bug{Says: "the session counts its usage apart from its model requests: one token more input than they read", Want: "the sum of the spans' input_tokens",
				Break: kit.InRouteOKAnswers(http.MethodGet, `^/v1/sessions/[^/]+$`, func(_ *http.Request, m map[string]any) {
					if u, ok := m["usage"].(map[string]any); ok {
						n, _ := u["input_tokens"].(float64)
						u["input_tokens"] = n + 1
					}
				})}},
		{ID: "agents/session-turn-scripted-by-stub", Clause: kit.ClauseFake, Labels: []kit.Label{kit.Agents, kit.Extension, kit.FakeOnly},
			Title: "a stub scripts the fake's agent as it answers POST /v1/messages: on the user's message the agent makes the stub's tool call, and the journal shows the turn as a POST /v1/messages marked with the session's ID and answered by the stub",
			Run: func(t *kit.T) {
				t.Cleanup("clear stubs", t.Delete(kit.Request{Area: kit.Core, Method: http.MethodDelete, Path: "/_fake/messages/stubs", As: kit.NoCred}))
				stub := t.Control(http.MethodPost, "/_fake/messages/stubs", map[string]any{
					"match":   map[string]any{"user_text_contains": "conformance: list the folder"},
					"replies": []any{map[string]any{"content": []any{map[string]any{"type": "tool_use", "id": "toolu_conformance", "name": "bash", "input": map[string]any{"command": "ls -la /srv"}}}}},
				})
				session := createSession(t, createAgent(t), createEnv(t))
				t.OK(req(http.MethodPost, "/v1/sessions/"+session+"/events", message("conformance: list the folder"), "sessions/events_sent"))
				log := events(t, session)
				use := log.Get(`data.#(type=="agent.tool_use")`)
				t.Expect(use.Get("name").String()).To(Equal("bash"), "%s", log)
				t.Expect(use.Get("input.command").String()).To(Equal("ls -la /srv"), "the stub's call: %s", log)
				found := false
				for _, e := range t.Control(http.MethodGet, "/_fake/journal", nil).Get("data").Array() {
					if e.Get("session_id").String() == session {
						found = true
						t.Expect(e.Get("method").String() + " " + e.Get("path").String()).To(Equal("POST /v1/messages"))
						t.Expect(e.Get("stub").String()).To(Equal(stub.Get("id").String()), "the stub answered the turn: %s", e)
						t.Expect(e.Get("body.messages.0.content.0.text").String()).To(Equal("conformance: list the folder"), "%s", e)
					}
				}
				t.Expect(found).To(BeTrue(), "no journal entry has session_id %s", session)
			},
			Bug: &kit.Bug{Says: "the agent's turn does not go through the Messages pipeline: its own script calls pwd, whatever the stubs say", Want: "ls -la /srv",
				Break: kit.InRouteOKAnswers(http.MethodGet, eventsRoute, func(_ *http.Request, m map[string]any) {
					kit.EachDataItem(m, func(ev map[string]any) {
						if ev["type"] == "agent.tool_use" {
							ev["input"] = map[string]any{"command": "pwd"}
						}
					})
				})}},
		{ID: "agents/session-turn-journaled", Clause: kit.ClauseFake, Labels: []kit.Label{kit.Agents, kit.Extension, kit.FakeOnly},
			Title: "the journal records each turn of a session's agent as a POST /v1/messages of its own, with a request_id of its own and the session's ID in session_id; the requests clients sent have session_id \"\"",
			Run: func(t *kit.T) {
				session := createSession(t, createAgent(t), createEnv(t))
				sent := t.OK(req(http.MethodPost, "/v1/sessions/"+session+"/events", message("hello"), "sessions/events_sent"))
				outer := sent.Header.Get("request-id")
				turns, clients := 0, 0
				for _, e := range t.Control(http.MethodGet, "/_fake/journal", nil).Get("data").Array() {
					switch e.Get("session_id").String() {
					case session:
						turns++
						t.Expect(e.Get("path").String()).To(Equal("/v1/messages"), "%s", e)
						t.Expect(e.Get("request_id").String()).NotTo(Equal(outer), "a turn has a request_id of its own: %s", e)
					case "":
						if e.Get("request_id").String() == outer {
							clients++
						}
					}
				}
				t.Expect(turns).To(Equal(1), "one model request of session %s in the journal", session)
				t.Expect(clients).To(Equal(1), "the send itself, with session_id \"\"")
			},
			Bug: &kit.Bug{Says: "the journal leaves the session's ID off its agent's model requests", Want: "one model request of session",
				Break: kit.InOKAnswers(kit.On(http.MethodGet, "^/_fake/journal$"), func(_ *http.Request, m map[string]any) {
					kit.EachDataItem(m, func(e map[string]any) { e["session_id"] = "" })
				})}},
		{ID: "agents/session-turns-threaded", Clause: kit.ClauseFake, Labels: []kit.Label{kit.Agents, kit.Extension, kit.FakeOnly},
			Title: "a session's turns are one message thread: the journal shows its first model request creating the thread and the next continuing from an earlier answer with only the new message",
			Run: func(t *kit.T) {
				session := createSession(t, createAgent(t), createCloudEnv(t))
				t.OK(req(http.MethodPost, "/v1/sessions/"+session+"/events", message("hello"), "sessions/events_sent"))
				t.OK(req(http.MethodPost, "/v1/sessions/"+session+"/events", message("again"), "sessions/events_sent"))
				var threads []string
				for _, e := range t.Control(http.MethodGet, "/_fake/journal", nil).Get("data").Array() {
					if e.Get("session_id").String() == session {
						threads = append(threads, e.Get("thread.type").String())
						if e.Get("thread.type").String() == "continue" {
							t.Expect(e.Get("thread.previous_message_id").String()).To(HavePrefix("msg_"), "%s", e)
							t.Expect(e.Get("body.messages.#").Int()).To(Equal(int64(1)), "a continue sends only what is new: %s", e)
						}
					}
				}
				t.Expect(threads).To(Equal([]string{"create", "continue"}), "the turns' threads")
			},
			Bug: &kit.Bug{Says: "each turn sends the whole conversation, with no thread", Want: "the turns' threads",
				Break: kit.InOKAnswers(kit.On(http.MethodGet, "^/_fake/journal$"), func(_ *http.Request, m map[string]any) {
					kit.EachDataItem(m, func(e map[string]any) { e["thread"] = nil })
				})}},
		{ID: "agents/journal-session-events", Clause: kit.ClauseFake, Labels: []kit.Label{kit.Agents, kit.Extension, kit.FakeOnly},
			Title: "the journal shows a session's events: GET /_fake/journal?session_id= keeps the requests that worked on the session, whose session_events list each of its events once, the send's user.message in the send's entry and the answer's agent.message in its turn's",
			Run: func(t *kit.T) {
				session := createSession(t, createAgent(t), createEnv(t))
				t.OK(req(http.MethodPost, "/v1/sessions/"+session+"/events", message("hello"), "sessions/events_sent"))
				log := turnEnded(t, session)
				seen := map[string]int{}
				for _, e := range t.Control(http.MethodGet, "/_fake/journal?session_id="+session, nil).Get("data").Array() {
					for _, ev := range e.Get("session_events").Array() {
						seen[ev.Get("id").String()]++
						switch ev.Get("type").String() {
						case "user.message":
							t.Expect(e.Get("path").String()).To(Equal("/v1/sessions/"+session+"/events"), "the send's event: %s", e)
						case "agent.message":
							t.Expect(e.Get("session_id").String()).To(Equal(session), "the turn's event: %s", e)
						}
					}
				}
				for _, ev := range log.Get("data").Array() {
					t.Expect(seen[ev.Get("id").String()]).To(Equal(1), "each of the session's events once: %s", ev)
				}
				t.Expect(len(seen)).To(Equal(len(log.Get("data").Array())), "the entries list only the session's events")
			},
			Bug: &kit.Bug{Says: "the journal's entries list no session events", Want: "each of the session's events once",
				Break: kit.InOKAnswers(kit.On(http.MethodGet, "^/_fake/journal$"), func(_ *http.Request, m map[string]any) {
					kit.EachDataItem(m, func(e map[string]any) { e["session_events"] = nil })
				})}},
	}
}
