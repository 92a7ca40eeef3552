package messages

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"slices"
	"strings"

	. "github.com/onsi/gomega"
	"github.com/santhosh-tekuri/jsonschema/v5"
	"github.com/tidwall/gjson"

	"github.com/platformkit/platformkit/schemas"

	"github.com/platformkit/platformkit/conformance/kit"
)

// Messages and legacy completions (spec 2.8, 2.9, 4.4, 6, 7, 8; gaps §4, §5). The checks
// without the fake-only label hold for any deployment: they assert shapes, bounds and
// agreements, never particular words. The fake-only ones exercise the fake's scenario library
// and its reproducible replies.

// PickModel returns the model the checks talk to and its max_tokens (T.Model): the newest the
// deployment listed in the preflight, or CONFORMANCE_MODEL.
func PickModel(t *kit.T) (string, int64) { return t.Model() }

// Body is a small valid Create a Message body for model, with fields added or replaced.
func Body(model string, kv ...any) map[string]any {
	return with(map[string]any{"model": model, "max_tokens": 64, "messages": []any{UserTurn("Say hello in a few words.")}}, kv)
}

// with sets the fields of b from the name, value pairs of kv (a nil value deletes the field).
func with(b map[string]any, kv []any) map[string]any {
	for i := 0; i+1 < len(kv); i += 2 {
		if kv[i+1] == nil {
			delete(b, kv[i].(string))
		} else {
			b[kv[i].(string)] = kv[i+1]
		}
	}
	return b
}

func UserTurn(content any) map[string]any { return map[string]any{"role": "user", "content": content} }

// textOf returns the text of each text block of a message, in order.
func textOf(resp *kit.Response) []string {
	var out []string
	for _, b := range resp.Get("content").Array() {
		if b.Get("type").String() == "text" {
			out = append(out, b.Get("text").String())
		}
	}
	return out
}

// inputTokens sends body and returns the usage.input_tokens of the reply: how much of the
// request the target read, observable on any deployment.
func inputTokens(t *kit.T, body map[string]any) int64 {
	return t.OK(CreateRequest(body)).Get("usage.input_tokens").Int()
}

// usageMeasuresInput ends the check as unsupported when the target's usage.input_tokens does not
// grow with the input (always 0, or a fixed number, as a mock answers): a check that judges by it
// what the target read would otherwise fail on a count that says nothing.
func usageMeasuresInput(t *kit.T, model string) {
	count := func(text string) int64 {
		return t.OK(CreateRequest(Body(model, "max_tokens", 1, "messages", []any{UserTurn(text)}))).Get("usage.input_tokens").Int()
	}
	short, long := count("Hi."), count(strings.Repeat("Name one colour of the rainbow. ", 40))
	if long <= short {
		t.Unsupported("judges what the target read by usage.input_tokens, which does not grow with the input here (%d for a 1-word prompt, %d for a 240-word one)", short, long)
	}
}

func CreateRequest(body any) kit.Request {
	return kit.Request{Area: kit.Messages, Method: http.MethodPost, Path: "/v1/messages", Body: body, Schema: "messages/message"}
}

func completeReq(body any) kit.Request {
	return kit.Request{Area: kit.Messages, Method: http.MethodPost, Path: "/v1/complete", Body: body, Schema: "messages/completion"}
}

func completeBody(model string, kv ...any) map[string]any {
	return with(map[string]any{"model": model, "max_tokens_to_sample": 64, "prompt": "\n\nHuman: Say hello in a few words.\n\nAssistant:"}, kv)
}

// expectFieldError requires a 400 invalid_request_error; with field set, the message must name
// it ("field: ..."). That it names it first, as gaps §1 decides, is the statement of
// messages/errors-name-the-field alone (expectFieldFirst): a proxy that wraps the message
// ("litellm.BadRequestError: ... {\"message\":\"temperature: ...\"}") still refused the request
// naming the field.
func expectFieldError(t *kit.T, resp *kit.Response, field string) {
	t.ExpectWithOffset(1, resp.Status).To(Equal(http.StatusBadRequest), "%s", resp)
	t.ExpectWithOffset(1, resp.Get("error.type").String()).To(Equal("invalid_request_error"), "%s", resp)
	if field != "" {
		t.ExpectWithOffset(1, resp.Get("error.message").String()).To(ContainSubstring(field+":"), "the refusal names %s: %s", field, resp)
	}
}

// expectFieldFirst is expectFieldError holding gaps §1: the message starts with the field's path.
func expectFieldFirst(t *kit.T, resp *kit.Response, field string) {
	expectFieldError(t, resp, field)
	t.ExpectWithOffset(1, resp.Get("error.message").String()).To(HavePrefix(field+":"), "the message starts with the path of the offending field (gaps §1): %s", resp)
}

// streamEvents are the event names each stream schema describes; an event of another name is
// one clients ignore, so the suite does too.
var streamEvents = map[string][]string{
	"messages/stream_event":            {"message_start", "content_block_start", "content_block_delta", "content_block_stop", "message_delta", "message_stop", "ping", "error"},
	"messages/completion_stream_event": {"completion", "ping", "error"},
}

// stream sends a streamed request and returns its answer and the events a client reads from it
// (the suite's own reader, not the fake's), each event of a name schema describes validated
// against it. An answer that ends in the middle of an event fails: clients never see that event.
func stream(t *kit.T, r kit.Request, schema string) (*kit.Response, []kit.SSEEvent) {
	r.Schema = ""
	resp := t.OK(r)
	if ct := resp.Header.Get("Content-Type"); schema == "messages/stream_event" && !strings.HasPrefix(ct, "text/event-stream") {
		// A Message's stream is gaps §4's (the reference shows only the legacy completion's):
		// without one, a reference clause's check cannot judge its statement, and
		// messages/stream-first-event holds the deviation.
		t.ExtensionPrecondition("stream media type", fmt.Sprintf("POST /v1/messages with stream true answers %s, not an event stream (gaps §4)", ct), "messages/stream-first-event")
	}
	t.Expect(resp.Header.Get("Content-Type")).To(HavePrefix("text/event-stream"), "a stream is text/event-stream: %s", resp)
	evs, incomplete := kit.ReadEventStream(resp.Body)
	t.Expect(incomplete).To(BeFalse(), "the stream's last event is not ended by a blank line, so clients never see it: %s", resp)
	for _, ev := range evs {
		if !slices.Contains(streamEvents[schema], ev.Name) {
			continue
		}
		if err := schemas.Validate(schema, ev.Data, t.Target.SchemaMode); err != nil && !t.ExtensionOnly(schema, err) {
			t.Failf("event %s does not match schema %s: %v\n%s", ev.Name, schema, err, ev.Data)
		}
	}
	return resp, evs
}

// streamMessage sends a streamed Create a Message and returns what its events accumulate to,
// failing on the first departure from the grammar of gaps §4.
func streamMessage(t *kit.T, r kit.Request) *kit.StreamedMessage {
	_, evs := stream(t, r, "messages/stream_event")
	msg, err := kit.AccumulateMessage(evs)
	if err != nil {
		// The grammar is gaps §4's: a reference clause's check cannot judge its statement on
		// such a stream, and messages/stream-grammar holds the deviation.
		t.ExtensionPrecondition("stream grammar", fmt.Sprintf("POST /v1/messages with stream true answers events outside the grammar of gaps §4: %v", err), "messages/stream-grammar")
	}
	t.ExpectWithOffset(1, err).NotTo(HaveOccurred(), "the events of the stream make a message")
	return msg
}

