package wire

import (
	"encoding/json"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
	"unsafe"

	"github.com/platformkit/platformkit/fake/internal/core"
)

// ReadFields sets the typed fields from the decoded body as encoding/json would decode them from
// it (fieldReader), in the order it would meet them (keys sorted, depth first), so that a value
// the schema leaves open is refused as it was when the fields were decoded from a re-encoding of
// the body. The messages are taken apart by checkMessage.
func (req *MessageRequest) ReadFields() error {
	var r fieldReader
	top := req.Raw
	req.Container = r.raw(top, "container")
	req.ContextManagement = r.raw(top, "context_management")
	req.InferenceGeo = r.str(top, "inference_geo", "inference_geo")
	req.MaxTokens = r.int(top, "max_tokens", "max_tokens")
	req.Model = r.str(top, "model", "model")
	if oc, ok := r.value(top, "output_config", "output_config", typeObject).(map[string]any); ok {
		req.OutputConfig = &struct {
			Format *OutputFormat `json:"format"`
		}{r.format(oc, "format", "output_config.format")}
	}
	req.OutputFormat = r.format(top, "output_format", "output_format")
	req.Speed = r.str(top, "speed", "speed")
	if ss, ok := r.value(top, "stop_sequences", "stop_sequences", typeArray).([]any); ok {
		req.StopSequences = make([]string, len(ss))
		for i, x := range ss {
			req.StopSequences[i], _ = r.check(x, "stop_sequences", typeString).(string)
		}
	}
	req.Stream = r.bool(top, "stream", "stream")
	if th, ok := r.value(top, "thinking", "thinking", typeObject).(map[string]any); ok {
		req.Thinking = &struct {
			Type         string `json:"type"`
			BudgetTokens int    `json:"budget_tokens"`
			Display      string `json:"display"`
		}{}
		req.Thinking.BudgetTokens = r.int(th, "budget_tokens", "thinking.budget_tokens")
		req.Thinking.Display = r.str(th, "display", "thinking.display")
		req.Thinking.Type = r.str(th, "type", "thinking.type")
	}
	if tc, ok := r.value(top, "tool_choice", "tool_choice", typeObject).(map[string]any); ok {
		req.ToolChoice = &struct {
			Type string `json:"type"`
			Name string `json:"name"`
		}{Name: r.str(tc, "name", "tool_choice.name")}
		req.ToolChoice.Type = r.str(tc, "type", "tool_choice.type")
	}
	if ts, ok := r.value(top, "tools", "tools", typeArray).([]any); ok {
		req.Tools = make([]ToolDef, len(ts))
		for i, x := range ts {
			const path = "tools" // encoding/json's field paths name no index
			t, _ := r.check(x, path, typeObject).(map[string]any)
			tool := &req.Tools[i]
			tool.InputSchema, _ = floats(r.value(t, "input_schema", path+".input_schema", typeObject)).(map[string]any)
			tool.Name = r.str(t, "name", path+".name")
			tool.Strict = r.bool(t, "strict", path+".strict")
			tool.Type = r.str(t, "type", path+".type")
		}
	}
	return r.err
}

// fieldReader reads typed fields from a decoded JSON object as encoding/json decodes them into a
// struct: a key matches a field under Unicode case folding (of several, the last in key order
// wins), null leaves a field empty, a JSON schema keeps its numbers as float64, and a value of
// another type, or an integer no int holds (1e3, 1.0, past the range), is the first error,
// naming its field.
type fieldReader struct {
	err   error
	plain []unsafe.Pointer // the maps read so far whose keys no other name folds to (member)
}

var (
	typeString = reflect.TypeFor[string]()
	typeBool   = reflect.TypeFor[bool]()
	typeInt    = reflect.TypeFor[int]()
	typeObject = reflect.TypeFor[map[string]any]()
	typeArray  = reflect.TypeFor[[]any]()
)

// jsonTypeOf names the JSON type of each Go type fieldReader reads, as check names what it got.
var jsonTypeOf = map[reflect.Type]string{typeString: "string", typeBool: "bool", typeInt: "number", typeObject: "object", typeArray: "array"}

