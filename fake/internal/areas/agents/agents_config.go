package agents

import (
	"fmt"
	"maps"

	"github.com/platformkit/platformkit/fake/internal/core"
)

// The configuration of an agent as a request gives it and as the API answers it: the schema
// (agents/agent_create, agents/agent_update) checks each field's shape; here are the rules that
// span fields, and the resolution of defaults.

// ToolsetType and the other tool types of an agent's tools.
const (
	ToolsetType    = "agent_toolset_20260401"
	MCPToolsetType = "mcp_toolset"
	CustomToolType = "custom"
)

// ToolsetTools are the tools of the agent toolset; the first six run in the sandbox (by the
// worker of a self-hosted environment), the web tools on the server.
var ToolsetTools = []string{"bash", "edit", "read", "write", "glob", "grep", "web_fetch", "web_search"}

// Default permission policies, which the reference does not publish: the agent toolset's tools
// run without asking, an MCP server's ask first.
var (
	defaultToolsetPolicy = map[string]any{"type": "always_allow"}
	defaultMCPPolicy     = map[string]any{"type": "always_ask"}
)

// Override returns the version v with the overrides of a session's agent_with_overrides (model,
// system, tools, mcp_servers, skills) applied, checked as an update would be; errors name the
// field under at ("agent.").
func Override(v Agent, body map[string]any, at string) (Agent, error) {
	over := map[string]any{}
	for _, k := range []string{"model", "system", "tools", "mcp_servers", "skills"} {
		if x, ok := body[k]; ok {
			over[k] = x
		}
	}
	err := apply(&v, over, &v, at)
	return v, err
}

// apply sets on v the fields of a create or update body. For an update, cur is the current
// version: arrays and objects given replace, null or "" clears description and system, and
// metadata is a patch.
func apply(v *Agent, body map[string]any, cur *Agent, at string) error {
	if name, ok := body["name"].(string); ok {
		v.Name = name
	}
	if m, ok := body["model"]; ok {
		var keep map[string]any
		if cur != nil {
			keep = cur.Model
		}
		v.Model = resolveModel(m, keep)
	}
	for _, f := range []struct {
		key string
		to  **string
	}{{"description", &v.Description}, {"system", &v.System}} {
		if x, ok := body[f.key]; ok {
			s, _ := x.(string)
			if s == "" {
				*f.to = nil
			} else {
				*f.to = &s
			}
		}
	}
	if x, ok := body["execution_identity"]; ok {
		if x == nil {
			x = map[string]any{"type": "service_account"}
		}
		v.ExecutionIdentity = x
	}
	if x, ok := body["multiagent"]; ok {
		v.Multiagent = x
	}
	if x, ok := body["mcp_servers"]; ok {
		v.MCPServers = orEmpty(x)
	}
	if x, ok := body["skills"]; ok {
		v.Skills = resolveSkills(orEmpty(x))
	}
	if x, ok := body["tools"]; ok {
		v.Tools = orEmpty(x)
	}
	if md, ok := body["metadata"].(map[string]any); ok {
		var err error
		if v.Metadata, err = core.PatchMetadata(v.Metadata, md, at+"metadata", "an agent"); err != nil {
			return err
		}
	}
	tools, err := resolveTools(v.Tools, v.MCPServers, at)
	if err != nil {
		return err
	}
	v.Tools = tools
	return nil
}

func orEmpty(x any) []any {
	if l, ok := x.([]any); ok {
		return l
	}
	return []any{}
}

// resolveModel turns a model string or object into the object the API answers: effort is always
// present, given as "high" or {type: high}, kept from keep when an update omits it.
func resolveModel(m any, keep map[string]any) map[string]any {
	out := map[string]any{}
	switch m := m.(type) {
	case string:
		out["id"] = m
	case map[string]any:
		maps.Copy(out, m)
	}
	switch e := out["effort"].(type) {
	case string:
		out["effort"] = map[string]any{"type": e}
	case nil:
		if keep != nil && keep["effort"] != nil {
			out["effort"] = keep["effort"]
		} else {
			out["effort"] = map[string]any{"type": DefaultEffort}
		}
	}
	if out["speed"] == nil {
		out["speed"] = "standard"
	}
	if out["inference_geo"] == nil {
		delete(out, "inference_geo")
	}
	return out
}

// resolveSkills fills each skill's version with latest when the request omits it.
func resolveSkills(skills []any) []any {
	out := make([]any, len(skills))
	for i, x := range skills {
		sk := maps.Clone(x.(map[string]any))
		if sk["version"] == nil {
			sk["version"] = "latest"
		}
		out[i] = sk
	}
	return out
}

