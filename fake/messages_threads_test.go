package fake

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/platformkit/platformkit/fake/internal/areas/messages/scenarios"

	"github.com/platformkit/platformkit/fake/internal/areas/messages/threads"

	"github.com/platformkit/platformkit/fake/internal/core"

	"github.com/tidwall/gjson"
)

// threadBeta is the header pair of a threaded request.
var threadBeta = []string{"anthropic-beta", threads.BetaMessageThreads}

func threadCreate() map[string]any { return map[string]any{"type": "create"} }

func threadContinue(prev string) map[string]any {
	return map[string]any{"type": "continue", "previous_message_id": prev}
}

// threadPost sends body threaded (with the beta) and returns the status, headers and body.
func threadPost(t testing.TB, ts *TestServer, body any, header ...string) (int, http.Header, gjson.Result) {
	t.Helper()
	header = append(append([]string{"X-Api-Key", "test-api-key", "vendor-version", core.APIVersion}, threadBeta...), header...)
	status, h, data, err := roundTrip(context.Background(), ts, http.MethodPost, "/v1/messages", body, header...)
	if err != nil {
		t.Fatal(err)
	}
	return status, h, gjson.ParseBytes(data)
}

// loopTools are the tools of the tool loops below.
var loopTools = []any{map[string]any{"name": "get_weather", "description": "Weather", "input_schema": map[string]any{
	"type": "object", "required": []any{"city"}, "properties": map[string]any{"city": map[string]any{"type": "string"}}}}}

// loopTurn is one answered request of a loop: the raw answer, and the rate-limit headers.
type loopTurn struct {
	body    string
	remains string
}

// toolLoop runs three turns of a tool loop on a new server: "Weather in Oslo?" (a tool call), its
// tool result (an answer), then "And in Bergen?" (a tool call). Threaded, the first request
// creates a thread and the others continue it with only their new messages and without system
// and tools; unthreaded, each sends the whole conversation, the replies' content as answered (as
// the official TypeScript helper sends it back). extra is added to every request; ratelimits
// turns on rate-limit enforcement.
func toolLoop(t *testing.T, threaded, stream, ratelimits bool, extra ...any) []loopTurn {
	t.Helper()
	ts := NewTestServer(t)
	if ratelimits {
		ts.Fake.SetRateLimits(true)
	}
	// Long enough to be cached (the cache's minimum prefix is 1,024 tokens and up by model).
	system := []any{map[string]any{"type": "text", "text": "You report the weather. " + words(2100)}}
	var history []any
	var out []loopTurn
	prev := ""
	for i, next := range []func(last gjson.Result) []any{
		func(gjson.Result) []any { return userTurn("Weather in Oslo?") },
		func(last gjson.Result) []any {
			call := last.Get("content.#(type==\"tool_use\")")
			return []any{map[string]any{"role": "user", "content": []any{map[string]any{"type": "tool_result", "tool_use_id": call.Get("id").String(), "content": "Sunny, 21 degrees"}}}}
		},
		func(gjson.Result) []any { return userTurn("And in Bergen?") },
	} {
		var last gjson.Result
		if len(out) > 0 {
			last = gjson.Parse(out[len(out)-1].body)
		}
		newMessages := next(last)
		history = append(history, newMessages...)
		body := with(map[string]any{"model": testModel, "max_tokens": 300, "stream": stream}, extra)
		var header []string
		switch {
		case !threaded:
			body["messages"], body["system"], body["tools"] = append([]any{}, history...), system, loopTools
		case i == 0:
			body["messages"], body["system"], body["tools"], body["thread"] = append([]any{}, history...), system, loopTools, threadCreate()
			header = threadBeta
		default:
			body["messages"], body["thread"] = newMessages, threadContinue(prev)
			header = threadBeta
		}
		header = append([]string{"X-Api-Key", "test-api-key", "vendor-version", core.APIVersion}, header...)
		status, h, data, err := roundTrip(context.Background(), ts, http.MethodPost, "/v1/messages", body, header...)
		if err != nil || status != http.StatusOK {
			t.Fatalf("threaded %t, turn %d: %d %s %v", threaded, i+1, status, data, err)
		}
		answer := string(data)
		if stream {
			answer = canonical(t, accumulate(t, events(t, data)))
		}
		// What the buckets hold after the turn: whole tokens, where the headers round to thousands.
		buckets, _ := json.Marshal(ts.Fake.RateLimits().Buckets)
		out = append(out, loopTurn{answer, h.Get("vendor-ratelimit-requests-remaining") + " " + string(buckets)})
		reply := gjson.Parse(answer)
		prev = reply.Get("id").String()
		var content any
		_ = json.Unmarshal([]byte(reply.Get("content").Raw), &content)
		history = append(history, map[string]any{"role": "assistant", "content": content})
	}
	return out
}

