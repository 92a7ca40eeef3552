package messages

import (
	"bytes"
	"encoding/json"
	"errors"
	"maps"
	"net/http"
	"slices"
	"strings"

	. "github.com/onsi/gomega"
	"github.com/tidwall/gjson"

	"github.com/platformkit/platformkit/schemas"

	"github.com/platformkit/platformkit/conformance/kit"
)

// What a streamed answer carries besides its events' grammar: the same answer, usage and headers
// as the same request answered whole (EXTENSIONS.md, "Streamed answers"). Each compares a stream
// with an answer that was not streamed, so a defect of the streaming path alone shows.

func init() { kit.Register(streamAnswerChecks()...) }

func streamAnswerChecks() []kit.Check {
	return []kit.Check{
		{ID: "messages/stream-equals-whole-answer", Clause: "gaps §4", Labels: []kit.Label{kit.Messages, kit.Extension},
			Title: "a streamed answer accumulates to the answer without streaming (IDs aside: content, stop reason, usage) when the target answers that request alike twice",
			Run: func(t *kit.T) {
				model, _ := PickModel(t)
				compared := 0
				for _, body := range []map[string]any{
					Body(model),
					Body(model, "max_tokens", 512, "tools", []any{weatherTool}, "messages", []any{UserTurn("What is the weather in Lisbon?")}),
				} {
					// A model need not answer a request the same way twice: a stream is held to the
					// answer without streaming only when two of those agree (the fake's always do).
					want := withoutIDs(t, t.OK(CreateRequest(body)).Body)
					if withoutIDs(t, t.OK(CreateRequest(body)).Body) != want {
						continue
					}
					compared++
					raw := kit.MustMarshal(streamMessage(t, CreateRequest(with(maps.Clone(body), []any{"stream", true}))).Message)
					t.Expect(withoutIDs(t, raw)).To(Equal(want), "the stream accumulates to the answer the target gave twice without streaming")
				}
				if compared == 0 {
					t.Unsupported("the target answered each request differently twice without streaming, so a stream has no one answer to equal")
				}
			},
			Bug: &kit.Bug{Says: "a streamed text loses its last piece", Want: "the stream accumulates to the answer the target gave twice",
				Break: inStreams(streamedAnswers, streamDropsLastTextDelta)}},
		{ID: "messages/stream-structured-output", Clause: "gaps §4b", Labels: []kit.Label{kit.Messages, kit.Extension},
			Title: "a streamed structured-output answer's text deltas join to JSON that validates against the requested schema, equal to the answer without streaming when the target answers that request alike twice",
			Run: func(t *kit.T) {
				model, _ := PickModel(t)
				body := Body(model, "max_tokens", 1024, "output_config",
					map[string]any{"format": map[string]any{"type": "json_schema", "schema": weatherAnswer}})
				whole := t.Do(CreateRequest(body))
				if whole.Status == http.StatusBadRequest {
					t.Unsupported("the target refused structured outputs for %s: %s", model, whole.Get("error.message"))
				}
				t.Expect(whole.Status).To(Equal(http.StatusOK), "%s", whole)
				streamed := streamMessage(t, CreateRequest(with(maps.Clone(body), []any{"stream", true}))).Message
				raw := kit.MustMarshal(streamed)
				if stop := gjson.GetBytes(raw, "stop_reason").String(); stop != "end_turn" {
					t.Unsupported("the streamed answer stopped with %s, so its JSON need not be complete", stop)
				}
				text := gjson.GetBytes(raw, `content.#(type=="text").text`)
				t.Expect(text.Exists()).To(BeTrue(), "the streamed answer has a text block: %s", raw)
				t.Expect(json.Valid([]byte(text.String()))).To(BeTrue(), "the text deltas join to JSON: %q", text.String())
				satisfies(t, weatherAnswer, gjson.Parse(text.String()))
				// A model need not answer a request the same way twice, so "equal" is demanded only
				// of a target that does: when two answers without streaming carry the same JSON,
				// the stream must carry it too (the fake's model always does).
				again := t.OK(CreateRequest(body))
				first, second := textOf(whole), textOf(again)
				if len(first) == 1 && slices.Equal(first, second) {
					t.Expect(canonicalJSON(text.String())).To(Equal(canonicalJSON(first[0])),
						"the target answers this request with the same JSON twice without streaming, so the stream's JSON equals it")
				}
			},
			Bug: &kit.Bug{Says: "a streamed request's output_config is ignored: the stream answers prose, not the requested JSON", Want: "the text deltas join to JSON",
				Break: ignoresFieldWhenStreaming("output_config")}},
		{ID: "messages/stream-cache-usage", Clause: "4.4", Labels: []kit.Label{kit.Messages, kit.Extension},
			Title: "the usage in a streamed message_start carries the cache read, cache creation and input tokens of the same request answered whole",
			Run: func(t *kit.T) {
				model, _ := PickModel(t)
				system := []any{map[string]any{"type": "text", "text": cacheWords(), "cache_control": map[string]any{"type": "ephemeral"}}}
				body := Body(model, "max_tokens", 16, "system", system)
				t.OK(CreateRequest(body)) // writes the cache, so that both requests below read it
				whole := t.OK(CreateRequest(body)).Get("usage")
				if whole.Get("cache_read_input_tokens").Int() == 0 {
					t.Unsupported("the target reports no cache read for a repeated prompt with a breakpoint, so a stream's cache usage has nothing to be compared with: %s", whole)
				}
				start := gjson.ParseBytes(kit.MustMarshal(streamMessage(t, CreateRequest(with(maps.Clone(body), []any{"stream", true}))).Start)).Get("usage")
				// Clients take these from message_start alone (an older SDK updates only
				// output_tokens from message_delta): they must be final there.
				for _, f := range []string{"input_tokens", "cache_read_input_tokens", "cache_creation_input_tokens",
					"cache_creation.ephemeral_5m_input_tokens", "cache_creation.ephemeral_1h_input_tokens"} {
					if !whole.Get(f).Exists() {
						continue
					}
					t.Expect(start.Get(f).Exists()).To(BeTrue(), "message_start's usage carries %s: %s", f, start)
					t.Expect(start.Get(f).Int()).To(Equal(whole.Get(f).Int()),
						"usage.%s of message_start equals that of the same request answered whole (%s)", f, whole)
				}
			},
			Bug: &kit.Bug{Says: "a streamed message_start reports no cache read or creation: the cache numbers come only in message_delta", Want: "message_start",
				Break: inStreams(streamedAnswers, streamSetsInMessageStart(0, "cache_read_input_tokens", "cache_creation_input_tokens"))}},
		{ID: "messages/stream-ratelimit-headers", Clause: "gaps §1", Labels: []kit.Label{kit.Messages, kit.Extension},
			Title: "a streamed message's answer carries every rate-limit header an answer without streaming carries, with the same limits",
			Run: func(t *kit.T) {
				enforceRateLimits(t)
				model, _ := PickModel(t)
				whole := t.OK(CreateRequest(Body(model)))
				streamed, _ := stream(t, CreateRequest(Body(model, "stream", true)), "messages/stream_event")
				var names []string
				for name := range whole.Header {
					lower := strings.ToLower(name)
					for _, family := range RateLimitFamilies {
						if strings.HasPrefix(lower, family) {
							names = append(names, name)
						}
					}
				}
				if len(names) == 0 {
					t.Unsupported("the target sends no rate-limit headers (vendor-ratelimit-* or anthropic-ratelimit-*) on a message's answer, so there are none to find on a stream's")
				}
				slices.Sort(names)
				for _, name := range names {
					t.Expect(streamed.Header.Get(name)).NotTo(BeEmpty(), "the streamed answer carries the rate-limit header %s, as the answer without streaming does", name)
					if strings.HasSuffix(name, "-Limit") {
						t.Expect(streamed.Header.Get(name)).To(Equal(whole.Header.Get(name)), "the rate-limit header %s is the same limit on a streamed answer", name)
					}
				}
			},
			Bug: &kit.Bug{Says: "a streamed answer carries no rate-limit headers", Want: "rate-limit header",
				Break: kit.InAnswers(streamedAnswers, func(_ *http.Request, _ int, h http.Header, body []byte) []byte {
					if strings.HasPrefix(h.Get("Content-Type"), "text/event-stream") {
						for name := range h {
							for _, family := range RateLimitFamilies {
								if strings.HasPrefix(strings.ToLower(name), family) {
									h.Del(name)
								}
							}
						}
					}
					return body
				})}},
		{ID: "messages/stream-error-event", Clause: "gaps §4", Labels: []kit.Label{kit.Messages, kit.Extension, kit.FakeOnly},
			Title: "a failure after a stream's headers (an injected 529 after three events) ends the stream with an error event carrying the overloaded_error envelope and its request_id, and nothing after it",
			Run: func(t *kit.T) {
				model, _ := PickModel(t)
				t.Cleanup("clear faults", t.Delete(kit.Request{Area: kit.Core, Method: http.MethodDelete, Path: "/_fake/faults", As: kit.NoCred}))
				t.Control(http.MethodPost, "/_fake/faults", map[string]any{"method": http.MethodPost, "path": "/v1/messages", "status": 529, "stream_events": 3})
				resp, evs := stream(t, CreateRequest(Body(model, "stream", true)), "messages/stream_event")
				_, err := kit.AccumulateMessage(evs)
				var failed *kit.StreamError
				t.Expect(errors.As(err, &failed)).To(BeTrue(), "the stream ends with an error event, not %v: %s", err, resp)
				t.Expect(len(evs)).To(Equal(4), "three events, then the error event, and nothing after it: %s", resp)
				t.Expect(schemas.Validate("error", failed.Envelope, t.Target.SchemaMode)).To(Succeed(), "the error event carries an error envelope: %s", failed.Envelope)
				t.Expect(gjson.GetBytes(failed.Envelope, "error.type").String()).To(Equal("overloaded_error"), "the error event carries the envelope of a 529: %s", failed.Envelope)
				t.Expect(gjson.GetBytes(failed.Envelope, "request_id").String()).To(Equal(resp.Header.Get("request-id")), "the error event carries the stream's request_id: %s", failed.Envelope)
			},
			Bug: &kit.Bug{Says: "a failure mid-stream cuts the stream without an error event", Want: "the stream ends with an error event",
				Break: inStreams(streamedAnswers, func(evs []streamedEvent) []streamedEvent {
					return slices.DeleteFunc(evs, func(ev streamedEvent) bool { return ev.Name == "error" })
				})}},
	}
}

// canonicalJSON is raw re-encoded with sorted keys and exact numbers, so that two encodings of one
// value compare equal; what is not JSON is returned as it came.
func canonicalJSON(raw string) string {
	d := json.NewDecoder(strings.NewReader(raw))
	d.UseNumber()
	var v any
	if d.Decode(&v) != nil {
		return raw
	}
	var out bytes.Buffer
	enc := json.NewEncoder(&out)
	enc.SetEscapeHTML(false)
	enc.Encode(v)
	return strings.TrimSuffix(out.String(), "\n")
}
