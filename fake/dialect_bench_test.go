package fake

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/platformkit/platformkit/fake/internal/core"
)

// BenchmarkDialect measures what answering in the maker's words costs: the same requests sent
// as an official SDK sends them (anthropic-version, claude-* model names: the body rewritten to
// the reference's words when read, the answer back to the maker's when written) and in the
// reference's words (vendor-version, assistant-*: neither rewrite runs). A model read, a list
// of models (every record's model name rewritten), a short message and a conversation of 40
// turns with tools (the rewrite walks every key of the body).
func BenchmarkDialect(b *testing.B) {
	turns := []any{}
	for i := range 40 {
		role := []string{"user", "assistant"}[i%2]
		turns = append(turns, map[string]any{"role": role, "content": []any{map[string]any{"type": "text", "text": "turn text"}}})
	}
	long := msgBody("messages", turns, "system", "be brief", "metadata", map[string]any{"user_id": "u1"},
		"tools", []any{map[string]any{"name": "lookup", "description": "d", "input_schema": map[string]any{"type": "object"}}})
	agent := []byte(`{"name":"bench","model":"` + testModel + `","tools":[{"type":"agent_toolset_20260401"}]}`)
	for _, bc := range []struct {
		name, method, path string
		body               any
		agents             int // made before the measure
	}{
		{"get-model", "GET", "/v1/models/" + testModel, nil, 0},
		{"list-models", "GET", "/v1/models?limit=20", nil, 0},
		{"list-agents", "GET", "/v1/agents?limit=20", nil, 20},
		{"create-message", "POST", "/v1/messages", msgBody(), 0},
		{"create-message-40-turns", "POST", "/v1/messages", long, 0},
	} {
		var data []byte
		if bc.body != nil {
			var err error
			if data, err = json.Marshal(bc.body); err != nil {
				b.Fatal(err)
			}
		}
		server := func() *Server {
			s := New()
			for range bc.agents {
				benchDo(b, s, "POST", "/v1/agents", agent, messagesHeaders)
			}
			return s
		}
		b.Run(bc.name+"/reference", func(b *testing.B) {
			benchCPU(b, server(), bc.method, bc.path, data, messagesHeaders)
		})
		b.Run(bc.name+"/maker", func(b *testing.B) {
			maker := []string{"X-Api-Key", "test-api-key", core.HeaderAnthropicVersion, core.APIVersion, "Content-Type", "application/json"}
			path := strings.Replace(bc.path, "assistant-", "claude-", 1)
			benchCPU(b, server(), bc.method, path, []byte(strings.ReplaceAll(string(data), `"assistant-`, `"claude-`)), maker)
		})
	}
}
