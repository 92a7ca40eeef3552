package messages

import (
	"encoding/json"
	"net/http"

	"github.com/tidwall/gjson"

	. "github.com/onsi/gomega"

	"github.com/platformkit/platformkit/conformance/kit"
)

// The request and response surface of the official SDKs (gaps §4b): the fields their parameter
// types send are accepted, the fields their response types require are answered, and a
// structured-output answer is JSON of its schema.

// weatherAnswer is a structured-output schema in the subset the service supports: closed
// objects, an enum, a nullable union, a local reference and a format.
var weatherAnswer = map[string]any{
	"type": "object", "additionalProperties": false, "required": []any{"city", "unit", "days", "note"},
	"properties": map[string]any{
		"city": map[string]any{"type": "string"},
		"unit": map[string]any{"enum": []any{"celsius", "fahrenheit"}},
		"days": map[string]any{"type": "array", "items": map[string]any{"$ref": "#/$defs/day"}},
		"note": map[string]any{"type": []any{"string", "null"}},
	},
	"$defs": map[string]any{"day": map[string]any{
		"type": "object", "additionalProperties": false, "required": []any{"date", "high"},
		"properties": map[string]any{"date": map[string]any{"type": "string", "format": "date"}, "high": map[string]any{"type": "integer"}},
	}},
}

func sdkSurfaceChecks() []kit.Check {
	return []kit.Check{
		{ID: "messages/sdk-request-fields", Clause: "gaps §4b", Labels: []kit.Label{kit.Messages, kit.Extension},
			Title: "the optional fields the official SDKs send (strict, defer_loading, allowed_callers, input_examples, eager_input_streaming on tools; thinking.display; cache_control; inference_geo; service_tier) are accepted, and count_tokens takes the same tool fields",
			Bug: &kit.Bug{Says: "a tool's eager_input_streaming is refused as an unknown field", Want: "200", Break: kit.InRequests(http.MethodPost, "/v1/messages", func(b map[string]any) {
				tools, _ := b["tools"].([]any)
				for _, tl := range tools {
					if tm, _ := tl.(map[string]any); tm != nil && tm["eager_input_streaming"] != nil {
						tm["eager_input_streaming_"] = tm["eager_input_streaming"]
						delete(tm, "eager_input_streaming")
					}
				}
			})},
			Run: func(t *kit.T) {
				model, _ := PickModel(t)
				tool := map[string]any{
					"name": "get_weather", "description": "The current weather of a city", "strict": true, "defer_loading": false,
					"allowed_callers": []any{"direct"}, "input_examples": []any{map[string]any{"city": "Oslo"}}, "eager_input_streaming": true,
					"input_schema": map[string]any{"type": "object", "additionalProperties": false, "required": []any{"city"},
						"properties": map[string]any{"city": map[string]any{"type": "string"}}},
				}
				body := Body(model, "max_tokens", 2048, "tools", []any{tool}, "cache_control", map[string]any{"type": "ephemeral"},
					"inference_geo", "global", "service_tier", "auto",
					"thinking", map[string]any{"type": "enabled", "budget_tokens": 1024, "display": "summarized"})
				resp := t.OK(CreateRequest(body))
				t.Expect(resp.Get("usage.inference_geo").String()).To(Equal("global"), "usage.inference_geo reports the request's: %s", resp)
				t.OK(kit.Request{Area: kit.Messages, Method: "POST", Path: "/v1/messages/count_tokens", Schema: "messages/count_tokens",
					Body: with(body, []any{"max_tokens", nil, "inference_geo", nil, "service_tier", nil})})
			}},
		{ID: "messages/sdk-response-fields", Clause: "gaps §4b", Labels: []kit.Label{kit.Messages, kit.Extension},
			Title: "a message carries the fields the official SDKs' Message requires: container (null without one), usage.inference_geo",
			Bug:   &kit.Bug{Says: "a message has no container field", Want: "container", Break: kit.DropsField(msgCreate, "container")},
			Run: func(t *kit.T) {
				model, _ := PickModel(t)
				resp := t.OK(CreateRequest(Body(model)))
				t.Expect(resp.Get("container").Exists()).To(BeTrue(), "container in %s", resp)
				t.Expect(resp.Get("container").Type).To(Equal(gjson.Null), "container without a container in the request: %s", resp)
				t.Expect(resp.Get("usage.inference_geo").String()).NotTo(BeEmpty(), "usage.inference_geo in %s", resp)
			}},
		{ID: "messages/structured-output-validates", Clause: "gaps §4b", Labels: []kit.Label{kit.Messages, kit.Extension},
			Title: "with output_config.format json_schema, the answer's text is JSON that validates against the schema",
			Bug:   &kit.Bug{Says: "a structured-output answer lacks a required property of its schema", Break: kit.InOKAnswers(msgCreate, msgDropsJSONProperty("note"))},
			Run: func(t *kit.T) {
				model, _ := PickModel(t)
				resp := t.Do(CreateRequest(Body(model, "max_tokens", 1024, "output_config",
					map[string]any{"format": map[string]any{"type": "json_schema", "schema": weatherAnswer}})))
				if resp.Status == 400 {
					t.Unsupported("the target refused structured outputs for %s: %s", model, resp.Get("error.message"))
				}
				t.Expect(resp.Status).To(Equal(200), "%s", resp)
				if resp.Get("stop_reason").String() != "end_turn" {
					t.Unsupported("the answer stopped with %s, so its JSON need not be complete", resp.Get("stop_reason"))
				}
				text := resp.Get(`content.#(type=="text").text`)
				t.Expect(text.Exists()).To(BeTrue(), "a text block in %s", resp)
				t.Expect(json.Valid([]byte(text.String()))).To(BeTrue(), "the text is JSON: %s", text.String())
				satisfies(t, weatherAnswer, gjson.Parse(text.String()))
			}},
		{ID: "messages/structured-output-unsupported-keyword", Clause: "gaps §4b", Labels: []kit.Label{kit.Messages, kit.Extension},
			Title: "a structured-output schema with a keyword outside the supported subset (minimum) is refused with 400",
			Bug:   &kit.Bug{Says: "a schema keyword outside the supported subset (minimum) is dropped instead of refused", Break: kit.InRequests(http.MethodPost, "/v1/messages", msgStripsMinimum)},
			Run: func(t *kit.T) {
				model, _ := PickModel(t)
				schema := map[string]any{"type": "object", "additionalProperties": false, "required": []any{"n"},
					"properties": map[string]any{"n": map[string]any{"type": "integer", "minimum": 1}}}
				expectFieldError(t, t.Do(CreateRequest(Body(model, "output_config",
					map[string]any{"format": map[string]any{"type": "json_schema", "schema": schema}}))), "")
			}},
	}
}

func init() { kit.Register(sdkSurfaceChecks()...) }
