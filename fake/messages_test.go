package fake

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/platformkit/platformkit/fake/internal/areas/messages/scenarios"

	"github.com/platformkit/platformkit/fake/internal/areas/messages/model"

	"github.com/platformkit/platformkit/fake/internal/areas/messages/wire"

	"github.com/platformkit/platformkit/fake/internal/core"

	"github.com/santhosh-tekuri/jsonschema/v5"
	"github.com/tidwall/gjson"
)

const testModel = "assistant-opus-4-7" // fixture model with max_tokens 128000

// postMessages sends a JSON body to the Messages interface and returns the status and body.
func postMessages(t testing.TB, ts *TestServer, path string, body any, header ...string) (int, []byte) {
	t.Helper()
	header = append([]string{"X-Api-Key", "test-api-key", "vendor-version", core.APIVersion}, header...)
	status, _, data, err := roundTrip(context.Background(), ts, http.MethodPost, path, body, header...)
	if err != nil {
		t.Fatal(err)
	}
	return status, data
}

// msgBody is a minimal valid request, with fields added or replaced by kv.
func msgBody(kv ...any) map[string]any {
	return with(map[string]any{"model": testModel, "max_tokens": 200, "messages": []any{map[string]any{"role": "user", "content": "Hello there"}}}, kv)
}

// with sets the fields of b from the name, value pairs of kv (a nil value deletes the field).
func with(b map[string]any, kv []any) map[string]any {
	for i := 0; i+1 < len(kv); i += 2 {
		if kv[i+1] == nil {
			delete(b, kv[i].(string))
			continue
		}
		b[kv[i].(string)] = kv[i+1]
	}
	return b
}

// userTurn is a messages list of one user turn with the content.
func userTurn(content any) []any { return []any{map[string]any{"role": "user", "content": content}} }

func create(t testing.TB, ts *TestServer, body any, header ...string) gjson.Result {
	t.Helper()
	status, out := postMessages(t, ts, "/v1/messages", body, header...)
	if status != http.StatusOK {
		t.Fatalf("POST /v1/messages = %d %s", status, out)
	}
	return gjson.ParseBytes(out)
}

func expect400(t *testing.T, ts *TestServer, path string, body any, field string, header ...string) {
	t.Helper()
	status, out := postMessages(t, ts, path, body, header...)
	msg := gjson.GetBytes(out, "error.message").String()
	if status != http.StatusBadRequest || !strings.HasPrefix(msg, field+":") {
		t.Errorf("status %d, message %q; want 400 naming %q", status, msg, field)
	}
}

func TestMessageValidationNamesTheField(t *testing.T) {
	ts := NewTestServer(t)
	img := func(src map[string]any) []any { return userTurn([]any{map[string]any{"type": "image", "source": src}}) }
	cases := []struct {
		name  string
		body  any
		field string
	}{
		{"missing max_tokens", msgBody("max_tokens", nil), "max_tokens"},
		{"missing messages", msgBody("messages", nil), "messages"},
		{"missing model", msgBody("model", nil), "model"},
		{"negative max_tokens", msgBody("max_tokens", -1), "max_tokens"},
		{"system role", msgBody("messages", []any{map[string]any{"role": "system", "content": "x"}}), "messages.0.role"},
		{"clear_at without a system role", msgBody("messages", []any{map[string]any{"role": "user", "content": "x", "clear_at": "never"}}), "messages.0.clear_at"},
		{"clear_at value", msgBody("messages", []any{map[string]any{"role": "user", "content": "x", "clear_at": "later"}}), "messages.0.clear_at"},
		{"per-message output_config", msgBody("messages", []any{map[string]any{"role": "user", "content": "x", "output_config": map[string]any{"effort": "low"}}}), "messages.0.output_config"},
		{"empty messages", msgBody("messages", []any{}), "messages"},
		{"unknown block type", msgBody("messages", userTurn([]any{map[string]any{"type": "video"}})), "messages.0.content.0.type"},
		{"text without text", msgBody("messages", userTurn([]any{map[string]any{"type": "text"}})), "messages.0.content.0.text"},
		{"image media type", msgBody("messages", img(map[string]any{"type": "base64", "media_type": "image/bmp", "data": "aGk="})), "messages.0.content.0.source.media_type"},
		{"image source kind", msgBody("messages", img(map[string]any{"type": "blob", "file_id": "f"})), "messages.0.content.0.source.type"},
		{"image bad base64", msgBody("messages", img(map[string]any{"type": "base64", "media_type": "image/png", "data": "not base64!"})), "messages.0.content.0.source.data"},
		{"image without data", msgBody("messages", img(map[string]any{"type": "base64", "media_type": "image/png"})), "messages.0.content.0.source.data"},
		{"unknown block field", msgBody("messages", userTurn([]any{map[string]any{"type": "text", "text": "x", "colour": "red"}})), "messages.0.content.0.colour"},
		{"image url without url", msgBody("messages", img(map[string]any{"type": "url"})), "messages.0.content.0.source.url"},
		{"pdf media type", msgBody("messages", userTurn([]any{map[string]any{"type": "document", "source": map[string]any{"type": "base64", "media_type": "text/plain", "data": "aGk="}}})), "messages.0.content.0.source.media_type"},
		{"cache ttl", msgBody("messages", userTurn([]any{map[string]any{"type": "text", "text": "x", "cache_control": map[string]any{"type": "ephemeral", "ttl": "10m"}}})), "messages.0.content.0.cache_control.ttl"},
		{"cache type", msgBody("messages", userTurn([]any{map[string]any{"type": "text", "text": "x", "cache_control": map[string]any{"type": "persistent"}}})), "messages.0.content.0.cache_control.type"},
		{"citation param", msgBody("messages", userTurn([]any{map[string]any{"type": "text", "text": "x", "citations": []any{map[string]any{"type": "char_location", "cited_text": "x"}}}})), "messages.0.content.0.citations.0.document_index"},
		{"tool_result content kind", msgBody("messages", userTurn([]any{map[string]any{"type": "tool_result", "tool_use_id": "t", "content": []any{map[string]any{"type": "thinking", "thinking": "x", "signature": "s"}}}})), "messages.0.content.0.content.0.type"},
		{"tool_reference outside tool_result", msgBody("messages", userTurn([]any{map[string]any{"type": "tool_reference", "tool_name": "x"}})), "messages.0.content.0.type"},
		{"web search error code", msgBody("messages", []any{map[string]any{"role": "assistant", "content": []any{map[string]any{"type": "web_search_tool_result", "tool_use_id": "s", "content": map[string]any{"type": "web_search_tool_result_error", "error_code": "url_too_long"}}}}}), "messages.0.content.0.content.error_code"},
		{"server tool name", msgBody("messages", []any{map[string]any{"role": "assistant", "content": []any{map[string]any{"type": "server_tool_use", "id": "s", "name": "teleport", "input": map[string]any{}}}}}), "messages.0.content.0.name"},
		{"system block", msgBody("system", []any{map[string]any{"type": "image"}}), "system.0.type"},
		{"temperature above 1", msgBody("temperature", 1.5), "temperature"},
		{"temperature below 0", msgBody("temperature", -0.1), "temperature"},
		{"stop_sequences not strings", msgBody("stop_sequences", []any{1}), "stop_sequences.0"},
		{"empty stop sequence", msgBody("stop_sequences", []any{"x", ""}), "stop_sequences.1"},
		{"tool without input_schema", msgBody("tools", []any{map[string]any{"name": "get"}}), "tools.0.input_schema"},
		{"tool name", msgBody("tools", []any{map[string]any{"name": "bad name", "input_schema": map[string]any{"type": "object"}}}), "tools.0.name"},
		{"tool_choice type", msgBody("tool_choice", map[string]any{"type": "some"}), "tool_choice.type"},
		{"tool_choice tool without name", msgBody("tool_choice", map[string]any{"type": "tool"}), "tool_choice.name"},
		{"tool_choice unknown tool", msgBody("tool_choice", map[string]any{"type": "tool", "name": "nope"}), "tool_choice.name"},
		{"tool_choice any without tools", msgBody("tool_choice", map[string]any{"type": "any"}), "tool_choice.type"},
		{"thinking budget below 1024", msgBody("max_tokens", 4000, "thinking", map[string]any{"type": "enabled", "budget_tokens": 1023}), "thinking.budget_tokens"},
		{"thinking budget not below max_tokens", msgBody("max_tokens", 2000, "thinking", map[string]any{"type": "enabled", "budget_tokens": 2000}), "thinking.budget_tokens"},
		{"thinking type", msgBody("thinking", map[string]any{"type": "on"}), "thinking.type"},
		{"unknown field", msgBody("frobnicate", true), "frobnicate"},
		{"user_id is an email", msgBody("metadata", map[string]any{"user_id": "jane.doe@example.com"}), "metadata.user_id"},
		{"user_id is a phone number", msgBody("metadata", map[string]any{"user_id": "+1 (555) 010-9999"}), "metadata.user_id"},
		{"max_tokens above the model's", msgBody("max_tokens", 128001), "max_tokens"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) { expect400(t, ts, "/v1/messages", c.body, c.field) })
	}
	status, out := postMessages(t, ts, "/v1/messages", "{not json")
	if status != http.StatusBadRequest {
		t.Errorf("malformed JSON: %d %s", status, out)
	}
}

