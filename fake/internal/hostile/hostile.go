// Package hostile builds the requests known to turn a small request into a lot of work or kept
// memory in the fake (issue 38): the resource tests of package fake send each once and hold it
// to a bound, and the soak (fake/internal/soak) sends them for minutes against the binary.
package hostile

import (
	"fmt"
	"strings"
)

// Model is the fixture model the requests name (max_tokens up to 128,000).
const Model = "assistant-opus-4-7"

// Case is one hostile request and what the fake must answer it with.
type Case struct {
	Name   string
	Path   string // under the API's root, e.g. /v1/messages
	Body   string
	Status int    // the status the fake answers
	Field  string // the field path the error names ("" for a 2xx)
}

// EmptyRepeats is a pattern of 1,000 empty-width repeats written 1,000 times (11 KB): every
// value of it makes no byte of output and, generated node by node, a million steps.
var EmptyRepeats = strings.Repeat("(?:^){1000}", 1000)

// emptyRepeats90 costs about 93,000 steps a value: under the bound of one pattern, so only the
// request's budget stops a schema that asks for many of its values.
var emptyRepeats90 = strings.Repeat("(?:^){90}", 1000)

const msgs = `"messages":[{"role":"user","content":"Hi"}],"model":"` + Model + `"`

func list(n int, item func(i int) string) string {
	parts := make([]string, n)
	for i := range parts {
		parts[i] = item(i)
	}
	return strings.Join(parts, ",")
}

func quote(s string) string { return fmt.Sprintf("%q", s) }

// tool is a Messages body that forces the non-strict tool t with the input schema schema.
func tool(schema string) string {
	return `{"max_tokens":128000,` + msgs + `,"tools":[{"name":"t","input_schema":` + schema + `}],"tool_choice":{"type":"tool","name":"t"}}`
}

// format is a Messages (or count_tokens, without max_tokens) body with the structured output
// format schema.
func format(schema string, maxTokens bool) string {
	mt := ""
	if maxTokens {
		mt = `"max_tokens":128000,`
	}
	return `{` + mt + msgs + `,"output_config":{"format":{"type":"json_schema","schema":` + schema + `}}}`
}

// CPU are the requests that cost work without output: each must be refused with a 400 naming the
// schema, within a second of CPU.
func CPU() []Case {
	props := list(1000, func(i int) string { return fmt.Sprintf(`"p%04d":{"$ref":"#/$defs/s"}`, i) })
	required := list(1000, func(i int) string { return fmt.Sprintf(`"p%04d"`, i) })
	nested := `{"type":"string","pattern":` + quote(emptyRepeats90) + `}`
	for range 100 {
		nested = `{"type":"array","minItems":1000,"items":` + nested + `}`
	}
	emptyDefs := list(100_000, func(i int) string { return fmt.Sprintf(`"e%d":{}`, i) })
	refs := list(100, func(i int) string { return fmt.Sprintf(`"p%02d":{"$ref":"#/$defs/d"}`, i) })
	refNames := list(100, func(i int) string { return fmt.Sprintf(`"p%02d"`, i) })
	fanOut := `{"type":"object","additionalProperties":false,"properties":{` + refs + `},"required":[` + refNames + `],"$defs":{"d":{"type":"string","$defs":{` + emptyDefs + `}}}}`
	wide := list(1000, func(i int) string { return fmt.Sprintf(`"q%d":{"type":"string"}`, i) })
	allOf := `{"type":"object","properties":{"a":{"type":"array","minItems":1000,"items":{"allOf":[` +
		list(1000, func(int) string { return `{"$ref":"#/$defs/d"}` }) + `]}}},"$defs":{"d":{"type":"object","properties":{` + wide + `}}}}`
	// Issue 47: a $ref looked up by a 1 MB name 20,000 times; a strict schema whose references,
	// 200 KB names of equal length, fan out 20 ways over four levels; allOf merges that copy
	// a required list of 1,000 names from each of 1,000 references, for 300 items.
	longName := strings.Repeat("n", 1<<20)
	longRef := `{"type":"object","properties":{"a":{"type":"array","minItems":1000,"items":{"type":"array","minItems":20,"items":{"$ref":"#/$defs/` +
		longName + `"}}}},"$defs":{` + quote(longName) + `:{"type":"integer"}}}`
	level := func(i int) string { return strings.Repeat("r", 200_000) + string(rune('A'+i)) }
	chain := `{"type":"object","additionalProperties":false,"properties":{"p":{"$ref":"#/$defs/` + level(0) + `"}},"required":["p"],"$defs":{`
	for i := range 3 {
		chain += quote(level(i)) + `:{"anyOf":[` + list(20, func(int) string { return `{"$ref":"#/$defs/` + level(i+1) + `"}` }) + `]},`
	}
	chain += quote(level(3)) + `:{"type":"string"}}}`
	copied := `{"type":"object","properties":{"a":{"type":"array","minItems":300,"items":{"allOf":[` +
		list(1000, func(int) string { return `{"$ref":"#/$defs/d"}` }) + `]}}},"$defs":{"d":{"required":[` +
		list(1000, func(i int) string { return quote(fmt.Sprintf("r%d", i)) }) + `]}}}`
	// A strict object of 20,000 properties whose required list names a million others: each
	// property was looked for in the whole list.
	manyRequired := `{"type":"object","additionalProperties":false,"properties":{` +
		list(20_000, func(i int) string { return fmt.Sprintf(`"p%05d":{"type":"string"}`, i) }) + `},"required":[` +
		list(1_000_000, func(i int) string { return fmt.Sprintf(`"r%06d"`, i) }) + `]}`
	return []Case{
		{"strict object of 20,000 properties, 1,000,000 required names", "/v1/messages", format(manyRequired, true),
			400, "output_config.format.schema.required"},
		{"a $ref of a 1 MB name looked up 20,000 times", "/v1/messages", tool(longRef),
			400, "tools.0.input_schema.properties.a.items.items.$ref"},
		{"strict $refs of 200 KB names fanning out 20 ways, four levels", "/v1/messages", format(chain, true),
			400, "output_config.format.schema.$defs." + level(0) + ".anyOf.3.$ref"}, // the definitions are checked first
		{"allOf copying 1,000 required lists of 1,000 names, 300 items", "/v1/messages", tool(copied),
			400, "tools.0.input_schema.properties.a.items"},
		{"empty-width pattern, minItems 1000", "/v1/messages",
			tool(`{"type":"object","properties":{"a":{"type":"array","minItems":1000,"items":{"type":"string","pattern":` + quote(EmptyRepeats) + `}}}}`),
			400, "tools.0.input_schema.properties.a.items.pattern"},
		{"1,000 required properties of the pattern, output_config.format", "/v1/messages",
			format(`{"type":"object","additionalProperties":false,"properties":{`+props+`},"required":[`+required+`],"$defs":{"s":{"type":"string","pattern":`+quote(EmptyRepeats)+`}}}`, true),
			400, "output_config.format.schema.properties.p0000.pattern"},
		{"nested 100×1,000 arrays", "/v1/messages", tool(`{"type":"object","properties":{"a":` + nested + `}}`),
			400, "tools.0.input_schema.properties.a" + strings.Repeat(".items", 100)},
		{"100 references to 100,000 $defs, count_tokens", "/v1/messages/count_tokens", format(fanOut, false),
			400, "output_config.format.schema"},
		{"allOf of 1,000 references to 1,000 properties", "/v1/messages", tool(allOf),
			400, "tools.0.input_schema.properties.a.items"},
	}
}

