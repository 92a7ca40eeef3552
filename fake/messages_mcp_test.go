package fake

import (
	"net/http"
	"strings"
	"testing"
)

// The MCP connector's mcp_toolset (beta mcp-client-2025-11-20) names its server and has no name
// of its own, as the SDKs' BetaMCPToolsetParam says: POST /v1/messages takes it, with configs by
// tool name, and refuses one without mcp_server_name, naming the field.
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
}
