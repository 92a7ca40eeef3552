package fake

import (
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"maps"
	"net/http"
	"regexp"
	"strings"
	"sync"
	"testing"
	"testing/fstest"

	"github.com/platformkit/platformkit/fake/internal/areas/messages/scenarios"

	"github.com/platformkit/platformkit/fake/internal/areas/messages/stubs"

	"github.com/platformkit/platformkit/fake/internal/areas/messages/wire"

	"github.com/platformkit/platformkit/fake/internal/core"

	"github.com/tidwall/gjson"

	"github.com/platformkit/platformkit/fixtures"
)

// controlCall sends a request to the control API and returns the status and body.
func controlCall(t testing.TB, ts *TestServer, method, path string, body any) (int, gjson.Result) {
	t.Helper()
	status, _, data, err := roundTrip(context.Background(), ts, method, path, body)
	if err != nil {
		t.Fatal(err)
	}
	return status, gjson.ParseBytes(data)
}

// registerStub registers a stub through the control API and fails the test unless it is taken.
func stubOver(t testing.TB, ts *TestServer, stub any) gjson.Result {
	t.Helper()
	status, got := controlCall(t, ts, http.MethodPost, "/_fake/messages/stubs", stub)
	if status != http.StatusOK {
		t.Fatalf("POST /_fake/messages/stubs = %d %s", status, got.Raw)
	}
	return got
}

func textReply(text string) map[string]any {
	return map[string]any{"content": []any{map[string]any{"type": "text", "text": text}}}
}

func weatherCall(id string, input map[string]any) map[string]any {
	return map[string]any{"content": []any{
		map[string]any{"type": "text", "text": "Let me check."},
		map[string]any{"type": "tool_use", "id": id, "name": "get_weather", "input": input, "caller": map[string]any{"type": "direct"}},
	}}
}

// streamed is body with "stream": true.
func streamed(body map[string]any) map[string]any {
	out := map[string]any{"stream": true}
	for k, v := range body {
		out[k] = v
	}
	return out
}

// TestStubSequenceServedInOrder registers a sequence (a tool call, then a text) and serves it
// to two servers, one without streaming and one streamed: both get the replies in order, with
// the fields the fake fills in, and each stream accumulates to the answer without streaming.
func TestStubSequenceServedInOrder(t *testing.T) {
	plain, stream := NewTestServer(t), NewTestServer(t)
	stub := map[string]any{"replies": []any{
		weatherCall("toolu_stub1", map[string]any{"city": "Oslo", "days": json.Number("12345678901234567890")}),
		textReply("It is sunny in Oslo."),
	}}
	for _, ts := range []*TestServer{plain, stream} {
		got := stubOver(t, ts, stub)
		if got.Get("id").String() != "stub_01"+string(core.AppendBase62(nil, 1, core.IDWidth)) || got.Get("replies.0.stop_reason").String() != "tool_use" ||
			got.Get("replies.1.stop_reason").String() != "end_turn" || got.Get("times").Int() != 1 || got.Get("served").Int() != 0 {
			t.Fatalf("registered stub: %s", got.Raw)
		}
	}
	body := msgBody("tools", []any{map[string]any{"name": "get_weather", "input_schema": weatherSchema}})
	// Output tokens counted by hand: "Let me check." is 4 tokens, the tool's name 1 and its input
	// {"city":"Oslo","days":12345678901234567890} 15 (each punctuation mark one, each word one);
	// "It is sunny in Oslo." is 6.
	for i, want := range []struct {
		reason, text string
		output       int64
	}{{"tool_use", "Let me check.", 20}, {"end_turn", "It is sunny in Oslo.", 6}} {
		got := create(t, plain, body)
		if got.Get("stop_reason").String() != want.reason || got.Get("content.0.text").String() != want.text {
			t.Errorf("reply %d: %s", i, got.Raw)
		}
		if id := got.Get("id").String(); id != "msg_01"+string(core.AppendBase62(nil, uint64(i+1), core.IDWidth)) {
			t.Errorf("reply %d: id %s, want the server's message counter", i, id)
		}
		if got.Get("model").String() != testModel || got.Get("type").String() != "message" || got.Get("role").String() != "assistant" {
			t.Errorf("reply %d: filled fields: %s", i, got.Raw)
		}
		_, count := postMessages(t, plain, "/v1/messages/count_tokens", with(maps.Clone(body), []any{"max_tokens", nil}))
		if in := got.Get("usage.input_tokens").Int(); in != gjson.GetBytes(count, "input_tokens").Int() || in == 0 {
			t.Errorf("reply %d: usage.input_tokens %d, count_tokens %s", i, in, count)
		}
		if out := got.Get("usage.output_tokens").Int(); out != want.output {
			t.Errorf("reply %d: usage.output_tokens %d, want %d", i, out, want.output)
		}
		if i == 0 && got.Get("content.1.input.days").Raw != "12345678901234567890" {
			t.Errorf("tool input changed: %s", got.Get("content.1.input").Raw)
		}

		status, data := postMessages(t, stream, "/v1/messages", streamed(body))
		if status != http.StatusOK {
			t.Fatalf("stream %d: %d %s", i, status, data)
		}
		if acc, w := canonical(t, accumulate(t, events(t, data))), canonical(t, json.RawMessage(got.Raw)); acc != w {
			t.Errorf("stream %d accumulates to\n%s\nnot to the answer without streaming\n%s", i, acc, w)
		}
	}
	// Used up: the scripted model answers again, as on a server that never had the stub (the
	// IDs differ, as the servers' counters do).
	fresh := NewTestServer(t)
	for _, path := range []string{"content.0.text", "content.1.input"} {
		if got, want := create(t, plain, body).Get(path).Raw, create(t, fresh, body).Get(path).Raw; got != want {
			t.Errorf("after the sequence, %s = %s, want the scripted model's %s", path, got, want)
		}
	}
	if _, list := controlCall(t, plain, http.MethodGet, "/_fake/messages/stubs", nil); list.Get("data.#").Int() != 0 {
		t.Errorf("a used-up stub is still listed: %s", list.Raw)
	}
}