// foldedMember is the value of the key of m that encoding/json would decode into the field named
// name: the last, in key order, of the keys equal to name under Unicode case folding. A key
// that folds to name is never shorter than it.
func foldedMember(m map[string]any, name string) any {
	v, ok := m[name]
	best := name
	for k, x := range m {
		if len(k) >= len(name) && k != name && (!ok || k > best) && strings.EqualFold(k, name) {
			v, best, ok = x, k, true
		}
	}
	return v
}

// member is foldedMember(m, name), without its walk of m's keys for every field when no key of m
// has an upper-case or non-ASCII letter: then only name itself folds to name (the request schema
// refuses unknown fields, so that is every request but a careless one). m's keys are looked at
// once per request.
func (r *fieldReader) member(m map[string]any, name string) any {
	p := reflect.ValueOf(m).UnsafePointer()
	if slices.Contains(r.plain, p) {
		return m[name]
	}
	for k := range m {
		for i := range len(k) {
			if c := k[i]; c >= utf8.RuneSelf || 'A' <= c && c <= 'Z' {
				return foldedMember(m, name)
			}
		}
	}
	r.plain = append(r.plain, p)
	return m[name]
}

// value is m's member name if it has the JSON type t stands for; nil when absent, null or of
// another type (then the reader's error, if it has none yet).
func (r *fieldReader) value(m map[string]any, name, path string, t reflect.Type) any {
	return r.check(r.member(m, name), path, t)
}

// check is v if it has the JSON type t stands for, else nil (and the reader's error). null is
// nil without an error.
func (r *fieldReader) check(v any, path string, t reflect.Type) any {
	var got string
	switch v := v.(type) {
	case nil:
		return nil
	case string:
		got = "string"
	case bool:
		got = "bool"
	case json.Number:
		got = "number"
		if t == typeInt {
			if i, err := v.Int64(); err != nil || int64(int(i)) != i {
				got = "number " + v.String()
				break
			}
			return v
		}
	case map[string]any:
		got = "object"
	case []any:
		got = "array"
	}
	if got == jsonTypeOf[t] {
		return v
	}
	if r.err == nil {
		r.err = core.DecodeError(&json.UnmarshalTypeError{Value: got, Type: t, Field: path})
	}
	return nil
}

func (r *fieldReader) str(m map[string]any, name, path string) string {
	s, _ := r.value(m, name, path, typeString).(string)
	return s
}

func (r *fieldReader) bool(m map[string]any, name, path string) bool {
	b, _ := r.value(m, name, path, typeBool).(bool)
	return b
}

func (r *fieldReader) int(m map[string]any, name, path string) int {
	n, _ := r.value(m, name, path, typeInt).(json.Number)
	i, _ := n.Int64()
	return int(i)
}

// raw is the JSON of m's member name, as a json.RawMessage field decodes it ("null" for null);
// nil without.
func (r *fieldReader) raw(m map[string]any, name string) json.RawMessage {
	v := r.member(m, name)
	if v == nil {
		if _, ok := m[name]; !ok {
			return nil // absent (a folded key holding null is as rare as harmless)
		}
	}
	data, _ := json.Marshal(v)
	return data
}

// format is the structured-output format m holds under name (output_config.format or
// output_format): nil for null or absent.
func (r *fieldReader) format(m map[string]any, name, path string) *OutputFormat {
	f, ok := r.value(m, name, path, typeObject).(map[string]any)
	if !ok {
		return nil
	}
	schema, _ := floats(r.value(f, "schema", path+".schema", typeObject)).(map[string]any)
	return &OutputFormat{Schema: schema}
}

// floats is a copy of the decoded value v with its numbers as float64, as encoding/json decodes
// a JSON schema into a map: the request schema checked that every number fits one.
func floats(v any) any {
	switch v := v.(type) {
	case json.Number:
		f, _ := strconv.ParseFloat(string(v), 64)
		return f
	case map[string]any:
		out := make(map[string]any, len(v))
		for k, x := range v {
			out[k] = floats(x)
		}
		return out
	case []any:
		out := make([]any, len(v))
		for i, x := range v {
			out[i] = floats(x)
		}
		return out
	}
	return v
}
