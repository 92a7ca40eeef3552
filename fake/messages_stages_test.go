package fake

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"

	"github.com/platformkit/platformkit/fake/internal/areas/messages/tape"

	"github.com/platformkit/platformkit/fake/internal/areas/messages/scenarios"

	"github.com/platformkit/platformkit/fake/internal/areas/messages/model"

	"github.com/platformkit/platformkit/fake/internal/areas/messages/wire"

	"github.com/platformkit/platformkit/fake/internal/core"

	"github.com/tidwall/gjson"
)

// TestUnknownScenarioIsRefusedWhateverElse: a Fake-Scenario name the library does not know is
// the request's own error, a 400 naming the header, with rate limits on or off and with
// max_tokens 0 (a pre-warm, which uses no scenario) as with any other max_tokens. The rule lives
// in the parse stage only.
func TestUnknownScenarioIsRefusedWhateverElse(t *testing.T) {
	const prefix = `Fake-Scenario: no scenario named "no-such-scenario"; known scenarios: `
	for _, tc := range []struct {
		name string
		opts []Option
		max  int
	}{
		{"limits off, pre-warm", nil, 0},
		{"limits on, pre-warm", []Option{WithRateLimits()}, 0},
		{"limits off", nil, 200},
		{"limits on", []Option{WithRateLimits()}, 200},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := New(append([]Option{WithViolationHandler(func(msg string) { t.Errorf("fake: %s", msg) })}, tc.opts...)...)
			body := `{"model":"assistant-opus-4-7","max_tokens":` + map[int]string{0: "0", 200: "200"}[tc.max] + `,"messages":[{"role":"user","content":"Hello there"}]}`
			w := postAs(t, s, core.DefaultAPIKey, "/v1/messages", body, scenarios.HeaderScenario, "no-such-scenario")
			msg := gjson.Get(w.Body.String(), "error.message").String()
			if w.Code != http.StatusBadRequest || gjson.Get(w.Body.String(), "error.type").String() != "invalid_request_error" || !strings.HasPrefix(msg, prefix) {
				t.Errorf("%d %s\nwant 400 invalid_request_error with a message starting %q", w.Code, w.Body, prefix)
			}
			// Refused before admission: nothing was taken from a bucket.
			if st := s.RateLimits(); len(st.Buckets) != 0 {
				t.Errorf("a refused request took from the buckets: %+v", st.Buckets)
			}
		})
	}
}

// TestReplayWithRateLimitsSendsTheFakesHeaders: with rate limits enforced, a replayed answer
// carries the fake's rate-limit headers, those of the buckets that admitted it, and none of the
// recording's (not even a family the fake does not send); without enforcement it carries the
// recording's as recorded. The recording's answer is replayed either way.
func TestReplayWithRateLimitsSendsTheFakesHeaders(t *testing.T) {
	body := msgBody("messages", userTurn("count me"))
	dir := recordOne(t, recordPost(t, "/v1/messages", body))
	files := recordings(t, dir)
	if len(files) != 1 {
		t.Fatalf("recordings %v, want one", files)
	}
	p := filepath.Join(dir, files[0])
	data, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	// The upstream's limits as a real deployment would have sent them.
	data = []byte(strings.Replace(string(data), `"response": {`, `"response": {
    "headers": {"anthropic-ratelimit-requests-remaining": "7", "anthropic-ratelimit-unified-status": "allowed"},`, 1))
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
	replay := func(opts ...Option) (http.Header, []byte) {
		tape, err := OpenTape(TapeConfig{Replay: dir, OnMiss: OnMissError})
		if err != nil {
			t.Fatal(err)
		}
		ts := NewTestServer(t, append([]Option{WithTape(tape)}, opts...)...)
		status, h, out, err := roundTrip(context.Background(), ts, http.MethodPost, "/v1/messages", body, "X-Api-Key", core.DefaultAPIKey, "vendor-version", core.APIVersion)
		if err != nil || status != http.StatusOK {
			t.Fatalf("replay: %d %s %v", status, out, err)
		}
		return h, out
	}
	h, out := replay(WithRateLimits())
	// assistant-opus-4-7 is in Acme's opus group: 4,000 requests a minute, this one taken.
	for _, name := range []string{"vendor-ratelimit-requests-remaining", "anthropic-ratelimit-requests-remaining"} {
		if got := h.Get(name); got != "3999" {
			t.Errorf("limits on: %s = %q, want the fake's 3999", name, got)
		}
	}
	if got := h.Get("anthropic-ratelimit-unified-status"); got != "" {
		t.Errorf("limits on: the recording's anthropic-ratelimit-unified-status %q was sent beside the fake's headers", got)
	}
	if gjson.GetBytes(out, "type").String() != "message" {
		t.Errorf("limits on: replayed %s, want the recorded message", out)
	}
	h, _ = replay()
	if h.Get("anthropic-ratelimit-requests-remaining") != "7" || h.Get("anthropic-ratelimit-unified-status") != "allowed" || h.Get("vendor-ratelimit-requests-remaining") != "" {
		t.Errorf("limits off: headers %v, want the recording's as recorded", h)
	}
}