func TestStubMatchRules(t *testing.T) {
	ts := NewTestServer(t)
	weatherTool := []any{map[string]any{"name": "get_weather", "input_schema": weatherSchema}}
	stubOver(t, ts, map[string]any{"match": map[string]any{"model": "assistant-haiku-4-5"}, "replies": []any{textReply("by model")}})
	stubOver(t, ts, map[string]any{"match": map[string]any{"user_text_contains": "lighthouse"}, "replies": []any{textReply("by text")}})
	stubOver(t, ts, map[string]any{"match": map[string]any{"tool_name": "get_weather"}, "replies": []any{textReply("by tool")}})
	stubOver(t, ts, map[string]any{"match": map[string]any{"tool_name": "get_weather", "user_text_contains": "both"}, "replies": []any{textReply("by both")}})
	cases := []struct {
		name string
		body map[string]any
		want string // "" for the scripted model
	}{
		{"no rule holds", msgBody(), ""},
		{"other model", msgBody("model", "assistant-sonnet-4-5"), ""},
		{"model", msgBody("model", "assistant-haiku-4-5"), "by model"},
		{"text in an assistant turn", msgBody("messages", []any{
			map[string]any{"role": "user", "content": "hi"}, map[string]any{"role": "assistant", "content": "the lighthouse"},
		}), ""},
		{"text", msgBody("messages", userTurn("Where is the lighthouse?")), "by text"},
		// Stubs are tried in order: the tool-only stub comes first and takes this one.
		{"tool", msgBody("tools", weatherTool, "messages", userTurn("both")), "by tool"},
		{"tool and text", msgBody("tools", weatherTool, "messages", userTurn("both")), "by both"},
	}
	for _, c := range cases {
		got := create(t, ts, c.body)
		text := got.Get("content.0.text").String()
		if c.want != "" && text != c.want || c.want == "" && strings.HasPrefix(text, "by ") {
			t.Errorf("%s: got %q, want %q", c.name, text, c.want)
		}
	}
}