// TestMessageAcceptsEveryRequestBlock sends every block type once. Four of them carry
// cache_control, the most a request may; TestCacheControlOnEveryBlockType covers the others.
func TestMessageAcceptsEveryRequestBlock(t *testing.T) {
	ts := NewTestServer(t)
	cc := map[string]any{"type": "ephemeral", "ttl": "1h"}
	caller := map[string]any{"type": "code_execution_20250825", "tool_id": "srvtoolu_1"}
	msgs := []any{
		map[string]any{"role": "user", "content": []any{
			map[string]any{"type": "text", "text": "Look", "citations": []any{
				map[string]any{"type": "char_location", "cited_text": "a", "document_index": 0, "document_title": "t", "start_char_index": 0, "end_char_index": 1},
				map[string]any{"type": "page_location", "cited_text": "a", "document_index": 0, "document_title": nil, "start_page_number": 1, "end_page_number": 2},
				map[string]any{"type": "content_block_location", "cited_text": "a", "document_index": 0, "document_title": "t", "start_block_index": 0, "end_block_index": 1},
				map[string]any{"type": "web_search_result_location", "cited_text": "a", "encrypted_index": "e", "title": "t", "url": "https://x"},
				map[string]any{"type": "search_result_location", "cited_text": "a", "search_result_index": 0, "source": "s", "title": "t", "start_block_index": 0, "end_block_index": 1},
			}},
			map[string]any{"type": "image", "source": map[string]any{"type": "base64", "media_type": "image/webp", "data": "aGk="}, "cache_control": cc},
			map[string]any{"type": "image", "source": map[string]any{"type": "url", "url": "https://example.com/a.png"}},
			map[string]any{"type": "document", "source": map[string]any{"type": "url", "url": "https://example.com/a.pdf"}, "title": "A", "context": "c", "citations": map[string]any{"enabled": false}, "cache_control": cc},
			map[string]any{"type": "document", "source": map[string]any{"type": "content", "content": []any{map[string]any{"type": "text", "text": "x"}, map[string]any{"type": "image", "source": map[string]any{"type": "url", "url": "https://example.com/b.png"}}}}},
			map[string]any{"type": "search_result", "source": "s", "title": "t", "content": []any{map[string]any{"type": "text", "text": "x"}}, "citations": map[string]any{"enabled": false}, "cache_control": cc},
		}},
		map[string]any{"role": "assistant", "content": []any{
			map[string]any{"type": "thinking", "thinking": "hm", "signature": "sig"},
			map[string]any{"type": "redacted_thinking", "data": "abc"},
			map[string]any{"type": "server_tool_use", "id": "srvtoolu_1", "name": "web_search", "input": map[string]any{"query": "q"}, "caller": map[string]any{"type": "direct"}},
			map[string]any{"type": "web_search_tool_result", "tool_use_id": "srvtoolu_1", "content": []any{map[string]any{"type": "web_search_result", "encrypted_content": "e", "title": "t", "url": "https://x", "page_age": nil}}},
			map[string]any{"type": "server_tool_use", "id": "srvtoolu_2", "name": "web_fetch", "input": map[string]any{}},
			map[string]any{"type": "web_fetch_tool_result", "tool_use_id": "srvtoolu_2", "content": map[string]any{"type": "web_fetch_result", "url": "https://x", "content": map[string]any{"type": "document", "source": map[string]any{"type": "text", "media_type": "text/plain", "data": "d"}}}},
			map[string]any{"type": "web_fetch_tool_result", "tool_use_id": "srvtoolu_3", "content": map[string]any{"type": "web_fetch_tool_result_error", "error_code": "url_not_allowed"}},
			map[string]any{"type": "code_execution_tool_result", "tool_use_id": "srvtoolu_4", "content": map[string]any{"type": "encrypted_code_execution_result", "encrypted_stdout": "e", "stderr": "", "return_code": 0, "content": []any{}}},
			map[string]any{"type": "tool_use", "id": "toolu_1", "name": "get", "input": map[string]any{"a": 1}, "caller": caller},
		}},
		map[string]any{"role": "user", "content": []any{
			map[string]any{"type": "tool_result", "tool_use_id": "toolu_1", "is_error": true, "content": []any{
				map[string]any{"type": "text", "text": "r"},
				map[string]any{"type": "tool_reference", "tool_name": "get"},
				map[string]any{"type": "search_result", "source": "s", "title": "t", "content": []any{map[string]any{"type": "text", "text": "x"}}},
				map[string]any{"type": "document", "source": map[string]any{"type": "text", "media_type": "text/plain", "data": "d"}},
			}},
			map[string]any{"type": "tool_result", "tool_use_id": "toolu_2", "content": "plain"},
		}},
	}
	create(t, ts, msgBody("messages", msgs, "system", []any{map[string]any{"type": "text", "text": "Be brief.", "cache_control": cc}},
		"metadata", map[string]any{"user_id": "u-1"}, "temperature", 0, "top_k", 5, "top_p", 1, "service_tier", "auto",
		"tools", []any{map[string]any{"name": "get", "input_schema": map[string]any{"type": "object"}}, map[string]any{"type": "web_search_20250305", "name": "web_search", "max_uses": 3}},
		"tool_choice", map[string]any{"type": "auto", "disable_parallel_tool_use": true}))
}

