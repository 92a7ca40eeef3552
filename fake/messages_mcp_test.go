package fake

import (
	"net/http"
	"strings"
	"testing"
)

// The MCP connector's mcp_toolset (beta mcp-client-2025-11-20) names its server and has no name
// of its own, as the SDKs' BetaMCPToolsetParam says: POST /v1/messages takes it, with configs by
// tool name, and refuses one without mcp_server_name, naming the field. A conversation sent
// again holds the mcp_tool_use and mcp_tool_result blocks of an earlier answer: taken too.
func TestMessagesMCPToolset(t *testing.T) {
	ts := NewTestServer(t)
	api := apiClient(t, ts)
	req := func(toolset map[string]any) reply {
		return api.do("POST", "/v1/messages", map[string]any{"model": "assistant-sonnet-4-5", "max_tokens": 16,
			"mcp_servers": []any{map[string]any{"type": "url", "name": "docs", "url": "https://mcp.docs.example/mcp"}},
			"tools":       []any{toolset},
			"messages":    []any{map[string]any{"role": "user", "content": "hi"}}}, "anthropic-beta", "mcp-client-2025-11-20")
	}
	if r := req(map[string]any{"type": "mcp_toolset", "mcp_server_name": "docs", "default_config": map[string]any{"enabled": true},
		"configs": map[string]any{"delete_page": map[string]any{"enabled": false}}}); r.status != http.StatusOK {
		t.Errorf("an mcp_toolset = %d %s, want 200", r.status, r.body)
	}
	if r := req(map[string]any{"type": "mcp_toolset"}); r.status != http.StatusBadRequest || !strings.Contains(r.get("error.message").String(), "tools.0.mcp_server_name") {
		t.Errorf("an mcp_toolset without its server = %d %s, want 400 naming tools.0.mcp_server_name", r.status, r.body)
	}
	if r := req(map[string]any{"type": "web_search_20250305"}); r.status != http.StatusBadRequest || !strings.Contains(r.get("error.message").String(), "tools.0.name") {
		t.Errorf("a server tool without its name = %d %s, want 400 naming tools.0.name", r.status, r.body)
	}
	r := api.do("POST", "/v1/messages", map[string]any{"model": "assistant-sonnet-4-5", "max_tokens": 16,
		"mcp_servers": []any{map[string]any{"type": "url", "name": "docs", "url": "https://mcp.docs.example/mcp"}},
		"tools":       []any{map[string]any{"type": "mcp_toolset", "mcp_server_name": "docs"}},
		"messages": []any{
			map[string]any{"role": "user", "content": "search the docs"},
			map[string]any{"role": "assistant", "content": []any{
				map[string]any{"type": "mcp_tool_use", "id": "mcptoolu_1", "name": "search_docs", "server_name": "docs", "input": map[string]any{"q": "x"}},
				map[string]any{"type": "mcp_tool_result", "tool_use_id": "mcptoolu_1", "is_error": false, "content": []any{map[string]any{"type": "text", "text": "3 pages"}}},
				map[string]any{"type": "text", "text": "3 pages."}}},
			map[string]any{"role": "user", "content": "thanks"}}}, "anthropic-beta", "mcp-client-2025-11-20")
	if r.status != http.StatusOK {
		t.Errorf("a conversation with MCP blocks = %d %s, want 200", r.status, r.body)
	}
}

// A streamed mcp_tool_use is written as a tool_use is: its content_block_start with input {},
// then its input in input_json_delta events, which the SDKs' stream accumulators read for it.
func TestMessagesMCPToolUseStreamed(t *testing.T) {
	ts := NewTestServer(t)
	api := apiClient(t, ts)
	if _, err := ts.Fake.AddStub(Stub{Replies: []Reply{{Content: []map[string]any{
		{"type": "mcp_tool_use", "id": "mcptoolu_1", "name": "search_docs", "server_name": "docs", "input": map[string]any{"q": "fakes"}}}}}}); err != nil {
		t.Fatal(err)
	}
	r := api.do("POST", "/v1/messages", map[string]any{"model": "assistant-sonnet-4-5", "max_tokens": 64, "stream": true,
		"messages": []any{map[string]any{"role": "user", "content": "search"}}})
	body := string(r.body)
	if !strings.Contains(body, `"content_block":{"id":"mcptoolu_1","input":{},"name":"search_docs","server_name":"docs","type":"mcp_tool_use"}`) ||
		!strings.Contains(body, `"type":"input_json_delta"`) || !strings.Contains(body, `fakes`) {
		t.Errorf("stream = %s, want the mcp_tool_use started with input {} and its input in input_json_delta", body)
	}
}