// resolveTools checks the rules across tools (one agent toolset, each MCP toolset naming a
// declared server, each server referenced, unique names) and answers each toolset resolved: its
// default_config complete and each config with its type, enabled and permission_policy.
func resolveTools(tools, servers []any, prefix string) ([]any, error) {
	declared := map[string]int{}
	for i, x := range servers {
		name, _ := x.(map[string]any)["name"].(string)
		if _, dup := declared[name]; dup {
			return nil, core.InvalidField(prefix+fmt.Sprintf("mcp_servers.%d.name", i), "the name %s is used by another MCP server; names are unique", core.Quoted(name, core.MaxExcerpt))
		}
		declared[name] = i
	}
	referenced := map[string]bool{}
	customs := map[string]bool{}
	toolsets := 0
	out := make([]any, len(tools))
	for i, x := range tools {
		t := maps.Clone(x.(map[string]any))
		at := prefix + fmt.Sprintf("tools.%d", i)
		switch t["type"] {
		case ToolsetType:
			if toolsets++; toolsets > 1 {
				return nil, core.InvalidField(at+".type", "an agent has at most one %s", ToolsetType)
			}
			if err := resolveToolset(t, at, defaultToolsetPolicy, true); err != nil {
				return nil, err
			}
		case MCPToolsetType:
			name, _ := t["mcp_server_name"].(string)
			if _, ok := declared[name]; !ok {
				return nil, core.InvalidField(at+".mcp_server_name", "no MCP server of mcp_servers is named %s", core.Quoted(name, core.MaxExcerpt))
			}
			if referenced[name] {
				return nil, core.InvalidField(at+".mcp_server_name", "another mcp_toolset already uses the MCP server %s", core.Quoted(name, core.MaxExcerpt))
			}
			referenced[name] = true
			if err := resolveToolset(t, at, defaultMCPPolicy, false); err != nil {
				return nil, err
			}
		case CustomToolType:
			name, _ := t["name"].(string)
			if customs[name] {
				return nil, core.InvalidField(at+".name", "another custom tool is named %s; names are unique", core.Quoted(name, core.MaxExcerpt))
			}
			customs[name] = true
		}
		out[i] = t
	}
	for i, x := range servers {
		if name, _ := x.(map[string]any)["name"].(string); !referenced[name] {
			return nil, core.InvalidField(prefix+fmt.Sprintf("mcp_servers.%d", i), "the MCP server %s is not used by any mcp_toolset of tools; unreferenced servers are refused", core.Quoted(name, core.MaxExcerpt))
		}
	}
	return out, nil
}

// resolveToolset completes a toolset's default_config and configs in t, in place; typed: each
// config carries type = name (the agent toolset's configs do, an MCP toolset's do not).
func resolveToolset(t map[string]any, at string, policy map[string]any, typed bool) error {
	def, _ := t["default_config"].(map[string]any)
	def = maps.Clone(def)
	if def == nil {
		def = map[string]any{}
	}
	if def["enabled"] == nil {
		def["enabled"] = true
	}
	if def["permission_policy"] == nil {
		def["permission_policy"] = policy
	}
	t["default_config"] = def
	configs := orEmpty(t["configs"])
	out := make([]any, len(configs))
	seen := map[string]bool{}
	for j, x := range configs {
		cfg := maps.Clone(x.(map[string]any))
		name, _ := cfg["name"].(string)
		if seen[name] {
			return core.InvalidField(fmt.Sprintf("%s.configs.%d.name", at, j), "another config of this toolset names the tool %s", core.Quoted(name, core.MaxExcerpt))
		}
		seen[name] = true
		if cfg["enabled"] == nil {
			cfg["enabled"] = def["enabled"]
		}
		if cfg["permission_policy"] == nil {
			cfg["permission_policy"] = def["permission_policy"]
		}
		if typed {
			cfg["type"] = name
		}
		out[j] = cfg
	}
	t["configs"] = out
	return nil
}

// ToolPolicy returns whether the agent's toolset enables the tool, and its permission policy
// type (always_allow, always_ask or auto).
func (v Agent) ToolPolicy(tool string) (enabled bool, policy string) {
	for _, x := range v.Tools {
		t, _ := x.(map[string]any)
		if t["type"] != ToolsetType {
			continue
		}
		def, _ := t["default_config"].(map[string]any)
		enabled, _ = def["enabled"].(bool)
		pol, _ := def["permission_policy"].(map[string]any)
		for _, c := range orEmpty(t["configs"]) {
			cfg, _ := c.(map[string]any)
			if cfg["name"] == tool {
				enabled, _ = cfg["enabled"].(bool)
				pol, _ = cfg["permission_policy"].(map[string]any)
			}
		}
		policy, _ = pol["type"].(string)
		return enabled, policy
	}
	return false, ""
}

// CustomTools returns the names of the agent's custom tools, in order.
func (v Agent) CustomTools() []string {
	var out []string
	for _, x := range v.Tools {
		if t, _ := x.(map[string]any); t["type"] == CustomToolType {
			name, _ := t["name"].(string)
			out = append(out, name)
		}
	}
	return out
}
