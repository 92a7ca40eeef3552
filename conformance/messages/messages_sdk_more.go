package messages

import (
	"net/http"
	"strings"
	"time"

	"github.com/tidwall/gjson"

	. "github.com/onsi/gomega"

	"github.com/platformkit/platformkit/conformance/kit"
)

// The request fields of the official SDKs beyond the ones messages/sdk-request-fields sends:
// each accepted, and acted on where the answer shows it (gaps §4b). A deployment that refuses
// one with a 400 naming it does not offer it: the check says unsupported.

func init() { kit.Register(sdkFieldChecks()...) }

// sdkSend sends a message with the field set, unsupported when the target refuses it by name.
func sdkSend(t *kit.T, model, field string, kv ...any) *kit.Response {
	resp := t.Do(CreateRequest(Body(model, kv...)))
	if resp.Status == http.StatusBadRequest && strings.HasPrefix(resp.Get("error.message").String(), field) {
		t.Unsupported("the target does not take %s: %s", field, resp)
	}
	t.ExpectWithOffset(1, resp.Status).To(Equal(http.StatusOK), "a message with %s is answered 200: %s", field, resp)
	return resp
}

// strictTool is a strict tool whose schema is closed and requires both properties.
var strictTool = map[string]any{
	"name": "book_table", "description": "Book a table at a restaurant", "strict": true,
	"input_schema": map[string]any{"type": "object", "additionalProperties": false, "required": []any{"restaurant", "guests"},
		"properties": map[string]any{"restaurant": map[string]any{"type": "string"}, "guests": map[string]any{"type": "integer"},
			"time": map[string]any{"type": "string", "format": "time"}}},
}

