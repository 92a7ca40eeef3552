package fake

import (
	"encoding/json"
	"net/http"
	"regexp"
	"runtime"
	"strings"
	"testing"

	"github.com/platformkit/platformkit/fake/internal/core"

	"github.com/tidwall/gjson"
)

// headersFor returns the default credentials and headers that route's interface takes, so that
// a request reaches the handler; none for the control API.
func headersFor(ifc *core.Iface) []string {
	switch ifc {
	case nil:
		return nil
	case core.IfCompliance:
		return []string{"Authorization", "Bearer test-compliance-key"}
	case core.IfAdmin:
		return []string{"X-Api-Key", "test-admin-key", "vendor-version", core.APIVersion}
	case core.IfTunnels:
		return []string{"Authorization", "Bearer test-bearer-token", "vendor-version", core.APIVersion, "vendor-beta", core.IfTunnels.Beta}
	}
	return []string{"X-Api-Key", "test-api-key", "vendor-version", core.APIVersion}
}

// concretePath fills a route's parameters with an ID that does not exist.
func concretePath(path string) string {
	return regexp.MustCompile(`:[a-z_]+`).ReplaceAllString(path, "x_01")
}

// goInternals matches what a message must never show a client: Go type and struct names.
var goInternals = regexp.MustCompile(`Go (struct|value)|of type|\bint(8|16|32|64)?\b|float64|map\[|\[\][a-zA-Z*]|\*fake\.|fake\.|json: `)

// quotedString is a Go-quoted string in a message: a name or value the client sent, echoed.
var quotedString = regexp.MustCompile(`"(?:[^"\\]|\\.)*"`)

// fieldPrefix is the field path a message starts with, once quoted segments are blanked.
var fieldPrefix = regexp.MustCompile(`^[^ ]+: `)

// showsGoInternals reports whether msg shows a Go type or struct name. What the client itself
// sent is left out: every quoted string, and the field path the message starts with (a body
// with a field named "[]A" or "int" is refused naming it, rightly).
func showsGoInternals(msg string) bool {
	msg = quotedString.ReplaceAllString(msg, `""`)
	if p := fieldPrefix.FindString(msg); p != "" && p != "json: " {
		msg = msg[len(p):]
	}
	return goInternals.MatchString(msg)
}

