package schemas

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v5"
)

// compileInline compiles one schema document as the embedded ones are (draft 2020-12, formats
// asserted), for the verdict's own tests.
func compileInline(t testing.TB, doc string) *jsonschema.Schema {
	t.Helper()
	c := jsonschema.NewCompiler()
	c.Draft = jsonschema.Draft2020
	c.AssertFormat = true
	if err := c.AddResource("inline.json", strings.NewReader(doc)); err != nil {
		t.Fatal(err)
	}
	s, err := c.Compile("inline.json")
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// The corners where a verdict built from the keywords alone would go wrong, each with the answer
// JSON Schema 2020-12 gives (worked out by hand from the specification, not by the validator).
func TestVerdictCorners(t *testing.T) {
	closedIf := `{"type":"object","properties":{"type":{"enum":["a","b"]}},
		"if":{"properties":{"type":{"const":"a"}}},"then":{"properties":{"x":{"type":"string"}}},
		"else":{"properties":{"y":{"type":"integer"}}},"unevaluatedProperties":false}`
	oneOf := `{"oneOf":[{"type":"integer"},{"type":"number","minimum":2}]}`
	anyOfClosed := `{"anyOf":[{"properties":{"a":true}},{"properties":{"b":true}}],"unevaluatedProperties":false}`
	guardIf := `{"if":{"required":["type"],"properties":{"type":{"enum":["a"]}}},"then":{"properties":{"x":true}},"unevaluatedProperties":false}`
	optionalGuardIf := `{"if":{"properties":{"type":{"enum":["a"]}}},"then":{"properties":{"x":true}},"unevaluatedProperties":false}`
	for _, tc := range []struct {
		name, schema, doc string
		want              verdict
	}{
		{"then's properties are evaluated", closedIf, `{"type":"a","x":"s"}`, valid},
		{"a guard that passes evaluates its property", guardIf, `{"type":"a","x":1}`, valid},
		{"a guard that fails evaluates nothing", guardIf, `{"type":"b"}`, invalid},
		{"a guard's required property", guardIf, `{"x":1}`, invalid},
		{"a guard's property of another type", guardIf, `{"type":1,"x":1}`, invalid},
		{"a guard passes what is not an object", guardIf, `"s"`, valid},
		{"a guard's optional property, absent", optionalGuardIf, `{"x":1}`, valid},
		{"else's properties are not then's", closedIf, `{"type":"a","y":1}`, invalid},
		{"else's properties are evaluated", closedIf, `{"type":"b","y":1}`, valid},
		{"a property no branch names", closedIf, `{"type":"a","z":1}`, invalid},
		{"oneOf: exactly one", oneOf, `1`, valid},
		{"oneOf: both match", oneOf, `3`, invalid},
		{"oneOf: 1.0 is an integer", oneOf, `1.0`, valid},
		{"oneOf: 2.5 matches the second only", oneOf, `2.5`, valid},
		{"anyOf: every passing branch evaluates", anyOfClosed, `{"a":1,"b":2}`, valid},
		{"anyOf: a key neither names", anyOfClosed, `{"a":1,"c":2}`, invalid},
		{"a failed branch evaluates nothing", `{"anyOf":[{"properties":{"a":{"type":"string"}}},{"required":["b"]}],"unevaluatedProperties":false}`, `{"a":1,"b":2}`, invalid},
		{"additionalProperties false", `{"properties":{"a":true},"additionalProperties":false}`, `{"a":1,"b":1}`, invalid},
		{"additionalProperties ignores in-place subschemas", `{"properties":{"a":true},"allOf":[{"properties":{"b":true}}],"additionalProperties":false}`, `{"b":1}`, invalid},
		{"enum compares numbers by value", `{"enum":[1,"x"]}`, `1.0`, valid},
		{"const of an object ignores key order", `{"const":{"a":1,"b":[true,null]}}`, `{"b":[true,null],"a":1}`, valid},
		{"integer bound against a decimal", `{"minimum":1}`, `0.99999999999999999999`, invalid},
		{"integer bound, beyond int64", `{"maximum":9223372036854775807}`, `9223372036854775808`, invalid},
		{"exclusiveMinimum", `{"exclusiveMinimum":0}`, `0`, invalid},
		{"minLength counts characters, not bytes", `{"minLength":3}`, `"éé"`, invalid},
		{"maxLength counts characters, not bytes", `{"maxLength":2}`, `"éé"`, valid},
		{"pattern is unanchored", `{"pattern":"b"}`, `"abc"`, valid},
		{"format is asserted", `{"format":"date-time"}`, `"yesterday"`, invalid},
		{"format ignores other types", `{"format":"date-time"}`, `3`, valid},
		{"contentEncoding base64 is asserted", `{"contentEncoding":"base64"}`, `"not base64!"`, invalid},
		{"not", `{"not":{"type":"string"}}`, `"s"`, invalid},
		{"prefixItems then items", `{"prefixItems":[{"type":"string"}],"items":{"type":"integer"}}`, `["a",1,"b"]`, invalid},
		{"propertyNames", `{"propertyNames":{"maxLength":2}}`, `{"abc":1}`, invalid},
		{"dependentRequired", `{"dependentRequired":{"a":["b"]}}`, `{"a":1}`, invalid},
		{"a $ref evaluates", `{"$defs":{"d":{"properties":{"a":true}}},"$ref":"#/$defs/d","unevaluatedProperties":false}`, `{"a":1}`, valid},
		{"more than 64 properties: no verdict", `{"type":"object"}`, manyKeys(65), unknown},
		{"64 properties are judged", `{"type":"object"}`, manyKeys(64), valid},
	} {
		t.Run(tc.name, func(t *testing.T) {
			v, err := Decode([]byte(tc.doc))
			if err != nil {
				t.Fatal(err)
			}
			if got := judgeValue(planOf(compileInline(t, tc.schema)), v); got != tc.want {
				t.Errorf("verdict on %s against %s = %v, want %v", tc.doc, tc.schema, got, tc.want)
			}
		})
	}
}

func manyKeys(n int) string {
	var b strings.Builder
	b.WriteString("{")
	for i := range n {
		if i > 0 {
			b.WriteString(",")
		}
		fmt.Fprintf(&b, `"k%d":%d`, i, i)
	}
	return b.String() + "}"
}

// A keyword the verdict does not know leaves the schema to the validator alone.
func TestUnknownKeywordsAreNotJudged(t *testing.T) {
	for _, doc := range []string{`{"uniqueItems":true}`, `{"properties":{"a":{"multipleOf":2}}}`, `{"patternProperties":{"^x":true}}`} {
		if supported(compileInline(t, doc)) {
			t.Errorf("%s: judged, but the verdict does not know its keyword", doc)
		}
	}
	if !supported(compileInline(t, `{"$defs":{"n":{"properties":{"next":{"$ref":"#/$defs/n"}}}},"$ref":"#/$defs/n"}`)) {
		t.Error("a recursive schema is not judged")
	}
}

// Every embedded schema is judged, in both modes: a keyword added to one that the verdict does not
// know would quietly send its every document back to the slow validator.
func TestEverySchemaIsJudged(t *testing.T) {
	for _, name := range Names() {
		for _, m := range []Mode{Lenient, Strict} {
			s, err := schema(name, m)
			if err != nil {
				t.Fatal(err)
			}
			if s.plan == nil {
				t.Errorf("%s (mode %d) is not judged: it uses a keyword verdict.go does not know", name, m)
			}
		}
	}
}

// ValidateValue answers what the validator answers, fast verdict or not: the message of a
// refused Messages request is the validator's, word for word.
func TestValidateValueKeepsTheValidatorsMessages(t *testing.T) {
	err := Validate("messages/create_message_request", []byte(`{"model":"m","max_tokens":1,"messages":[{"role":"user","content":[
		{"type":"text","text":"a"},{"type":"document","source":{"type":"text","media_type":"text/plain","data":1}}]}]}`), Strict)
	want := "messages/create_message_request: messages.0.content.1.source.data: expected string, but got number"
	if err == nil || err.Error() != want {
		t.Fatalf("err = %v, want %s", err, want)
	}
}

// FuzzVerdict gives the verdict and the validator the same documents: they must agree on every
// one the verdict judges. The seeds are requests and answers of several areas.
func FuzzVerdict(f *testing.F) {
	names := []string{"messages/create_message_request", "messages/message", "admin/invite_create", "memory/memory_store", "models/model_list", "control/health"}
	for i, doc := range []string{
		`{"model":"assistant-opus-4-5","max_tokens":16,"messages":[{"role":"user","content":[{"type":"document","source":{"type":"text","media_type":"text/plain","data":"d"},"citations":{"enabled":true}},{"type":"text","text":"hi","cache_control":{"type":"ephemeral","ttl":"5m"}}]}],"tools":[{"name":"t","input_schema":{"type":"object"}}],"stream":true}`,
		`{"id":"msg_1","type":"message","role":"assistant","model":"m","content":[{"type":"text","text":"x","citations":null}],"stop_reason":"end_turn","stop_sequence":null,"usage":{"input_tokens":1,"output_tokens":2}}`,
		`{"email":"a@b.example","role":"developer"}`,
		`{"id":"memstore_1","type":"memory_store","name":"n","created_at":"2026-01-01T00:00:00Z"}`,
		`{"data":[],"first_id":null,"last_id":null,"has_more":false}`,
		`{"status":"ok"}`,
	} {
		f.Add(uint8(i), []byte(doc), false)
		f.Add(uint8(i), []byte(doc), true)
	}
	f.Fuzz(func(t *testing.T, which uint8, doc []byte, strict bool) {
		v, err := Decode(doc)
		if err != nil || !numbersFit(v) {
			return
		}
		mode := Lenient
		if strict {
			mode = Strict
		}
		name := names[int(which)%len(names)]
		s, err := schema(name, mode)
		if err != nil {
			t.Fatal(err)
		}
		got := judgeValue(s.plan, v)
		verr := s.Validate(v)
		if got == valid && verr != nil || got == invalid && verr == nil {
			raw, _ := json.Marshal(v)
			t.Fatalf("%s: verdict %v, validator %v on %s", name, got, verr, raw)
		}
	})
}

// A schema that only says which strings one property may be is judged as a guard, and nothing
// more or other is.
func TestGuards(t *testing.T) {
	g := guardOf(compileInline(t, `{"required":["type"],"properties":{"type":{"enum":["a","b"]}}}`))
	if g == nil || g.key != "type" || !g.required || !slices.Equal(g.values, []string{"a", "b"}) {
		t.Errorf("guard = %+v, want type required, a or b", g)
	}
	for _, doc := range []string{
		`{"required":["type"],"properties":{"type":{"enum":["a"]}},"minProperties":1}`,
		`{"properties":{"type":{"enum":["a"],"maxLength":3}}}`,
		`{"properties":{"type":{"enum":[1]}}}`,
		`{"required":["kind"],"properties":{"type":{"enum":["a"]}}}`,
		`{"properties":{"type":{"enum":["a"]},"x":true}}`,
		`{"type":"object","properties":{"type":{"enum":["a"]}}}`,
	} {
		if g := guardOf(compileInline(t, doc)); g != nil {
			t.Errorf("%s: judged as the guard %+v", doc, g)
		}
	}
}

// The content block schema's dispatch on type is judged as guards, in both modes: a change to its
// ifs that the guard does not recognise would quietly cost every block of every request.
func TestTheBlockDispatchIsGuarded(t *testing.T) {
	for _, m := range []Mode{Lenient, Strict} {
		s, err := schema("messages/create_message_request", m)
		if err != nil {
			t.Fatal(err)
		}
		guards, seen := 0, map[*node]bool{}
		var walk func(*node)
		walk = func(n *node) {
			if n == nil || seen[n] {
				return
			}
			seen[n] = true
			if n.guard != nil {
				guards++
			}
			for _, sub := range append([]*node{n.ref, n.not, n.ifs, n.then, n.els, n.names, n.unevaluated, n.items, n.extra},
				append(append(append(append([]*node{}, n.allOf...), n.anyOf...), n.oneOf...), n.prefix...)...) {
				walk(sub)
			}
			for _, p := range n.props {
				walk(p.sub)
			}
		}
		walk(s.plan)
		if guards < 15 { // one if for each of the sixteen block types, and those of the tree above them
			t.Errorf("mode %d: %d guards in the Messages request schema, want at least 15", m, guards)
		}
	}
}