// TestReadFieldsDecodesAsEncodingJSON: the typed fields the parse stage derives from the one
// decoded body are those encoding/json decodes from the body's top-level fields (how the fake
// once read them, from a re-encoding of the body), errors included, where the schema leaves an
// object open: a key differing only in case, a value of another type, an integer no int holds,
// numbers of a JSON schema, null.
func TestReadFieldsDecodesAsEncodingJSON(t *testing.T) {
	for _, body := range []string{
		`{"model":"m","max_tokens":5,"stream":true,"stop_sequences":["a","b"],"inference_geo":"us","speed":"fast"}`,
		`{"max_tokens":5,"thinking":{"type":"adaptive","Display":"omitted"}}`,
		`{"max_tokens":5,"thinking":{"type":"adaptive","display":"summarized","DISPLAY":"omitted"}}`,
		`{"max_tokens":5,"thinking":{"type":"adaptive","budget_tokens":"many"}}`,
		`{"max_tokens":5,"thinking":{"type":"enabled","budget_tokens":2048.0}}`,
		`{"max_tokens":1e3}`,
		`{"max_tokens":99999999999999999999,"thinking":{"type":"enabled","budget_tokens":"x"}}`,
		`{"max_tokens":5,"tool_choice":{"type":"tool","name":"a","NAME":"b"}}`,
		`{"max_tokens":5,"tool_choice":{"type":"auto","Name":"b"}}`,
		`{"max_tokens":5,"tools":[{"type":"web_search_20250305","name":"web_search","strict":"yes"}]}`,
		`{"max_tokens":5,"tools":[{"type":"web_search_20250305","name":"web_search","input_schema":7}]}`,
		`{"max_tokens":5,"tools":[{"name":"w","input_schema":{"type":"object","properties":{"n":{"type":"integer","minimum":1.5,"maximum":10}}},"strict":true}]}`,
		`{"max_tokens":5,"output_format":{"type":"json_schema","schema":{"type":"object","maxProperties":3}},"output_config":{"format":null,"effort":"low"}}`,
		`{"max_tokens":5,"container":null,"context_management":{"edits":[{"type":"clear_tool_uses_20250919","keep":{"type":"tool_uses","value":3}}]}}`,
		`{"max_tokens":5,"container":"container_1","tools":null,"thinking":null,"tool_choice":null}`,
		`{"max_tokens":5,"stop_sequences":["a",null,7]}`,
	} {
		var raw map[string]any
		if err := tape.DecodeNumbers([]byte(body), &raw); err != nil {
			t.Fatal(err)
		}
		var want wire.MessageRequest
		data, _ := json.Marshal(raw)
		wantErr := json.Unmarshal(data, &want)
		if wantErr != nil {
			wantErr = core.DecodeError(wantErr)
		}
		got := wire.MessageRequest{Raw: raw}
		gotErr := got.ReadFields()
		if fmt.Sprint(gotErr) != fmt.Sprint(wantErr) {
			t.Errorf("%s: error %v, want %v", body, gotErr, wantErr)
			continue
		}
		if wantErr != nil {
			continue
		}
		got.Raw = nil
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s:\n got %+v\nwant %+v", body, got, want)
		}
	}
}