// TestThreadedToolLoopAnswersAsTheFullRequests: a three-turn tool loop over a thread gets,
// byte for byte, the answers (content, ids, usage) and rate-limit charges of the same loop sent
// in full, streamed and not, with prompt caching and with rate limits on.
func TestThreadedToolLoopAnswersAsTheFullRequests(t *testing.T) {
	for _, tc := range []struct {
		name               string
		stream, ratelimits bool
		extra              []any
	}{
		{"plain", false, false, nil},
		{"streamed", true, false, nil},
		{"rate limits", false, true, nil},
		{"automatic prompt caching", false, false, []any{"cache_control", map[string]any{"type": "ephemeral"}, "model", cacheModel}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			full := toolLoop(t, false, tc.stream, tc.ratelimits, tc.extra...)
			threaded := toolLoop(t, true, tc.stream, tc.ratelimits, tc.extra...)
			wantReasons := []string{"tool_use", "end_turn", "tool_use"}
			for i := range full {
				if threaded[i] != full[i] {
					t.Errorf("turn %d:\nthreaded %+v\nfull     %+v", i+1, threaded[i], full[i])
				}
				got := gjson.Parse(threaded[i].body)
				if r := got.Get("stop_reason").String(); r != wantReasons[i] {
					t.Errorf("turn %d: stop_reason %q, want %q", i+1, r, wantReasons[i])
				}
				// Turn 1's tool call takes id 2.
				if id := got.Get("id").String(); id != "msg_01"+string(core.AppendBase62(nil, uint64([]int{1, 3, 4}[i]), core.IDWidth)) {
					t.Errorf("turn %d: id %q", i+1, id)
				}
			}
			// The conversation grows each turn: a continue that was not given the whole
			// conversation would count fewer input tokens than the turn before.
			in := func(i int) int64 {
				u := gjson.Parse(threaded[i].body).Get("usage")
				return u.Get("input_tokens").Int() + u.Get("cache_read_input_tokens").Int() + u.Get("cache_creation_input_tokens").Int()
			}
			if !(in(0) < in(1) && in(1) < in(2)) {
				t.Errorf("input tokens %d, %d, %d: want a growing conversation", in(0), in(1), in(2))
			}
			if tc.ratelimits && (!strings.HasPrefix(threaded[2].remains, "3997 [{") || threaded[2].remains == threaded[0].remains) {
				t.Errorf("rate limits %q after three turns, %q after one", threaded[2].remains, threaded[0].remains)
			}
			if tc.extra != nil {
				// Turn 3 reads what turn 2 wrote: the cache works across the thread.
				if r := gjson.Parse(threaded[2].body).Get("usage.cache_read_input_tokens").Int(); r == 0 {
					t.Errorf("turn 3 read nothing from the cache: %s", threaded[2].body)
				}
			}
		})
	}
}