// TestStubPrecedence: the Fake-Scenario header beats a stub, which beats the library's rules.
func TestStubPrecedence(t *testing.T) {
	ts := NewTestServer(t)
	stubOver(t, ts, map[string]any{"replies": []any{textReply("stubbed")}, "times": 2})
	byHeader := create(t, ts, msgBody(), scenarios.HeaderScenario, "refusal-bio")
	if byHeader.Get("stop_reason").String() != "refusal" {
		t.Errorf("Fake-Scenario should win over a stub: %s", byHeader.Raw)
	}
	overRule := create(t, ts, msgBody("messages", userTurn("Please search the web for lanterns")))
	if overRule.Get("content.0.text").String() != "stubbed" {
		t.Errorf("a stub should win over a scenario's matching rule: %s", overRule.Raw)
	}
	j := ts.Fake.Journal()
	if len(j) != 2 || j[0].Stub != "" || j[1].Stub != "stub_01"+string(core.AppendBase62(nil, 1, core.IDWidth)) {
		t.Errorf("journal stub fields: %+v", j)
	}
	if st := ts.Fake.Stubs(); len(st) != 1 || st[0].Served != 1 {
		t.Errorf("a request the header answered used up a stub reply: %+v", st)
	}
}

func TestStubTimesAndForever(t *testing.T) {
	ts := NewTestServer(t)
	seq := []stubs.Reply{
		{Content: []map[string]any{{"type": "text", "text": "one"}}},
		{Content: []map[string]any{{"type": "text", "text": "two"}}},
	}
	if _, err := ts.Fake.AddStub(stubs.Stub{Match: stubs.StubMatch{UserTextContains: "twice"}, Replies: seq, Times: 2}); err != nil {
		t.Fatal(err)
	}
	forever, err := ts.Fake.AddStub(stubs.Stub{Match: stubs.StubMatch{UserTextContains: "always"}, Replies: seq, Forever: true})
	if err != nil {
		t.Fatal(err)
	}
	if forever.Times != 0 || !forever.Forever || forever.ID != "stub_01"+string(core.AppendBase62(nil, 2, core.IDWidth)) {
		t.Errorf("forever stub: %+v", forever)
	}
	var twice, always []string
	for range 5 {
		twice = append(twice, create(t, ts, msgBody("messages", userTurn("say it twice"))).Get("content.0.text").String())
		always = append(always, create(t, ts, msgBody("messages", userTurn("always"))).Get("content.0.text").String())
	}
	if got := strings.Join(twice[:4], " "); got != "one two one two" || twice[4] == "one" || twice[4] == "two" {
		t.Errorf("times 2 served %q", twice)
	}
	if got := strings.Join(always, " "); got != "one two one two one" {
		t.Errorf("forever served %q", got)
	}
	if st := ts.Fake.Stubs(); len(st) != 1 || st[0].Served != 5 {
		t.Errorf("stubs left: %+v", st)
	}
	if status, got := controlCall(t, ts, http.MethodDelete, "/_fake/messages/stubs", nil); status != http.StatusOK || got.Get("cleared").Int() != 1 {
		t.Errorf("DELETE /_fake/messages/stubs = %d %s", status, got.Raw)
	}
	if text := create(t, ts, msgBody("messages", userTurn("always"))).Get("content.0.text").String(); text == "one" || text == "two" {
		t.Errorf("a cleared stub answered %q", text)
	}
}