// withoutIDs is the canonical JSON of a message with the IDs that differ between two requests
// (the message's, those of tool calls the model made, a new container's and the files of code
// execution outputs) blanked.
func withoutIDs(t *kit.T, raw []byte) string {
	var v any
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber()
	t.Expect(d.Decode(&v)).To(Succeed())
	m := v.(map[string]any)
	m["id"] = ""
	// A new container and the files a code execution answer wrote are numbered like the message.
	if ct, _ := m["container"].(map[string]any); ct != nil && strings.HasPrefix(fmt.Sprint(ct["id"]), "container_01") {
		ct["id"] = ""
	}
	for _, b := range m["content"].([]any) {
		b := b.(map[string]any)
		if b["type"] == "tool_use" && strings.HasPrefix(fmt.Sprint(b["id"]), "toolu_01") {
			b["id"] = ""
		}
		result, _ := b["content"].(map[string]any)
		items, _ := result["content"].([]any)
		for _, it := range items {
			if it, _ := it.(map[string]any); it != nil && strings.HasPrefix(fmt.Sprint(it["file_id"]), "file_01") {
				it["file_id"] = ""
			}
		}
	}
	out, _ := json.Marshal(m)
	return string(out)
}

// scenarioNames lists the fake's scenario library through its control API.
func scenarioNames(t *kit.T) []string {
	resp := t.Control(http.MethodGet, "/_fake/messages/scenarios", nil)
	t.Expect(schemas.Validate("messages/scenario_list", resp.Body, t.Target.SchemaMode)).To(Succeed())
	var names []string
	for _, n := range resp.Get("data.#.name").Array() {
		names = append(names, n.String())
	}
	t.Expect(names).NotTo(BeEmpty(), "the scenario library is empty")
	return names
}

const headerScenario = "Fake-Scenario"

var weatherTool = map[string]any{
	"name": "get_weather", "description": "The current weather of a city",
	"input_schema": map[string]any{
		"type": "object", "required": []any{"city", "unit"},
		"properties": map[string]any{
			"city": map[string]any{"type": "string", "minLength": 1},
			"unit": map[string]any{"enum": []any{"celsius", "fahrenheit"}},
			"days": map[string]any{"type": "integer", "minimum": 1, "maximum": 7},
		},
	},
}

// satisfies requires input to satisfy the JSON Schema schema.
func satisfies(t *kit.T, schema map[string]any, input gjson.Result) {
	raw, _ := json.Marshal(schema)
	c := jsonschema.NewCompiler()
	t.Expect(c.AddResource("input_schema.json", bytes.NewReader(raw))).To(Succeed())
	s, err := c.Compile("input_schema.json")
	t.Expect(err).NotTo(HaveOccurred())
	var v any
	t.Expect(json.Unmarshal([]byte(input.Raw), &v)).To(Succeed())
	t.Expect(s.Validate(v)).To(Succeed(), "tool input %s", input.Raw)
}

// onePixelPNG is a valid 1x1 PNG, for requests a deployment will decode.
const onePixelPNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=="

var toolErrorCodes = map[string][]string{
	"web_search_tool_result_error":                 {"invalid_tool_input", "unavailable", "max_uses_exceeded", "too_many_requests", "query_too_long", "request_too_large"},
	"web_fetch_tool_result_error":                  {"invalid_tool_input", "url_too_long", "url_not_allowed", "url_not_accessible", "unsupported_content_type", "too_many_requests", "max_uses_exceeded", "unavailable"},
	"code_execution_tool_result_error":             {"invalid_tool_input", "unavailable", "too_many_requests", "execution_time_exceeded"},
	"bash_code_execution_tool_result_error":        {"invalid_tool_input", "unavailable", "too_many_requests", "execution_time_exceeded", "output_file_too_large"},
	"text_editor_code_execution_tool_result_error": {"invalid_tool_input", "unavailable", "too_many_requests", "execution_time_exceeded", "file_not_found"},
	"tool_search_tool_result_error":                {"invalid_tool_input", "unavailable", "too_many_requests", "execution_time_exceeded"},
}

var stopReasons = []string{"end_turn", "max_tokens", "stop_sequence", "tool_use", "pause_turn", "refusal", "model_context_window_exceeded"}

func init() {
	// The interface checks send Create a Message, the one route of the reference's Messages
	// (4.4) every deployment serves; count_tokens is an extension route a deployment may lack.
	kit.Register(kit.InterfaceChecksFor(kit.Messages, func(t *kit.T) kit.Request {
		model, _ := PickModel(t)
		return CreateRequest(Body(model, "max_tokens", 1, "messages", []any{UserTurn("Hello")}))
	})...)
	kit.Register(messageChecks()...)
	kit.Register(streamChecks()...)
	kit.Register(completionChecks()...)
	kit.Register(scenarioChecks()...)
}

