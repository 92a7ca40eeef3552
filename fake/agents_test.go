package fake

import (
	"net/http"
	"strings"
	"testing"
)

// agentBody is the create body of the official SDK's managed-agents example: a model object, the
// agent toolset and a custom tool.
func agentBody(name string) map[string]any {
	return map[string]any{
		"name":  name,
		"model": map[string]any{"id": "assistant-sonnet-4-5", "effort": "medium"},
		"tools": []any{
			map[string]any{"type": "agent_toolset_20260401", "configs": []any{map[string]any{"name": "bash"}}},
			map[string]any{"type": "custom", "name": "get_weather", "description": "Weather of a city",
				"input_schema": map[string]any{"type": "object", "properties": map[string]any{"city": map[string]any{"type": "string"}}, "required": []any{"city"}}},
		},
		"skills":   []any{map[string]any{"type": "anthropic", "skill_id": "xlsx"}},
		"metadata": map[string]any{"team": "a"},
	}
}

func TestAgentCreateResolvesDefaults(t *testing.T) {
	ts := NewTestServer(t)
	api := apiClient(t, ts)
	a := api.ok("POST", "/v1/agents", agentBody("helper"))
	for path, want := range map[string]string{
		"type":                            "agent",
		"version":                         "1",
		"archived_at":                     "",
		"model.id":                        "assistant-sonnet-4-5",
		"model.effort.type":               "medium", // "high" and {type: high} are both accepted
		"execution_identity.type":         "service_account",
		"skills.0.version":                "latest",
		"tools.0.default_config.enabled":  "true",
		"tools.0.configs.0.type":          "bash", // each config carries type = name
		"tools.0.configs.0.enabled":       "true",
		"tools.1.input_schema.required.0": "city",
		"metadata.team":                   "a",
		"multiagent":                      "",
		"description":                     "",
	} {
		if got := a.get(path).String(); got != want {
			t.Errorf("%s = %q, want %q", path, got, want)
		}
	}
	if !strings.HasPrefix(a.get("id").String(), "agent_") {
		t.Errorf("id = %s, want the agent_ prefix", a.get("id"))
	}
}

// An update that changes nothing makes no version; one that does makes the next, and the old
// version stays readable with ?version=.
func TestAgentVersions(t *testing.T) {
	ts := NewTestServer(t)
	api := apiClient(t, ts)
	id := api.ok("POST", "/v1/agents", agentBody("helper")).get("id").String()
	same := api.ok("POST", "/v1/agents/"+id, map[string]any{"name": "helper", "metadata": map[string]any{"team": "a"}})
	if v := same.get("version").Int(); v != 1 {
		t.Fatalf("an update equal to the current version: version = %d, want 1", v)
	}
	ts.Fake.AdvanceClock(1e9)
	next := api.ok("POST", "/v1/agents/"+id, map[string]any{"system": "Be brief.", "version": 1})
	if next.get("version").Int() != 2 || next.get("system").String() != "Be brief." || next.get("name").String() != "helper" {
		t.Fatalf("update = %s, want version 2 with the system prompt and the name kept", next.body)
	}
	if old := api.ok("GET", "/v1/agents/"+id+"?version=1", nil); old.get("version").Int() != 1 || old.get("system").Exists() && old.get("system").Type != 0 {
		t.Errorf("version 1 = %s, want version 1 without a system prompt", old.body)
	}
	if r := api.do("GET", "/v1/agents/"+id+"?version=3", nil); r.status != http.StatusNotFound {
		t.Errorf("version 3 = %d %s, want 404", r.status, r.body)
	}
	if r := api.do("POST", "/v1/agents/"+id, map[string]any{"system": "x", "version": 1}); r.status != http.StatusConflict || !strings.Contains(r.get("error.message").String(), "version") {
		t.Errorf("an update based on version 1 of a version-2 agent = %d %s, want 409 naming version", r.status, r.body)
	}
	vs := api.ok("GET", "/v1/agents/"+id+"/versions", nil)
	if got := vs.get("data.#.version").String(); got != "[2,1]" {
		t.Errorf("versions = %s, want [2,1] (newest first)", got)
	}
	arch := api.ok("POST", "/v1/agents/"+id+"/archive", nil)
	if !arch.get("archived_at").Exists() || arch.get("archived_at").Type == 0 {
		t.Fatalf("archive = %s, want archived_at set", arch.body)
	}
	if r := api.do("POST", "/v1/agents/"+id, map[string]any{"system": "y"}); r.status != http.StatusBadRequest {
		t.Errorf("update of an archived agent = %d, want 400", r.status)
	}
	// Besides it, the organization has the default data set's agent (fixtures/agents.json).
	if got := api.ok("GET", "/v1/agents", nil).get("data.#.id").String(); got != `["`+acmeAgent+`"]` {
		t.Errorf("list without include_archived holds %s, want only the data set's agent", got)
	}
	if n := api.ok("GET", "/v1/agents?include_archived=true", nil).get("data.#").Int(); n != 2 {
		t.Errorf("list with include_archived holds %d agents, want 2", n)
	}
}