// TestStubRegistrationRefusesInvalidReplies: a stub that could not be served as a valid message
// is a 400 at registration naming the field, through the control API and through AddStub alike.
func TestStubRegistrationRefusesInvalidReplies(t *testing.T) {
	ts := NewTestServer(t)
	ok := textReply("fine")
	cases := []struct {
		name  string
		body  any
		field string
	}{
		{"empty body", "", "replies: field required"},
		{"not JSON", "{", "not valid JSON"},
		{"no replies", map[string]any{"replies": []any{}}, "replies: "},
		{"unknown block type", map[string]any{"replies": []any{ok, map[string]any{"content": []any{map[string]any{"type": "txt", "text": "x"}}}}}, "replies.1.content.0.type: "},
		{"text not a string", map[string]any{"replies": []any{map[string]any{"content": []any{map[string]any{"type": "text", "text": 3}}}}}, "replies.0.content.0.text: "},
		{"tool_use without input", map[string]any{"replies": []any{map[string]any{"content": []any{map[string]any{"type": "tool_use", "id": "toolu_1", "name": "f"}}}}}, "replies.0.content.0.input: field required"},
		{"tool_use with an unknown caller", map[string]any{"replies": []any{map[string]any{"content": []any{map[string]any{"type": "tool_use", "id": "toolu_1", "name": "f", "input": map[string]any{}, "caller": map[string]any{"type": "model"}}}}}}, "replies.0.content.0.caller"},
		{"unknown reply field", map[string]any{"replies": []any{with(textReply("x"), []any{"stop", "end_turn"})}}, "replies.0.stop: unknown field"},
		{"wrong role", map[string]any{"replies": []any{with(textReply("x"), []any{"role", "user"})}}, "replies.0.role: "},
		{"id given", map[string]any{"replies": []any{with(textReply("x"), []any{"id", "msg_1"})}}, "replies.0.id: is given by the server"},
		{"usage given", map[string]any{"replies": []any{ok, with(textReply("x"), []any{"usage", map[string]any{}})}}, "replies.1.usage: is counted"},
		{"model given", map[string]any{"replies": []any{with(textReply("x"), []any{"model", testModel})}}, "replies.0.model: "},
		{"unknown stop reason", map[string]any{"replies": []any{with(textReply("x"), []any{"stop_reason", "done"})}}, "replies.0.stop_reason: "},
		{"tool_use stop without a call", map[string]any{"replies": []any{with(textReply("x"), []any{"stop_reason", "tool_use"})}}, "replies.0.stop_reason: \"tool_use\" needs a tool_use block"},
		{"stop sequence missing", map[string]any{"replies": []any{with(textReply("x"), []any{"stop_reason", "stop_sequence"})}}, "replies.0.stop_sequence: field required"},
		{"stop sequence without its reason", map[string]any{"replies": []any{with(textReply("x"), []any{"stop_sequence", "END"})}}, "replies.0.stop_sequence: must be null"},
		{"stop details without refusal", map[string]any{"replies": []any{with(textReply("x"), []any{"stop_details", map[string]any{"type": "refusal", "category": nil, "explanation": nil}})}}, "replies.0.stop_details: must be null"},
		{"times and forever", map[string]any{"replies": []any{ok}, "times": 2, "forever": true}, "times: "},
		{"times zero", map[string]any{"replies": []any{ok}, "times": 0}, "times: "},
		{"empty rule", map[string]any{"replies": []any{ok}, "match": map[string]any{"model": ""}}, "match.model: "},
		{"unknown rule", map[string]any{"replies": []any{ok}, "match": map[string]any{"text": "x"}}, "match.text: unknown field"},
	}
	for _, c := range cases {
		status, got := controlCall(t, ts, http.MethodPost, "/_fake/messages/stubs", c.body)
		if msg := got.Get("error.message").String(); status != http.StatusBadRequest || got.Get("error.type").String() != core.ErrInvalidRequest || !strings.Contains(msg, c.field) {
			t.Errorf("%s: %d %s, want 400 naming %q", c.name, status, got.Raw, c.field)
		}
	}
	if _, err := ts.Fake.AddStub(stubs.Stub{Replies: []stubs.Reply{{Content: []map[string]any{{"type": "image"}}}}}); err == nil || !strings.Contains(err.Error(), "replies.0.content.0.type: ") {
		t.Errorf("AddStub with a bad block: %v", err)
	}
	if _, err := ts.Fake.AddStub(stubs.Stub{}); err == nil || !strings.Contains(err.Error(), "replies: ") {
		t.Errorf("AddStub without replies: %v", err)
	}
	if n := len(ts.Fake.Stubs()); n != 0 {
		t.Errorf("%d refused stubs were registered", n)
	}
	// type and role may be given, as in a message copied whole minus the server's fields.
	stubOver(t, ts, map[string]any{"replies": []any{with(textReply("x"), []any{"type", "message", "role", "assistant"})}})
}

