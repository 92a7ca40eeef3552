package agents

import (
	"net/http"
	"net/url"

	. "github.com/onsi/gomega"

	"github.com/platformkit/platformkit/conformance/kit"
)

const (
	managedAgentsBeta = "managed-agents-2026-04-01"
	agentsRoute       = `^/v1/agents$`
	agentRoute        = `^/v1/agents/agent_[^/]+$`
	sessionsRoute     = `^/v1/sessions$`
	eventsRoute       = `^/v1/sessions/[^/]+/events$`
	workListRoute     = `^/v1/environments/[^/]+/work$`
)

// req is a request of the managed-agents interface: the API key and the beta the SDKs send.
func req(method, path string, body any, schema string) kit.Request {
	return kit.Request{Area: kit.Agents, Method: method, Path: path, Body: body, Schema: schema,
		Header: http.Header{"vendor-beta": {managedAgentsBeta}}}
}

// createAgent creates an agent with the agent toolset and archives it when the check ends.
func createAgent(t *kit.T) string {
	resp := t.Do(req(http.MethodPost, "/v1/agents", map[string]any{
		"name": "conformance", "model": map[string]any{"id": model(t)},
		"tools": []any{map[string]any{"type": "agent_toolset_20260401"}},
	}, "agents/agent"))
	t.UnsupportedIfAbsent(resp, "the target does not create agents (POST /v1/agents answered %d)", resp.Status)
	t.Expect(resp.Status).To(Equal(http.StatusOK), "%s", resp)
	id := resp.Get("id").String()
	archiveLater(t, id)
	return id
}

// archiveLater archives the agent when the check ends: agents cannot be deleted.
func archiveLater(t *kit.T, id string) {
	t.Cleanup("archive agent "+id, t.Delete(req(http.MethodPost, "/v1/agents/"+id+"/archive", nil, "")))
}

func model(t *kit.T) string {
	m, _ := t.Model()
	return m
}

// createEnv creates a self-hosted environment for one check and deletes it afterwards.
func createEnv(t *kit.T) string {
	resp := t.OK(req(http.MethodPost, "/v1/environments", map[string]any{"name": "conformance", "config": map[string]any{"type": "self_hosted"}}, "work/environment"))
	id := resp.Get("id").String()
	t.Cleanup("delete environment "+id, t.Delete(kit.Request{Area: kit.Work, Method: http.MethodDelete, Path: "/v1/environments/" + id}))
	return id
}

// createSession creates a session of agent in env and deletes it afterwards.
func createSession(t *kit.T, agent, env string) string {
	resp := t.Do(req(http.MethodPost, "/v1/sessions", map[string]any{"agent": agent, "environment_id": env}, "sessions/session"))
	t.UnsupportedIfAbsent(resp, "the target does not create sessions (POST /v1/sessions answered %d)", resp.Status)
	t.Expect(resp.Status).To(Equal(http.StatusOK), "%s", resp)
	id := resp.Get("id").String()
	t.Cleanup("delete session "+id, t.Delete(kit.Request{Area: kit.Agents, Method: http.MethodDelete, Path: "/v1/sessions/" + id}))
	return id
}

func events(t *kit.T, session string) *kit.Response {
	r := req(http.MethodGet, "/v1/sessions/"+session+"/events", nil, "sessions/event_list")
	r.Query = url.Values{"limit": {"1000"}}
	return t.OK(r)
}

func message(text string) map[string]any {
	return map[string]any{"events": []any{map[string]any{"type": "user.message", "content": []any{map[string]any{"type": "text", "text": text}}}}}
}

// expectInvalid requires a 400 invalid_request_error whose message starts with the field.
func expectInvalid(t *kit.T, resp *kit.Response, field string) {
	t.ExpectWithOffset(1, resp.Status).To(Equal(http.StatusBadRequest), "%s", resp)
	t.ExpectWithOffset(1, resp.Get("error.type").String()).To(Equal("invalid_request_error"), "%s", resp)
	t.ExpectWithOffset(1, resp.Get("error.message").String()).To(HavePrefix(field), "the error names the field: %s", resp)
}

func init() {
	kit.Register(agentChecks()...)
	kit.Register(sessionChecks()...)
}

func agentChecks() []kit.Check {
	labels := []kit.Label{kit.Agents, kit.Extension, kit.Destructive}
	return []kit.Check{
		{ID: "agents/agent-versions", Clause: "gaps §8", Labels: labels,
			Title: "an agent starts at version 1; an update that changes nothing makes no version, one that does makes the next, and ?version= reads the old one",
			Run: func(t *kit.T) {
				id := createAgent(t)
				path := "/v1/agents/" + id
				same := t.OK(req(http.MethodPost, path, map[string]any{"name": "conformance"}, "agents/agent"))
				t.Expect(same.Get("version").Int()).To(BeEquivalentTo(1), "an update equal to the agent makes no version: %s", same)
				next := t.OK(req(http.MethodPost, path, map[string]any{"system": "Be brief.", "version": 1}, "agents/agent"))
				t.Expect(next.Get("version").Int()).To(BeEquivalentTo(2), "%s", next)
				t.Expect(next.Get("system").String()).To(Equal("Be brief."))
				old := t.OK(kit.Request{Area: kit.Agents, Path: path, Query: url.Values{"version": {"1"}}, Schema: "agents/agent", Header: http.Header{"vendor-beta": {managedAgentsBeta}}})
				t.Expect(old.Get("version").Int()).To(BeEquivalentTo(1))
				t.Expect(old.Get("system").Type.String()).To(Equal("Null"), "version 1 has no system prompt: %s", old)
			},
			Bug: &kit.Bug{Says: "every agent update makes a new version, even one that changes nothing",
				Break: kit.InRouteOKAnswers(http.MethodPost, agentRoute, func(r *http.Request, m map[string]any) {
					if v, ok := m["version"].(float64); ok && v == 1 {
						m["version"] = 2.0
					}
				})}},
		{ID: "agents/agent-unreferenced-mcp-server-400", Clause: "gaps §1", Labels: labels,
			Title: "an agent whose MCP server no mcp_toolset uses is refused with 400 naming mcp_servers",
			Run: func(t *kit.T) {
				resp := t.Do(req(http.MethodPost, "/v1/agents", map[string]any{
					"name": "conformance", "model": model(t),
					"mcp_servers": []any{map[string]any{"name": "docs", "type": "url", "url": "https://mcp.example.com/sse"}},
				}, ""))
				t.UnsupportedIfAbsent(resp, "the target does not create agents (POST /v1/agents answered %d)", resp.Status)
				if resp.Status == http.StatusOK {
					archiveLater(t, resp.Get("id").String())
				}
				expectInvalid(t, resp, "mcp_servers")
			},
			Bug: &kit.Bug{Says: "an agent with an unreferenced MCP server is accepted",
				Break: kit.InRouteRequests(http.MethodPost, agentsRoute, func(_ *http.Request, b map[string]any) { delete(b, "mcp_servers") })}},
	}
}