func messageChecks() []kit.Check {
	return []kit.Check{
		{ID: "messages/create-response-shape", Clause: "2.9", Labels: []kit.Label{kit.Messages},
			Title: "a message has role assistant, an array of content blocks, the model and a stop reason",
			Bug:   &kit.Bug{Says: "a message answers role user", Want: "assistant", Break: kit.SetsField(msgCreate, "role", "user")},
			Run: func(t *kit.T) {
				model, _ := PickModel(t)
				resp := t.OK(CreateRequest(Body(model)))
				t.Expect(resp.Get("role").String()).To(Equal("assistant"))
				t.Expect(resp.Get("content").IsArray()).To(BeTrue(), "%s", resp)
				t.Expect(resp.Get("model").String()).NotTo(BeEmpty())
				t.Expect(stopReasons).To(ContainElement(resp.Get("stop_reason").String()))
				t.Expect(resp.Get("stop_details").Type).To(Equal(gjson.Null), "stop_details is a refusal record only")
			}},
		{ID: "messages/create-response-fields", Clause: "gaps §4", Labels: []kit.Label{kit.Messages, kit.Extension},
			Title: "a message carries id msg_..., type message, the requested model, stop_sequence and usage with the cache and server-tool counts",
			Bug:   &kit.Bug{Says: "usage lacks cache_creation, the 5m/1h split of cache writes", Want: "cache_creation", Break: kit.DropsField(msgCreate, "usage.cache_creation")},
			Run: func(t *kit.T) {
				model, _ := PickModel(t)
				resp := t.OK(CreateRequest(Body(model)))
				t.Expect(resp.Get("id").String()).To(HavePrefix("msg_"))
				t.Expect(resp.Get("type").String()).To(Equal("message"))
				t.Expect(resp.Get("model").String()).To(Equal(model))
				t.Expect(resp.Get("stop_sequence").Type).To(Equal(gjson.Null))
				for _, f := range []string{"input_tokens", "output_tokens", "cache_creation_input_tokens", "cache_read_input_tokens",
					"cache_creation.ephemeral_5m_input_tokens", "cache_creation.ephemeral_1h_input_tokens", "service_tier"} {
					t.Expect(resp.Get("usage."+f).Exists()).To(BeTrue(), "usage.%s in %s", f, resp)
				}
			}},
		{ID: "messages/max-tokens-respected", Clause: "4.4", Labels: []kit.Label{kit.Messages},
			Title: "max_tokens bounds the generated tokens, and a reply cut by it stops with max_tokens",
			Bug: &kit.Bug{Says: "max_tokens is read as 64 more than sent", Want: "stops with max_tokens", Break: kit.InRequests(http.MethodPost, "/v1/messages", func(b map[string]any) {
				if v, ok := b["max_tokens"].(float64); ok && v > 0 {
					b["max_tokens"] = v + 64
				}
			})},
			Run: func(t *kit.T) {
				model, _ := PickModel(t)
				for _, max := range []int{1, 3} {
					resp := t.OK(CreateRequest(Body(model, "max_tokens", max, "messages", []any{UserTurn("Write a long story about a harbor.")})))
					t.Expect(resp.Get("stop_reason").String()).To(Equal("max_tokens"), "a reply cut by max_tokens %d stops with max_tokens: %s", max, resp)
					t.Expect(resp.Get("usage.output_tokens").Exists()).To(BeTrue(), "a reply counts its output tokens: %s", resp)
					t.Expect(resp.Get("usage.output_tokens").Int()).To(BeNumerically("<=", max), "max_tokens %d bounds usage.output_tokens: %s", max, resp)
				}
			}},
		{ID: "messages/max-tokens-zero", Clause: "4.4", Labels: []kit.Label{kit.Messages},
			Title: "max_tokens 0 is accepted and generates no content",
			Bug: &kit.Bug{Says: "max_tokens 0 is read as 16 and generates content", Break: kit.InRequests(http.MethodPost, "/v1/messages", func(b map[string]any) {
				if v, ok := b["max_tokens"].(float64); ok && v == 0 {
					b["max_tokens"] = 16
				}
			})},
			Run: func(t *kit.T) {
				model, _ := PickModel(t)
				resp := t.OK(CreateRequest(Body(model, "max_tokens", 0)))
				t.Expect(resp.Get("content.#").Int()).To(BeZero(), "%s", resp)
			}},
		{ID: "messages/max-tokens-model-maximum", Clause: "4.4", Labels: []kit.Label{kit.Messages},
			Title: "max_tokens above the model's max_tokens (2.10) is refused; at the maximum it is accepted",
			Bug:   &kit.Bug{Says: "max_tokens above the model's maximum is cut to it instead of refused", Break: msgCapsMaxTokens},
			Run: func(t *kit.T) {
				model, max := t.ModelMaxTokens()
				expectFieldError(t, t.Do(CreateRequest(Body(model, "max_tokens", max+1))), "")
				t.OK(CreateRequest(Body(model, "max_tokens", max)))
			}},
		{ID: "messages/required-fields", Clause: "4.4", Labels: []kit.Label{kit.Messages},
			Title: "max_tokens, messages and model are required",
			Bug:   &kit.Bug{Says: "a missing max_tokens defaults to 1024", Break: msgDefaults("/v1/messages", "max_tokens", 1024)},
			Run: func(t *kit.T) {
				model, _ := PickModel(t)
				for _, f := range []string{"max_tokens", "messages", "model"} {
					expectFieldError(t, t.Do(CreateRequest(Body(model, f, nil))), "")
				}
			}},
		{ID: "messages/errors-name-the-field", Clause: "gaps §1", Labels: []kit.Label{kit.Messages, kit.Extension},
			Title: "a refused request's error message starts with the path of the offending field",
			Bug:   &kit.Bug{Says: "error messages do not start with the path of the offending field", Break: kit.InAnswers(msgCreate, msgUnprefixedErrors)},
			Run: func(t *kit.T) {
				model, _ := PickModel(t)
				img := func(src map[string]any) []any {
					return []any{UserTurn([]any{map[string]any{"type": "image", "source": src}})}
				}
				cases := map[string]map[string]any{
					"max_tokens":                             Body(model, "max_tokens", nil),
					"messages.0.role":                        Body(model, "messages", []any{map[string]any{"role": "system", "content": "x"}}),
					"messages.0.content.0.source.media_type": Body(model, "messages", img(map[string]any{"type": "base64", "media_type": "image/bmp", "data": onePixelPNG})),
					"messages.0.content.0.cache_control.ttl": Body(model, "messages", []any{UserTurn([]any{map[string]any{"type": "text", "text": "x", "cache_control": map[string]any{"type": "ephemeral", "ttl": "2h"}}})}),
					"temperature":                            Body(model, "temperature", 2),
				}
				for field, body := range cases {
					expectFieldFirst(t, t.Do(CreateRequest(body)), field)
				}
			}},
		{ID: "messages/roles", Clause: "4.4", Labels: []kit.Label{kit.Messages},
			Title: "roles user and assistant are accepted; any other role, system included, is refused",
			Bug: &kit.Bug{Says: "role tool is taken as user", Break: kit.InRequests(http.MethodPost, "/v1/messages", func(b map[string]any) {
				for _, m := range kit.MessagesOf(b) {
					if kit.RoleOf(m) == "tool" {
						m.(map[string]any)["role"] = "user"
					}
				}
			})},
			Run: func(t *kit.T) {
				model, _ := PickModel(t)
				t.OK(CreateRequest(Body(model, "messages", []any{UserTurn("Hi"), map[string]any{"role": "assistant", "content": "Hello."}, UserTurn("Say it again.")})))
				for _, role := range []string{"system", "tool", "human"} {
					expectFieldError(t, t.Do(CreateRequest(Body(model, "messages", []any{map[string]any{"role": role, "content": "Hi"}}))), "")
				}
			}},
		{ID: "messages/consecutive-turns", Clause: "4.4", Labels: []kit.Label{kit.Messages},
			Title: "consecutive turns of the same role are accepted (they are combined)",
			Bug:   &kit.Bug{Says: "only the first of consecutive turns of one role is read", Want: "more input tokens", Break: kit.InRequests(http.MethodPost, "/v1/messages", msgSkipsSecondTurn)},
			Run: func(t *kit.T) {
				model, _ := PickModel(t)
				usageMeasuresInput(t, model)
				// Combined, both turns are read: the pair counts more input tokens than its first
				// turn alone, on any deployment, whatever the reply says.
				first := inputTokens(t, Body(model, "messages", []any{UserTurn("Hello.")}))
				resp := t.OK(CreateRequest(Body(model, "messages", []any{UserTurn("Hello."), UserTurn("Say hello back, and name three colours.")})))
				t.Expect(resp.Get("role").String()).To(Equal("assistant"), "the reply is the assistant's: %s", resp)
				t.Expect(resp.Get("usage.input_tokens").Int()).To(BeNumerically(">", first),
					"two consecutive user turns are read together: they count more input tokens than the first alone (%d): %s", first, resp)
				lone := inputTokens(t, Body(model, "messages", []any{UserTurn("Name a colour."), map[string]any{"role": "assistant", "content": "One colour"}}))
				both := t.OK(CreateRequest(Body(model, "messages", []any{UserTurn("Name a colour."), map[string]any{"role": "assistant", "content": "One colour"},
					map[string]any{"role": "assistant", "content": " is one of the three primary colours, and"}})))
				t.Expect(both.Get("usage.input_tokens").Int()).To(BeNumerically(">", lone),
					"two consecutive assistant turns are read together: they count more input tokens than the first alone (%d): %s", lone, both)
			}},
		{ID: "messages/request-blocks", Clause: "4.4", Labels: []kit.Label{kit.Messages},
			Title: "content as a string or as text, image, document, search_result, tool_use and tool_result blocks, with cache_control and citations, is accepted",
			Bug: &kit.Bug{Says: "a search_result block is refused", Break: kit.InRequests(http.MethodPost, "/v1/messages", func(b map[string]any) {
				msgEachBlock(b, func(bl map[string]any) {
					if bl["type"] == "search_result" {
						bl["type"] = "search_result_unknown"
					}
				})
			})},
			Run: func(t *kit.T) {
				model, _ := PickModel(t)
				cc := map[string]any{"type": "ephemeral"}
				on := map[string]any{"enabled": true}
				turns := []any{
					UserTurn([]any{
						map[string]any{"type": "text", "text": "Read these.", "cache_control": cc},
						map[string]any{"type": "image", "source": map[string]any{"type": "base64", "media_type": "image/png", "data": onePixelPNG}},
						map[string]any{"type": "document", "title": "Notes", "context": "Test notes", "citations": on, "source": map[string]any{"type": "text", "media_type": "text/plain", "data": "Lanterns are lit at dusk."}},
						map[string]any{"type": "document", "citations": on, "source": map[string]any{"type": "content", "content": []any{map[string]any{"type": "text", "text": "First."}, map[string]any{"type": "text", "text": "Second."}}}},
						map[string]any{"type": "search_result", "source": "https://example.com/kb", "title": "KB", "citations": on, "content": []any{map[string]any{"type": "text", "text": "Lanterns burn until dawn."}}},
					}),
					map[string]any{"role": "assistant", "content": []any{map[string]any{"type": "tool_use", "id": "toolu_conformance", "name": "get_weather", "input": map[string]any{"city": "Lisbon", "unit": "celsius"}}}},
					UserTurn([]any{map[string]any{"type": "tool_result", "tool_use_id": "toolu_conformance", "content": []any{map[string]any{"type": "text", "text": "18 degrees"}}}}),
				}
				t.OK(CreateRequest(Body(model, "messages", turns, "tools", []any{weatherTool})))
				t.OK(CreateRequest(Body(model, "system", []any{map[string]any{"type": "text", "text": "Be brief."}})))
			}},
		{ID: "messages/block-fields-validated", Clause: "4.4", Labels: []kit.Label{kit.Messages},
			Title: "a block with a field or value outside its type's table is refused: image media type, source kind, document media type, missing text",
			Bug: &kit.Bug{Says: "an image of media type image/tiff is accepted", Break: kit.InRequests(http.MethodPost, "/v1/messages", func(b map[string]any) {
				msgEachBlock(b, func(bl map[string]any) {
					if src, _ := bl["source"].(map[string]any); src["media_type"] == "image/tiff" {
						src["media_type"] = "image/png"
					}
				})
			})},
			Run: func(t *kit.T) {
				model, _ := PickModel(t)
				for _, b := range []map[string]any{
					{"type": "image", "source": map[string]any{"type": "base64", "media_type": "image/tiff", "data": onePixelPNG}},
					{"type": "image", "source": map[string]any{"type": "ftp", "url": "ftp://example.com/a.png"}},
					{"type": "document", "source": map[string]any{"type": "base64", "media_type": "text/html", "data": onePixelPNG}},
					{"type": "text"},
					{"type": "no_such_block"},
				} {
					expectFieldError(t, t.Do(CreateRequest(Body(model, "messages", []any{UserTurn([]any{b})}))), "")
				}
			}},
		{ID: "messages/cache-control-ttl", Clause: "8", Labels: []kit.Label{kit.Messages},
			Title: "cache_control ttl is 5m or 1h (or absent); any other value is refused",
			Bug: &kit.Bug{Says: "a cache_control ttl other than 5m or 1h is taken as the default", Break: kit.InRequests(http.MethodPost, "/v1/messages", func(b map[string]any) {
				msgEachBlock(b, func(bl map[string]any) {
					if cc, _ := bl["cache_control"].(map[string]any); cc != nil && cc["ttl"] != nil && cc["ttl"] != "5m" && cc["ttl"] != "1h" {
						delete(cc, "ttl")
					}
				})
			})},
			Run: func(t *kit.T) {
				model, _ := PickModel(t)
				block := func(cc map[string]any) map[string]any {
					return Body(model, "system", []any{map[string]any{"type": "text", "text": "Be brief.", "cache_control": cc}})
				}
				for _, ttl := range []string{"5m", "1h"} {
					t.OK(CreateRequest(block(map[string]any{"type": "ephemeral", "ttl": ttl})))
				}
				t.OK(CreateRequest(block(map[string]any{"type": "ephemeral"})))
				for _, ttl := range []string{"10m", "1d", ""} {
					expectFieldError(t, t.Do(CreateRequest(block(map[string]any{"type": "ephemeral", "ttl": ttl}))), "")
				}
			}},
		{ID: "messages/temperature-range", Clause: "gaps §4", Labels: []kit.Label{kit.Messages, kit.Extension, kit.V20230601},
			Title: "temperature is accepted from 0 to 1 and refused outside",
			Bug:   &kit.Bug{Says: "a temperature outside 0 to 1 is taken as the nearest bound", Want: "400", Break: msgClamps("/v1/messages", "temperature", 0, 1)},
			Run: func(t *kit.T) {
				model, _ := PickModel(t)
				for _, v := range []float64{0, 0.5, 1} {
					t.OK(CreateRequest(Body(model, "temperature", v)))
				}
				for _, v := range []float64{-0.01, 1.01} {
					expectFieldError(t, t.Do(CreateRequest(Body(model, "temperature", v))), "temperature")
				}
			}},
		{ID: "messages/thinking-budget", Clause: "gaps §4", Labels: []kit.Label{kit.Messages, kit.Extension},
			Title: "thinking budget_tokens must be at least 1024 and below max_tokens; with thinking the reply starts with a signed thinking block",
			Bug: &kit.Bug{Says: "a thinking budget below 1024 is raised to 1024 instead of refused", Want: "400", Break: kit.InRequests(http.MethodPost, "/v1/messages", func(b map[string]any) {
				if th, _ := b["thinking"].(map[string]any); th != nil {
					if v, ok := th["budget_tokens"].(float64); ok && v < 1024 {
						th["budget_tokens"] = 1024
					}
				}
			})},
			Run: func(t *kit.T) {
				model, _ := PickModel(t)
				expectFieldError(t, t.Do(CreateRequest(Body(model, "max_tokens", 4096, "thinking", map[string]any{"type": "enabled", "budget_tokens": 1023}))), "thinking.budget_tokens")
				expectFieldError(t, t.Do(CreateRequest(Body(model, "max_tokens", 2048, "thinking", map[string]any{"type": "enabled", "budget_tokens": 2048}))), "thinking.budget_tokens")
				resp := t.OK(CreateRequest(Body(model, "max_tokens", 2048, "thinking", map[string]any{"type": "enabled", "budget_tokens": 1024})))
				t.Expect(resp.Get("content.0.type").String()).To(BeElementOf("thinking", "redacted_thinking"), "%s", resp)
				if resp.Get("content.0.type").String() == "thinking" {
					t.Expect(resp.Get("content.0.signature").String()).NotTo(BeEmpty())
				}
			}},
		{ID: "messages/messages-limit", Clause: "8", Labels: []kit.Label{kit.Messages},
			Title: "a request with more than 100,000 messages is refused",
			Bug: &kit.Bug{Says: "messages past the 100,000th are dropped instead of refused", Break: kit.InRequests(http.MethodPost, "/v1/messages", func(b map[string]any) {
				if msgs := kit.MessagesOf(b); len(msgs) > 100000 {
					b["messages"] = msgs[:99999]
				}
			})},
			Run: func(t *kit.T) {
				model, _ := PickModel(t)
				many := make([]any, 100001)
				for i := range many {
					many[i] = map[string]any{"role": []string{"user", "assistant"}[i%2], "content": "a"}
				}
				expectFieldError(t, t.Do(CreateRequest(Body(model, "messages", many))), "")
			}},
		{ID: "messages/stop-sequences", Clause: "2.9", Labels: []kit.Label{kit.Messages},
			Title: "a reply that stops at a custom stop sequence says stop_sequence, names the sequence, and does not contain it",
			Bug:   &kit.Bug{Says: "stop_sequences are ignored", Want: "stop sequence", Break: kit.IgnoresField(http.MethodPost, "/v1/messages", "stop_sequences")},
			Run: func(t *kit.T) {
				model, _ := PickModel(t)
				body := Body(model, "messages", []any{UserTurn("Count from one to twenty in words, separated by spaces.")})
				first := t.OK(CreateRequest(body))
				words := strings.Fields(strings.Join(textOf(first), ""))
				if len(words) < 3 {
					t.Unsupported("the reply is too short to pick a stop sequence from: %s", first)
				}
				stop := words[len(words)/2]
				body["stop_sequences"] = []any{stop, "zzzz-never"}
				resp := t.OK(CreateRequest(body))
				text := strings.Join(textOf(resp), "")
				if resp.Get("stop_reason").String() == "stop_sequence" {
					t.Expect(resp.Get("stop_sequence").String()).To(BeElementOf(stop, "zzzz-never"), "stop_sequence names one of the request's sequences: %s", resp)
					t.Expect(text).NotTo(ContainSubstring(resp.Get("stop_sequence").String()), "the reply stops before its stop sequence: %s", resp)
				} else {
					// Whatever the model says on a deployment, a reply that reached a sequence stopped there.
					for _, s := range []string{stop, "zzzz-never"} {
						t.Expect(text).NotTo(ContainSubstring(s), "the reply contains the stop sequence %q, yet its stop_reason is %s: %s", s, resp.Get("stop_reason"), resp)
					}
					t.Expect(resp.Get("stop_sequence").Type).To(Equal(gjson.Null), "stop_sequence is null unless the reply stopped at one: %s", resp)
				}
				if t.Target.IsFake { // the fake's replies are reproducible, so the sequence is met
					t.Expect(resp.Get("stop_reason").String()).To(Equal("stop_sequence"), "%s", resp)
				}
			}},
		{ID: "messages/continues-assistant-turn", Clause: "4.4", Labels: []kit.Label{kit.Messages},
			Title: "when the last message is the assistant's, the reply continues it rather than starting over",
			Bug:   &kit.Bug{Says: "the last assistant turn is dropped and the reply starts over", Want: "more input tokens", Break: kit.InRequests(http.MethodPost, "/v1/messages", msgDropsPrefill)},
			Run: func(t *kit.T) {
				model, _ := PickModel(t)
				usageMeasuresInput(t, model)
				prefill := "The three primary colours are"
				question := UserTurn("Name the primary colours.")
				without := inputTokens(t, Body(model, "messages", []any{question}))
				resp := t.OK(CreateRequest(Body(model, "messages", []any{question, map[string]any{"role": "assistant", "content": prefill}})))
				t.Expect(resp.Get("content.0.text").String()).NotTo(HavePrefix(prefill), "the reply continues the assistant's turn, so it does not repeat it: %s", resp)
				t.Expect(resp.Get("usage.input_tokens").Int()).To(BeNumerically(">", without),
					"the assistant's last turn is read as the start of the reply: the request counts more input tokens than without it (%d): %s", without, resp)
			}},
		{ID: "messages/tool-choice-tool", Clause: "2.9", Labels: []kit.Label{kit.Messages},
			Title: "tool_choice naming a tool yields a tool_use block of that tool whose input satisfies its input_schema, and stop_reason tool_use",
			Bug: &kit.Bug{Says: "a forced tool_use block lacks the schema's required unit", Want: "unit", Break: kit.InOKAnswers(msgCreate, func(_ *http.Request, m map[string]any) {
				content, _ := m["content"].([]any)
				for _, b := range content {
					if in, _ := b.(map[string]any)["input"].(map[string]any); in != nil {
						delete(in, "unit")
					}
				}
			})},
			Run: func(t *kit.T) {
				model, _ := PickModel(t)
				resp := t.OK(CreateRequest(Body(model, "max_tokens", 512, "tools", []any{weatherTool}, "tool_choice", map[string]any{"type": "tool", "name": "get_weather"},
					"messages", []any{UserTurn("What is the weather in Lisbon?")})))
				t.Expect(resp.Get("stop_reason").String()).To(Equal("tool_use"), "%s", resp)
				var use gjson.Result
				for _, b := range resp.Get("content").Array() {
					if b.Get("type").String() == "tool_use" {
						use = b
					}
				}
				t.Expect(use.Exists()).To(BeTrue(), "%s", resp)
				t.Expect(use.Get("name").String()).To(Equal("get_weather"))
				t.Expect(use.Get("id").String()).NotTo(BeEmpty())
				satisfies(t, weatherTool["input_schema"].(map[string]any), use.Get("input"))
			}},
		{ID: "messages/system-and-tools-count", Clause: "4.4", Labels: []kit.Label{kit.Messages},
			Title: "a system prompt and tool definitions are input: adding either raises count_tokens and usage.input_tokens",
			Bug:   &kit.Bug{Says: "input tokens leave out the system prompt", Want: "system prompt", Break: msgInRequests(func(b map[string]any) { delete(b, "system") })},
			Run: func(t *kit.T) {
				model, _ := PickModel(t)
				usageMeasuresInput(t, model)
				// count_tokens is an extension route: its half of the statement is checked where
				// the target serves it, and the statement about usage stands without it.
				withCount := t.Target.Serves(http.MethodPost, "/v1/messages/count_tokens")
				count := func(body map[string]any) (usage, counted int64) {
					usage = inputTokens(t, body)
					if !withCount {
						return usage, 1
					}
					body = maps.Clone(body)
					delete(body, "max_tokens")
					return usage, t.OK(kit.Request{Area: kit.Messages, Method: http.MethodPost, Path: "/v1/messages/count_tokens", Body: body, Schema: "messages/count_tokens"}).Get("input_tokens").Int()
				}
				baseUsage, baseCount := count(Body(model))
				for what, extra := range map[string][]any{
					"a system prompt": {"system", "You are a terse assistant. Answer in at most five words, in English."},
					"a tool":          {"tools", []any{weatherTool}},
				} {
					usage, counted := count(Body(model, extra...))
					t.Expect(usage).To(BeNumerically(">", baseUsage), "adding %s raises usage.input_tokens above %d", what, baseUsage)
					if withCount {
						t.Expect(counted).To(BeNumerically(">", baseCount), "adding %s raises count_tokens above %d", what, baseCount)
					}
				}
			}},
		{ID: "messages/count-tokens-agrees", Clause: "gaps §4", Labels: []kit.Label{kit.Messages, kit.Extension},
			Title: "count_tokens of a request equals usage.input_tokens of the same request",
			Bug: &kit.Bug{Says: "count_tokens counts one token more than the message's usage", Break: kit.InOKAnswers(msgCount, func(_ *http.Request, m map[string]any) {
				if n, ok := m["input_tokens"].(float64); ok {
					m["input_tokens"] = n + 1
				}
			})},
			Run: func(t *kit.T) {
				model, _ := PickModel(t)
				for _, body := range []map[string]any{
					Body(model),
					Body(model, "system", "Be brief.", "tools", []any{weatherTool}, "messages", []any{UserTurn("Hi"), map[string]any{"role": "assistant", "content": "Hello."}, UserTurn("Weather in Lisbon?")}),
				} {
					usage := t.OK(CreateRequest(body)).Get("usage.input_tokens").Int()
					delete(body, "max_tokens")
					count := t.OK(kit.Request{Area: kit.Messages, Method: http.MethodPost, Path: "/v1/messages/count_tokens", Body: body, Schema: "messages/count_tokens"})
					t.Expect(count.Get("input_tokens").Int()).To(Equal(usage), "%s", count)
				}
			}},
	}
}