// TestThreadContinueCountsTheWholeConversation: the input tokens of a continue, worked out by
// hand, are those of the whole conversation.
func TestThreadContinueCountsTheWholeConversation(t *testing.T) {
	ts := NewTestServer(t)
	stubOver(t, ts, map[string]any{"replies": []any{textReply("Fine"), textReply("Good")}})
	first := create(t, ts, msgBody("messages", userTurn("Hi"), "thread", threadCreate()), threadBeta...)
	// {"role":"user","content":"Hi"}: the messages array 1, the message 1, "user" 1, "Hi" 1 = 4.
	if got := first.Get("usage.input_tokens").Int(); got != 4 {
		t.Fatalf("create: input_tokens %d, want 4: %s", got, first.Raw)
	}
	second := create(t, ts, msgBody("messages", userTurn("Hi"), "thread", threadContinue(first.Get("id").String())), threadBeta...)
	// The array 1; the first message 3; the reply as it was answered, {"role":"assistant",
	// "content":[{"type":"text","text":"Fine","citations":null}]}: the message 1, "assistant" 1,
	// the content array 1, the block 1, "text" 1, "Fine" 1, null 1 = 7; the new message 3.
	// 1+3+7+3 = 14, what a client sending the conversation back as it received it is counted.
	if got := second.Get("usage.input_tokens").Int(); got != 14 {
		t.Errorf("continue: input_tokens %d, want 14: %s", got, second.Raw)
	}
	if first.Get("content.0.text").String() != "Fine" || second.Get("content.0.text").String() != "Good" {
		t.Errorf("stub replies: %s %s", first.Raw, second.Raw)
	}
}

// TestThreadErrors: each refusal, with its status, error type, error_code and the field it names.
func TestThreadErrors(t *testing.T) {
	ts := NewTestServer(t)
	first := create(t, ts, msgBody("thread", threadCreate(), "system", "Be brief.", "tools", loopTools), threadBeta...)
	id := first.Get("id").String()
	check := func(name string, body any, header []string, status int, typ, code, prefix string) gjson.Result {
		t.Helper()
		st, _, data, err := roundTrip(context.Background(), ts, http.MethodPost, "/v1/messages", body, append([]string{"X-Api-Key", "test-api-key", "vendor-version", core.APIVersion}, header...)...)
		if err != nil {
			t.Fatal(err)
		}
		got := gjson.ParseBytes(data)
		if st != status || got.Get("error.type").String() != typ || got.Get("error.details.error_code").String() != code ||
			!strings.HasPrefix(got.Get("error.message").String(), prefix) || (code == "" && got.Get("error.details").Exists()) {
			t.Errorf("%s: %d %s; want %d %s %q %q", name, st, data, status, typ, code, prefix)
		}
		return got
	}
	check("no beta", msgBody("thread", threadCreate()), nil, 400, core.ErrInvalidRequest, "", "thread: requires the beta \"message-threads-2026-08-12\"")
	check("system on continue", msgBody("thread", threadContinue(id), "system", "Be brief."), threadBeta, 400, core.ErrInvalidRequest, "", "system: cannot be sent with thread.type \"continue\"")
	check("tools on continue", msgBody("thread", threadContinue(id), "tools", loopTools), threadBeta, 400, core.ErrInvalidRequest, "", "tools: cannot be sent")
	check("continue without previous_message_id", msgBody("thread", map[string]any{"type": "continue"}), threadBeta, 400, core.ErrInvalidRequest, "", "thread")
	check("unknown id", msgBody("thread", threadContinue("msg_nope")), threadBeta, 404, core.ErrNotFound, threads.ThreadNotFound,
		"thread.previous_message_id: no thread holds message \"msg_nope\"")
	got := check("fingerprint", msgBody("thread", threadContinue(id), "model", "assistant-mythos-preview", "thinking", map[string]any{"type": "enabled", "budget_tokens": 1024}), threadBeta,
		400, core.ErrInvalidRequest, threads.ThreadFingerprintMismatch, "thread.previous_message_id: this request differs from the thread in fields that must stay the same: model")
	if want := `model (the thread has "assistant-opus-4-7", this request sends "assistant-mythos-preview"); thinking (the thread has null, this request sends {"budget_tokens":1024,"type":"enabled"})`; !strings.HasSuffix(got.Get("error.message").String(), want) {
		t.Errorf("fingerprint message %q, want it to end %q", got.Get("error.message").String(), want)
	}
	got = check("unsupported", msgBody("thread", threadCreate(), "context_management", map[string]any{"edits": []any{}}, "fallbacks", []any{map[string]any{"model": "assistant-mythos-preview"}}), threadBeta,
		400, core.ErrInvalidRequest, threads.ThreadUnsupportedRequest, "thread: message threads do not support context_management, fallbacks")
	if u := got.Get("error.details.unsupported").Raw; u != `["context_management","fallbacks"]` {
		t.Errorf("unsupported %s", u)
	}
	got = check("pre-warm", msgBody("thread", threadCreate(), "max_tokens", 0), threadBeta, 400, core.ErrInvalidRequest, threads.ThreadUnsupportedRequest, "thread: message threads do not support max_tokens")
	if u := got.Get("error.details.unsupported").Raw; u != `["max_tokens"]` {
		t.Errorf("unsupported %s", u)
	}
	// None of the refusals used the thread up: it continues once, then no more.
	second := create(t, ts, msgBody("thread", threadContinue(id), "messages", userTurn("More?")), threadBeta...)
	check("second continue", msgBody("thread", threadContinue(id), "messages", userTurn("More?")), threadBeta, 400, core.ErrInvalidRequest, threads.ThreadAlreadyContinued,
		"thread.previous_message_id: message \""+id+"\" was already continued; continue from the thread's latest reply, \""+second.Get("id").String()+"\"")
	// An ordinary error has no details: the envelope is byte for byte as before.
	status, out := postMessages(t, ts, "/v1/messages", msgBody("max_tokens", -1))
	if want := `{"type":"error","error":{"type":"invalid_request_error","message":"max_tokens: must be >= 0 but found -1"},"request_id":"req_01` + string(core.AppendBase62(nil, 12, core.IDWidth)) + `"}`; status != 400 || strings.TrimSpace(string(out)) != want {
		t.Errorf("ordinary error: %d %s\nwant %s", status, out, want)
	}
}

