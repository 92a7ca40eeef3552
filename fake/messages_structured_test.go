package fake

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"regexp/syntax"
	"slices"
	"strings"
	"testing"

	"github.com/platformkit/platformkit/fake/internal/areas/messages/model"

	"github.com/platformkit/platformkit/fake/internal/areas/messages/wire"

	"github.com/platformkit/platformkit/fake/internal/core"

	"github.com/santhosh-tekuri/jsonschema/v5"
	"github.com/tidwall/gjson"
)

// obj is a closed object schema with every property required.
func obj(props map[string]any) map[string]any {
	req := []any{}
	for _, n := range slices.Sorted(maps.Keys(props)) {
		req = append(req, n)
	}
	return map[string]any{"type": "object", "additionalProperties": false, "required": req, "properties": props}
}

// strictSchemas has one schema per keyword of the supported subset that constrains a value:
// each generated answer must validate against it.
var strictSchemas = map[string]map[string]any{
	"types": obj(map[string]any{"s": map[string]any{"type": "string"}, "i": map[string]any{"type": "integer"},
		"n": map[string]any{"type": "number"}, "b": map[string]any{"type": "boolean"}, "z": map[string]any{"type": "null"}}),
	"enum":          obj(map[string]any{"v": map[string]any{"enum": []any{"north", "south", 3, nil}}}),
	"const":         obj(map[string]any{"v": map[string]any{"const": "fixed"}}),
	"type list":     obj(map[string]any{"v": map[string]any{"type": []any{"null", "integer"}}}),
	"anyOf":         obj(map[string]any{"v": map[string]any{"anyOf": []any{map[string]any{"type": "integer"}, map[string]any{"type": "string"}}}}),
	"allOf":         obj(map[string]any{"v": map[string]any{"allOf": []any{map[string]any{"type": "integer"}, map[string]any{"enum": []any{2, 3, 5}}}}}),
	"$ref":          with(obj(map[string]any{"v": map[string]any{"$ref": "#/$defs/point"}}), []any{"$defs", map[string]any{"point": obj(map[string]any{"x": map[string]any{"type": "integer"}})}}),
	"definitions":   with(obj(map[string]any{"v": map[string]any{"$ref": "#/definitions/p"}}), []any{"definitions", map[string]any{"p": map[string]any{"enum": []any{"a", "b"}}}}),
	"items":         obj(map[string]any{"v": map[string]any{"type": "array", "items": obj(map[string]any{"k": map[string]any{"type": "string"}})}}),
	"minItems":      obj(map[string]any{"v": map[string]any{"type": "array", "minItems": 1, "items": map[string]any{"type": "integer"}}}),
	"pattern":       obj(map[string]any{"v": map[string]any{"type": "string", "pattern": `^[A-Z]{2,4}-\d{3}(x|y)?$`}}),
	"pattern class": obj(map[string]any{"v": map[string]any{"type": "string", "pattern": `^[a-f0-9]+\.[^\s]*$`}}),
	"nested":        obj(map[string]any{"o": obj(map[string]any{"p": obj(map[string]any{"q": map[string]any{"type": "boolean"}})})}),
}

func init() {
	for _, f := range wire.StrictFormats {
		strictSchemas["format "+f] = obj(map[string]any{"v": map[string]any{"type": "string", "format": f}})
	}
}