// tokenPattern is the tokenizer's rule as a regular expression (messages_model.go): the
// scanner's tokens must be exactly its matches.
var tokenPattern = regexp.MustCompile(`\s*(?:[\p{L}\p{N}_]+|[^\s\p{L}\p{N}_])|\s+$`)

// TestCountTokensIsTheTokenPattern: the one-pass scanner splits a string into exactly the tokens
// the token pattern finds, and counts them; a few counts worked out by hand.
func TestCountTokensIsTheTokenPattern(t *testing.T) {
	for s, want := range map[string]int{
		"":                  0,
		"Hello there":       2,  // "Hello", " there"
		"Hi, you!  ":        5,  // "Hi", ",", " you", "!", "  "
		"  \t\n":            1,  // trailing whitespace alone
		"snake_case2 x9":    2,  // words hold letters, digits and underscores
		"naïve café über":   3,  // letters beyond ASCII
		"a\vb":              3,  // \v is not \s: a character of its own
		"a\u00a0b":          3,  // nor is a no-break space
		"日本語 text":          2,  // a run of letters, whatever the script
		"٣٤ ⅷ":              2,  // digits and numerals of other scripts
		"x\xffy":            3,  // an invalid byte is one character
		"{\"k\": [1, 2]}\n": 12, // {, ", k, ", :, " [", 1, ",", " 2", ], }, and the trailing newline
	} {
		got := model.TextTokens(s)
		if pattern := len(tokenPattern.FindAllStringIndex(s, -1)); got != want || pattern != want {
			t.Errorf("textTokens(%q) = %d and the pattern finds %d, want %d", s, got, pattern, want)
		}
		if toks, pattern := model.Tokens(s), tokenPattern.FindAllString(s, -1); !reflect.DeepEqual(toks, pattern) {
			t.Errorf("tokens(%q) = %q, the pattern finds %q", s, toks, pattern)
		}
	}
}

// FuzzCountTokens holds the one-pass scanner to the token pattern on any string.
func FuzzCountTokens(f *testing.F) {
	for _, s := range []string{"Hello there", "Hi, you!  ", "a\vb", "日本語 text", "x\xffy", "\t\n \r\f"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := model.Tokens(s), tokenPattern.FindAllString(s, -1); !reflect.DeepEqual(got, want) || model.TextTokens(s) != len(want) {
			t.Errorf("tokens(%q) = %q (%d counted), the pattern finds %q", s, got, model.TextTokens(s), want)
		}
	})
}

// TestCoverageCountsTheBodyAsSent: the coverage's body fields of a Messages request are counted
// from the body the client sent, though the parse stage takes the thread field out of the
// decoded body it then works on.
func TestCoverageCountsTheBodyAsSent(t *testing.T) {
	ts := NewTestServer(t)
	create(t, ts, msgBody("thread", threadCreate()), threadBeta...)
	for _, op := range ts.Fake.Coverage().Operations {
		if op.Operation != "POST /v1/messages" {
			continue
		}
		want := []string{"max_tokens", "messages", "messages[].content", "messages[].role", "model", "thread", "thread.type"}
		if !reflect.DeepEqual(op.BodyFields.Sent, want) {
			t.Errorf("body fields sent %q, want %q", op.BodyFields.Sent, want)
		}
		return
	}
	t.Fatal("no coverage of POST /v1/messages")
}