// TestThreadExpiry: a thread lives 5 minutes after the request that stored its latest reply:
// 4:59 later it continues, exactly 5:00 later it is gone; each answered turn restarts the 5
// minutes.
func TestThreadExpiry(t *testing.T) {
	for _, tc := range []struct {
		wait time.Duration
		want int
	}{{4*time.Minute + 59*time.Second, 200}, {5 * time.Minute, 404}, {5*time.Minute + time.Second, 404}} {
		ts := NewTestServer(t)
		first := create(t, ts, msgBody("thread", threadCreate()), threadBeta...)
		ts.Fake.AdvanceClock(tc.wait)
		if st, _, got := threadPost(t, ts, msgBody("thread", threadContinue(first.Get("id").String()))); st != tc.want {
			t.Errorf("after %v: %d %s, want %d", tc.wait, st, got.Raw, tc.want)
		}
	}
	// Sliding: turns 4 minutes apart keep the thread alive for 12 minutes and more.
	ts := NewTestServer(t)
	prev := create(t, ts, msgBody("thread", threadCreate()), threadBeta...).Get("id").String()
	for i := range 3 {
		ts.Fake.AdvanceClock(4 * time.Minute)
		st, _, got := threadPost(t, ts, msgBody("thread", threadContinue(prev)))
		if st != 200 {
			t.Fatalf("turn %d, %d minutes after the create: %d %s", i+2, 4*(i+1), st, got.Raw)
		}
		prev = got.Get("id").String()
	}
}