func streamChecks() []kit.Check {
	return []kit.Check{
		{ID: "messages/stream-grammar", Clause: "gaps §4", Labels: []kit.Label{kit.Messages, kit.Extension},
			Title: "a streamed message follows the event grammar: message_start, blocks in order (tool_use input {}), message_delta, message_stop",
			Run: func(t *kit.T) {
				model, _ := PickModel(t)
				for _, body := range []map[string]any{
					Body(model, "stream", true),
					Body(model, "stream", true, "max_tokens", 512, "tools", []any{weatherTool}, "tool_choice", map[string]any{"type": "tool", "name": "get_weather"}),
					// A model free to choose may say something before its tool call: two blocks.
					Body(model, "stream", true, "max_tokens", 512, "tools", []any{weatherTool}, "messages", []any{UserTurn("What is the weather in Lisbon?")}),
				} {
					msg := streamMessage(t, CreateRequest(body))
					t.Expect(msg.Interleaved).To(BeEmpty(), "a block starts only after the one before it stopped")
					raw, _ := json.Marshal(msg.Message)
					t.Expect(schemas.Validate("messages/message", raw, t.Target.SchemaMode)).To(Succeed(), "accumulated %s", raw)
					start, _ := json.Marshal(msg.Start)
					t.Expect(gjson.GetBytes(start, "usage.input_tokens").Int()).To(Equal(gjson.GetBytes(raw, "usage.input_tokens").Int()),
						"input tokens are final in message_start")
				}
			},
			Bug: &kit.Bug{Says: "a tool_use block starts with its input whole instead of {}, and its input_json_delta pieces repeat it", Want: "must be written exactly {}",
				Break: inStreams(streamedAnswers, streamStartsToolInputWhole)}},
		{ID: "messages/stream-first-event", Clause: "gaps §4", Labels: []kit.Label{kit.Messages, kit.Extension},
			Title: "a stream is requested in the body, even with Accept: application/json, and answers text/event-stream",
			Run: func(t *kit.T) {
				model, _ := PickModel(t)
				r := CreateRequest(Body(model, "stream", true))
				r.Header = http.Header{"Accept": {"application/json"}}
				_, evs := stream(t, r, "messages/stream_event")
				t.Expect(evs).NotTo(BeEmpty(), "the stream carries events")
				t.Expect(evs[0].Name).To(Equal("message_start"), "the first event is message_start")
			},
			Bug: &kit.Bug{Says: "a request asking for a stream in its body is answered whole when it says Accept: application/json", Want: "text/event-stream",
				Break: func(h http.Handler) http.Handler {
					ignoring := kit.IgnoresField(http.MethodPost, "/v1/messages", "stream")(h)
					return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
						if r.Header.Get("Accept") == "application/json" {
							ignoring.ServeHTTP(w, r)
							return
						}
						h.ServeHTTP(w, r)
					})
				}}},
		{ID: "messages/stream-equals-response", Clause: kit.ClauseFake, Labels: []kit.Label{kit.Messages, kit.FakeOnly},
			Title: "the fake's stream of a request accumulates to exactly its response without streaming, for the scripted model and every scenario",
			Run: func(t *kit.T) {
				model, _ := PickModel(t)
				cases := map[string]map[string]any{
					"": Body(model, "max_tokens", 2048, "thinking", map[string]any{"type": "enabled", "budget_tokens": 1024}, "tools", []any{weatherTool}),
				}
				for _, name := range scenarioNames(t) {
					cases[name] = Body(model)
				}
				for name, body := range cases {
					h := http.Header{headerScenario: {name}}
					r := CreateRequest(body)
					r.Header = h
					plain := t.OK(r)
					streamed := map[string]any{"stream": true}
					for k, v := range body {
						streamed[k] = v
					}
					sr := CreateRequest(streamed)
					sr.Header = h
					raw, _ := json.Marshal(streamMessage(t, sr).Message)
					t.Expect(withoutIDs(t, raw)).To(Equal(withoutIDs(t, plain.Body)), "scenario %q: the stream accumulates to the answer without streaming", name)
				}
			},
			Bug: &kit.Bug{Says: "a streamed text loses its last piece", Want: "the stream accumulates to the answer without streaming",
				Break: inStreams(streamedAnswers, streamDropsLastTextDelta)}},
	}
}