// validator compiles s with format assertions on, as a client's validator would check.
func validator(t *testing.T, s map[string]any) *jsonschema.Schema {
	t.Helper()
	data, _ := json.Marshal(s)
	c := jsonschema.NewCompiler()
	c.Draft = jsonschema.Draft2020
	c.AssertFormat = true
	if err := c.AddResource("s.json", bytes.NewReader(data)); err != nil {
		t.Fatal(err)
	}
	v, err := c.Compile("s.json")
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// TestStructuredOutputValidatesAgainstItsSchema covers structured outputs: for every keyword of
// the supported subset, the answer's text is JSON that validates against the schema, both
// spellings (output_config.format and the beta's output_format), and the stream's text deltas
// concatenate to the same JSON.
func TestStructuredOutputValidatesAgainstItsSchema(t *testing.T) {
	ts := NewTestServer(t)
	for name, schema := range strictSchemas {
		v := validator(t, schema)
		bodies := []map[string]any{msgBody("output_config", map[string]any{"format": map[string]any{"type": "json_schema", "schema": schema}})}
		if name == "$ref" { // the beta's spelling takes the same path: one schema shows it
			bodies = append(bodies, msgBody("output_format", map[string]any{"type": "json_schema", "schema": schema}))
		}
		for i, body := range bodies {
			got := create(t, ts, body, "anthropic-beta", wire.BetaStructuredOutputs)
			text := got.Get("content.0.text").String()
			var doc any
			if err := json.Unmarshal([]byte(text), &doc); err != nil {
				t.Errorf("%s: text %q is not JSON: %v", name, text, err)
				continue
			}
			if err := v.Validate(doc); err != nil {
				t.Errorf("%s: %s does not validate: %v", name, text, err)
			}
			if got.Get("stop_reason").String() != "end_turn" || len(got.Get("content").Array()) != 1 {
				t.Errorf("%s: %s, want one text block and end_turn", name, got.Raw)
			}
			if i > 0 {
				continue // one spelling streams: the deltas are the text's either way
			}
			body["stream"] = true
			_, stream := postMessages(t, ts, "/v1/messages", body, "anthropic-beta", wire.BetaStructuredOutputs)
			var joined strings.Builder
			for _, line := range strings.Split(string(stream), "\n") {
				if d, ok := strings.CutPrefix(line, "data: "); ok && gjson.Get(d, "delta.type").String() == "text_delta" {
					joined.WriteString(gjson.Get(d, "delta.text").String())
				}
			}
			if joined.String() != text {
				t.Errorf("%s: streamed text %q, want %q", name, joined.String(), text)
			}
		}
	}
}

// TestStrictToolInputValidates covers strict tools: the generated input validates against the
// input_schema for every keyword the generator handles.
func TestStrictToolInputValidates(t *testing.T) {
	ts := NewTestServer(t)
	for name, schema := range strictSchemas {
		v := validator(t, schema)
		got := create(t, ts, msgBody(
			"tools", []any{map[string]any{"name": "act", "strict": true, "input_schema": schema}},
			"tool_choice", map[string]any{"type": "tool", "name": "act"}))
		in := got.Get(`content.#(type=="tool_use").input`)
		var doc any
		_ = json.Unmarshal([]byte(in.Raw), &doc)
		if err := v.Validate(doc); err != nil {
			t.Errorf("%s: input %s does not validate: %v", name, in.Raw, err)
		}
	}
}

// explosive is a small schema whose definitions refer to the next one ten times each, twelve
// levels deep: expanded, 10^12 subschemas.
func explosive() map[string]any {
	defs := map[string]any{"d12": map[string]any{"type": "string"}}
	for i := 11; i >= 0; i-- {
		props := map[string]any{}
		for j := range 10 {
			props[fmt.Sprintf("p%d", j)] = map[string]any{"$ref": fmt.Sprintf("#/$defs/d%d", i+1)}
		}
		defs[fmt.Sprintf("d%d", i)] = obj(props)
	}
	return with(obj(map[string]any{"v": map[string]any{"$ref": "#/$defs/d0"}}), []any{"$defs", defs})
}

// TestStructuredOutputRefusesUnsupportedSchemas covers the 400s: each keyword outside the
// supported subset, and each rule of it, is refused naming the keyword's path.
func TestStructuredOutputRefusesUnsupportedSchemas(t *testing.T) {
	ts := NewTestServer(t)
	str := map[string]any{"type": "string"}
	many := func(n int, prop map[string]any) map[string]any {
		props := map[string]any{}
		for i := range n {
			props[fmt.Sprintf("p%02d", i)] = prop
		}
		return map[string]any{"type": "object", "additionalProperties": false, "properties": props}
	}
	cases := []struct {
		name   string
		schema map[string]any
		field  string
	}{
		{"minimum", obj(map[string]any{"v": map[string]any{"type": "integer", "minimum": 1}}), "properties.v.minimum"},
		{"maxLength", obj(map[string]any{"v": map[string]any{"type": "string", "maxLength": 3}}), "properties.v.maxLength"},
		{"maxItems", obj(map[string]any{"v": map[string]any{"type": "array", "maxItems": 3}}), "properties.v.maxItems"},
		{"oneOf", obj(map[string]any{"v": map[string]any{"oneOf": []any{str}}}), "properties.v.oneOf"},
		{"minItems 2", obj(map[string]any{"v": map[string]any{"type": "array", "minItems": 2}}), "properties.v.minItems"},
		{"open object", map[string]any{"type": "object", "properties": map[string]any{"v": str}}, "additionalProperties"},
		{"additionalProperties true", map[string]any{"type": "object", "additionalProperties": true}, "additionalProperties"},
		{"format", obj(map[string]any{"v": map[string]any{"type": "string", "format": "regex"}}), "properties.v.format"},
		{"object enum", obj(map[string]any{"v": map[string]any{"enum": []any{map[string]any{"a": 1}}}}), "properties.v.enum.0"},
		{"external ref", obj(map[string]any{"v": map[string]any{"$ref": "https://example.com/s.json"}}), "properties.v.$ref"},
		{"missing ref", obj(map[string]any{"v": map[string]any{"$ref": "#/$defs/nope"}}), "properties.v.$ref"},
		{"recursive", with(obj(map[string]any{"v": map[string]any{"$ref": "#/$defs/n"}}), []any{"$defs", map[string]any{"n": obj(map[string]any{"next": map[string]any{"$ref": "#/$defs/n"}})}}), "properties.v.properties.next.$ref"},
		{"allOf with ref", with(obj(map[string]any{"v": map[string]any{"allOf": []any{map[string]any{"$ref": "#/$defs/n"}}}}), []any{"$defs", map[string]any{"n": str}}), "properties.v.allOf.0.$ref"},
		{"backreference", obj(map[string]any{"v": map[string]any{"type": "string", "pattern": `(a)\1`}}), "properties.v.pattern"},
		{"lookahead", obj(map[string]any{"v": map[string]any{"type": "string", "pattern": `a(?=b)`}}), "properties.v.pattern"},
		{"word boundary", obj(map[string]any{"v": map[string]any{"type": "string", "pattern": `\bword`}}), "properties.v.pattern"},
		{"large repeat", obj(map[string]any{"v": map[string]any{"type": "string", "pattern": `a{1,1001}`}}), "properties.v.pattern"},
		{"optional parameters", many(25, str), ""},
		{"union parameters", obj(map[string]any{"a": many(17, map[string]any{"type": []any{"string", "null"}})}), ""},
	}
	for _, c := range cases {
		for _, spelling := range []struct{ key, path string }{{"output_config", "output_config.format.schema"}, {"tools", "tools.0.input_schema"}} {
			var body map[string]any
			if spelling.key == "tools" {
				body = msgBody("tools", []any{map[string]any{"name": "act", "strict": true, "input_schema": c.schema}})
			} else {
				body = msgBody("output_config", map[string]any{"format": map[string]any{"type": "json_schema", "schema": c.schema}})
			}
			t.Run(c.name+" in "+spelling.key, func(t *testing.T) {
				expect400(t, ts, "/v1/messages", body, strings.TrimSuffix(spelling.path+"."+c.field, "."))
				expect400(t, ts, "/v1/messages/count_tokens", with(body, []any{"max_tokens", nil}), strings.TrimSuffix(spelling.path+"."+c.field, "."))
			})
		}
	}
	expect400(t, ts, "/v1/messages", msgBody("output_config", map[string]any{"format": map[string]any{"type": "json_schema", "schema": explosive()}}), "output_config.format.schema")
	// A non-strict tool keeps any schema: only strict ones are compiled.
	if status, out := postMessages(t, ts, "/v1/messages", msgBody("tools", []any{map[string]any{"name": "act", "input_schema": cases[0].schema}})); status != http.StatusOK {
		t.Errorf("non-strict tool with minimum: %d %s", status, out)
	}
	strictTools := make([]any, wire.MaxStrictTools+1)
	for i := range strictTools {
		strictTools[i] = map[string]any{"name": fmt.Sprintf("t%d", i), "strict": true, "input_schema": obj(map[string]any{})}
	}
	expect400(t, ts, "/v1/messages", msgBody("tools", strictTools), fmt.Sprintf("tools.%d.strict", wire.MaxStrictTools))
	format := map[string]any{"type": "json_schema", "schema": obj(map[string]any{"a": str})}
	expect400(t, ts, "/v1/messages", msgBody("output_format", format), "output_format")
	expect400(t, ts, "/v1/messages", msgBody("output_format", format, "output_config", map[string]any{"format": format}), "output_format", "vendor-beta", wire.BetaStructuredOutputs)
	expect400(t, ts, "/v1/messages", msgBody("output_config", map[string]any{"format": format},
		"messages", []any{map[string]any{"role": "user", "content": "Hi"}, map[string]any{"role": "assistant", "content": "{"}}), "messages")
	expect400(t, ts, "/v1/messages", msgBody("output_config", map[string]any{"format": format},
		"messages", userTurn([]any{map[string]any{"type": "document", "source": map[string]any{"type": "text", "media_type": "text/plain", "data": "x"}, "citations": map[string]any{"enabled": true}}})),
		"messages.0.content.0.citations")
	expect400(t, ts, "/v1/messages", msgBody("output_config", map[string]any{"format": map[string]any{"type": "json_schema"}}), "output_config.format.schema")
	expect400(t, ts, "/v1/messages", msgBody("output_config", map[string]any{"effort": "extreme"}), "output_config.effort")
}

// TestThinkingDisplayOmitted covers thinking.display "omitted": the thinking block keeps its
// signature (the one the summarized display gives) with an empty text, streamed as a signature
// delta alone, and the hidden thinking is billed.
func TestThinkingDisplayOmitted(t *testing.T) {
	ts := NewTestServer(t)
	thinking := func(display string) map[string]any {
		return msgBody("max_tokens", 4000, "thinking", map[string]any{"type": "enabled", "budget_tokens": 2000, "display": display})
	}
	shown := create(t, ts, thinking("summarized"))
	hidden := create(t, ts, thinking("omitted"))
	if shown.Get("content.0.thinking").String() == "" {
		t.Fatalf("summarized: %s", shown.Raw)
	}
	if hidden.Get("content.0.type").String() != "thinking" || hidden.Get("content.0.thinking").String() != "" || hidden.Get("content.0.signature").String() == "" {
		t.Errorf("omitted: first block %s, want thinking with an empty text and a signature", hidden.Get("content.0").Raw)
	}
	if n := hidden.Get("usage.output_tokens_details.thinking_tokens").Int(); n == 0 || hidden.Get("usage.output_tokens").Int() <= n {
		t.Errorf("omitted: usage %s, want the hidden thinking billed", hidden.Get("usage").Raw)
	}
	body := thinking("omitted")
	body["stream"] = true
	_, stream := postMessages(t, ts, "/v1/messages", body)
	if strings.Contains(string(stream), `"thinking_delta"`) || !strings.Contains(string(stream), `"signature_delta"`) {
		t.Errorf("omitted stream: want a signature delta and no thinking delta:\n%s", stream)
	}
	_, counted := postMessages(t, ts, "/v1/messages", body, "anthropic-beta", wire.BetaThinkingTokenCount)
	if want := fmt.Sprintf(`"estimated_tokens":%d`, hidden.Get("usage.output_tokens_details.thinking_tokens").Int()); !strings.Contains(string(counted), want) {
		t.Errorf("omitted stream with %s: want a thinking delta with %s:\n%s", wire.BetaThinkingTokenCount, want, counted)
	}
	expect400(t, ts, "/v1/messages", msgBody("thinking", map[string]any{"type": "adaptive", "display": "hidden"}), "thinking.display")
}

// TestResponseReportsRequestFields covers what a response reports back from its request:
// usage.inference_geo, usage.speed, the container, context_management; and their defaults.
func TestResponseReportsRequestFields(t *testing.T) {
	ts := NewTestServer(t)
	plain := create(t, ts, msgBody())
	for path, want := range map[string]string{"usage.inference_geo": "global", "usage.speed": "standard", "usage.service_tier": "standard", "container": "", "context_management": "", "diagnostics": ""} {
		if got := plain.Get(path); got.String() != want || !got.Exists() {
			t.Errorf("default %s = %s, want %q", path, got.Raw, want)
		}
	}
	got := create(t, ts, msgBody("inference_geo", "us", "speed", "fast", "service_tier", "standard_only", "container", "container_01abc",
		"context_management", map[string]any{"edits": []any{map[string]any{"type": "clear_thinking_20251015", "keep": "all"}}}))
	for path, want := range map[string]string{"usage.inference_geo": "us", "usage.speed": "fast", "container.id": "container_01abc", "container.expires_at": "2026-01-31T00:00:00Z", "context_management.applied_edits": "[]"} {
		if g := got.Get(path); g.String() != want && g.Raw != want {
			t.Errorf("%s = %s, want %s", path, g.Raw, want)
		}
	}
	skills := create(t, ts, msgBody("container", map[string]any{"skills": []any{map[string]any{"skill_id": "pptx", "type": "anthropic"}}}))
	if !strings.HasPrefix(skills.Get("container.id").String(), "container_") || skills.Get("container.skills.0.version").String() != "latest" {
		t.Errorf("container with skills only: %s, want a new container with the skill at its latest version", skills.Get("container").Raw)
	}
	expect400(t, ts, "/v1/messages", msgBody("speed", "slow"), "speed")
	expect400(t, ts, "/v1/messages", msgBody("inference_geo", "Not A Geo"), "inference_geo")
	expect400(t, ts, "/v1/messages", msgBody("container", map[string]any{"skills": []any{map[string]any{"skill_id": "x", "type": "vendor"}}}), "container.skills.0.type")
	expect400(t, ts, "/v1/messages", msgBody("tools", []any{map[string]any{"name": "a", "input_schema": weatherSchema, "allowed_callers": []any{"anyone"}}}), "tools.0.allowed_callers.0")
	expect400(t, ts, "/v1/messages", msgBody("tools", []any{map[string]any{"name": "a", "input_schema": weatherSchema, "strict": "yes"}}), "tools.0.strict")
	expect400(t, ts, "/v1/messages", msgBody("cache_control", map[string]any{"type": "ephemeral", "ttl": "2h"}), "cache_control.ttl")
	expect400(t, ts, "/v1/messages", msgBody("fallbacks", []any{map[string]any{"max_tokens": 5}}), "fallbacks.0.model")
	expect400(t, ts, "/v1/messages", msgBody("no_such_field", 1), "no_such_field")
}

// TestPatternCost prices a value of a pattern as patternInstance makes it: one step a node, a
// repetition at most two beyond its minimum, the costliest alternative.
func TestPatternCost(t *testing.T) {
	for p, want := range map[string]int{
		`a{3}`:                              4,       // the repeat and 3 literals
		`x*`:                                3,       // 0 to 2 of x
		`(?:^){1000}`:                       1001,    // the repeat and 1,000 empty-width nodes: no output, all work
		`(?:a|bc)+`:                         7,       // 1 + 3 × (the alternate and one literal)
		strings.Repeat(`(?:^){1000}`, 1000): 100_001, // saturated above maxPatternCost
	} {
		re, err := syntax.Parse(p, syntax.Perl)
		if err != nil {
			t.Fatal(err)
		}
		if got := model.PatternCost(re); got != want {
			t.Errorf("patternCost(%.20q) = %d, want %d", p, got, want)
		}
	}
}

// TestGenerationStopsWhenTheClientGoes: a request whose client went stops generating within
// about a thousand steps, with a 400 naming the schema that says so.
func TestGenerationStopsWhenTheClientGoes(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	r, _ := model.SeedOf(map[string]any{})
	schema := map[string]any{"type": "array", "minItems": 1000.0, "items": map[string]any{"type": "string"}}
	work := &core.Meter{}
	work.Start(ctx, model.MaxGenSteps)
	g := model.NewInputGen(work, r, 100_000, schema)
	g.Instance(schema, 0)
	if err := g.Failure("x"); err == nil || !strings.HasPrefix(err.Error(), core.ErrInvalidRequest+": x.items: the work stopped here: the client closed the request") {
		t.Fatalf("failure = %v, want a 400 naming x.items: the client went", err)
	}
	if used := model.MaxGenSteps - work.Left; used > 1024 {
		t.Errorf("%d steps after the client went, want at most 1024", used)
	}
}

// TestSchemaKeywordTypes: a keyword of the wrong type, in any tool's input_schema (strict or
// not) or in the output format, is a 400 naming it; a schema whose keywords have their types
// is taken.
func TestSchemaKeywordTypes(t *testing.T) {
	ts := NewTestServer(t)
	for _, c := range []struct {
		name   string
		schema map[string]any
		field  string
	}{
		{"type 5", map[string]any{"type": "object", "properties": map[string]any{"a": map[string]any{"type": 5}}}, "properties.a.type"},
		{"type not a JSON type", map[string]any{"type": "object", "properties": map[string]any{"a": map[string]any{"type": "any"}}}, "properties.a.type"},
		{"type list with a number", map[string]any{"type": "object", "properties": map[string]any{"a": map[string]any{"type": []any{"string", 5}}}}, "properties.a.type.1"},
		{"minItems a string", map[string]any{"type": "object", "properties": map[string]any{"a": map[string]any{"type": "array", "minItems": "x"}}}, "properties.a.minItems"},
		{"minLength negative", map[string]any{"type": "object", "properties": map[string]any{"a": map[string]any{"minLength": -1}}}, "properties.a.minLength"},
		{"maxItems a fraction", map[string]any{"type": "object", "properties": map[string]any{"a": map[string]any{"maxItems": 1.5}}}, "properties.a.maxItems"},
		{"required of numbers", map[string]any{"type": "object", "required": []any{1}}, "required.0"},
		{"property not a schema", map[string]any{"type": "object", "properties": map[string]any{"a": 5}}, "properties.a"},
		{"pattern a number", map[string]any{"type": "object", "$defs": map[string]any{"d": map[string]any{"pattern": 7}}}, `"$defs".d.pattern`},
		{"anyOf empty", map[string]any{"type": "object", "properties": map[string]any{"a": map[string]any{"anyOf": []any{}}}}, "properties.a.anyOf"},
		{"items a string", map[string]any{"type": "object", "properties": map[string]any{"a": map[string]any{"type": "array", "items": "x"}}}, "properties.a.items"},
		{"minimum a string", map[string]any{"type": "object", "properties": map[string]any{"a": map[string]any{"minimum": "0"}}}, "properties.a.minimum"},
	} {
		t.Run(c.name, func(t *testing.T) {
			expect400(t, ts, "/v1/messages", msgBody("tools", []any{map[string]any{"name": "act", "input_schema": c.schema}}), "tools.0.input_schema."+c.field)
			expect400(t, ts, "/v1/messages/count_tokens", with(msgBody("output_config", map[string]any{"format": map[string]any{"type": "json_schema", "schema": c.schema}}), []any{"max_tokens", nil}), "output_config.format.schema."+c.field)
		})
	}
	fine := map[string]any{"type": "object", "properties": map[string]any{
		"a": map[string]any{"type": []any{"string", "null"}, "minLength": 2, "maxLength": 5.0, "pattern": "^a", "description": "x"},
		"b": map[string]any{"type": "array", "items": true, "minItems": 0, "uniqueItems": true},
		"c": map[string]any{"anyOf": []any{map[string]any{"type": "integer", "minimum": -3.5, "multipleOf": 2}}, "x-vendor": 5},
	}, "required": []any{"a"}}
	if status, out := postMessages(t, ts, "/v1/messages", msgBody("tools", []any{map[string]any{"name": "act", "input_schema": fine}})); status != http.StatusOK {
		t.Errorf("a schema of well-typed keywords: %d %s", status, out)
	}
}

// TestRefusalsSayWhatTheyRefuse: a body nested past the decoder's depth names the limit (it is
// valid JSON), and a bad speed lists null as null, not as Go's <nil>.
func TestRefusalsSayWhatTheyRefuse(t *testing.T) {
	s := checked(t)
	h := append(headersFor(core.IfMessages), "Content-Type", "application/json")
	msgs := `"messages":[{"role":"user","content":"Hi"}],"model":"` + testModel + `"`
	for _, c := range []struct{ body, want string }{
		{`{"max_tokens":10,` + msgs + `,"metadata":{"user_id":` + strings.Repeat("[", 10_001) + strings.Repeat("]", 10_001) + `}}`,
			// 112 bytes before the first "[", two objects deep: the 9,999th "[" is level 10,001, the
			// byte after it 112 + 9,999.
			"the request body nests arrays and objects deeper than 10000 levels, the most the fake reads (crossed at byte 10111)"},
		{`{"max_tokens":10,"speed":"warp",` + msgs + `}`, `speed: value must be one of "standard", "fast", null`},
	} {
		w := send(t, s, http.MethodPost, "/v1/messages", c.body, h...)
		if got := gjson.Get(w.Body.String(), "error.message").String(); w.Code != http.StatusBadRequest || got != c.want {
			t.Errorf("%.40s...: %d %q, want 400 %q", c.body, w.Code, got, c.want)
		}
	}
}