// TestIntegerNoIntHoldsIsRefusedNamingTheField: an integer the schema accepts but an int does not
// hold as written (1e2) is a 400 naming the field, on Messages and Completions alike.
func TestIntegerNoIntHoldsIsRefusedNamingTheField(t *testing.T) {
	s := checked(t)
	const why = ": must be an integer from -9223372036854775808 to 9223372036854775807, got number 1e2"
	for path, body := range map[string]string{
		"/v1/complete": `{"model":"assistant-opus-4-7","prompt":"\n\nHuman: hi\n\nAssistant:","max_tokens_to_sample":1e2}`,
		"/v1/messages": `{"model":"assistant-opus-4-7","max_tokens":1e2,"messages":[{"role":"user","content":"hi"}]}`,
	} {
		field := map[string]string{"/v1/complete": "max_tokens_to_sample", "/v1/messages": "max_tokens"}[path]
		wantError(t, postAs(t, s, core.DefaultAPIKey, path, body), http.StatusBadRequest, "invalid_request_error", field+why)
	}
}

// plain8 passes eight bytes that json.Marshal writes as they are, and no eight with one it does
// not, wherever that one is.
func TestPlain8(t *testing.T) {
	if !core.Plain8("abcdefgh") || !core.Plain8("Turn 7: ") || !core.Plain8("\x7f~ !#%'z") {
		t.Error("plain8 refuses eight plain bytes")
	}
	for _, c := range []byte{'"', '\\', '<', '>', '&', 0x00, 0x1f, '\n', 0x80, 0xc3, 0xff} {
		for at := range 8 {
			b := []byte("abcdefgh")
			b[at] = c
			if core.Plain8(string(b)) {
				t.Errorf("plain8(%q) = true, but byte %d (%#x) needs escaping or decoding", b, at, c)
			}
		}
	}
}

// The generated text of a seed is what it was when it was a list of words joined (these are
// that code's answers), and it splits into its tokens as the words were.
func TestText(t *testing.T) {
	for _, tc := range []struct {
		seed uint64
		n    int
		lead string
		want string
	}{
		{1, 1, "", "First"},
		{2, 12, "", "Token careful leaf on honest with every is early search river."},
		{3, 30, " ", " Small even even stream is. Token careful last value block and window round test message every. Tool and tool late. Search it signal for test time."},
		{4, 2, " ", " Open."},
	} {
		r := &model.Rng{State: tc.seed}
		got := r.Text(tc.n, tc.lead)
		if got != tc.want || len(model.Tokens(got)) != tc.n {
			t.Errorf("text(%d, %q) from seed %d = %q (%d tokens), want %q (%d)", tc.n, tc.lead, tc.seed, got, len(model.Tokens(got)), tc.want, tc.n)
		}
	}
}

// TestVocabulary: text capitalises a word by its first byte, which holds for lower-case ASCII.
func TestVocabulary(t *testing.T) {
	for _, w := range model.Vocabulary {
		if strings.TrimLeft(w, "abcdefghijklmnopqrstuvwxyz") != "" {
			t.Errorf("%q is not a lower-case ASCII word", w)
		}
	}
}

// Every event that writes its own JSON writes what the stream's Encoder would have: deltas of
// text with citations, of thinking with estimates, and of tool input, with characters that
// encoding/json escapes and the HTML ones it leaves alone in an answer.
func TestEventsAppendAsEncoded(t *testing.T) {
	title := "Q&A <draft>"
	msg := &wire.Message{ID: "msg_1", Type: "message", Role: "assistant", Model: "m", Content: []wire.Block{
		{"type": "thinking", "thinking": "Let me think: a < b && c > d.\u2028Then \"quote\" and \\.", "signature": "c2ln"},
		{"type": "text", "text": "Weather <b>mild</b> & dry, naïve café 日本\x01\u2029 \xff end.", "citations": []any{
			map[string]any{"type": "char_location", "cited_text": "It was <mild>.", "document_index": 0, "document_title": &title,
				"file_id": nil, "start_char_index": 0, "end_char_index": 14},
		}},
		{"type": "tool_use", "id": "toolu_1", "name": "get_weather", "input": map[string]any{"city": "Paris & <Lyon>", "days": json.Number("3")}},
	}}
	msg.Usage.OutputTokensDetails.ThinkingTokens = 12
	appended := 0
	for ev := range wire.MessageStream(msg, true).Events {
		a, ok := ev.Data.(core.JSONAppender)
		if !ok {
			continue
		}
		appended++
		var want bytes.Buffer
		enc := json.NewEncoder(&want)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(ev.Data); err != nil {
			t.Fatal(err)
		}
		got, err := a.AppendJSON(nil)
		if err != nil || string(got)+"\n" != want.String() {
			t.Errorf("%s: appended %s (%v)\nencoded %s", ev.Name, got, err, want.Bytes())
		}
	}
	if appended < 10 {
		t.Errorf("%d events appended their JSON, want the deltas of three blocks", appended)
	}
}