// TestStubsAreControlState: stubs are numbered apart from the API's IDs, are copies of what was
// registered, and go with Reset.
func TestStubsAreControlState(t *testing.T) {
	ts := NewTestServer(t)
	content := []map[string]any{{"type": "text", "text": "original"}}
	if _, err := ts.Fake.AddStub(stubs.Stub{Replies: []stubs.Reply{{Content: content}}}); err != nil {
		t.Fatal(err)
	}
	content[0]["text"] = "changed by the caller"
	ts.Fake.Stubs()[0].Replies[0].Content[0]["text"] = "changed through Stubs"
	got := create(t, ts, msgBody())
	if got.Get("content.0.text").String() != "original" || got.Get("id").String() != "msg_01"+string(core.AppendBase62(nil, 1, core.IDWidth)) {
		t.Errorf("served %s", got.Raw)
	}
	if _, err := ts.Fake.AddStub(stubs.Stub{Replies: []stubs.Reply{{Content: content}}}); err != nil {
		t.Fatal(err)
	}
	ts.Fake.Reset()
	if st := ts.Fake.Stubs(); len(st) != 0 {
		t.Errorf("after Reset: %+v", st)
	}
	if st, _ := ts.Fake.AddStub(stubs.Stub{Replies: []stubs.Reply{{Content: content}}}); st.ID != "stub_01"+string(core.AppendBase62(nil, 1, core.IDWidth)) {
		t.Errorf("stub numbering after Reset: %s", st.ID)
	}
}

// TestStubsConcurrent serves one forever stub and one counted stub from many goroutines: every
// reply of the counted one is served exactly once, and the rest fall to the forever stub.
func TestStubsConcurrent(t *testing.T) {
	ts := NewTestServer(t)
	const n = 40
	var counted []stubs.Reply
	for i := range n / 2 {
		counted = append(counted, stubs.Reply{Content: []map[string]any{{"type": "text", "text": fmt.Sprint("counted ", i)}}})
	}
	if _, err := ts.Fake.AddStub(stubs.Stub{Replies: counted}); err != nil {
		t.Fatal(err)
	}
	if _, err := ts.Fake.AddStub(stubs.Stub{Replies: []stubs.Reply{{Content: []map[string]any{{"type": "text", "text": "forever"}}}}, Forever: true}); err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	seen := map[string]int{}
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			body := msgBody("stream", i%2 == 0)
			status, _, data, err := roundTrip(context.Background(), ts, http.MethodPost, "/v1/messages", body, "X-Api-Key", "test-api-key", "vendor-version", core.APIVersion)
			if err != nil || status != http.StatusOK {
				t.Errorf("request %d: %d %v %s", i, status, err, data)
				return
			}
			text := gjson.GetBytes(data, "content.0.text").String()
			if i%2 == 0 {
				evs, err := wire.ParseEventStream(data)
				msg, aerr := wire.AccumulateMessage(evs)
				if err != nil || aerr != nil {
					t.Errorf("stream %d: %v %v", i, err, aerr)
					return
				}
				text, _ = msg.Content[0]["text"].(string)
			}
			mu.Lock()
			seen[text]++
			mu.Unlock()
			if _, err := ts.Fake.AddStub(stubs.Stub{Match: stubs.StubMatch{Model: "never"}, Replies: counted[:1]}); err != nil {
				t.Error(err)
			}
			ts.Fake.Stubs()
		})
	}
	wg.Wait()
	if seen["forever"] != n/2 {
		t.Errorf("forever served %d times, want %d: %v", seen["forever"], n/2, seen)
	}
	for i := range n / 2 {
		if c := seen[fmt.Sprint("counted ", i)]; c != 1 {
			t.Errorf("counted %d served %d times", i, c)
		}
	}
}

// madeIDs are what an answer names that the fake made for it: a new container's ID, which each
// answer takes, and the files of a library scenario's code execution outputs, which a stub's
// reply names as written.
var madeIDs = []*regexp.Regexp{
	regexp.MustCompile(`"id":"container_[0-9A-Za-z]+"`),
	regexp.MustCompile(`"file_id":"[^"]*","type":"((?:bash_)?code_execution_output)"`),
}

// withoutMade is the JSON of a message with the IDs of madeIDs left out.
func withoutMade(raw string) string {
	raw = madeIDs[0].ReplaceAllString(raw, `"id":"container_(made)"`)
	return madeIDs[1].ReplaceAllString(raw, `"file_id":"(made)","type":"$1"`)
}