func completionChecks() []kit.Check {
	return []kit.Check{
		{ID: "messages/complete-response-shape", Clause: "2.8", Labels: []kit.Label{kit.Messages},
			Title: "a legacy completion has type completion, an id, the completion text, the model and stop_reason stop_sequence or max_tokens",
			Bug:   &kit.Bug{Says: "a completion answers type message", Break: kit.SetsField(msgComplete, "type", "message")},
			Run: func(t *kit.T) {
				model, _ := PickModel(t)
				resp := t.OK(completeReq(completeBody(model)))
				t.Expect(resp.Get("type").String()).To(Equal("completion"))
				t.Expect(resp.Get("id").String()).NotTo(BeEmpty())
				t.Expect(resp.Get("model").String()).NotTo(BeEmpty())
				t.Expect(resp.Get("stop_reason").String()).To(BeElementOf("stop_sequence", "max_tokens"))
			}},
		{ID: "messages/complete-human-stops", Clause: "4.4", Labels: []kit.Label{kit.Messages},
			Title: "a completion never contains the turn marker Human:, which always stops generation",
			Bug: &kit.Bug{Says: "a completion runs on past the turn marker Human:", Break: kit.InOKAnswers(msgComplete, func(_ *http.Request, m map[string]any) {
				if c, ok := m["completion"].(string); ok {
					m["completion"] = c + "\n\nHuman: And then?"
				}
			})},
			Run: func(t *kit.T) {
				model, _ := PickModel(t)
				resp := t.OK(completeReq(completeBody(model, "max_tokens_to_sample", 512, "prompt", "\n\nHuman: Write a dialogue between Human and Assistant.\n\nAssistant:")))
				t.Expect(resp.Get("completion").String()).NotTo(ContainSubstring("\n\nHuman:"))
				if t.Target.IsFake { // the fake's scripted model always goes on to a human turn
					t.Expect(resp.Get("stop_reason").String()).To(Equal("stop_sequence"))
				}
			}},
		{ID: "messages/complete-max-tokens", Clause: "2.8", Labels: []kit.Label{kit.Messages},
			Title: "max_tokens_to_sample cuts a completion with stop_reason max_tokens",
			Bug: &kit.Bug{Says: "max_tokens_to_sample is read as 256 more than sent", Want: "max_tokens", Break: kit.InRequests(http.MethodPost, "/v1/complete", func(b map[string]any) {
				if v, ok := b["max_tokens_to_sample"].(float64); ok {
					b["max_tokens_to_sample"] = v + 256
				}
			})},
			Run: func(t *kit.T) {
				model, _ := PickModel(t)
				resp := t.OK(completeReq(completeBody(model, "max_tokens_to_sample", 1, "prompt", "\n\nHuman: Write a long story.\n\nAssistant:")))
				t.Expect(resp.Get("stop_reason").String()).To(Equal("max_tokens"), "%s", resp)
			}},
		{ID: "messages/complete-stop-sequences", Clause: "4.4", Labels: []kit.Label{kit.Messages},
			Title: "a completion stopped by a custom stop sequence excludes it",
			Bug:   &kit.Bug{Says: "stop_sequences of a legacy completion are ignored", Want: "excludes the stop sequence", Break: kit.IgnoresField(http.MethodPost, "/v1/complete", "stop_sequences")},
			Run: func(t *kit.T) {
				model, _ := PickModel(t)
				first := t.OK(completeReq(completeBody(model)))
				words := strings.Fields(first.Get("completion").String())
				if len(words) < 3 {
					t.Unsupported("the completion is too short to pick a stop sequence from: %s", first)
				}
				stop := words[len(words)/2]
				resp := t.OK(completeReq(completeBody(model, "stop_sequences", []any{stop})))
				// Whether or not this reply reached the sequence, it never contains it: generation
				// stops at the first match.
				t.Expect(resp.Get("completion").String()).NotTo(ContainSubstring(stop), "a completion excludes the stop sequence %q and everything after it: %s", stop, resp)
			}},
		{ID: "messages/complete-temperature-range", Clause: "8", Labels: []kit.Label{kit.Messages},
			Title: "legacy temperature is accepted from 0.0 to 1.0 and refused outside",
			Bug:   &kit.Bug{Says: "a legacy temperature outside 0 to 1 is taken as the nearest bound", Break: msgClamps("/v1/complete", "temperature", 0, 1)},
			Run: func(t *kit.T) {
				model, _ := PickModel(t)
				for _, v := range []float64{0, 1} {
					t.OK(completeReq(completeBody(model, "temperature", v)))
				}
				for _, v := range []float64{-0.5, 1.5} {
					expectFieldError(t, t.Do(completeReq(completeBody(model, "temperature", v))), "")
				}
			}},
		{ID: "messages/complete-required-fields", Clause: "4.4", Labels: []kit.Label{kit.Messages},
			Title: "max_tokens_to_sample, model and prompt are required",
			Bug:   &kit.Bug{Says: "a missing max_tokens_to_sample defaults to 256", Break: msgDefaults("/v1/complete", "max_tokens_to_sample", 256)},
			Run: func(t *kit.T) {
				model, _ := PickModel(t)
				for _, f := range []string{"max_tokens_to_sample", "model", "prompt"} {
					expectFieldError(t, t.Do(completeReq(completeBody(model, f, nil))), "")
				}
			}},
		{ID: "messages/complete-user-id-opaque", Clause: "4.4", Labels: []kit.Label{kit.Messages},
			Title: "metadata.user_id is an opaque identifier: one that is an email address or a phone number is refused",
			Bug: &kit.Bug{Says: "an email address is accepted as metadata.user_id", Break: kit.InRequests(http.MethodPost, "/v1/complete", func(b map[string]any) {
				if md, _ := b["metadata"].(map[string]any); md != nil {
					if id, _ := md["user_id"].(string); strings.Contains(id, "@") {
						md["user_id"] = "3f1d6c9e-5b2a-4c1e-9e7d-2b8a4f0c6d11"
					}
				}
			})},
			Run: func(t *kit.T) {
				model, _ := PickModel(t)
				t.OK(completeReq(completeBody(model, "metadata", map[string]any{"user_id": "3f1d6c9e-5b2a-4c1e-9e7d-2b8a4f0c6d11"})))
				for _, id := range []string{"jane.doe@example.com", "+44 20 7946 0958"} {
					expectFieldError(t, t.Do(completeReq(completeBody(model, "metadata", map[string]any{"user_id": id}))), "")
				}
			}},
		{ID: "messages/complete-prompt-format", Clause: "gaps §5", Labels: []kit.Label{kit.Messages, kit.Extension},
			Title: "a prompt that does not start with \\n\\nHuman:, end with \\n\\nAssistant: and alternate turns is refused naming prompt",
			Bug: &kit.Bug{Says: "a prompt that does not start with \\n\\nHuman: is taken as if it did", Want: "400", Break: kit.InRequests(http.MethodPost, "/v1/complete", func(b map[string]any) {
				if p, ok := b["prompt"].(string); ok && !strings.HasPrefix(p, "\n\nHuman:") && !strings.HasPrefix(p, "Human:") {
					b["prompt"] = "\n\nHuman: " + p + "\n\nAssistant:"
				}
			})},
			Run: func(t *kit.T) {
				model, _ := PickModel(t)
				for _, p := range []string{"Hello", "\n\nHuman: Hello", "Human: Hello\n\nAssistant:", "\n\nHuman: A\n\nHuman: B\n\nAssistant:"} {
					expectFieldError(t, t.Do(completeReq(completeBody(model, "prompt", p))), "prompt")
				}
			}},
		{ID: "messages/complete-stream", Clause: "6", Labels: []kit.Label{kit.Messages},
			Title: "a legacy completion with stream true is delivered as server-sent events",
			Run: func(t *kit.T) {
				model, _ := PickModel(t)
				r := completeReq(completeBody(model, "stream", true))
				r.Schema = ""
				resp := t.OK(r)
				t.Expect(resp.Header.Get("Content-Type")).To(HavePrefix("text/event-stream"), "a stream is text/event-stream: %s", resp)
				// What a client needs of it, without the schemas of the extension: the pieces make a
				// text, and the last piece says why it stopped.
				evs, _ := kit.ReadEventStream(resp.Body)
				completion, pieces, err := kit.AccumulateCompletion(evs)
				t.Expect(err).NotTo(HaveOccurred(), "%s", resp)
				t.Expect(pieces).NotTo(BeEmpty(), "the stream carries completion events: %s", resp)
				t.Expect(strings.TrimSpace(kit.StringOf(completion["completion"]))).NotTo(BeEmpty(), "the pieces of the stream make a text: %s", resp)
				t.Expect(kit.StringOf(completion["stop_reason"])).NotTo(BeEmpty(), "the last completion event carries stop_reason: %s", resp)
			},
			Bug: &kit.Bug{Says: "every piece of a streamed completion is empty", Want: "make a text",
				Break: inStreams(kit.On(http.MethodPost, "^/v1/complete$"), streamEmptiesCompletionPieces)}},
		{ID: "messages/complete-stream-events", Clause: "gaps §5", Labels: []kit.Label{kit.Messages, kit.Extension},
			Title: "streamed completion events are named completion, carry pieces that make the text, and only the last carries stop_reason",
			Run: func(t *kit.T) {
				model, _ := PickModel(t)
				_, evs := stream(t, completeReq(completeBody(model, "stream", true)), "messages/completion_stream_event")
				for _, ev := range evs {
					t.Expect(ev.Name).To(BeElementOf("completion", "ping"), "the events of a streamed completion are named completion (or ping)")
				}
				completion, pieces, err := kit.AccumulateCompletion(evs)
				t.Expect(err).NotTo(HaveOccurred())
				t.Expect(pieces).NotTo(BeEmpty(), "the stream carries completion events")
				t.Expect(strings.TrimSpace(kit.StringOf(completion["completion"]))).NotTo(BeEmpty(), "the pieces of the stream make a text")
				for i, p := range pieces {
					last := i == len(pieces)-1
					t.Expect(p["stop_reason"] == nil).To(Equal(!last), "only the last piece carries stop_reason: piece %d of %d has stop_reason %v", i+1, len(pieces), p["stop_reason"])
				}
			},
			Bug: &kit.Bug{Says: "every piece of a streamed completion carries the stop_reason", Want: "only the last piece carries stop_reason",
				Break: inStreams(kit.On(http.MethodPost, "^/v1/complete$"), streamStopReasonOnEveryPiece)}},
	}
}

