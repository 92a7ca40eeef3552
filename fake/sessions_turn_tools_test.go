package fake

import (
	"encoding/json"
	"strings"
	"testing"
)

// An agent's web tools and MCP servers are in its turn's Messages request as the API takes them:
// web_search and web_fetch as the server tools web_search_20250305 and web_fetch_20250910 with
// the options of the agent's config, the MCP servers as mcp_servers with an mcp_toolset each
// (its configs by tool name, enabled only), under the MCP connector's beta. A stub matches the
// turn by the web tool's name, and answers with a search the server ran: the session shows the
// call as an agent.tool_use, allowed, and its result as an agent.tool_result, then the text, and
// the turn ends without waiting.
func TestSessionTurnWebAndMCPTools(t *testing.T) {
	ts := NewTestServer(t)
	api := apiClient(t, ts)
	if _, err := ts.Fake.AddStub(Stub{Match: StubMatch{ToolName: "web_search"}, Replies: []Reply{{Content: []map[string]any{
		{"type": "server_tool_use", "id": "srvtoolu_1", "name": "web_search", "input": map[string]any{"query": "fake servers"}, "caller": map[string]any{"type": "direct"}},
		{"type": "web_search_tool_result", "tool_use_id": "srvtoolu_1", "caller": map[string]any{"type": "direct"}, "content": []any{map[string]any{
			"type": "web_search_result", "title": "Fakes", "url": "https://docs.example/fakes", "encrypted_content": "e1", "page_age": nil}}},
		{"type": "text", "text": "Fakes are servers."}}}}}); err != nil {
		t.Fatal(err)
	}
	if _, err := ts.Fake.AddStub(Stub{Match: StubMatch{UserTextContains: "the docs"}, Replies: []Reply{{Content: []map[string]any{
		{"type": "mcp_tool_use", "id": "mcptoolu_1", "name": "search_docs", "server_name": "docs", "input": map[string]any{"q": "fakes"}},
		{"type": "mcp_tool_result", "tool_use_id": "mcptoolu_1", "is_error": false, "content": []any{map[string]any{"type": "text", "text": "3 pages"}}},
		{"type": "text", "text": "The docs have 3 pages."}}}}}); err != nil {
		t.Fatal(err)
	}
	env := api.ok("POST", "/v1/environments", map[string]any{"name": "cloud", "config": map[string]any{"type": "cloud"}}).get("id").String()
	agent := api.ok("POST", "/v1/agents", map[string]any{"name": "researcher", "model": "assistant-sonnet-4-5",
		"tools": []any{
			map[string]any{"type": "agent_toolset_20260401", "default_config": map[string]any{"enabled": false}, "configs": []any{
				map[string]any{"name": "web_search", "enabled": true, "allowed_domains": []any{"docs.example"}},
				map[string]any{"name": "web_fetch", "enabled": true, "max_content_tokens": 500}}},
			map[string]any{"type": "mcp_toolset", "mcp_server_name": "docs", "configs": []any{map[string]any{"name": "delete_page", "enabled": false}}}},
		"mcp_servers": []any{map[string]any{"name": "docs", "type": "url", "url": "https://mcp.docs.example/mcp"}}}).get("id").String()
	id := api.ok("POST", "/v1/sessions", map[string]any{"agent": agent, "environment_id": env}).get("id").String()
	api.ok("POST", "/v1/sessions/"+id+"/events", userMessage("what is a fake?"))

	types, r := eventTypes(t, api, id)
	want := "user.message session.status_running span.model_request_start agent.tool_use agent.tool_result agent.message span.model_request_end session.status_idle"
	if strings.Join(types, " ") != want {
		t.Fatalf("events = %v, want %s", types, want)
	}
	use, res := r.get("data.3"), r.get("data.4")
	if use.Get("name").String() != "web_search" || use.Get("input.query").String() != "fake servers" || use.Get("evaluated_permission").String() != "allow" {
		t.Errorf("tool use = %s, want web_search {query: fake servers}, allowed", use.Raw)
	}
	if res.Get("tool_use_id").String() != use.Get("id").String() || res.Get("is_error").Bool() || !strings.Contains(res.Get("content.0.text").String(), "https://docs.example/fakes") {
		t.Errorf("tool result = %s, want the search's result for %s", res.Raw, use.Get("id"))
	}
	if got := r.get("data.7.stop_reason.type").String(); got != "end_turn" {
		t.Errorf("stop_reason = %s, want end_turn: a call the server ran waits for nothing", got)
	}

	turns := agentTurns(ts, id)
	var body struct {
		Tools      []map[string]any `json:"tools"`
		MCPServers []map[string]any `json:"mcp_servers"`
	}
	if err := json.Unmarshal(turns[0].Body, &body); err != nil {
		t.Fatal(err)
	}
	tools, _ := json.Marshal(body.Tools)
	wantTools := `[{"max_content_tokens":500,"name":"web_fetch","type":"web_fetch_20250910"},` +
		`{"allowed_domains":["docs.example"],"name":"web_search","type":"web_search_20250305"},` +
		`{"configs":{"delete_page":{"enabled":false}},"default_config":{"enabled":true},"mcp_server_name":"docs","type":"mcp_toolset"}]`
	if string(tools) != wantTools {
		t.Errorf("tools = %s\nwant %s", tools, wantTools)
	}
	if servers, _ := json.Marshal(body.MCPServers); string(servers) != `[{"name":"docs","type":"url","url":"https://mcp.docs.example/mcp"}]` {
		t.Errorf("mcp_servers = %s, want the agent's server", servers)
	}
	if beta := turns[0].Headers["anthropic-beta"]; !strings.Contains(beta, "mcp-client-2025-11-20") || !strings.Contains(beta, "message-threads-2026-08-12") {
		t.Errorf("anthropic-beta = %q, want the MCP connector's and the threads' betas", beta)
	}

	// The next turn continues the thread, and a stub answers with an MCP call the server made:
	// an agent.mcp_tool_use naming its server, allowed, and its agent.mcp_tool_result. The turn
	// after continues with both answers' server blocks in the conversation.
	api.ok("POST", "/v1/sessions/"+id+"/events", userMessage("search the docs"))
	types, r = eventTypes(t, api, id)
	want += " user.message session.status_running span.model_request_start agent.mcp_tool_use agent.mcp_tool_result agent.message span.model_request_end session.status_idle"
	if strings.Join(types, " ") != want {
		t.Fatalf("events = %v, want %s", types, want)
	}
	use, res = r.get("data.11"), r.get("data.12")
	if use.Get("mcp_server_name").String() != "docs" || use.Get("name").String() != "search_docs" || use.Get("input.q").String() != "fakes" || use.Get("evaluated_permission").String() != "allow" {
		t.Errorf("MCP tool use = %s, want docs' search_docs {q: fakes}, allowed", use.Raw)
	}
	if res.Get("mcp_tool_use_id").String() != use.Get("id").String() || res.Get("is_error").Bool() || res.Get("content.0.text").String() != "3 pages" {
		t.Errorf("MCP tool result = %s, want 3 pages for %s", res.Raw, use.Get("id"))
	}
	api.ok("POST", "/v1/sessions/"+id+"/events", userMessage("thanks"))
	turns = agentTurns(ts, id)
	for i, e := range turns {
		if typ := []string{"create", "continue", "continue"}[i]; e.Status != 200 || e.Thread == nil || e.Thread.Type != typ {
			t.Errorf("turn %d = %d thread %+v, want 200 %s", i, e.Status, e.Thread, typ)
		}
	}
	if _, r = eventTypes(t, api, id); r.get("data.@reverse.0.stop_reason.type").String() != "end_turn" || len(turns) != 3 {
		t.Errorf("%d turns, the last ending %s, want 3 ending end_turn", len(turns), r.get("data.@reverse.0").Raw)
	}
}