// TestMessageLimits checks the bounds of spec 4.4 and 8 at and beyond their edges.
func TestMessageLimits(t *testing.T) {
	ts := NewTestServer(t)
	create(t, ts, msgBody("max_tokens", 128000))
	create(t, ts, msgBody("model", "assistant-unknown-model", "max_tokens", 1000000))
	create(t, ts, msgBody("temperature", 1, "top_p", 0))
	create(t, ts, msgBody("max_tokens", 1025, "thinking", map[string]any{"type": "enabled", "budget_tokens": 1024}))
	many := make([]any, 100000)
	for i := range many {
		many[i] = map[string]any{"role": []string{"user", "assistant"}[i%2], "content": "a"}
	}
	many[len(many)-1] = map[string]any{"role": "user", "content": "a"}
	create(t, ts, msgBody("messages", many))
	expect400(t, ts, "/v1/messages", msgBody("messages", append(many, many[0])), "messages")

	req, _ := http.NewRequest(http.MethodPost, ts.URL+"/v1/messages", bytes.NewReader(make([]byte, 33<<20)))
	req.Header.Set("X-Api-Key", "test-api-key")
	req.Header.Set("vendor-version", core.APIVersion)
	resp, err := ts.Server.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusRequestEntityTooLarge {
		t.Errorf("a 33 MB body: status %d, want 413", resp.StatusCode)
	}
}

func TestScriptedModelIsDeterministic(t *testing.T) {
	a, b := NewTestServer(t), NewTestServer(t)
	body := msgBody()
	_, one := postMessages(t, a, "/v1/messages", body)
	_, two := postMessages(t, b, "/v1/messages", body)
	if !bytes.Equal(one, two) {
		t.Fatalf("the same request on two new servers differs:\n%s\n%s", one, two)
	}
	again := create(t, a, body)
	if got, want := again.Get("content").Raw, gjson.GetBytes(one, "content").Raw; got != want {
		t.Errorf("the same request twice: %s, then %s", want, got)
	}
	seen := map[string]string{}
	for _, text := range []string{"Hello there", "Hello there!", "hello there", "What is a lantern?"} {
		got := create(t, a, msgBody("messages", userTurn(text))).Get("content.0.text").String()
		if prev, dup := seen[got]; dup {
			t.Errorf("%q and %q get the same reply %q", prev, text, got)
		}
		seen[got] = text
	}
}

func TestScriptedModelMaxTokens(t *testing.T) {
	ts := NewTestServer(t)
	full := create(t, ts, msgBody("max_tokens", 1000))
	n := int(full.Get("usage.output_tokens").Int())
	if full.Get("stop_reason").String() != "end_turn" || n < 2 {
		t.Fatalf("unlimited reply: %s", full.Raw)
	}
	for _, max := range []int{1, n / 2, n - 1} {
		got := create(t, ts, msgBody("max_tokens", max))
		if got.Get("stop_reason").String() != "max_tokens" || got.Get("usage.output_tokens").Int() != int64(max) {
			t.Errorf("max_tokens %d: %s", max, got.Raw)
		}
		if !strings.HasPrefix(full.Get("content.0.text").String(), got.Get("content.0.text").String()) {
			t.Errorf("max_tokens %d: %q is not a prefix of the full reply", max, got.Get("content.0.text"))
		}
	}
	if got := create(t, ts, msgBody("max_tokens", n)); got.Get("stop_reason").String() != "end_turn" {
		t.Errorf("max_tokens equal to the reply's length: %s", got.Raw)
	}
	zero := create(t, ts, msgBody("max_tokens", 0))
	if zero.Get("content.#").Int() != 0 || zero.Get("usage.output_tokens").Int() != 0 || zero.Get("stop_reason").String() != "max_tokens" {
		t.Errorf("max_tokens 0: %s", zero.Raw)
	}
}

func TestScriptedModelStopSequences(t *testing.T) {
	ts := NewTestServer(t)
	text := create(t, ts, msgBody()).Get("content.0.text").String()
	words := strings.Fields(text)
	stop := words[len(words)/2]
	cut := strings.Index(text, stop)
	got := create(t, ts, msgBody("stop_sequences", []any{"no-such-sequence", stop}))
	if got.Get("stop_reason").String() != "stop_sequence" || got.Get("stop_sequence").String() != stop || got.Get("content.0.text").String() != text[:cut] {
		t.Errorf("stop sequence %q in %q: %s", stop, text, got.Raw)
	}
	// Two sequences matching at once: the earlier match wins, whatever their order in the request;
	// a match at the very start leaves no text.
	late := words[len(words)-2]
	want, at := late, strings.Index(text, late)
	if i := strings.Index(text, stop); i < at {
		want, at = stop, i
	}
	first := create(t, ts, msgBody("stop_sequences", []any{late, stop}))
	if first.Get("stop_sequence").String() != want || first.Get("content.0.text").String() != text[:at] {
		t.Errorf("two sequences %q and %q in %q: %s, want %q, the one found first (at byte %d)", late, stop, text, first.Raw, want, at)
	}
	head := text[:3]
	if empty := create(t, ts, msgBody("stop_sequences", []any{head})); empty.Get("content.#").Int() != 0 || empty.Get("stop_sequence").String() != head || empty.Get("usage.output_tokens").Int() != 0 {
		t.Errorf("a stop sequence at the start: %s", empty.Raw)
	}
	none := create(t, ts, msgBody("stop_sequences", []any{"no-such-sequence"}))
	if none.Get("stop_reason").String() != "end_turn" || none.Get("stop_sequence").Type != gjson.Null {
		t.Errorf("no match: %s", none.Raw)
	}
}

func TestScriptedModelContinuesAssistantTurn(t *testing.T) {
	ts := NewTestServer(t)
	prefill := "The lantern is"
	got := create(t, ts, msgBody("messages", []any{map[string]any{"role": "user", "content": "Describe it"}, map[string]any{"role": "assistant", "content": prefill}}))
	text := got.Get("content.0.text").String()
	if !strings.HasPrefix(text, " ") || strings.Contains(text, prefill) {
		t.Errorf("continuation of %q: %q", prefill, text)
	}
}

var weatherSchema = map[string]any{
	"type":     "object",
	"required": []any{"city", "unit", "days"},
	"properties": map[string]any{
		"city":  map[string]any{"type": "string", "minLength": 12, "maxLength": 20},
		"unit":  map[string]any{"enum": []any{"celsius", "fahrenheit"}},
		"days":  map[string]any{"type": "integer", "minimum": 1, "maximum": 7},
		"ratio": map[string]any{"type": "number", "exclusiveMinimum": 0, "maximum": 1},
		"when":  map[string]any{"type": "string", "format": "date-time"},
		"tags":  map[string]any{"type": "array", "minItems": 2, "maxItems": 3, "items": map[string]any{"type": "string"}},
		"where": map[string]any{"type": "object", "required": []any{"lat"}, "properties": map[string]any{"lat": map[string]any{"type": "number"}, "ok": map[string]any{"type": "boolean"}}},
		"any":   map[string]any{"anyOf": []any{map[string]any{"type": "string"}, map[string]any{"type": "null"}}},
		"nul":   map[string]any{"type": []any{"null", "integer"}},
		"wide":  map[string]any{"type": "integer", "minimum": -9e15, "maximum": 9e15},
		"long":  map[string]any{"type": "string", "minLength": 900},
	},
}