// stubSequenceMarker is in the user text of messages/stub-sequence's requests alone: its stub's
// rule, so that the stub takes no other check's request.
const stubSequenceMarker = "conformance stub sequence"

func scenarioChecks() []kit.Check {
	return []kit.Check{
		{ID: "messages/scripted-model-deterministic", Clause: kit.ClauseFake, Labels: []kit.Label{kit.Messages, kit.FakeOnly},
			Title: "the fake's scripted model gives the same request the same reply and different requests different replies",
			Bug:   &kit.Bug{Says: "the same request gets a different reply each time", Break: msgVaries},
			Run: func(t *kit.T) {
				model, _ := PickModel(t)
				a := t.OK(CreateRequest(Body(model)))
				t.Expect(withoutIDs(t, t.OK(CreateRequest(Body(model))).Body)).To(Equal(withoutIDs(t, a.Body)))
				b := t.OK(CreateRequest(Body(model, "messages", []any{UserTurn("Say hello in a few words!")})))
				t.Expect(b.Get("content").Raw).NotTo(Equal(a.Get("content").Raw))
			}},
		{ID: "messages/scenario-by-header", Clause: kit.ClauseFake, Labels: []kit.Label{kit.Messages, kit.FakeOnly},
			Title: "every scenario of the library is answered when named in Fake-Scenario, as a valid message with the requested model",
			Bug: &kit.Bug{Says: "a scenario named in Fake-Scenario answers another model than the requested one", Break: kit.InOKAnswers(msgCreate, func(r *http.Request, m map[string]any) {
				if r.Header.Get(headerScenario) != "" {
					m["model"] = "assistant-scenario"
				}
			})},
			Run: func(t *kit.T) {
				model, _ := PickModel(t)
				for _, name := range scenarioNames(t) {
					r := CreateRequest(Body(model))
					r.Header = http.Header{headerScenario: {name}}
					resp := t.OK(r)
					t.Expect(resp.Get("model").String()).To(Equal(model))
					t.Expect(stopReasons).To(ContainElement(resp.Get("stop_reason").String()), "scenario %s", name)
				}
			}},
		{ID: "messages/scenario-unknown-400", Clause: kit.ClauseFake, Labels: []kit.Label{kit.Messages, kit.FakeOnly},
			Title: "an unknown Fake-Scenario name is refused with 400 naming the header",
			Bug:   &kit.Bug{Says: "an unknown Fake-Scenario name is ignored", Break: msgIgnoresUnknownScenario},
			Run: func(t *kit.T) {
				model, _ := PickModel(t)
				r := CreateRequest(Body(model))
				r.Header = http.Header{headerScenario: {"no-such-scenario"}}
				expectFieldError(t, t.Do(r), headerScenario)
			}},
		{ID: "messages/scenario-by-rule", Clause: kit.ClauseFake, Labels: []kit.Label{kit.Messages, kit.FakeOnly},
			Title: "a scenario's matching rule selects it from the last user text, as its name would",
			Bug:   &kit.Bug{Says: "no scenario is selected by its matching rule", Want: "scenario", Break: msgRulesMissUpperCase},
			Run: func(t *kit.T) {
				model, _ := PickModel(t)
				list := t.Control(http.MethodGet, "/_fake/messages/scenarios", nil)
				ruled := 0
				for _, sc := range list.Get("data").Array() {
					if !sc.Get("match").IsObject() {
						continue
					}
					text := sc.Get("match.equals").String()
					if !sc.Get("match.equals").Exists() {
						text = "Please " + sc.Get("match.contains").String() + " now"
					}
					ruled++
					named := CreateRequest(Body(model, "messages", []any{UserTurn(text)}))
					named.Header = http.Header{headerScenario: {sc.Get("name").String()}}
					byRule := t.OK(CreateRequest(Body(model, "messages", []any{UserTurn(text)})))
					t.Expect(withoutIDs(t, byRule.Body)).To(Equal(withoutIDs(t, t.OK(named).Body)), "scenario %s", sc.Get("name"))
				}
				if ruled == 0 {
					t.Unsupported("no scenario of the library has a matching rule")
				}
			}},
		{ID: "messages/stub-sequence", Clause: kit.ClauseFake, Labels: []kit.Label{kit.Messages, kit.FakeOnly},
			Title: "a stub's replies are served in order to the requests it matches, streamed or not, with id, model and usage filled in, then the usual answers resume",
			Run: func(t *kit.T) {
				model, _ := PickModel(t)
				t.Cleanup("clear stubs", t.Delete(kit.Request{Area: kit.Core, Method: http.MethodDelete, Path: "/_fake/messages/stubs", As: kit.NoCred}))
				stub := t.Control(http.MethodPost, "/_fake/messages/stubs", map[string]any{
					"match": map[string]any{"user_text_contains": stubSequenceMarker},
					"replies": []any{
						map[string]any{"content": []any{map[string]any{"type": "tool_use", "id": "toolu_stub", "name": "get_weather", "input": map[string]any{"city": "Oslo", "unit": "celsius"}, "caller": map[string]any{"type": "direct"}}}},
						map[string]any{"content": []any{map[string]any{"type": "text", "text": "Sunny in Oslo."}}},
					},
				})
				t.Expect(schemas.Validate("messages/stub", stub.Body, t.Target.SchemaMode)).To(Succeed())
				body := Body(model, "tools", []any{weatherTool}, "messages", []any{UserTurn("Weather, please: " + stubSequenceMarker)})
				first := t.OK(CreateRequest(body))
				t.Expect(first.Get("stop_reason").String()).To(Equal("tool_use"), "%s", first)
				t.Expect(first.Get("content.0.input.city").String()).To(Equal("Oslo"), "%s", first)
				t.Expect(first.Get("model").String()).To(Equal(model))
				count := t.OK(kit.Request{Area: kit.Messages, Method: http.MethodPost, Path: "/v1/messages/count_tokens", Body: with(maps.Clone(body), []any{"max_tokens", nil}), Schema: "messages/count_tokens"})
				t.Expect(first.Get("usage.input_tokens").Int()).To(Equal(count.Get("input_tokens").Int()))
				msg := streamMessage(t, CreateRequest(with(maps.Clone(body), []any{"stream", true}))).Message
				raw, _ := json.Marshal(msg)
				t.Expect(gjson.GetBytes(raw, "stop_reason").String()).To(Equal("end_turn"), "the streamed request gets the stub's second reply: %s", raw)
				t.Expect(gjson.GetBytes(raw, "content.#").Int()).To(Equal(int64(1)), "the streamed request gets the stub's second reply: %s", raw)
				t.Expect(gjson.GetBytes(raw, "content.0.text").String()).To(Equal("Sunny in Oslo."), "the streamed request gets the stub's second reply: %s", raw)
				after := t.OK(CreateRequest(body))
				t.Expect(after.Get("content.0.text").String()).NotTo(Equal("Sunny in Oslo."), "the used-up stub answered again")
				t.Expect(t.Control(http.MethodGet, "/_fake/messages/stubs", nil).Get(fmt.Sprintf("data.#(id==%q)", stub.Get("id").String())).Exists()).To(BeFalse())
			},
			Bug: &kit.Bug{Says: "a streamed request does not take a stub's next reply: it is answered as if no stub matched", Want: "the stub's second reply",
				Break: kit.InRequests(http.MethodPost, "/v1/messages", func(b map[string]any) {
					if b["stream"] == true {
						var msgs any
						json.Unmarshal([]byte(strings.ReplaceAll(string(kit.MustMarshal(b["messages"])), stubSequenceMarker, "")), &msgs)
						b["messages"] = msgs
					}
				})}},
		{ID: "messages/stub-invalid-400", Clause: kit.ClauseFake, Labels: []kit.Label{kit.Messages, kit.FakeOnly},
			Title: "a stub whose reply is not a valid message is refused at registration with 400 naming the field",
			Bug:   &kit.Bug{Says: "a stub reply with an unknown block type is registered", Break: kit.InRequests(http.MethodPost, "/_fake/messages/stubs", msgStubTypoAccepted)},
			Run: func(t *kit.T) {
				t.Control(http.MethodGet, "/_fake/messages/stubs", nil) // disabled, not failed, without the control API
				resp := t.Do(kit.Request{Area: kit.Core, Method: http.MethodPost, Path: "/_fake/messages/stubs", As: kit.NoCred, Header: http.Header{"vendor-version": {""}},
					Body: map[string]any{"replies": []any{
						map[string]any{"content": []any{map[string]any{"type": "text", "text": "fine"}}},
						map[string]any{"content": []any{map[string]any{"type": "txt", "text": "not a block type"}}},
					}}})
				expectFieldError(t, resp, "replies.1.content.0.type")
			}},
		{ID: "messages/scenarios-show-every-tool-error", Clause: kit.ClauseFake, Labels: []kit.Label{kit.Messages, kit.FakeOnly},
			Title: "the scenarios show a tool-result error block for every error_code of section 7, and refusals of every category",
			Bug: &kit.Bug{Says: "no scenario shows a bio refusal (it says cyber)", Want: "refusal/bio", Break: kit.InOKAnswers(msgCreate, func(_ *http.Request, m map[string]any) {
				if d, _ := m["stop_details"].(map[string]any); d["category"] == "bio" {
					d["category"] = "cyber"
				}
			})},
			Run: func(t *kit.T) {
				model, _ := PickModel(t)
				seen := map[string]bool{}
				for _, name := range scenarioNames(t) {
					r := CreateRequest(Body(model))
					r.Header = http.Header{headerScenario: {name}}
					resp := t.OK(r)
					for _, b := range resp.Get("content").Array() {
						if c := b.Get("content"); c.Get("error_code").Exists() {
							seen[c.Get("type").String()+"/"+c.Get("error_code").String()] = true
						}
					}
					if d := resp.Get("stop_details"); d.Exists() && d.Type != gjson.Null {
						seen["refusal/"+d.Get("category").String()] = true
					}
				}
				var missing []string
				for typ, codes := range toolErrorCodes {
					for _, c := range codes {
						if !seen[typ+"/"+c] {
							missing = append(missing, typ+"/"+c)
						}
					}
				}
				for _, cat := range []string{"cyber", "bio", ""} {
					if !seen["refusal/"+cat] {
						missing = append(missing, "refusal/"+cat)
					}
				}
				slices.Sort(missing)
				t.Expect(missing).To(BeEmpty())
			}},
	}
}