// TestEveryScenarioServesAsAStub registers the response of every scenario of the library as a
// stub: registration accepts every block shape the library shows, and each is served the same
// streamed and not, as the scenario itself is.
func TestEveryScenarioServesAsAStub(t *testing.T) {
	fx, _ := core.DefaultFixtures()
	for _, sc := range scenarios.ScenariosSection.In(fx.Sections).List {
		t.Run(sc.Name, func(t *testing.T) {
			viaStub, viaHeader := NewTestServer(t), NewTestServer(t)
			if _, err := viaStub.Fake.AddStub(stubs.Stub{Replies: []stubs.Reply{sc.Response}, Times: 2}); err != nil {
				t.Fatalf("the library's own response is refused as a stub: %v", err)
			}
			plain := create(t, viaStub, msgBody())
			if want := create(t, viaHeader, msgBody(), scenarios.HeaderScenario, sc.Name); withoutMade(plain.Raw) != withoutMade(want.Raw) {
				t.Errorf("served as a stub:\n%s\nas the scenario:\n%s", plain.Raw, want.Raw)
			}
			_, data := postMessages(t, viaStub, "/v1/messages", streamed(msgBody()))
			acc := accumulate(t, events(t, data))
			var want wire.Message
			_ = json.Unmarshal([]byte(plain.Raw), &want)
			acc.ID, want.ID = "", ""
			if got, w := withoutMade(canonical(t, acc)), withoutMade(canonical(t, want)); got != w {
				t.Errorf("stream accumulates to\n%s\nnot to\n%s", got, w)
			}
		})
	}
}

// TestStubsPerNamespace: a stub registered in a namespace answers there only, and the journal
// of that namespace names it.
func TestStubsPerNamespace(t *testing.T) {
	ts := NewTestServer(t)
	stubOver(t, ts, map[string]any{"replies": []any{textReply("default")}, "forever": true})
	if status, got := controlCall(t, ts, http.MethodPost, "/ns/a/_fake/messages/stubs", map[string]any{"replies": []any{textReply("in a")}, "forever": true}); status != http.StatusOK {
		t.Fatalf("register in namespace a: %d %s", status, got.Raw)
	}
	for path, want := range map[string]string{"/v1/messages": "default", "/ns/a/v1/messages": "in a", "/ns/b/v1/messages": ""} {
		_, data := postMessages(t, ts, path, msgBody())
		if got := gjson.GetBytes(data, "content.0.text").String(); want != "" && got != want || want == "" && (got == "default" || got == "in a") {
			t.Errorf("%s answered %q, want %q", path, got, want)
		}
	}
	_, journal := controlCall(t, ts, http.MethodGet, "/ns/a/_fake/journal", nil)
	if journal.Get("data.#").Int() != 1 || journal.Get("data.0.stub").String() != "stub_01"+string(core.AppendBase62(nil, 1, core.IDWidth)) {
		t.Errorf("journal of namespace a: %s", journal.Raw)
	}
}

