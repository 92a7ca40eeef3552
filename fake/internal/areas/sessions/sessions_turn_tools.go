package sessions

import (
	"fmt"

	"github.com/platformkit/platformkit/fake/internal/areas/agents"
)

// The agent's tools as its turn's Messages request declares them, as the Messages API takes
// them:
//
//   - each enabled sandbox tool of the agent toolset (bash, edit, read, write, glob, grep) as a
//     custom tool with the input schema of its documented inputs, which the session's worker
//     runs (agent.tool_use, waiting for its user.tool_result);
//   - the toolset's web tools, when enabled, as the server tools web_fetch_20250910 and
//     web_search_20250305, with the options the agent's config gives them (allowed_domains,
//     blocked_domains, and max_content_tokens and url_sources, or user_location). The server runs
//     them within the answer: a server_tool_use block and its result block;
//   - the agent's custom tools, as they are;
//   - each MCP toolset as an mcp_toolset of the MCP connector (beta mcp-client-2025-11-20), its
//     default_config and per-tool configs reduced to what the connector takes (enabled), with the
//     agent's mcp_servers as the request's mcp_servers. The server calls them within the
//     answer: an mcp_tool_use block and its mcp_tool_result (the fake connects to no server: a
//     stub, a scenario or the tape writes both).

// BetaMCPClient is the beta value of the MCP connector, which a turn's request selects when it
// declares MCP servers.
const BetaMCPClient = "mcp-client-2025-11-20"

// webTools are the versions of the agent toolset's web tools a turn declares, and the options of
// the agent's config each takes.
var webTools = map[string]struct {
	typ     string
	options []string
}{
	"web_fetch":  {"web_fetch_20250910", []string{"allowed_domains", "blocked_domains", "max_content_tokens", "url_sources"}},
	"web_search": {"web_search_20250305", []string{"allowed_domains", "blocked_domains", "user_location"}},
}

// modelTools are the agent's tools as a Messages request declares them (above): the toolset's
// tools in its order, its custom tools, then its MCP toolsets.
func modelTools(v agents.Agent) []any {
	var out []any
	for _, name := range agents.ToolsetTools {
		if on, _ := v.ToolPolicy(name); !on {
			continue
		}
		if schema, ok := toolsetSchemas[name]; ok {
			out = append(out, map[string]any{"name": name, "description": "The agent toolset's " + name + " tool.", "input_schema": schema})
		} else if web, ok := webTools[name]; ok {
			t := map[string]any{"type": web.typ, "name": name}
			cfg := toolConfig(v, name)
			for _, o := range web.options {
				if x, ok := cfg[o]; ok && x != nil {
					t[o] = x
				}
			}
			out = append(out, t)
		}
	}
	for _, x := range v.Tools {
		if t := mapOf(x); t["type"] == agents.CustomToolType {
			out = append(out, map[string]any{"name": t["name"], "description": t["description"], "input_schema": t["input_schema"]})
		}
	}
	for _, x := range v.Tools {
		if t := mapOf(x); t["type"] == agents.MCPToolsetType {
			out = append(out, mcpToolset(t))
		}
	}
	return out
}

// mcpToolset is an agent's mcp_toolset as the MCP connector takes it: its configs, a list of
// {name, enabled, permission_policy} on the agent, become a map by tool name, and only enabled
// is kept (permission policies are the session's, not the model's).
func mcpToolset(t map[string]any) map[string]any {
	out := map[string]any{"type": agents.MCPToolsetType, "mcp_server_name": t["mcp_server_name"]}
	if def := mapOf(t["default_config"]); def != nil {
		out["default_config"] = map[string]any{"enabled": def["enabled"] != false}
	}
	configs := map[string]any{}
	for _, c := range listOf(t["configs"]) {
		cfg := mapOf(c)
		if name, _ := cfg["name"].(string); name != "" {
			configs[name] = map[string]any{"enabled": cfg["enabled"] != false}
		}
	}
	if len(configs) > 0 {
		out["configs"] = configs
	}
	return out
}

// mcpServers are the agent's MCP servers as the request's mcp_servers: {type: url, name, url}.
func mcpServers(v agents.Agent) []any {
	var out []any
	for _, x := range v.MCPServers {
		m := mapOf(x)
		out = append(out, map[string]any{"type": "url", "name": m["name"], "url": m["url"]})
	}
	return out
}

// toolConfig is the agent toolset's config of the tool name, nil when it has none.
func toolConfig(v agents.Agent, name string) map[string]any {
	for _, x := range v.Tools {
		if t := mapOf(x); t["type"] == agents.ToolsetType {
			for _, c := range listOf(t["configs"]) {
				if cfg := mapOf(c); cfg["name"] == name {
					return cfg
				}
			}
		}
	}
	return nil
}

// serverTool turns a block of a call the server made within the answer into the session's
// events:
//
//   - a server_tool_use (web_fetch, web_search) is an agent.tool_use, and an mcp_tool_use an
//     agent.mcp_tool_use naming its server; either is allowed (the answer holds the call made:
//     the fake asks no one, whatever the policy) and waits for nothing;
//   - its result block (web_search_tool_result, web_fetch_tool_result, mcp_tool_result) is an
//     agent.tool_result, or an agent.mcp_tool_result, for that event; an error when the result
//     is one.
//
// served maps the answer's call IDs to their events.
func (ss *session) serverTool(a *Store, b map[string]any, served map[string]string, emit func(Event) error) error {
	switch b["type"] {
	case "server_tool_use", "mcp_tool_use":
		input := mapOf(b["input"])
		if input == nil {
			input = Event{}
		}
		ev := Event{"type": "agent.tool_use", "name": b["name"], "input": input, "evaluated_permission": "allow", "evaluation": Event{"type": "always_allow"}}
		if b["type"] == "mcp_tool_use" {
			ev["type"], ev["mcp_server_name"] = "agent.mcp_tool_use", b["server_name"]
		}
		if err := emit(ev); err != nil {
			return err
		}
		id, _ := b["id"].(string)
		served[id] = ev["id"].(string)
		return ss.callMade(a, served[id], b)
	}
	use, _ := b["tool_use_id"].(string)
	event, ok := served[use]
	if !ok {
		return nil // a result for no call of this answer: nothing the session saw was called
	}
	if b["type"] == "mcp_tool_result" {
		content := []any{}
		if text, ok := b["content"].(string); ok {
			content = append(content, textBlock(text))
		} else {
			content = modelBlocks(b["content"])
		}
		return emit(Event{"type": "agent.mcp_tool_result", "mcp_tool_use_id": event, "content": content, "is_error": b["is_error"] == true})
	}
	content, isError := serverResult(b["content"])
	return emit(Event{"type": "agent.tool_result", "tool_use_id": event, "content": content, "is_error": isError})
}

// serverResult is a web tool's result as session content: a web search's results as one text
// block each (title and URL), a fetched page as its URL and, when the document is text, its
// text; an error as a text block naming its error_code, with is_error.
func serverResult(c any) ([]any, bool) {
	if m := mapOf(c); m != nil {
		if code, ok := m["error_code"]; ok {
			return []any{textBlock(fmt.Sprint("error: ", code))}, true
		}
		text := fmt.Sprint(m["url"])
		if src := mapOf(mapOf(m["content"])["source"]); src["type"] == "text" {
			text += "\n" + fmt.Sprint(src["data"])
		}
		return []any{textBlock(text)}, false
	}
	out := []any{}
	for _, x := range listOf(c) {
		r := mapOf(x)
		out = append(out, textBlock(fmt.Sprint(r["title"], "\n", r["url"])))
	}
	return out, false
}