func validateInstance(t *testing.T, schema map[string]any, input string) {
	t.Helper()
	raw, _ := json.Marshal(schema)
	c := jsonschema.NewCompiler()
	c.AssertFormat = true
	if err := c.AddResource("tool.json", bytes.NewReader(raw)); err != nil {
		t.Fatal(err)
	}
	s := c.MustCompile("tool.json")
	var v any
	_ = json.Unmarshal([]byte(input), &v)
	if err := s.Validate(v); err != nil {
		t.Errorf("tool input %s does not satisfy the tool's input_schema: %v", input, err)
	}
}

func TestScriptedModelToolUse(t *testing.T) {
	ts := NewTestServer(t)
	tools := []any{map[string]any{"name": "get_weather", "description": "Weather", "input_schema": weatherSchema},
		map[string]any{"name": "noop", "input_schema": map[string]any{"type": "object"}}}
	forced := create(t, ts, msgBody("tools", tools, "tool_choice", map[string]any{"type": "tool", "name": "get_weather"}))
	use := forced.Get("content.0")
	if forced.Get("stop_reason").String() != "tool_use" || forced.Get("content.#").Int() != 1 || use.Get("type").String() != "tool_use" ||
		use.Get("name").String() != "get_weather" || !strings.HasPrefix(use.Get("id").String(), "toolu_") || use.Get("caller.type").String() != "direct" {
		t.Fatalf("forced tool: %s", forced.Raw)
	}
	validateInstance(t, weatherSchema, use.Get("input").Raw)

	anyTool := create(t, ts, msgBody("tools", tools, "tool_choice", map[string]any{"type": "any"}))
	if anyTool.Get("stop_reason").String() != "tool_use" || anyTool.Get("content.0.type").String() != "tool_use" {
		t.Errorf("tool_choice any: %s", anyTool.Raw)
	}
	none := create(t, ts, msgBody("tools", tools, "tool_choice", map[string]any{"type": "none"}))
	if none.Get("stop_reason").String() != "end_turn" {
		t.Errorf("tool_choice none: %s", none.Raw)
	}
	// auto: a tool call, and once its result comes back, an answer.
	first := create(t, ts, msgBody("tools", tools))
	last := first.Get("content").Array()
	call := last[len(last)-1]
	if first.Get("stop_reason").String() != "tool_use" || call.Get("type").String() != "tool_use" {
		t.Fatalf("auto with tools: %s", first.Raw)
	}
	var content any
	_ = json.Unmarshal([]byte(first.Get("content").Raw), &content)
	turns := []any{map[string]any{"role": "user", "content": "Hello there"}, map[string]any{"role": "assistant", "content": content},
		map[string]any{"role": "user", "content": []any{map[string]any{"type": "tool_result", "tool_use_id": call.Get("id").String(), "content": "sunny"}}}}
	second := create(t, ts, msgBody("tools", tools, "messages", turns))
	if second.Get("stop_reason").String() != "end_turn" || second.Get("content.0.type").String() != "text" {
		t.Errorf("after the tool result: %s", second.Raw)
	}
	if got := create(t, ts, msgBody("tools", tools, "tool_choice", map[string]any{"type": "tool", "name": "get_weather"}, "max_tokens", 3)); got.Get("stop_reason").String() != "max_tokens" || got.Get("content.#").Int() != 0 {
		t.Errorf("a tool call that does not fit max_tokens: %s", got.Raw)
	}
}

func TestScriptedModelThinking(t *testing.T) {
	ts := NewTestServer(t)
	for _, th := range []any{map[string]any{"type": "enabled", "budget_tokens": 1024}, map[string]any{"type": "adaptive"}} {
		got := create(t, ts, msgBody("max_tokens", 2000, "thinking", th))
		if got.Get("content.0.type").String() != "thinking" || got.Get("content.0.signature").String() == "" ||
			got.Get("content.0.thinking").String() == "" || got.Get("content.1.type").String() != "text" {
			t.Errorf("thinking %v: %s", th, got.Raw)
		}
	}
	off := create(t, ts, msgBody("thinking", map[string]any{"type": "disabled"}))
	if off.Get("content.0.type").String() != "text" {
		t.Errorf("thinking disabled: %s", off.Raw)
	}
}

// simplePDF writes a PDF with one uncompressed content stream per page.
func simplePDF(pages ...string) string {
	var b strings.Builder
	b.WriteString("%PDF-1.4\n1 0 obj\n<< /Type /Catalog /Pages 2 0 R >>\nendobj\n2 0 obj\n<< /Type /Pages /Count 1 >>\nendobj\n")
	for i, p := range pages {
		stream := fmt.Sprintf("BT (%s) Tj ET", strings.NewReplacer("(", `\(`, ")", `\)`).Replace(p))
		fmt.Fprintf(&b, "%d 0 obj\n<< /Type /Page /Contents %d 0 R >>\nendobj\n%d 0 obj\n<< /Length %d >>\nstream\n%s\nendstream\nendobj\n", 3+2*i, 4+2*i, 4+2*i, len(stream), stream)
	}
	b.WriteString("%%EOF\n")
	return base64.StdEncoding.EncodeToString([]byte(b.String()))
}

func TestScriptedModelCitations(t *testing.T) {
	ts := NewTestServer(t)
	on := map[string]any{"enabled": true}
	plain := "Lanterns glow at dusk. They burn until dawn."
	content := []any{
		map[string]any{"type": "document", "title": "Plain", "citations": on, "source": map[string]any{"type": "text", "media_type": "text/plain", "data": plain}},
		map[string]any{"type": "document", "citations": map[string]any{"enabled": false}, "source": map[string]any{"type": "text", "media_type": "text/plain", "data": "Not cited."}},
		map[string]any{"type": "document", "title": "Paper", "citations": on, "source": map[string]any{"type": "base64", "media_type": "application/pdf", "data": simplePDF("Page (one) text.", "Page two.")}},
		map[string]any{"type": "document", "citations": on, "source": map[string]any{"type": "content", "content": []any{
			map[string]any{"type": "text", "text": "Alpha. "}, map[string]any{"type": "text", "text": "Beta. "}, map[string]any{"type": "text", "text": "Gamma."}}}},
		map[string]any{"type": "search_result", "source": "https://kb/1", "title": "KB", "content": []any{map[string]any{"type": "text", "text": "Not cited."}}},
		map[string]any{"type": "search_result", "source": "https://kb/2", "title": "KB two", "citations": on, "content": []any{map[string]any{"type": "text", "text": "Result text."}}},
		map[string]any{"type": "text", "text": "Summarise with citations."},
	}
	got := create(t, ts, msgBody("messages", userTurn(content)))
	want := []string{
		`{"type":"char_location","cited_text":"Lanterns glow at dusk.","document_index":0,"document_title":"Plain","start_char_index":0,"end_char_index":22,"file_id":null}`,
		`{"type":"page_location","cited_text":"Page (one) text.","document_index":2,"document_title":"Paper","start_page_number":1,"end_page_number":2,"file_id":null}`,
		`{"type":"content_block_location","cited_text":"Alpha. Beta. ","document_index":3,"document_title":null,"start_block_index":0,"end_block_index":2,"file_id":null}`,
		`{"type":"search_result_location","cited_text":"Result text.","search_result_index":1,"source":"https://kb/2","title":"KB two","start_block_index":0,"end_block_index":1}`,
	}
	for i, w := range want {
		b := got.Get(fmt.Sprintf("content.%d", i))
		var a, e any
		_ = json.Unmarshal([]byte(b.Get("citations.0").Raw), &a)
		_ = json.Unmarshal([]byte(w), &e)
		if fmt.Sprint(a) != fmt.Sprint(e) || b.Get("citations.#").Int() != 1 || b.Get("text").String() != gjson.Get(w, "cited_text").String() {
			t.Errorf("block %d: %s\nwant citation %s", i, b.Raw, w)
		}
	}
	if q := []rune(plain)[0:22]; string(q) != "Lanterns glow at dusk." {
		t.Fatalf("test data: %q", string(q))
	}
	if got.Get(fmt.Sprintf("content.%d.citations", len(want))).Type != gjson.Null {
		t.Errorf("the answer after the quotes carries citations: %s", got.Raw)
	}
}