// Repeated is a case sent Times times in a row.
type Repeated struct {
	Case
	Method string
	Times  int
}

// longText is a system prompt of about 1,500 tokens: past every model's cache minimum.
func longText(nonce string) string {
	return nonce + strings.Repeat(" word", 1500)
}

// CachedBody is a Messages body that writes one prompt-cache entry (a breakpoint on a system
// prompt of about 1,500 tokens made distinct by nonce), with model and turns messages, and
// diagnostics naming prev when prev is not "".
func CachedBody(model, nonce string, turns int, prev string) string {
	msgs := list(turns, func(i int) string {
		if i%2 == 1 {
			return `{"role":"assistant","content":"ok"}`
		}
		return `{"role":"user","content":"Hi"}`
	})
	if turns%2 == 0 {
		msgs += `,{"role":"user","content":"Hi"}`
	}
	diag := ""
	if prev != "" {
		diag = `,"diagnostics":{"previous_message_id":` + quote(prev) + `}`
	}
	return `{"max_tokens":10,"model":` + quote(model) + `,"system":[{"type":"text","text":` + quote(longText(nonce)) +
		`,"cache_control":{"type":"ephemeral","ttl":"1h"}}],"messages":[` + msgs + `]` + diag + `}`
}

// Memory are the requests that made the fake keep or hold request-controlled bytes: each must be
// refused (or bounded) and leave the process within 50 MiB of its idle size.
func Memory() []Repeated {
	huge := strings.Repeat("m", 8<<20)
	return []Repeated{
		{Case{"30 requests with an 8 MiB model name", "/v1/messages", CachedBody(huge, "a", 1, ""), 400, "model"}, "POST", 30},
		{Case{"GET /_fake/cache after them", "/_fake/cache", "", 200, ""}, "GET", 1},
		{Case{"a refused 64 MiB POST /_fake/snapshot", "/_fake/snapshot", `{"users.json":"` + strings.Repeat("x", 64<<20-32) + `"}`, 400, ""}, "POST", 1},
		{Case{"a body nested 10,001 deep", "/v1/messages", `{"max_tokens":10,` + msgs + `,"metadata":{"user_id":` + strings.Repeat("[", 10_001) + strings.Repeat("]", 10_001) + `}}`, 400, ""}, "POST", 1},
		{Case{"a bad speed", "/v1/messages", `{"max_tokens":10,"speed":"warp",` + msgs + `}`, 400, "speed"}, "POST", 1},
		{Case{"a schema keyword of the wrong type", "/v1/messages", tool(`{"type":"object","properties":{"a":{"type":5}}}`), 400, "tools.0.input_schema.properties.a.type"}, "POST", 1},
	}
}