func sdkFieldChecks() []kit.Check {
	return []kit.Check{
		{ID: "messages/strict-tool-input-validates", Clause: "gaps §4b", Labels: []kit.Label{kit.Messages, kit.Extension},
			Title: "a strict tool's tool_use input validates against its input_schema: every required property, none outside a closed object",
			Bug: &kit.Bug{Says: "a strict tool's input carries a property its closed schema does not allow", Want: "additionalProperties", Break: kit.InOKAnswers(msgCreate, func(_ *http.Request, m map[string]any) {
				content, _ := m["content"].([]any)
				for _, b := range content {
					if in, _ := b.(map[string]any)["input"].(map[string]any); in != nil {
						in["note"] = "window seat"
					}
				}
			})},
			Run: func(t *kit.T) {
				model, _ := PickModel(t)
				resp := sdkSend(t, model, "tools", "max_tokens", 512, "tools", []any{strictTool}, "tool_choice", map[string]any{"type": "tool", "name": "book_table"},
					"messages", []any{UserTurn("Book a table for four at Casa Lisboa.")})
				use := resp.Get(`content.#(type=="tool_use")`)
				t.Expect(use.Exists()).To(BeTrue(), "a forced tool answers a tool_use block: %s", resp)
				satisfies(t, strictTool["input_schema"].(map[string]any), use.Get("input"))
			}},
		{ID: "messages/thinking-display-omitted", Clause: "gaps §4b", Labels: []kit.Label{kit.Messages, kit.Extension},
			Title: "thinking.display omitted answers a thinking block with empty thinking text and a signature, its tokens still counted as output",
			Bug: &kit.Bug{Says: "thinking.display omitted is ignored: the thinking text is shown", Want: "omitted", Break: kit.InRequests(http.MethodPost, "/v1/messages", func(b map[string]any) {
				if th, ok := b["thinking"].(map[string]any); ok {
					delete(th, "display")
				}
			})},
			Run: func(t *kit.T) {
				model, _ := PickModel(t)
				resp := sdkSend(t, model, "thinking", "max_tokens", 2048, "thinking", map[string]any{"type": "enabled", "budget_tokens": 1024, "display": "omitted"})
				block := resp.Get(`content.#(type=="thinking")`)
				if !block.Exists() {
					t.Unsupported("the answer has no thinking block to inspect: %s", resp)
				}
				t.Expect(block.Get("thinking").String()).To(BeEmpty(), "with display omitted the thinking text is empty: %s", block)
				t.Expect(block.Get("signature").String()).NotTo(BeEmpty(), "an omitted thinking block keeps its signature: %s", block)
				t.Expect(resp.Get("usage.output_tokens").Int()).To(BeNumerically(">", 0), "omitted thinking is still generated output: %s", resp.Get("usage"))
			}},
		{ID: "messages/sdk-speed-reported", Clause: "gaps §4b", Labels: []kit.Label{kit.Messages, kit.Extension},
			Title: "speed fast is accepted and reported as usage.speed fast; without it usage.speed is standard",
			Bug:   &kit.Bug{Says: "speed is ignored: usage.speed is always standard", Want: "usage.speed", Break: kit.IgnoresField(http.MethodPost, "/v1/messages", "speed")},
			Run: func(t *kit.T) {
				model, _ := PickModel(t)
				plain := t.OK(CreateRequest(Body(model)))
				t.Expect(plain.Get("usage.speed").String()).To(Equal("standard"), "usage.speed without a speed: %s", plain.Get("usage"))
				fast := sdkSend(t, model, "speed", "speed", "fast")
				t.Expect(fast.Get("usage.speed").String()).To(Equal("fast"), "usage.speed reports the request's speed: %s", fast.Get("usage"))
			}},
		{ID: "messages/sdk-container-reused", Clause: "gaps §4b", Labels: []kit.Label{kit.Messages, kit.Extension},
			Title: "a container named by ID is the answer's container: the same id, with an RFC 3339 expires_at",
			Bug:   &kit.Bug{Says: "the container field is ignored: the answer's container is null", Want: "container", Break: kit.IgnoresField(http.MethodPost, "/v1/messages", "container")},
			Run: func(t *kit.T) {
				model, _ := PickModel(t)
				const id = "container_011CconformanceReuse"
				resp := sdkSend(t, model, "container", "container", id)
				t.Expect(resp.Get("container.id").String()).To(Equal(id), "the answer's container is the one named: %s", resp.Get("container"))
				_, err := time.Parse(time.RFC3339, resp.Get("container.expires_at").String())
				t.Expect(err).NotTo(HaveOccurred(), "container.expires_at is RFC 3339: %s", resp.Get("container"))
			}},
		{ID: "messages/sdk-context-management-reported", Clause: "gaps §4b", Labels: []kit.Label{kit.Messages, kit.Extension},
			Title: "a request with context_management answers context_management with its applied_edits (null without one), on Messages and count_tokens",
			Bug:   &kit.Bug{Says: "context_management is ignored: the answer's is null", Want: "context_management", Break: msgInRequests(func(b map[string]any) { delete(b, "context_management") })},
			Run: func(t *kit.T) {
				model, _ := PickModel(t)
				plain := t.OK(CreateRequest(Body(model)))
				t.Expect(plain.Get("context_management").Type).To(Equal(gjson.Null), "context_management is null without one: %s", plain)
				cm := map[string]any{"edits": []any{map[string]any{"type": "clear_tool_uses_20250919"}}}
				resp := sdkSend(t, model, "context_management", "context_management", cm)
				t.Expect(resp.Get("context_management.applied_edits").IsArray()).To(BeTrue(), "context_management.applied_edits lists the edits applied: %s", resp)
				count := t.OK(kit.Request{Area: kit.Messages, Method: http.MethodPost, Path: "/v1/messages/count_tokens", Schema: "messages/count_tokens",
					Body: map[string]any{"model": model, "messages": []any{UserTurn("Hello")}, "context_management": cm}})
				t.Expect(count.Get("context_management").IsObject()).To(BeTrue(), "count_tokens reports context_management too: %s", count)
			}},
		{ID: "messages/sdk-request-fields-more", Clause: "gaps §4b", Labels: []kit.Label{kit.Messages, kit.Extension},
			Title: "mcp_servers, compaction, fallbacks and output_config.effort, as the official SDKs send them, are each accepted",
			Bug: &kit.Bug{Says: "compaction is refused as an unknown field", Want: "compaction", Break: kit.InRequests(http.MethodPost, "/v1/messages", func(b map[string]any) {
				if c, ok := b["compaction"]; ok {
					b["compaction_"] = c
					delete(b, "compaction")
				}
			})},
			Run: func(t *kit.T) {
				model, _ := PickModel(t)
				for _, f := range []struct {
					name  string
					value any
				}{
					{"mcp_servers", []any{map[string]any{"type": "url", "name": "docs", "url": "https://mcp.example.com/sse", "tool_configuration": map[string]any{"enabled": true, "allowed_tools": []any{"search"}}}}},
					{"compaction", map[string]any{"type": "summarize", "instructions": "Keep the decisions."}},
					{"fallbacks", "default"},
					{"output_config", map[string]any{"effort": "low"}},
				} {
					resp := t.Do(CreateRequest(Body(model, f.name, f.value)))
					t.Expect(resp.Status).To(Equal(http.StatusOK), "a message with %s is answered 200: %s", f.name, resp)
				}
			}},
	}
}