// TestInputTokensCountSystemToolsAndMessages pins the input tokens of a request with a system
// prompt, a tool and a message, counted by hand by the fake's token rule (each word or
// punctuation mark of a string one token, each object and array one more, keys nothing):
// system "Be brief." 3; messages [ {user, "Hi there"} ] 1+1+1+2 = 5; tools [ {get_weather,
// "Get the weather", {type: object}} ] 1+1+1+3+2 = 8.
func TestInputTokensCountSystemToolsAndMessages(t *testing.T) {
	ts := NewTestServer(t)
	tool := map[string]any{"name": "get_weather", "description": "Get the weather", "input_schema": map[string]any{"type": "object"}}
	for _, tc := range []struct {
		what string
		body map[string]any
		want int64
	}{
		{"system, tools and messages", msgBody("system", "Be brief.", "tools", []any{tool}, "messages", userTurn("Hi there")), 16},
		{"without the system prompt", msgBody("tools", []any{tool}, "messages", userTurn("Hi there")), 13},
		{"without the tool", msgBody("system", "Be brief.", "messages", userTurn("Hi there")), 8},
	} {
		if got := create(t, ts, tc.body).Get("usage.input_tokens").Int(); got != tc.want {
			t.Errorf("%s: usage.input_tokens %d, want %d", tc.what, got, tc.want)
		}
		_, out := postMessages(t, ts, "/v1/messages/count_tokens", with(maps.Clone(tc.body), []any{"max_tokens", nil}))
		if got := gjson.GetBytes(out, "input_tokens").Int(); got != tc.want {
			t.Errorf("%s: count_tokens %d, want %d", tc.what, got, tc.want)
		}
	}
}

// TestCountTokensAgreesWithUsage covers gaps §4: count_tokens equals usage.input_tokens.
func TestCountTokensAgreesWithUsage(t *testing.T) {
	ts := NewTestServer(t)
	bodies := []map[string]any{
		msgBody(),
		msgBody("system", "Be brief.", "messages", []any{map[string]any{"role": "user", "content": "A"}, map[string]any{"role": "assistant", "content": "B"}, map[string]any{"role": "user", "content": "C d e"}}),
		msgBody("tools", []any{map[string]any{"name": "get_weather", "input_schema": weatherSchema}}, "tool_choice", map[string]any{"type": "auto"}),
		msgBody("max_tokens", 4000, "thinking", map[string]any{"type": "enabled", "budget_tokens": 2048}),
		msgBody("messages", userTurn([]any{map[string]any{"type": "image", "source": map[string]any{"type": "base64", "media_type": "image/png", "data": "aGVsbG8gd29ybGQ="}}, map[string]any{"type": "text", "text": "What is it?"}})),
	}
	prev := -1
	for i, b := range bodies {
		for _, h := range []string{"", "refusal-cyber"} {
			n := create(t, ts, b, scenarios.HeaderScenario, h).Get("usage.input_tokens").Int()
			cb := map[string]any{}
			for k, v := range b {
				if k != "max_tokens" {
					cb[k] = v
				}
			}
			status, out := postMessages(t, ts, "/v1/messages/count_tokens", cb)
			if status != http.StatusOK || gjson.GetBytes(out, "input_tokens").Int() != n {
				t.Errorf("body %d: count_tokens %d %s, usage.input_tokens %d", i, status, out, n)
			}
			if int(n) == prev {
				t.Errorf("body %d counts the same as the one before", i)
			}
		}
		prev = int(gjson.GetBytes(func() []byte { _, o := postMessages(t, ts, "/v1/messages", b); return o }(), "usage.input_tokens").Int())
	}
	expect400(t, ts, "/v1/messages/count_tokens", map[string]any{"model": testModel}, "messages")
	expect400(t, ts, "/v1/messages/count_tokens", map[string]any{"model": testModel, "max_tokens": 5, "messages": userTurn("x")}, "max_tokens")
}

// TestConsecutiveTurnsCombine covers spec 4.4: consecutive same-role turns are one turn.
func TestConsecutiveTurnsCombine(t *testing.T) {
	ts := NewTestServer(t)
	split := []any{map[string]any{"role": "user", "content": "Please search"}, map[string]any{"role": "user", "content": " the web for lanterns"}}
	if got := create(t, ts, msgBody("messages", split)); got.Get("content.1.name").String() != "web_search" {
		t.Errorf("a rule on the combined last user turn: %s", got.Raw)
	}
	tools := []any{map[string]any{"name": "noop", "input_schema": map[string]any{"type": "object"}}}
	results := []any{
		map[string]any{"role": "user", "content": "Go"},
		map[string]any{"role": "assistant", "content": []any{map[string]any{"type": "tool_use", "id": "toolu_a", "name": "noop", "input": map[string]any{}}}},
		map[string]any{"role": "user", "content": []any{map[string]any{"type": "tool_result", "tool_use_id": "toolu_a", "content": "done"}}},
		map[string]any{"role": "user", "content": "And now?"},
	}
	if got := create(t, ts, msgBody("tools", tools, "messages", results)); got.Get("stop_reason").String() != "end_turn" {
		t.Errorf("a tool result earlier in the combined last turn: %s", got.Raw)
	}
	prefill := []any{map[string]any{"role": "user", "content": "Go"}, map[string]any{"role": "assistant", "content": "The"}, map[string]any{"role": "assistant", "content": " answer is"}}
	if got := create(t, ts, msgBody("messages", prefill)); !strings.HasPrefix(got.Get("content.0.text").String(), " ") {
		t.Errorf("continuing a combined assistant turn: %s", got.Raw)
	}
}