// TestStubNearMiss: when no stub answers, the stub all of whose clauses but one held is named with
// the clause that did not, in the answer's Fake-Stub-Near-Miss header and the journal entry; a
// clause that failed only for case is preferred, and a stub that missed by two clauses or a
// request a stub answered names none.
func TestStubNearMiss(t *testing.T) {
	lookup := []any{map[string]any{"name": "lookup", "input_schema": weatherSchema}}
	cases := []struct {
		name  string
		stubs []map[string]any // their match clauses, registered in order: stub_...01, stub_...02, ...
		body  map[string]any
		want  string
	}{
		{"case only", []map[string]any{{"user_text_contains": "Hello"}},
			msgBody("messages", userTurn("hello there")),
			`stub_010000000000000000000001: user_text_contains "Hello" not in "hello there" (case-sensitive)`},
		{"one clause of two", []map[string]any{{"model": "assistant-opus-9", "user_text_contains": "lighthouse"}},
			msgBody("messages", userTurn("the lighthouse")),
			`stub_010000000000000000000001: model "assistant-opus-9" is not the request's "` + testModel + `"`},
		{"two clauses missed", []map[string]any{{"model": "assistant-opus-9", "user_text_contains": "lighthouse"}},
			msgBody("messages", userTurn("a harbour")), ""},
		{"case first, then order", []map[string]any{{"user_text_contains": "zebra"}, {"user_text_contains": "HARBOUR"}},
			msgBody("messages", userTurn("a harbour")),
			`stub_010000000000000000000002: user_text_contains "HARBOUR" not in "a harbour" (case-sensitive)`},
		{"first registered", []map[string]any{{"user_text_contains": "zebra"}, {"user_text_contains": "yak"}},
			msgBody("messages", userTurn("a harbour")),
			`stub_010000000000000000000001: user_text_contains "zebra" not in "a harbour"`},
		{"tool name", []map[string]any{{"tool_name": "get_weather"}},
			msgBody("tools", lookup), `stub_010000000000000000000001: tool_name "get_weather" not among the request's tools "lookup"`},
		{"no tools", []map[string]any{{"tool_name": "get_weather"}},
			msgBody(), `stub_010000000000000000000001: tool_name "get_weather": the request has no tools`},
		{"not the user's text", []map[string]any{{"user_text_contains": "lighthouse"}},
			msgBody("messages", []any{map[string]any{"role": "user", "content": "hi"}, map[string]any{"role": "assistant", "content": "the lighthouse"}}),
			`stub_010000000000000000000001: user_text_contains "lighthouse": the last turn is not the user's text`},
		{"long text cut", []map[string]any{{"user_text_contains": "zebra"}},
			msgBody("messages", userTurn(strings.Repeat("abcdefghij", 10)+"\n")),
			`stub_010000000000000000000001: user_text_contains "zebra" not in "` + strings.Repeat("abcdefghij", 8) + `"...`},
		{"a stub answered", []map[string]any{{"user_text_contains": "zebra"}, {"user_text_contains": "harbour"}},
			msgBody("messages", userTurn("a harbour")), ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ts := NewTestServer(t)
			for _, m := range c.stubs {
				stubOver(t, ts, map[string]any{"match": m, "replies": []any{textReply("stubbed")}})
			}
			status, h, data, err := roundTrip(context.Background(), ts, http.MethodPost, "/v1/messages", c.body, "X-Api-Key", "test-api-key", "vendor-version", core.APIVersion)
			if err != nil || status != http.StatusOK {
				t.Fatalf("POST /v1/messages = %d %v %s", status, err, data)
			}
			if got := h.Get(stubs.HeaderStubNearMiss); got != c.want {
				t.Errorf("%s = %q, want %q", stubs.HeaderStubNearMiss, got, c.want)
			}
			j := ts.Fake.Journal()
			if e := j[len(j)-1]; e.Path != "/v1/messages" || e.StubNearMiss != c.want {
				t.Errorf("journal entry %s stub_near_miss = %q, want %q", e.Path, e.StubNearMiss, c.want)
			}
		})
	}
}

// TestStubTextAnsweredWithCitationsNull: a stub's text block written without citations is
// answered with "citations": null, as the API answers every text block (the SDKs decode it as
// required), and one written with citations keeps them; the stub as registered is not changed.
func TestStubTextAnsweredWithCitationsNull(t *testing.T) {
	ts := NewTestServer(t)
	quoted := []any{map[string]any{"type": "char_location", "cited_text": "A.", "document_index": 0, "document_title": nil, "start_char_index": 0, "end_char_index": 2, "file_id": nil}}
	stubOver(t, ts, map[string]any{"times": 2, "replies": []any{map[string]any{"content": []any{
		map[string]any{"type": "text", "text": "Plain"},
		map[string]any{"type": "text", "text": "Quoted", "citations": quoted},
	}}}})
	got := create(t, ts, msgBody("messages", userTurn("Hi")))
	if c := got.Get("content.0"); c.Raw != `{"citations":null,"text":"Plain","type":"text"}` {
		t.Errorf("text without citations answered %s", c.Raw)
	}
	if c := got.Get("content.1.citations.0.cited_text"); c.String() != "A." {
		t.Errorf("text with citations answered %s", got.Get("content.1").Raw)
	}
	_, stubs := controlCall(t, ts, http.MethodGet, "/_fake/messages/stubs", nil)
	if c := stubs.Get("data.0.replies.0.content.0"); c.Get("text").String() != "Plain" || c.Get("citations").Exists() {
		t.Errorf("the stub as registered changed: %s", c.Raw)
	}
}