// TestThreadContinueInFlight: while a streamed continue is being written, a second continue from
// the same reply is refused in flight; once the stream has ended, it is refused as already
// continued; a refused continue (here a 429) leaves the thread to be continued.
func TestThreadContinueInFlight(t *testing.T) {
	ts := NewTestServer(t)
	id := create(t, ts, msgBody("thread", threadCreate()), threadBeta...).Get("id").String()
	held := newHeldWriter()
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		r := httptest.NewRequest(http.MethodPost, "/v1/messages", strings.NewReader(mustJSON(t, msgBody("thread", threadContinue(id), "stream", true))))
		r.Header.Set("X-Api-Key", "test-api-key")
		r.Header.Set("vendor-version", core.APIVersion)
		r.Header.Set("anthropic-beta", threads.BetaMessageThreads)
		ts.Fake.ServeHTTP(held, r)
	}()
	<-held.started // the stream's first event is being written, and waits
	st, _, got := threadPost(t, ts, msgBody("thread", threadContinue(id)))
	if st != 400 || got.Get("error.details.error_code").String() != threads.ThreadContinueInFlight {
		t.Errorf("during the stream: %d %s", st, got.Raw)
	}
	close(held.release)
	wg.Wait()
	if !strings.Contains(held.body.String(), "event: message_stop") {
		t.Fatalf("held stream: %s", held.body.String())
	}
	st, _, got = threadPost(t, ts, msgBody("thread", threadContinue(id)))
	if st != 400 || got.Get("error.details.error_code").String() != threads.ThreadAlreadyContinued {
		t.Errorf("after the stream: %d %s", st, got.Raw)
	}
	// A refused continue is no longer in flight: the next one is answered.
	next := gjson.Parse(canonical(t, accumulate(t, events(t, []byte(held.body.String()))))).Get("id").String()
	st, _, got = threadPost(t, ts, msgBody("thread", threadContinue(next), "max_tokens", 200000))
	if st != 400 || !strings.HasPrefix(got.Get("error.message").String(), "max_tokens:") {
		t.Fatalf("over max_tokens: %d %s", st, got.Raw)
	}
	if st, _, got := threadPost(t, ts, msgBody("thread", threadContinue(next))); st != 200 {
		t.Errorf("after a refused continue: %d %s", st, got.Raw)
	}
}

// heldWriter is a ResponseWriter whose first write waits for release: a client that has not
// read the stream yet.
type heldWriter struct {
	*httptest.ResponseRecorder
	started, release chan struct{}
	once             sync.Once
	mu               sync.Mutex
	body             strings.Builder
}

func newHeldWriter() *heldWriter {
	return &heldWriter{ResponseRecorder: httptest.NewRecorder(), started: make(chan struct{}), release: make(chan struct{})}
}

func (w *heldWriter) Write(p []byte) (int, error) {
	w.once.Do(func() { close(w.started); <-w.release })
	w.mu.Lock()
	defer w.mu.Unlock()
	w.body.Write(p)
	return len(p), nil
}

// TestThreadsPerNamespaceAndReset: a thread lives in the namespace that created it, and a reset
// drops it.
func TestThreadsPerNamespaceAndReset(t *testing.T) {
	ts := NewTestServer(t)
	id := create(t, ts, msgBody("thread", threadCreate()), threadBeta...).Get("id").String()
	if st, _, got := threadPost(t, ts, msgBody("thread", threadContinue(id)), core.NamespaceHeader, "other"); st != 404 {
		t.Errorf("another namespace: %d %s", st, got.Raw)
	}
	ns := create(t, ts, msgBody("thread", threadCreate()), append([]string{core.NamespaceHeader, "other"}, threadBeta...)...).Get("id").String()
	if ns != id {
		t.Fatalf("a new namespace starts its ids afresh: %q and %q", ns, id)
	}
	if st, _ := controlCall(t, ts, http.MethodPost, "/_fake/reset", nil); st != 200 {
		t.Fatalf("reset: %d", st)
	}
	if st, _, got := threadPost(t, ts, msgBody("thread", threadContinue(id))); st != 404 {
		t.Errorf("after a reset: %d %s", st, got.Raw)
	}
	if st, _, got := threadPost(t, ts, msgBody("thread", threadContinue(ns)), core.NamespaceHeader, "other"); st != 200 {
		t.Errorf("the namespace's thread after the default server's reset: %d %s", st, got.Raw)
	}
}