func TestUserIDMustBeOpaque(t *testing.T) {
	ts := NewTestServer(t)
	for _, id := range []string{"5f0c2a4e-opaque", "00000000-0000-4000-8000-000000000000", "1234567890", "user_42"} {
		create(t, ts, msgBody("metadata", map[string]any{"user_id": id}))
	}
	for _, id := range []string{"jane@example.com", "+44 20 7946 0958", "(555) 010-9999", "555.010.9999"} {
		expect400(t, ts, "/v1/messages", msgBody("metadata", map[string]any{"user_id": id}), "metadata.user_id")
	}
}

func TestScenarioSelection(t *testing.T) {
	ts := NewTestServer(t)
	got := create(t, ts, msgBody(), scenarios.HeaderScenario, "refusal-bio")
	if got.Get("stop_reason").String() != "refusal" || got.Get("stop_details.category").String() != "bio" || got.Get("model").String() != testModel {
		t.Errorf("by header: %s", got.Raw)
	}
	byRule := create(t, ts, msgBody("messages", userTurn("Please search the web for lanterns")))
	if byRule.Get("content.1.name").String() != "web_search" || byRule.Get("usage.server_tool_use.web_search_requests").Int() != 1 {
		t.Errorf("by matching rule: %s", byRule.Raw)
	}
	status, out := postMessages(t, ts, "/v1/messages", msgBody(), scenarios.HeaderScenario, "no-such-scenario")
	if msg := gjson.GetBytes(out, "error.message").String(); status != http.StatusBadRequest || !strings.HasPrefix(msg, scenarios.HeaderScenario+":") || !strings.Contains(msg, "refusal-bio") {
		t.Errorf("unknown scenario: %d %s", status, out)
	}
	req, _ := http.NewRequest(http.MethodGet, ts.URL+"/_fake/messages/scenarios", nil)
	resp, err := ts.Server.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	list, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	fx, _ := core.DefaultFixtures()
	if n := gjson.GetBytes(list, "data.#").Int(); resp.StatusCode != http.StatusOK || int(n) != len(scenarios.ScenariosSection.In(fx.Sections).List) ||
		gjson.GetBytes(list, "data.0.match.contains").String() != "search the web" {
		t.Errorf("GET /_fake/messages/scenarios: %d %s", resp.StatusCode, list)
	}
	// A scenario applies only to a valid request.
	expect400(t, ts, "/v1/messages", msgBody("max_tokens", nil), "max_tokens", scenarios.HeaderScenario, "refusal-bio")
}

// TestScenarioLibraryCoverage proves from the fixture data that the library shows every
// response block type, sub-record, caller form, refusal category and tool-result error code of
// spec 2.9 and 7.
func TestScenarioLibraryCoverage(t *testing.T) {
	fx, err := core.DefaultFixtures()
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	var walk func(v any, parent string)
	walk = func(v any, parent string) {
		switch v := v.(type) {
		case map[string]any:
			if typ, ok := v["type"].(string); ok {
				seen[typ] = true
				if code, ok := v["error_code"].(string); ok {
					seen[typ+"/"+code] = true
				}
				if typ == "server_tool_use" {
					seen["server_tool_use/"+v["name"].(string)] = true
				}
			}
			for k, x := range v {
				walk(x, k)
			}
		case []any:
			for _, x := range v {
				walk(x, parent)
			}
		}
	}
	for _, sc := range scenarios.ScenariosSection.In(fx.Sections).List {
		seen["stop_reason/"+sc.Response.StopReason] = true
		if d := sc.Response.StopDetails; d != nil {
			cat := "null"
			if d.Category != nil {
				cat = *d.Category
			}
			seen["category/"+cat] = true
		}
		raw, _ := json.Marshal(sc.Response.Content)
		var v any
		_ = json.Unmarshal(raw, &v)
		walk(v, "")
	}
	want := strings.Fields(`text thinking redacted_thinking tool_use server_tool_use web_search_tool_result web_fetch_tool_result
		code_execution_tool_result bash_code_execution_tool_result text_editor_code_execution_tool_result tool_search_tool_result container_upload
		char_location page_location content_block_location web_search_result_location search_result_location
		web_search_result web_fetch_result document code_execution_result encrypted_code_execution_result code_execution_output
		bash_code_execution_result bash_code_execution_output text_editor_code_execution_view_result text_editor_code_execution_create_result
		text_editor_code_execution_str_replace_result tool_search_tool_search_result tool_reference
		direct code_execution_20250825 code_execution_20260120 category/cyber category/bio category/null
		stop_reason/end_turn stop_reason/max_tokens stop_reason/stop_sequence stop_reason/tool_use stop_reason/pause_turn stop_reason/refusal stop_reason/model_context_window_exceeded
		server_tool_use/web_search server_tool_use/web_fetch server_tool_use/code_execution server_tool_use/bash_code_execution
		server_tool_use/text_editor_code_execution server_tool_use/tool_search_tool_regex server_tool_use/tool_search_tool_bm25`)
	codes := map[string]string{
		"web_search_tool_result_error":                 "invalid_tool_input unavailable max_uses_exceeded too_many_requests query_too_long request_too_large",
		"web_fetch_tool_result_error":                  "invalid_tool_input url_too_long url_not_allowed url_not_accessible unsupported_content_type too_many_requests max_uses_exceeded unavailable",
		"code_execution_tool_result_error":             "invalid_tool_input unavailable too_many_requests execution_time_exceeded",
		"bash_code_execution_tool_result_error":        "invalid_tool_input unavailable too_many_requests execution_time_exceeded output_file_too_large",
		"text_editor_code_execution_tool_result_error": "invalid_tool_input unavailable too_many_requests execution_time_exceeded file_not_found",
		"tool_search_tool_result_error":                "invalid_tool_input unavailable too_many_requests execution_time_exceeded",
	}
	for typ, list := range codes {
		for _, c := range strings.Fields(list) {
			want = append(want, typ+"/"+c)
		}
	}
	for _, w := range want {
		if !seen[w] {
			t.Errorf("no scenario shows %s", w)
		}
	}
}

// events parses a stream, failing the test on a malformed one.
func events(t testing.TB, body []byte) []wire.StreamEvent {
	t.Helper()
	evs, err := wire.ParseEventStream(body)
	if err != nil {
		t.Fatalf("%v\n%s", err, body)
	}
	return evs
}

// accumulate rebuilds the message from a stream, failing the test on a violation of gaps §4.
func accumulate(t testing.TB, evs []wire.StreamEvent) *wire.Message {
	t.Helper()
	msg, err := wire.AccumulateMessage(evs)
	if err != nil {
		t.Fatal(err)
	}
	return msg
}

func canonical(t testing.TB, v any) string {
	t.Helper()
	data, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var x any
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	_ = dec.Decode(&x)
	out, _ := json.Marshal(x)
	return string(out)
}