// A message writes its own JSON as the Encoder writes it: with no field set, and with every
// field set, found by reflection, so that a field added to Message or Usage but not to its
// appendJSON fails here.
func TestMessageAppendsAsEncoded(t *testing.T) {
	full := &wire.Message{}
	fillEvery(reflect.ValueOf(full).Elem())
	if full.Usage.OutputTokensDetails.ThinkingTokens == 0 || full.Diagnostics == nil || full.Usage.FallbackCredit == nil {
		t.Fatalf("fillEvery left fields unset: %+v", full)
	}
	for name, msg := range map[string]*wire.Message{
		"zero":          {},
		"empty content": {ID: "msg_1", Content: []wire.Block{}},
		"every field":   full,
	} {
		for _, v := range []core.JSONAppender{wire.MessageJSON{Message: msg}, wire.MessageStartEvent{Message: *msg, Type: "message_start"}} {
			var want bytes.Buffer
			enc := json.NewEncoder(&want)
			enc.SetEscapeHTML(false)
			if err := enc.Encode(v); err != nil {
				t.Fatal(err)
			}
			got, err := v.AppendJSON(nil)
			if err != nil || string(got)+"\n" != want.String() {
				t.Errorf("%s, %T: appended %s (%v)\nencoded  %s", name, v, got, err, want.Bytes())
			}
		}
	}
}

// fillEvery sets every field of v, however deep: strings that need escaping, numbers, two items
// of each slice, a value behind each pointer and interface.
func fillEvery(v reflect.Value) {
	switch v.Kind() {
	case reflect.String:
		v.SetString("a <b> & \"c\"\u2028\x01 \xff naïve")
	case reflect.Int, reflect.Int64, reflect.Int32:
		v.SetInt(7)
	case reflect.Bool:
		v.SetBool(true)
	case reflect.Float64:
		v.SetFloat(0.5)
	case reflect.Pointer:
		v.Set(reflect.New(v.Type().Elem()))
		fillEvery(v.Elem())
	case reflect.Struct:
		for i := range v.NumField() {
			if v.Type().Field(i).IsExported() {
				fillEvery(v.Field(i))
			}
		}
	case reflect.Slice:
		v.Set(reflect.MakeSlice(v.Type(), 2, 2))
		for i := range 2 {
			fillEvery(v.Index(i))
		}
	case reflect.Map:
		v.Set(reflect.MakeMap(v.Type()))
		for _, k := range []string{"type", "text", "z <key>"} {
			item := reflect.New(v.Type().Elem()).Elem()
			fillEvery(item)
			v.SetMapIndex(reflect.ValueOf(k), item)
		}
	case reflect.Interface:
		v.Set(reflect.ValueOf(map[string]any{"n": json.Number("12"), "list": []any{"x & y", 1.5, nil, true}, "s": "<q>"}))
	}
}

// A stream's text goes out three tokens a delta, the last delta with what is left, and the
// deltas put together are the text.
func TestChunkTokens(t *testing.T) {
	for s, want := range map[string][]string{
		"":                         nil,
		"Hi":                       {"Hi"},
		"Hello there, you":         {"Hello there,", " you"},
		"One two three four five.": {"One two three", " four five."},
		"a b c  ":                  {"a b c", "  "},
		"naïve café, 日本語 ok":       {"naïve café,", " 日本語 ok"},
	} {
		got := wire.ChunkTokens(s)
		if !reflect.DeepEqual(got, want) {
			t.Errorf("chunkTokens(%q) = %q, want %q", s, got, want)
		}
	}
}