// Every malformed body is a 400 naming the field.
func TestAgentRefusesNamingTheField(t *testing.T) {
	ts := NewTestServer(t)
	api := apiClient(t, ts)
	custom := func(schema map[string]any) map[string]any {
		b := agentBody("x")
		b["tools"] = []any{map[string]any{"type": "custom", "name": "t", "description": "d", "input_schema": schema}}
		return b
	}
	withServers := func(servers, tools []any) map[string]any {
		b := agentBody("x")
		b["mcp_servers"], b["tools"] = servers, tools
		return b
	}
	server := map[string]any{"name": "docs", "type": "url", "url": "https://mcp.example.com"}
	for name, tc := range map[string]struct {
		body  map[string]any
		field string
	}{
		"no model": {map[string]any{"name": "x"}, "model"},
		"custom tool name": {func() map[string]any {
			b := custom(map[string]any{"type": "object"})
			b["tools"].([]any)[0].(map[string]any)["name"] = "bad name"
			return b
		}(), "tools.0"},
		"additional props":  {custom(map[string]any{"type": "object", "additionalProperties": false}), "tools.0"},
		"unreferenced mcp":  {withServers([]any{server}, []any{}), "mcp_servers.0"},
		"unknown mcp":       {withServers([]any{}, []any{map[string]any{"type": "mcp_toolset", "mcp_server_name": "docs"}}), "tools.0.mcp_server_name"},
		"duplicate servers": {withServers([]any{server, server}, []any{map[string]any{"type": "mcp_toolset", "mcp_server_name": "docs"}}), "mcp_servers.1.name"},
		"policy": {func() map[string]any {
			b := agentBody("x")
			b["tools"] = []any{map[string]any{"type": "agent_toolset_20260401", "default_config": map[string]any{"permission_policy": map[string]any{"type": "sometimes"}}}}
			return b
		}(), "tools.0"},
		"toolset tool": {func() map[string]any {
			b := agentBody("x")
			b["tools"] = []any{map[string]any{"type": "agent_toolset_20260401", "configs": []any{map[string]any{"name": "rm"}}}}
			return b
		}(), "tools.0"},
		"effort": {func() map[string]any {
			b := agentBody("x")
			b["model"] = map[string]any{"id": "m", "effort": "extreme"}
			return b
		}(), "model"},
	} {
		r := api.do("POST", "/v1/agents", tc.body)
		if r.status != http.StatusBadRequest || !strings.HasPrefix(r.get("error.message").String(), tc.field) {
			t.Errorf("%s: %d %s, want 400 naming %s", name, r.status, r.body, tc.field)
		}
	}
}

// An agent of one organization is not another's.
func TestAgentOfAnotherOrganizationIsNotFound(t *testing.T) {
	ts := NewTestServer(t)
	id := apiClient(t, ts).ok("POST", "/v1/agents", agentBody("mine")).get("id").String()
	other := &workClient{t, ts, "X-Api-Key", "test-api-key-2"}
	if r := other.do("GET", "/v1/agents/"+id, nil); r.status != http.StatusNotFound {
		t.Errorf("another organization's agent = %d, want 404", r.status)
	}
}