// TestStreamAccumulatesToTheResponse proves that a stream accumulates to exactly the response
// of the same request without streaming, for the scripted model and for every scenario.
func TestStreamAccumulatesToTheResponse(t *testing.T) {
	fx, _ := core.DefaultFixtures()
	type tc struct {
		name     string
		body     map[string]any
		scenario string
	}
	on := map[string]any{"enabled": true}
	cases := []tc{
		{"plain", msgBody(), ""},
		{"truncated", msgBody("max_tokens", 5), ""},
		{"stop sequence", msgBody("stop_sequences", []any{"e"}), ""},
		{"thinking and tools", msgBody("max_tokens", 3000, "thinking", map[string]any{"type": "enabled", "budget_tokens": 1024}, "tools", []any{map[string]any{"name": "get_weather", "input_schema": weatherSchema}}), ""},
		{"citations", msgBody("messages", userTurn([]any{map[string]any{"type": "document", "citations": on, "source": map[string]any{"type": "text", "media_type": "text/plain", "data": "Ünïcode text, here. More."}}, map[string]any{"type": "text", "text": "Quote it"}})), ""},
	}
	for _, sc := range scenarios.ScenariosSection.In(fx.Sections).List {
		cases = append(cases, tc{"scenario " + sc.Name, msgBody(), sc.Name})
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			a, b := NewTestServer(t), NewTestServer(t)
			_, plain := postMessages(t, a, "/v1/messages", c.body, scenarios.HeaderScenario, c.scenario)
			streamed := map[string]any{"stream": true}
			for k, v := range c.body {
				streamed[k] = v
			}
			status, body := postMessages(t, b, "/v1/messages", streamed, scenarios.HeaderScenario, c.scenario)
			if status != http.StatusOK {
				t.Fatalf("stream: %d %s", status, body)
			}
			var want any
			_ = json.Unmarshal(plain, &want)
			if got, w := canonical(t, accumulate(t, events(t, body))), canonical(t, want); got != w {
				t.Errorf("accumulated stream:\n%s\nresponse:\n%s", got, w)
			}
		})
	}
}

func TestStreamHeadersAndFirstEvent(t *testing.T) {
	ts := NewTestServer(t)
	data, _ := json.Marshal(msgBody("stream", true))
	req, _ := http.NewRequest(http.MethodPost, ts.URL+"/v1/messages", bytes.NewReader(data))
	req.Header.Set("X-Api-Key", "test-api-key")
	req.Header.Set("vendor-version", core.APIVersion)
	req.Header.Set("Accept", "application/json")
	resp, err := ts.Server.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if ct := resp.Header.Get("Content-Type"); ct != "text/event-stream" || resp.Header.Get("request-id") == "" {
		t.Errorf("headers: %v", resp.Header)
	}
	line := make([]byte, len("event: message_start\n"))
	if _, err := io.ReadFull(resp.Body, line); err != nil || string(line) != "event: message_start\n" {
		t.Errorf("first line %q, %v", line, err)
	}
}

func postComplete(t testing.TB, ts *TestServer, body any) (int, gjson.Result) {
	t.Helper()
	status, out := postMessages(t, ts, "/v1/complete", body)
	return status, gjson.ParseBytes(out)
}

func completeBody(kv ...any) map[string]any {
	return with(map[string]any{"model": testModel, "max_tokens_to_sample": 300, "prompt": "\n\nHuman: Tell me about lanterns.\n\nAssistant:"}, kv)
}

func TestLegacyComplete(t *testing.T) {
	ts := NewTestServer(t)
	status, got := postComplete(t, ts, completeBody())
	text := got.Get("completion").String()
	if status != http.StatusOK || got.Get("type").String() != "completion" || got.Get("stop_reason").String() != "stop_sequence" ||
		text == "" || strings.Contains(text, "Human:") || got.Get("model").String() != testModel {
		t.Fatalf("complete: %d %s", status, got.Raw)
	}
	// The same request gives the same completion; a limit cuts it.
	if _, again := postComplete(t, ts, completeBody()); again.Get("completion").String() != text {
		t.Errorf("not deterministic: %q then %q", text, again.Get("completion"))
	}
	_, short := postComplete(t, ts, completeBody("max_tokens_to_sample", 2))
	if short.Get("stop_reason").String() != "max_tokens" || model.TextTokens(short.Get("completion").String()) != 2 || !strings.HasPrefix(text, short.Get("completion").String()) {
		t.Errorf("max_tokens_to_sample 2: %s", short.Raw)
	}
	word := strings.Fields(text)[2]
	_, stopped := postComplete(t, ts, completeBody("stop_sequences", []any{word}))
	if stopped.Get("stop_reason").String() != "stop_sequence" || stopped.Get("completion").String() != text[:strings.Index(text, word)] {
		t.Errorf("stop sequence %q: %s", word, stopped.Raw)
	}
	for _, c := range []struct {
		body  map[string]any
		field string
	}{
		{completeBody("prompt", "Tell me.\n\nAssistant:"), "prompt"},
		{completeBody("prompt", "\n\nHuman: Tell me."), "prompt"},
		{completeBody("prompt", "\n\nHuman: A\n\nHuman: B\n\nAssistant:"), "prompt"},
		{completeBody("prompt", "\n\nHuman: A\n\nAssistant: B\n\nAssistant:"), "prompt"},
		{completeBody("temperature", 1.01), "temperature"},
		{completeBody("temperature", -1), "temperature"},
		{completeBody("max_tokens_to_sample", nil), "max_tokens_to_sample"},
		{completeBody("model", nil), "model"},
		{completeBody("max_tokens_to_sample", 0), "max_tokens_to_sample"},
		{completeBody("prompt", nil), "prompt"},
		{completeBody("metadata", map[string]any{"user_id": 5}), "metadata.user_id"},
		{completeBody("metadata", map[string]any{"user_id": "bob@example.org"}), "metadata.user_id"},
	} {
		expect400(t, ts, "/v1/complete", c.body, c.field)
	}
	for _, ok := range []map[string]any{completeBody("temperature", 0), completeBody("temperature", 1, "top_k", 3, "top_p", 0.5, "metadata", map[string]any{"user_id": "u-1"}),
		completeBody("prompt", "\n\nHuman: A\n\nAssistant: B\n\nHuman: C\n\nAssistant:")} {
		if status, got := postComplete(t, ts, ok); status != http.StatusOK {
			t.Errorf("%v: %d %s", ok, status, got.Raw)
		}
	}
}

func TestLegacyCompleteStream(t *testing.T) {
	a, b := NewTestServer(t), NewTestServer(t)
	for _, body := range []map[string]any{completeBody(), completeBody("max_tokens_to_sample", 4)} {
		_, plain := postComplete(t, a, body)
		streamed := completeBody("stream", true)
		for k, v := range body {
			streamed[k] = v
		}
		status, out := postMessages(t, b, "/v1/complete", streamed)
		evs := events(t, out)
		var text strings.Builder
		for i, ev := range evs {
			if ev.Name == "ping" {
				continue
			}
			d := gjson.ParseBytes(ev.Data)
			text.WriteString(d.Get("completion").String())
			if last := i == len(evs)-1; (d.Get("stop_reason").Type == gjson.Null) == last {
				t.Errorf("event %d of %d: %s", i, len(evs), ev.Data)
			}
			if d.Get("id").String() != plain.Get("id").String() || d.Get("model").String() != testModel {
				t.Errorf("event %d: %s, response %s", i, ev.Data, plain.Raw)
			}
		}
		if status != http.StatusOK || text.String() != plain.Get("completion").String() || gjson.GetBytes(evs[len(evs)-1].Data, "stop_reason").String() != plain.Get("stop_reason").String() {
			t.Errorf("stream %q, response %s", text.String(), plain.Raw)
		}
	}
}