// TestToolUseWrittenWithoutCallerAnsweredDirect: a stub's tool_use block written without caller
// is registered (it was refused with "caller: field required") and answered with the caller
// {"type": "direct"} the newest SDKs decode as required, streamed or not; one written with a
// caller keeps it, and the stub as registered is not changed.
func TestToolUseWrittenWithoutCallerAnsweredDirect(t *testing.T) {
	ts := NewTestServer(t)
	viaCode := map[string]any{"type": "code_execution_20250825", "tool_id": "srvtoolu_1"}
	stubOver(t, ts, map[string]any{"times": 2, "replies": []any{map[string]any{"content": []any{
		map[string]any{"type": "tool_use", "id": "toolu_1", "name": "get_weather", "input": map[string]any{"city": "Oslo"}},
		map[string]any{"type": "tool_use", "id": "toolu_2", "name": "get_weather", "input": map[string]any{}, "caller": viaCode},
	}}}})
	got := create(t, ts, msgBody("messages", userTurn("Hi")))
	if c := got.Get("content.0.caller"); c.Raw != `{"type":"direct"}` {
		t.Errorf("tool_use without caller answered %s", got.Get("content.0").Raw)
	}
	if c := got.Get("content.1.caller"); c.Raw != `{"tool_id":"srvtoolu_1","type":"code_execution_20250825"}` {
		t.Errorf("tool_use with a caller answered %s", got.Get("content.1").Raw)
	}
	if r := got.Get("stop_reason").String(); r != "tool_use" {
		t.Errorf("stop_reason = %q, want tool_use", r)
	}
	status, stream := postMessages(t, ts, "/v1/messages", msgBody("messages", userTurn("Hi"), "stream", true))
	if status != http.StatusOK || !strings.Contains(string(stream), `"caller":{"type":"direct"}`) {
		t.Errorf("the stream carries no direct caller:\n%s", stream)
	}
	_, stubs := controlCall(t, ts, http.MethodGet, "/_fake/messages/stubs", nil)
	if c := stubs.Get("data.0.replies.0.content.0"); c.Get("caller").Exists() {
		t.Errorf("the stub as registered changed: %s", c.Raw)
	}
}

// TestScenarioToolUseWrittenWithoutCallerAnsweredDirect: a scenario of a custom data set whose
// tool_use block has no caller loads (the fixture schema refused it) and is answered with the
// caller {"type": "direct"}.
func TestScenarioToolUseWrittenWithoutCallerAnsweredDirect(t *testing.T) {
	orgs, err := fixtures.FS().(fs.ReadFileFS).ReadFile("organizations.json")
	if err != nil {
		t.Fatal(err)
	}
	models, err := fixtures.FS().(fs.ReadFileFS).ReadFile("models.json")
	if err != nil {
		t.Fatal(err)
	}
	scenarios := `{"scenarios": [{"name": "call-a-tool", "description": "A tool call written without caller.",
		"match": {"contains": "call a tool"},
		"response": {"content": [{"type": "tool_use", "id": "toolu_sc1", "name": "get_weather", "input": {}}],
			"stop_reason": "tool_use", "stop_sequence": null, "stop_details": null}}]}`
	fx, err := core.LoadFixtures(fstest.MapFS{
		"organizations.json":      {Data: orgs},
		"models.json":             {Data: models},
		"messages_scenarios.json": {Data: []byte(scenarios)},
	})
	if err != nil {
		t.Fatal(err)
	}
	ts := NewTestServer(t, WithFixtures(&Fixtures{fx: fx}))
	got := create(t, ts, msgBody("messages", userTurn("please call a tool")))
	if c := got.Get("content.0"); c.Get("id").String() != "toolu_sc1" || c.Get("caller").Raw != `{"type":"direct"}` {
		t.Errorf("the scenario's tool_use answered %s", c.Raw)
	}
}