// TestThreadJournal: the journal shows each request's thread.
func TestThreadJournal(t *testing.T) {
	ts := NewTestServer(t)
	id := create(t, ts, msgBody("thread", threadCreate()), threadBeta...).Get("id").String()
	create(t, ts, msgBody("thread", threadContinue(id)), threadBeta...)
	create(t, ts, msgBody())
	var got []string
	for _, e := range ts.Fake.Journal() {
		data, _ := json.Marshal(e.Thread)
		got = append(got, string(data))
	}
	want := []string{`{"type":"create","previous_message_id":null}`, `{"type":"continue","previous_message_id":"msg_010000000000000000000001"}`, `null`}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("journal threads %v, want %v", got, want)
	}
}

// TestThreadStubsAndScenarios: a stub matches the expanded conversation, and Fake-Scenario
// answers a continue.
func TestThreadStubsAndScenarios(t *testing.T) {
	ts := NewTestServer(t)
	id := create(t, ts, msgBody("messages", userTurn("Tell me about Oslo"), "tools", loopTools, "tool_choice", map[string]any{"type": "none"}, "thread", threadCreate()), threadBeta...).Get("id").String()
	// The stub matches on a tool that only the thread's create sent: only the expanded continue
	// has it.
	stubOver(t, ts, map[string]any{"match": map[string]any{"tool_name": "get_weather"}, "replies": []any{textReply("Oslo is a city.")}})
	got := create(t, ts, msgBody("messages", userTurn("Go on"), "tool_choice", map[string]any{"type": "none"}, "thread", threadContinue(id)), threadBeta...)
	if got.Get("content.0.text").String() != "Oslo is a city." {
		t.Errorf("stub on a continue: %s", got.Raw)
	}
	sc := create(t, ts, msgBody("messages", []any{}, "thread", threadContinue(got.Get("id").String())), append([]string{scenarios.HeaderScenario, "refusal-bio"}, threadBeta...)...)
	if sc.Get("stop_reason").String() != "refusal" {
		t.Errorf("scenario on a continue: %s", sc.Raw)
	}
}

// TestThreadBounds: past threadMaxCount threads the least recently used is dropped, and past
// threadMaxBytes too; a thread over the byte bound alone is not kept.
func TestThreadBounds(t *testing.T) {
	ts := NewTestServer(t)
	first := create(t, ts, msgBody("thread", threadCreate()), threadBeta...).Get("id").String()
	second := create(t, ts, msgBody("thread", threadCreate()), threadBeta...).Get("id").String()
	// Continuing the first makes the second the least recently used.
	first = create(t, ts, msgBody("thread", threadContinue(first)), threadBeta...).Get("id").String()
	for range threads.ThreadMaxCount - 1 {
		create(t, ts, msgBody("thread", threadCreate()), threadBeta...)
	}
	st := threads.ThreadsOf(ts.Fake.srv.State(), ts.Fake.srv.Cfg.Budget(threads.ThreadBudget))
	if n := st.Lru.Len(); n != threads.ThreadMaxCount {
		t.Errorf("%d threads kept, want %d", n, threads.ThreadMaxCount)
	}
	if s, _, got := threadPost(t, ts, msgBody("thread", threadContinue(second))); s != 404 {
		t.Errorf("the least recently used: %d %s", s, got.Raw)
	}
	if s, _, got := threadPost(t, ts, msgBody("thread", threadContinue(first))); s != 200 {
		t.Errorf("the recently used: %d %s", s, got.Raw)
	}
	// A conversation larger than the byte bound is answered but not kept.
	big := strings.Repeat("word ", threads.ThreadMaxBytes/5+1)
	id := create(t, ts, msgBody("messages", userTurn(big), "thread", threadCreate(), "max_tokens", 5), threadBeta...).Get("id").String()
	if s, _, got := threadPost(t, ts, msgBody("thread", threadContinue(id))); s != 404 {
		t.Errorf("over the byte bound: %d %s", s, got.Raw)
	}
	if st.Bytes > threads.ThreadMaxBytes || st.Lru.Len() > threads.ThreadMaxCount {
		t.Errorf("store holds %d bytes in %d threads", st.Bytes, st.Lru.Len())
	}
}