// TestMessagesConcurrent runs requests of every kind in parallel (run with -race).
func TestMessagesConcurrent(t *testing.T) {
	ts := NewTestServer(t)
	var wg sync.WaitGroup
	for i := range 32 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			switch i % 4 {
			case 0:
				create(t, ts, msgBody("messages", userTurn(fmt.Sprint("request ", i))))
			case 1:
				create(t, ts, msgBody("stream", true, "max_tokens", 50))
			case 2:
				create(t, ts, msgBody(), scenarios.HeaderScenario, "web-fetch")
			default:
				if status, _ := postComplete(t, ts, completeBody("stream", i%8 == 3)); status != http.StatusOK {
					t.Errorf("complete: %d", status)
				}
			}
		}()
	}
	wg.Wait()
}

// TestAccumulateMessageEveryDeltaType grounds each delta type in a hand-written stream with the
// message it must make, written out by hand: thinking and its signature, a text with a citation,
// and a tool call whose input arrives as pieces of JSON split inside a string.
func TestAccumulateMessageEveryDeltaType(t *testing.T) {
	ev := func(name, data string) string { return "event: " + name + "\ndata: " + data + "\n\n" }
	delta := func(i int, d string) string {
		return ev("content_block_delta", fmt.Sprintf(`{"type":"content_block_delta","index":%d,"delta":%s}`, i, d))
	}
	start := func(i int, block string) string {
		return ev("content_block_start", fmt.Sprintf(`{"type":"content_block_start","index":%d,"content_block":%s}`, i, block))
	}
	stop := func(i int) string {
		return ev("content_block_stop", fmt.Sprintf(`{"type":"content_block_stop","index":%d}`, i))
	}
	citation := `{"type":"char_location","cited_text":"Paris is the capital","document_index":0,"document_title":"Atlas","start_char_index":0,"end_char_index":20}`
	body := ev("message_start", `{"type":"message_start","message":{"id":"msg_1","type":"message","role":"assistant","model":"m","content":[],"stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":1,"output_tokens":0}}}`) +
		start(0, `{"type":"thinking","thinking":"","signature":""}`) +
		delta(0, `{"type":"thinking_delta","thinking":"The capital "}`) + delta(0, `{"type":"thinking_delta","thinking":"of France."}`) +
		delta(0, `{"type":"signature_delta","signature":"c2lnbmVk"}`) + stop(0) +
		start(1, `{"type":"text","text":"","citations":null}`) +
		delta(1, `{"type":"citations_delta","citation":`+citation+`}`) + delta(1, `{"type":"text_delta","text":"It is "}`) + delta(1, `{"type":"text_delta","text":"Paris."}`) + stop(1) +
		start(2, `{"type":"tool_use","id":"toolu_1","name":"get_weather","input":{}}`) +
		delta(2, `{"type":"input_json_delta","partial_json":"{\"city\": \"Pa"}`) + delta(2, `{"type":"input_json_delta","partial_json":"ris\", \"days\": 12345678901234567890}"}`) + stop(2) +
		ev("message_delta", `{"type":"message_delta","delta":{"stop_reason":"tool_use","stop_sequence":null},"usage":{"output_tokens":9}}`) +
		ev("message_stop", `{"type":"message_stop"}`)
	evs, err := wire.ParseEventStream([]byte(body))
	if err != nil {
		t.Fatal(err)
	}
	msg, err := wire.AccumulateMessage(evs)
	if err != nil {
		t.Fatal(err)
	}
	want := `[{"signature":"c2lnbmVk","thinking":"The capital of France.","type":"thinking"},` +
		`{"citations":[{"cited_text":"Paris is the capital","document_index":0,"document_title":"Atlas","end_char_index":20,"start_char_index":0,"type":"char_location"}],"text":"It is Paris.","type":"text"},` +
		`{"id":"toolu_1","input":{"city":"Paris","days":12345678901234567890},"name":"get_weather","type":"tool_use"}]`
	if got := canonical(t, msg.Content); got != want {
		t.Errorf("content:\n got %s\nwant %s", got, want)
	}
	if msg.StopReason == nil || *msg.StopReason != "tool_use" {
		t.Errorf("stop_reason %v, want tool_use", msg.StopReason)
	}
	// A delta of the wrong kind for its block, and JSON pieces that make no JSON, are refused.
	for name, bad := range map[string]string{
		"thinking_delta on a text block": strings.Replace(body, `{"type":"text_delta","text":"It is "}`, `{"type":"thinking_delta","thinking":"It is "}`, 1),
		"partial JSON cut short":         strings.Replace(body, `ris\", \"days\": 12345678901234567890}`, `ris\", \"days\": 1`, 1),
	} {
		evs, err := wire.ParseEventStream([]byte(bad))
		if err == nil {
			_, err = wire.AccumulateMessage(evs)
		}
		if err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}

// TestAccumulateMessageRejectsBadStreams covers the grammar checks clients of the package rely on.
func TestAccumulateMessageRejectsBadStreams(t *testing.T) {
	start := `event: message_start` + "\n" + `data: {"type":"message_start","message":{"content":[]}}` + "\n\n"
	ev := func(name, data string) string { return "event: " + name + "\ndata: " + data + "\n\n" }
	stop := ev("message_delta", `{"type":"message_delta","delta":{"stop_reason":"end_turn"},"usage":{}}`) + ev("message_stop", `{"type":"message_stop"}`)
	text := func(i int) string {
		return ev("content_block_start", fmt.Sprintf(`{"type":"content_block_start","index":%d,"content_block":{"type":"text","text":""}}`, i))
	}
	bad := map[string]string{
		"no message_start":      stop,
		"delta before start":    start + ev("content_block_delta", `{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"x"}}`) + stop,
		"index not from 0":      start + text(1) + ev("content_block_stop", `{"type":"content_block_stop","index":1}`) + stop,
		"interleaved":           start + text(0) + text(1) + stop,
		"not stopped":           start + text(0) + stop,
		"tool_use input":        start + ev("content_block_start", `{"type":"content_block_start","index":0,"content_block":{"type":"tool_use","id":"t","name":"n","input":{"a":1}}}`) + stop,
		"message_stop not last": start + ev("message_stop", `{"type":"message_stop"}`) + ev("ping", `{"type":"ping"}`),
		"no message_stop":       start,
		"name differs":          start + ev("ping", `{"type":"pong"}`) + stop,
	}
	for name, body := range bad {
		evs, err := wire.ParseEventStream([]byte(body))
		if err == nil {
			_, err = wire.AccumulateMessage(evs)
		}
		if err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
	good := start + ": keep-alive\n\n" + ev("ping", `{"type":"ping"}`) + text(0) + ev("content_block_delta", `{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"hi"}}`) +
		ev("content_block_stop", `{"type":"content_block_stop","index":0}`) + stop
	evs, err := wire.ParseEventStream([]byte(good))
	if err != nil {
		t.Fatal(err)
	}
	msg, err := wire.AccumulateMessage(evs)
	if err != nil || canonical(t, msg.Content) != `[{"text":"hi","type":"text"}]` || msg.StopReason == nil || *msg.StopReason != "end_turn" {
		t.Errorf("good stream: %v, %v", msg, err)
	}
}