// fieldMessage is an error message that starts with a field path.
var fieldMessage = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_.\-]*: `)

// wantFieldError checks an answer is a 400 envelope whose message starts with field.
func wantFieldError(t *testing.T, w interface {
	Result() *http.Response
}, body []byte, field string) {
	t.Helper()
	msg := gjson.GetBytes(body, "error.message").String()
	if code := w.Result().StatusCode; code != http.StatusBadRequest || !strings.HasPrefix(msg, field+": ") {
		t.Errorf("got %d %q; want 400 naming %q", code, msg, field)
	}
	if showsGoInternals(msg) {
		t.Errorf("message %q shows Go internals", msg)
	}
}

// Issue 13, defect 1: a number with an exponent beyond 10^6 made the schema validator panic
// (500); every such number is a 400 naming the field, in every body the API takes.
func TestHugeNumbersAreRefusedNamingTheField(t *testing.T) {
	s := checked(t)
	msgs := `"messages":[{"role":"user","content":"Hi"}],"model":"` + testModel + `"`
	for _, tc := range []struct{ path, body, field string }{
		{"/v1/messages", `{"max_tokens":1e1000001,` + msgs + `}`, "max_tokens"},
		{"/v1/messages", `{"max_tokens":1e-1000001,` + msgs + `}`, "max_tokens"},
		{"/v1/messages", `{"max_tokens":1e1000000,` + msgs + `}`, "max_tokens"},
		{"/v1/messages", `{"max_tokens":10,"thinking":{"type":"enabled","budget_tokens":1e1000001},` + msgs + `}`, "thinking.budget_tokens"},
		{"/v1/messages", `{"max_tokens":10,"temperature":1e-1000001,` + msgs + `}`, "temperature"},
		{"/v1/messages", `{"max_tokens":10,"top_k":-1E+1000001,` + msgs + `}`, "top_k"},
		{"/v1/messages", `{"max_tokens":10,"top_p":0e99999999,` + msgs + `}`, "top_p"},
		{"/v1/messages", `{"max_tokens":10,"top_p":0.` + strings.Repeat("1", 200000) + `,` + msgs + `}`, "top_p"},
		{"/v1/messages", `{"max_tokens":10,"model":"` + testModel + `","messages":[{"role":"user","content":"Hi"},{"role":"assistant","content":[{"type":"text","text":"x","citations":[{"type":"char_location","cited_text":"x","document_index":1e1000001,"document_title":null,"start_char_index":0,"end_char_index":1}]}]},{"role":"user","content":"Go on"}]}`, "messages.1.content.0.citations.0.document_index"},
		{"/v1/complete", `{"model":"` + testModel + `","prompt":"\n\nHuman: Hi\n\nAssistant:","max_tokens_to_sample":1e1000001}`, "max_tokens_to_sample"},
		{"/v1/messages/count_tokens", `{` + msgs + `,"tools":[{"name":"t","input_schema":{"type":"object","properties":{"n":{"type":"integer","minimum":1e-1000001}}}}]}`, "tools.0.input_schema.properties.n.minimum"},
	} {
		w := send(t, s, http.MethodPost, tc.path, tc.body, "X-Api-Key", "test-api-key", "vendor-version", core.APIVersion, "Content-Type", "application/json")
		wantFieldError(t, w, w.Body.Bytes(), tc.field)
	}

	// Every route that takes a body, with the number nested in a field it does not know: never a
	// 5xx, and a refusal names a field (the unknown one, or one the route needs first).
	for _, rt := range core.Routes() {
		if rt.Method != http.MethodPost {
			continue
		}
		w := send(t, s, rt.Method, concretePath(rt.Path), `{"zz":[{"n":1e1000001}]}`, append(headersFor(rt.Ifc), "Content-Type", "application/json")...)
		if w.Code >= 500 || (w.Code == http.StatusOK && rt.Ifc != nil) {
			t.Errorf("%s %s: %d %s", rt.Method, rt.Path, w.Code, w.Body)
		}
		if msg := gjson.Get(w.Body.String(), "error.message").String(); w.Code == http.StatusBadRequest && !fieldMessage.MatchString(msg) {
			t.Errorf("%s %s: %q does not name the field", rt.Method, rt.Path, msg)
		}
	}
}

// Issue 13, defect 5: messages named Go struct fields and types ("into Go struct field
// messageRequest.max_tokens of type int"); they name the field path and the JSON type.
func TestDecodeErrorsNameTheFieldInTheAPIsTerms(t *testing.T) {
	s := checked(t)
	msgs := `"messages":[{"role":"user","content":"Hi"}],"model":"` + testModel + `"`
	api := []string{"X-Api-Key", "test-api-key", "vendor-version", core.APIVersion}
	for _, tc := range []struct{ path, body, field string }{
		{"/v1/messages", `{"max_tokens":1e300,` + msgs + `}`, "max_tokens"},
		{"/v1/messages", `{"max_tokens":10,"thinking":{"type":"enabled","budget_tokens":1e30},` + msgs + `}`, "thinking.budget_tokens"},
		{"/v1/complete", `{"model":"` + testModel + `","prompt":"\n\nHuman: Hi\n\nAssistant:","max_tokens_to_sample":1e300}`, "max_tokens_to_sample"},
		{"/_fake/faults", `{"path":"/v1/models","status":"429"}`, "status"},
		{"/_fake/faults", `{"path":"/v1/models","times":1e300}`, "times"},
		{"/_fake/clock/advance", `{"seconds":"1"}`, "seconds"},
		// A name that would read as part of the message is quoted (found by FuzzControlBody).
		{"/v1/messages", `{"a: b":1,"max_tokens":10,` + msgs + `}`, `"a: b"`},
		{"/_fake/clock/advance", `{"seconds":1,"x.y":2}`, `"x.y"`},
	} {
		w := send(t, s, http.MethodPost, tc.path, tc.body, append(api, "Content-Type", "application/json")...)
		wantFieldError(t, w, w.Body.Bytes(), tc.field)
	}
}

// Issue 13, defect 2: a 307-byte request whose tool input_schema nests arrays with minItems made
// the fake build 10^6 values (190 MiB) before cutting them at max_tokens. Generation stops at
// what max_tokens can hold, and at a total budget whatever max_tokens says.
func TestToolInputGenerationIsBounded(t *testing.T) {
	s := checked(t)
	nested := func(levels int) map[string]any {
		schema := map[string]any{"type": "string", "minLength": 1000}
		for range levels {
			schema = map[string]any{"type": "array", "minItems": 1000, "items": schema}
		}
		return map[string]any{"type": "object", "properties": map[string]any{"a": schema}}
	}
	for _, tc := range []struct {
		levels, maxTokens int
		maxAlloc          uint64
	}{
		{2, 1024, 8 << 20},
		{3, 1024, 8 << 20},
		{4, 128000, 64 << 20}, // the total budget, not max_tokens, stops it
	} {
		body := mustJSON(t, msgBody("max_tokens", tc.maxTokens,
			"tools", []any{map[string]any{"name": "deep", "input_schema": nested(tc.levels)}},
			"tool_choice", map[string]any{"type": "tool", "name": "deep"}))
		alloc := allocated(func() {
			w := send(t, s, http.MethodPost, "/v1/messages", body, "X-Api-Key", "test-api-key", "vendor-version", core.APIVersion)
			if w.Code != http.StatusOK || gjson.Get(w.Body.String(), "stop_reason").String() != "max_tokens" {
				t.Errorf("%d levels: %d %.300s; want 200 with stop_reason max_tokens", tc.levels, w.Code, w.Body)
			}
		})
		if alloc > tc.maxAlloc {
			t.Errorf("%d levels, max_tokens %d: allocated %d MiB, want at most %d MiB", tc.levels, tc.maxTokens, alloc>>20, tc.maxAlloc>>20)
		}
	}
}

// allocated returns the bytes the process allocated while f ran (TotalAlloc is cumulative, so
// a collection in between does not hide anything).
func allocated(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

func mustJSON(t testing.TB, v any) string {
	t.Helper()
	data, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// Of several bad fields, the same one is named every time: the validator and the number check
// visit objects in map order, which varies from run to run, and answers must not.
func TestRefusalsNameTheSameFieldEveryTime(t *testing.T) {
	s := checked(t)
	msgs := `"messages":[{"role":"user","content":"Hi"}],"model":"` + testModel + `"`
	for _, body := range []string{
		`{"max_tokens":10,"temperature":"hot","top_p":"high","top_k":"many","stop_sequences":7,` + msgs + `}`,
		`{"max_tokens":10,"temperature":1e999999,"top_p":1e999999,"top_k":1e999999,` + msgs + `}`,
	} {
		first := ""
		for range 30 {
			w := send(t, s, http.MethodPost, "/v1/messages", body, "X-Api-Key", "test-api-key", "vendor-version", core.APIVersion)
			msg := gjson.Get(w.Body.String(), "error.message").String()
			if first == "" {
				first = msg
			} else if msg != first {
				t.Fatalf("the same body was refused with %q, then %q", first, msg)
			}
		}
	}
}

// The fuzz property's own judge: a name the client sent is not a leak, a Go type name is.
func TestShowsGoInternals(t *testing.T) {
	for msg, want := range map[string]bool{
		`"[]A": unknown field`:                                             false,
		`int: unknown field`:                                               false,
		`metadata.k."map[x]": unknown field`:                               false,
		`speed: "[]int" is not one of standard, fast`:                      false,
		`max_tokens: must be an integer from 1 to 128000, got string`:      false,
		`json: cannot unmarshal string into Go struct field x of type int`: true,
		`max_tokens: cannot unmarshal into []string`:                       true,
		`the request body does not have the shape of map[string]any`:       true,
		`tools.0: *fake.toolDef is invalid`:                                true,
	} {
		if got := showsGoInternals(msg); got != want {
			t.Errorf("showsGoInternals(%q) = %v, want %v", msg, got, want)
		}
	}
}
