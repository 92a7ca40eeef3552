package fake

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"maps"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/platformkit/platformkit/fake/internal/areas/messages/tape"

	"github.com/platformkit/platformkit/fake/internal/areas/messages/wire"

	"github.com/platformkit/platformkit/fake/internal/core"

	"github.com/tidwall/gjson"
)

// liveKey is the credential of the upstream in these tests: the fake's fixtures do not know it,
// so a request reaches the upstream with it only if the tape forwards the client's own.
const liveKey = "sk-live-0123456789abcdefghij"

// upstream is a deployment on loopback for a tape to record from: a second fake behind a handler
// that takes liveKey only, pauses between the events of a stream, and counts what it is asked.
type upstream struct {
	*httptest.Server
	inner *Server // the deployment's state, for faults
	delay time.Duration
	hits  atomic.Int64
	gate  chan struct{} // when set, message_stop waits until it is closed
	// echo, when set, answers every request with a 401 whose message repeats the credential, as
	// a careless deployment might.
	echo atomic.Bool
}

func newUpstream(t *testing.T, delay time.Duration, gate chan struct{}) *upstream {
	u := &upstream{delay: delay, gate: gate, inner: New()}
	inner := u.inner
	u.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		u.hits.Add(1)
		if r.Header.Get("X-Api-Key") != liveKey || r.Header.Get("Cookie") != "" {
			http.Error(w, `{"type":"error","error":{"type":"authentication_error","message":"the upstream wants its own key, and no cookie"},"request_id":"req_upstream"}`, http.StatusUnauthorized)
			return
		}
		if u.echo.Load() {
			w.Header().Set("Content-Type", "application/json")
			w.Header().Set("Set-Cookie", "session=cookie-secret-value")
			w.WriteHeader(http.StatusUnauthorized)
			io.WriteString(w, `{"type":"error","error":{"type":"authentication_error","message":"key `+liveKey+` is revoked"},"request_id":"req_upstream"}`)
			return
		}
		r.Header.Set("X-Api-Key", core.DefaultAPIKey)
		inner.ServeHTTP(&slowWriter{ResponseWriter: w, u: u}, r)
	}))
	t.Cleanup(u.Close)
	return u
}

// slowWriter pauses before each event of a stream but the first, and sends each on its own, as a
// deployment that makes its events over time does: the fake writes the events it has at once in
// one Write.
type slowWriter struct {
	http.ResponseWriter
	u *upstream
	n int
}

func (w *slowWriter) Write(p []byte) (int, error) {
	if !strings.HasPrefix(w.Header().Get("Content-Type"), "text/event-stream") {
		return w.ResponseWriter.Write(p)
	}
	written := 0
	for len(p) > 0 {
		event := p
		if end := bytes.Index(p, []byte("\n\n")); end >= 0 {
			event = p[:end+2]
		}
		p = p[len(event):]
		if w.n > 0 {
			time.Sleep(w.u.delay)
		}
		if w.u.gate != nil && bytes.HasPrefix(event, []byte("event: message_stop")) {
			<-w.u.gate
		}
		w.n++
		n, err := w.ResponseWriter.Write(event)
		written += n
		if err != nil {
			return written, err
		}
		w.Flush()
	}
	return written, nil
}

func (w *slowWriter) Flush() { w.ResponseWriter.(http.Flusher).Flush() }

// tapeServer is a checked test fake with the tape cfg.
func tapeServer(t *testing.T, cfg TapeConfig) *TestServer {
	t.Helper()
	tape, err := OpenTape(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return NewTestServer(t, WithTape(tape))
}

// tapeCall sends a request as a client with the live key would, and returns the whole answer.
func tapeCall(t *testing.T, ts *TestServer, method, path string, body any, header ...string) (int, http.Header, []byte) {
	t.Helper()
	header = append([]string{"X-Api-Key", liveKey, "vendor-version", core.APIVersion}, header...)
	status, h, data, err := roundTrip(context.Background(), ts, method, path, body, header...)
	if err != nil {
		t.Fatal(err)
	}
	return status, h, data
}

// events splits a stream body into its events, each as sent.
func eventChunks(body []byte) []string {
	return strings.Split(strings.TrimSuffix(string(body), "\n\n"), "\n\n")
}

// recordings lists the recording files under dir, relative to it.
func recordings(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			rel, _ := filepath.Rel(dir, p)
			out = append(out, rel)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

var weatherTools = []any{map[string]any{"name": "get_weather", "description": "Weather", "input_schema": weatherSchema}}

func TestTapeRecordsAndReplaysAConversation(t *testing.T) {
	dir := t.TempDir()
	up := newUpstream(t, 15*time.Millisecond, make(chan struct{}))
	rec := tapeServer(t, TapeConfig{Upstream: up.URL, Record: dir})

	// Turn 1, streamed: the client reads the first event while the upstream still holds its last.
	first := msgBody("tools", weatherTools, "stream", true, "messages", userTurn("What is the weather in Paris?"))
	enc, _ := json.Marshal(first)
	req, _ := http.NewRequest(http.MethodPost, rec.URL+"/v1/messages", bytes.NewReader(enc))
	req.Header.Set("X-Api-Key", liveKey)
	req.Header.Set("vendor-version", core.APIVersion)
	resp, err := rec.Server.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	br := bufio.NewReader(resp.Body)
	line, err := br.ReadString('\n')
	if err != nil || line != "event: message_start\n" {
		t.Fatalf("first line %q, %v", line, err)
	}
	close(up.gate) // only now can the upstream finish
	rest, err := io.ReadAll(br)
	resp.Body.Close()
	if err != nil {
		t.Fatal(err)
	}
	streamed := append([]byte(line), rest...)
	if resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Type") != "text/event-stream" {
		t.Fatalf("streamed turn: %d %s\n%s", resp.StatusCode, resp.Header.Get("Content-Type"), streamed)
	}
	parsed, err := wire.ParseEventStream(streamed)
	if err != nil {
		t.Fatal(err)
	}
	turn1, err := wire.AccumulateMessage(parsed)
	if err != nil || *turn1.StopReason != "tool_use" {
		t.Fatalf("turn 1: %v %+v", err, turn1)
	}

	// Turn 2, not streamed: the tool result goes back.
	use := turn1.Content[len(turn1.Content)-1]
	second := msgBody("tools", weatherTools, "messages", []any{
		map[string]any{"role": "user", "content": "What is the weather in Paris?"},
		map[string]any{"role": "assistant", "content": turn1.Content},
		map[string]any{"role": "user", "content": []any{map[string]any{"type": "tool_result", "tool_use_id": use["id"], "content": "18 C, sunny"}}},
	})
	status, _, plain := tapeCall(t, rec, http.MethodPost, "/v1/messages", second)
	if status != http.StatusOK || gjson.GetBytes(plain, "stop_reason").String() != "end_turn" {
		t.Fatalf("turn 2: %d %s", status, plain)
	}
	files := recordings(t, dir)
	if len(files) != 2 || !strings.HasPrefix(files[0], "messages-") || !slicesHasPrefix(files, "messages-what-is-the-weather-in-") {
		t.Fatalf("recordings: %v", files)
	}
	hits := up.hits.Load()
	up.Close()

	// Replay with the upstream gone: the same events, cut at the same places, and the same body
	// but for the message id, which is the replaying server's.
	play := tapeServer(t, TapeConfig{Replay: dir, OnMiss: OnMissError})
	status, h, again := tapeCall(t, play, http.MethodPost, "/v1/messages", first)
	if status != http.StatusOK || h.Get("Content-Type") != "text/event-stream" {
		t.Fatalf("replayed stream: %d %s", status, again)
	}
	if got, want := eventChunks(again), eventChunks(streamed); strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("replayed events differ:\n got %d: %q\nwant %d: %q", len(got), got, len(want), want)
	}
	status, _, plainAgain := tapeCall(t, play, http.MethodPost, "/v1/messages", second)
	if status != http.StatusOK || withoutID(t, plainAgain) != withoutID(t, plain) {
		t.Errorf("replayed turn 2: %d\n got %s\nwant %s", status, plainAgain, plain)
	}

	// Each recording also answers the other way of asking: the stream accumulated, the body streamed.
	status, _, whole := tapeCall(t, play, http.MethodPost, "/v1/messages", with(maps.Clone(first), []any{"stream", nil}))
	if status != http.StatusOK || gjson.GetBytes(whole, "content").Raw != mustJSON(t, turn1.Content) || gjson.GetBytes(whole, "stop_reason").String() != "tool_use" {
		t.Errorf("turn 1 without stream: %d %s\nwant content %s", status, whole, mustJSON(t, turn1.Content))
	}
	status, _, streamed2 := tapeCall(t, play, http.MethodPost, "/v1/messages", with(maps.Clone(second), []any{"stream", true}))
	parsed2, _ := wire.ParseEventStream(streamed2)
	acc, err := wire.AccumulateMessage(parsed2)
	if status != http.StatusOK || err != nil || mustJSON(t, acc.Content) != gjson.GetBytes(plain, "content").Raw {
		t.Errorf("turn 2 streamed: %d %v\n%s", status, err, streamed2)
	}
	if up.hits.Load() != hits {
		t.Errorf("the replay reached the upstream: %d requests, %d when recording", up.hits.Load(), hits)
	}

	// At recorded speed, the replay takes as long as the upstream took between its first and
	// last event.
	var offsets []float64
	for _, f := range files {
		data, _ := os.ReadFile(filepath.Join(dir, f))
		for _, o := range gjson.GetBytes(data, "response.events.#.offset_ms").Array() {
			offsets = append(offsets, o.Float())
		}
	}
	if len(offsets) < 5 {
		t.Fatalf("the streamed recording holds %d offsets", len(offsets))
	}
	span := time.Duration((offsets[len(offsets)-1] - offsets[0]) * float64(time.Millisecond))
	if span < time.Duration(len(offsets)-2)*up.delay {
		t.Errorf("recorded offsets span %v over %d events paused %v apart", span, len(offsets), up.delay)
	}
	slow := tapeServer(t, TapeConfig{Replay: dir, Speed: 1})
	began := time.Now()
	if status, _, _ := tapeCall(t, slow, http.MethodPost, "/v1/messages", first); status != http.StatusOK {
		t.Fatal(status)
	}
	if took := time.Since(began); took < span {
		t.Errorf("replay at speed 1 took %v; the recording spans %v", took, span)
	}
}

func slicesHasPrefix(list []string, prefix string) bool {
	for _, s := range list {
		if strings.HasPrefix(s, prefix) {
			return true
		}
	}
	return false
}

func withoutID(t *testing.T, body []byte) string {
	var m map[string]any
	if err := json.Unmarshal(body, &m); err != nil {
		t.Fatalf("%v: %s", err, body)
	}
	delete(m, "id")
	return mustJSON(t, m)
}

// recordOne records the answers to the requests through a fresh recording server, and returns
// the directory.
func recordOne(t *testing.T, requests ...func(ts *TestServer)) string {
	t.Helper()
	dir := t.TempDir()
	up := newUpstream(t, 0, nil)
	ts := tapeServer(t, TapeConfig{Upstream: up.URL, Record: dir})
	for _, r := range requests {
		r(ts)
	}
	return dir
}

func recordPost(t *testing.T, path string, body any) func(ts *TestServer) {
	return func(ts *TestServer) {
		if status, _, out := tapeCall(t, ts, http.MethodPost, path, body); status != http.StatusOK {
			t.Fatalf("POST %s: %d %s", path, status, out)
		}
	}
}

func TestTapeMatchesCanonically(t *testing.T) {
	base := `{"model":"` + testModel + `","max_tokens":200,"messages":[{"role":"user","content":"Hello there"}]}`
	dir := recordOne(t, recordPost(t, "/v1/messages", base))
	play := tapeServer(t, TapeConfig{Replay: dir, OnMiss: OnMissError})
	for name, body := range map[string]string{
		"as recorded":      base,
		"keys reordered":   `{"messages":[{"content":"Hello there","role":"user"}],"max_tokens":200,"model":"` + testModel + `"}`,
		"whitespace":       "{\n  \"model\": \"" + testModel + "\",\n  \"max_tokens\": 200,\n  \"messages\": [ {\"role\": \"user\", \"content\": \"Hello there\"} ]\n}",
		"stream false":     `{"stream":false,"model":"` + testModel + `","max_tokens":200,"messages":[{"role":"user","content":"Hello there"}]}`,
		"metadata added":   `{"metadata":{"user_id":"u-123"},"model":"` + testModel + `","max_tokens":200,"messages":[{"role":"user","content":"Hello there"}]}`,
		"streamed, tagged": `{"stream":true,"metadata":{"user_id":"u-9"},"model":"` + testModel + `","max_tokens":200,"messages":[{"role":"user","content":"Hello there"}]}`,
	} {
		if status, _, out := tapeCall(t, play, http.MethodPost, "/v1/messages", body); status != http.StatusOK {
			t.Errorf("%s: %d %s", name, status, out)
		}
	}
	for name, body := range map[string]string{
		"max_tokens":      strings.Replace(base, "200", "201", 1),
		"text":            strings.Replace(base, "Hello there", "Hello there!", 1),
		"content as list": strings.Replace(base, `"Hello there"`, `[{"type":"text","text":"Hello there"}]`, 1),
		"temperature":     strings.Replace(base, `"max_tokens"`, `"temperature":0.5,"max_tokens"`, 1),
	} {
		status, _, out := tapeCall(t, play, http.MethodPost, "/v1/messages", body)
		if msg := gjson.GetBytes(out, "error.message").String(); status != http.StatusNotFound || !strings.Contains(msg, "no recording matches POST /v1/messages") {
			t.Errorf("%s: %d %s; want a miss", name, status, out)
		}
	}
	// Different bodies on another route, or the same one elsewhere, are other requests.
	status, _, out := tapeCall(t, play, http.MethodPost, "/v1/messages/count_tokens", `{"model":"`+testModel+`","messages":[{"role":"user","content":"Hello there"}]}`)
	if status != http.StatusNotFound {
		t.Errorf("count_tokens with the messages body: %d %s", status, out)
	}
}

func TestRequestKeyIgnoresOnlyWhatDoesNotChangeTheAnswer(t *testing.T) {
	key := func(q, body string) string {
		k, err := tape.RequestKey("POST", "/v1/messages", q, []byte(body))
		if err != nil {
			t.Fatal(err)
		}
		return k
	}
	same := [][2]string{
		{`{"a":1,"b":[1,2]}`, ` { "b" : [1, 2], "a" : 1 } `},
		{`{"a":1}`, `{"a":1,"stream":true,"metadata":{"user_id":"x"}}`},
	}
	for _, p := range same {
		if key("", p[0]) != key("", p[1]) {
			t.Errorf("%s and %s should match", p[0], p[1])
		}
	}
	differ := [][2]string{
		{`{"a":1}`, `{"a":1.0}`},
		{`{"a":1}`, `{"a":"1"}`},
		{`{"b":[1,2]}`, `{"b":[2,1]}`},
		{`{"a":{"stream":true}}`, `{"a":{}}`}, // only top-level stream is delivery
	}
	for _, p := range differ {
		if key("", p[0]) == key("", p[1]) {
			t.Errorf("%s and %s should not match", p[0], p[1])
		}
	}
	if key("limit=2&after_id=x", "") != key("after_id=x&limit=2", "") || key("limit=2", "") == key("limit=3", "") {
		t.Error("query parameters: order must not matter, values must")
	}
}

func TestTapeOnMiss(t *testing.T) {
	recorded := msgBody("messages", userTurn("recorded turn"))
	missed := msgBody("messages", userTurn("a turn nobody recorded"))

	t.Run("model", func(t *testing.T) {
		dir := recordOne(t, recordPost(t, "/v1/messages", recorded))
		up := newUpstream(t, 0, nil)
		play := tapeServer(t, TapeConfig{Replay: dir, Upstream: up.URL}) // the default
		status, _, out := tapeCall(t, play, http.MethodPost, "/v1/messages", missed)
		plain := create(t, NewTestServer(t), missed)
		if status != http.StatusOK || gjson.GetBytes(out, "content").Raw != plain.Get("content").Raw {
			t.Errorf("a miss: %d %s\nwant the scripted model's %s", status, out, plain.Get("content").Raw)
		}
		if up.hits.Load() != 0 {
			t.Errorf("a miss answered by the model reached the upstream %d times", up.hits.Load())
		}
	})
	t.Run("error", func(t *testing.T) {
		dir := recordOne(t, recordPost(t, "/v1/messages", recorded))
		up := newUpstream(t, 0, nil)
		play := tapeServer(t, TapeConfig{Replay: dir, Upstream: up.URL, OnMiss: OnMissError})
		status, _, out := tapeCall(t, play, http.MethodPost, "/v1/messages", missed)
		msg := gjson.GetBytes(out, "error.message").String()
		if status != http.StatusNotFound || gjson.GetBytes(out, "error.type").String() != "not_found_error" ||
			!strings.Contains(msg, filepath.Join(dir, "messages-a-turn-nobody-recorded-")) {
			t.Errorf("a miss: %d %s", status, out)
		}
		status, _, out = tapeCall(t, play, http.MethodGet, "/v1/models", nil)
		if status != http.StatusNotFound || !strings.Contains(gjson.GetBytes(out, "error.message").String(), filepath.Join(dir, "models-")) {
			t.Errorf("a models miss: %d %s", status, out)
		}
		if up.hits.Load() != 0 {
			t.Errorf("misses reached the upstream %d times", up.hits.Load())
		}
	})
	t.Run("upstream", func(t *testing.T) {
		dir := recordOne(t, recordPost(t, "/v1/messages", recorded))
		up := newUpstream(t, 0, nil)
		play := tapeServer(t, TapeConfig{Replay: dir, Upstream: up.URL, OnMiss: OnMissUpstream})
		for range 2 {
			if status, _, out := tapeCall(t, play, http.MethodPost, "/v1/messages", missed); status != http.StatusOK {
				t.Fatalf("a miss: %d %s", status, out)
			}
		}
		if status, _, out := tapeCall(t, play, http.MethodPost, "/v1/messages", recorded); status != http.StatusOK {
			t.Fatalf("a hit: %d %s", status, out)
		}
		if up.hits.Load() != 1 {
			t.Errorf("the upstream answered %d requests; want the first miss only", up.hits.Load())
		}
		if files := recordings(t, dir); len(files) != 2 {
			t.Errorf("recordings after the miss was forwarded: %v", files)
		}
	})
}

func TestTapeRefusesRecordingsItCouldNotServe(t *testing.T) {
	good := recordOne(t, recordPost(t, "/v1/messages", msgBody("stream", true)))
	files := recordings(t, good)
	if len(files) != 1 {
		t.Fatal(files)
	}
	original, err := os.ReadFile(filepath.Join(good, files[0]))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, want string
		edit       func(r map[string]any, resp map[string]any, evs []any) any
	}{
		{"a stop reason outside the schema", "response.events.", func(r, resp map[string]any, evs []any) any {
			last := evs[len(evs)-2].(map[string]any)["data"].(map[string]any)
			last["delta"].(map[string]any)["stop_reason"] = "finished"
			return r
		}},
		{"a delta before its block starts", "response.events: content_block_delta for block 0 while block -1 is open", func(r, resp map[string]any, evs []any) any {
			a, b := evs[2].(map[string]any), evs[3].(map[string]any)
			a["event"], a["data"], b["event"], b["data"] = b["event"], b["data"], a["event"], a["data"]
			return r
		}},
		{"an event whose name is not its type", "response.events.1.event", func(r, resp map[string]any, evs []any) any {
			evs[1].(map[string]any)["event"] = "pong"
			return r
		}},
		{"no message_stop", "message_stop", func(r, resp map[string]any, evs []any) any {
			resp["events"] = evs[:len(evs)-1]
			return r
		}},
		{"a credential in the request", "request.headers.x-api-key", func(r, resp map[string]any, evs []any) any {
			r["request"].(map[string]any)["headers"] = map[string]any{"x-api-key": "sk-something"}
			return r
		}},
		{"a cookie in the answer", "response.headers.set-cookie", func(r, resp map[string]any, evs []any) any {
			resp["headers"] = map[string]any{"set-cookie": "a=b"}
			return r
		}},
		{"a request the route refuses", "request.body.max_tokens", func(r, resp map[string]any, evs []any) any {
			r["request"].(map[string]any)["body"].(map[string]any)["max_tokens"] = "many"
			return r
		}},
		{"an unknown field", "respnse", func(r, resp map[string]any, evs []any) any {
			r["respnse"] = 1
			return r
		}},
		{"a route no tape records", "request.path", func(r, resp map[string]any, evs []any) any {
			r["request"].(map[string]any)["path"] = "/v1/memory_stores"
			return r
		}},
		{"both a body and events", "response: give the body or the events", func(r, resp map[string]any, evs []any) any {
			resp["body"] = map[string]any{}
			return r
		}},
		{"an offset_ms past an hour", "offset_ms", func(r, resp map[string]any, evs []any) any {
			evs[len(evs)-1].(map[string]any)["offset_ms"] = 3_600_001
			return r
		}},
		{"more events than a recording holds", "response.events: 100001 events, more than the 100000 a recording holds", func(r, resp map[string]any, evs []any) any {
			many := make([]any, 100_001)
			for i := range many {
				many[i] = map[string]any{} // counted before any is checked
			}
			resp["events"] = many
			return r
		}},
		{"an array at the top", "the file's top level: expected object, but got array", func(r, resp map[string]any, evs []any) any {
			return []any{r}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var r map[string]any
			_ = json.Unmarshal(original, &r)
			resp := r["response"].(map[string]any)
			evs := resp["events"].([]any)
			data, _ := json.MarshalIndent(tc.edit(r, resp, evs), "", "  ")
			dir := t.TempDir()
			file := filepath.Join(dir, "broken.json")
			if err := os.WriteFile(file, data, 0o644); err != nil {
				t.Fatal(err)
			}
			_, err := OpenTape(TapeConfig{Replay: dir})
			if err == nil || !strings.HasPrefix(err.Error(), file+": ") || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v; want one naming %s and %q", err, file, tc.want)
			}
		})
	}

	t.Run("a truncated recording", func(t *testing.T) {
		dir := t.TempDir()
		file := filepath.Join(dir, "cut.json")
		if err := os.WriteFile(file, []byte("{\n  \"request\": {\n    \"method\": \"POST\""), 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := OpenTape(TapeConfig{Replay: dir})
		if want := file + ":3:20: "; err == nil || !strings.HasPrefix(err.Error(), want) {
			t.Errorf("error %v; want one starting %q", err, want)
		}
	})
	t.Run("two recordings of one request", func(t *testing.T) {
		dir := t.TempDir()
		for _, name := range []string{"a.json", "b.json"} {
			if err := os.WriteFile(filepath.Join(dir, name), original, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		_, err := OpenTape(TapeConfig{Replay: dir})
		if err == nil || !strings.Contains(err.Error(), "b.json: records the same request as "+filepath.Join(dir, "a.json")) {
			t.Errorf("error %v", err)
		}
	})
	t.Run("a directory that names no namespace", func(t *testing.T) {
		dir := t.TempDir()
		if err := os.Mkdir(filepath.Join(dir, "no spaces"), 0o755); err != nil {
			t.Fatal(err)
		}
		if _, err := OpenTape(TapeConfig{Replay: dir}); err == nil || !strings.Contains(err.Error(), "namespace") {
			t.Errorf("error %v", err)
		}
	})
}

func TestTapeConfigIsChecked(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		cfg  TapeConfig
		want string
	}{
		{TapeConfig{}, "needs a directory"},
		{TapeConfig{Record: dir}, "upstream: recording needs"},
		{TapeConfig{Record: dir, Upstream: "ftp://example.com"}, "not an http or https base URL"},
		{TapeConfig{Record: dir, Replay: dir, Upstream: "http://127.0.0.1:1"}, "exclude each other"},
		{TapeConfig{Replay: dir, OnMiss: OnMissUpstream}, "upstream: recording needs"},
		{TapeConfig{Replay: dir, OnMiss: "maybe"}, `"maybe" is not one of`},
		{TapeConfig{Replay: dir, Speed: -1}, "speed"},
		{TapeConfig{Replay: filepath.Join(dir, "missing")}, "replay:"},
	} {
		if _, err := OpenTape(tc.cfg); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: %v; want %q", tc.cfg, err, tc.want)
		}
	}
}

func TestTapeNeverWritesCredentials(t *testing.T) {
	const bearer, cookie = "sk-bearer-secret-9876543210", "session-cookie-secret-value"
	dir := t.TempDir()
	up := newUpstream(t, 0, nil)
	ts := tapeServer(t, TapeConfig{Upstream: up.URL, Record: dir, RecordErrors: true})
	secrets := []string{"X-Api-Key", liveKey, "Authorization", "Bearer " + bearer, "Cookie", "session=" + cookie}
	completeBody := map[string]any{"model": testModel, "max_tokens_to_sample": 50, "prompt": "\n\nHuman: Hi\n\nAssistant:"}
	calls := []struct {
		method, path string
		body         any
	}{
		{http.MethodPost, "/v1/messages", msgBody()},
		{http.MethodPost, "/v1/messages", msgBody("stream", true, "messages", userTurn("Streamed"))},
		{http.MethodPost, "/v1/messages/count_tokens", map[string]any{"model": testModel, "messages": userTurn("Hi")}},
		{http.MethodPost, "/v1/complete", completeBody},
		{http.MethodPost, "/v1/complete", with(map[string]any{"stream": true}, []any{"model", testModel, "max_tokens_to_sample", 50, "prompt", "\n\nHuman: Stream it\n\nAssistant:"})},
		{http.MethodGet, "/v1/models", nil},
		{http.MethodGet, "/v1/models/" + testModel, nil},
	}
	for _, c := range calls {
		status, _, out := tapeCall(t, ts, c.method, c.path, c.body, secrets...)
		// The upstream refuses a cookie: the tape never forwards one.
		if status != http.StatusOK {
			t.Fatalf("%s %s: %d %s", c.method, c.path, status, out)
		}
	}
	// An upstream that echoes the key into an error, with a cookie of its own.
	up.echo.Store(true)
	status, h, out := tapeCall(t, ts, http.MethodGet, "/v1/models?limit=1", nil, secrets...)
	if status != http.StatusUnauthorized || !strings.Contains(string(out), liveKey) || h.Get("Set-Cookie") == "" {
		t.Fatalf("the echoing upstream's answer reaches the client as it is: %d %s", status, out)
	}
	files := recordings(t, dir)
	if len(files) != len(calls)+1 {
		t.Fatalf("recorded %d files for %d requests: %v", len(files), len(calls)+1, files)
	}
	for _, f := range files {
		data, err := os.ReadFile(filepath.Join(dir, f))
		if err != nil {
			t.Fatal(err)
		}
		lower := strings.ToLower(string(data))
		for _, bad := range []string{strings.ToLower(liveKey), bearer, cookie, "cookie-secret-value", `"x-api-key"`, `"authorization"`, `"cookie"`, `"set-cookie"`} {
			if strings.Contains(lower, bad) {
				t.Errorf("%s holds %q:\n%s", f, bad, data)
			}
		}
	}
	// The error was recorded with the key replaced, and replays so.
	play := tapeServer(t, TapeConfig{Replay: dir, OnMiss: OnMissError})
	status, _, out = tapeCall(t, play, http.MethodGet, "/v1/models?limit=1", nil)
	if status != http.StatusUnauthorized || gjson.GetBytes(out, "error.message").String() != "key [redacted] is revoked" ||
		!strings.HasPrefix(gjson.GetBytes(out, "request_id").String(), "req_") || gjson.GetBytes(out, "request_id").String() == "req_upstream" {
		t.Errorf("replayed error: %d %s", status, out)
	}
	for _, c := range calls {
		if status, _, out := tapeCall(t, play, c.method, c.path, c.body); status != http.StatusOK {
			t.Errorf("replay %s %s: %d %s", c.method, c.path, status, out)
		}
	}
}

func TestTapeRecordsErrorsOnlyWhenAsked(t *testing.T) {
	dir := t.TempDir()
	up := newUpstream(t, 0, nil)
	up.echo.Store(true)
	ts := tapeServer(t, TapeConfig{Upstream: up.URL, Record: dir})
	if status, _, _ := tapeCall(t, ts, http.MethodGet, "/v1/models", nil); status != http.StatusUnauthorized {
		t.Fatalf("status %d", status)
	}
	if files := recordings(t, dir); len(files) != 0 {
		t.Errorf("an error was recorded without RecordErrors: %v", files)
	}
}

func TestTapeReplayFollowsTheFakesRules(t *testing.T) {
	body := msgBody("messages", userTurn("count me"))
	countBody := with(msgBody("messages", userTurn("count me")), []any{"max_tokens", nil})
	dir := recordOne(t, recordPost(t, "/v1/messages", body), recordPost(t, "/v1/messages/count_tokens", countBody))
	// Someone edits the recordings: the id and the counts are not what a replay answers with.
	for _, f := range recordings(t, dir) {
		p := filepath.Join(dir, f)
		data, _ := os.ReadFile(p)
		data = bytes.Replace(data, []byte(`"input_tokens": `), []byte(`"input_tokens": 9`), 1)
		data = bytes.Replace(data, []byte(`"id": "msg_01`), []byte(`"id": "msg_99`), 1)
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	plain := NewTestServer(t)
	_, wantH, want, err := roundTrip(context.Background(), plain, http.MethodPost, "/v1/messages", body, "X-Api-Key", core.DefaultAPIKey, "vendor-version", core.APIVersion)
	if err != nil {
		t.Fatal(err)
	}
	play := tapeServer(t, TapeConfig{Replay: dir, OnMiss: OnMissError})
	_, h, out := tapeCall(t, play, http.MethodPost, "/v1/messages", body)
	got := gjson.ParseBytes(out)
	if got.Get("id").String() != gjson.GetBytes(want, "id").String() || got.Get("usage").Raw != gjson.GetBytes(want, "usage").Raw ||
		h.Get("Request-Id") != wantH.Get("Request-Id") {
		t.Errorf("replayed %s (request-id %s)\nwant the id, usage and request-id of %s (%s)", out, h.Get("Request-Id"), want, wantH.Get("Request-Id"))
	}
	_, _, counted := tapeCall(t, play, http.MethodPost, "/v1/messages/count_tokens", countBody)
	if gjson.GetBytes(counted, "input_tokens").Int() != gjson.GetBytes(want, "usage.input_tokens").Int() {
		t.Errorf("count_tokens replayed %s; usage says %d", counted, gjson.GetBytes(want, "usage.input_tokens").Int())
	}
}

func TestTapeNamespaces(t *testing.T) {
	dir := t.TempDir()
	up := newUpstream(t, 0, nil)
	ts := tapeServer(t, TapeConfig{Upstream: up.URL, Record: dir})
	body := msgBody("messages", userTurn("only in alpha"))
	if status, _, out := tapeCall(t, ts, http.MethodPost, "/ns/alpha/v1/messages", body); status != http.StatusOK {
		t.Fatalf("%d %s", status, out)
	}
	if status, _, out := tapeCall(t, ts, http.MethodPost, "/v1/messages", msgBody("messages", userTurn("default"))); status != http.StatusOK {
		t.Fatalf("%d %s", status, out)
	}
	files := recordings(t, dir)
	if len(files) != 2 || !slicesHasPrefix(files, filepath.Join("alpha", "messages-only-in-alpha-")) || !slicesHasPrefix(files, "messages-default-") {
		t.Fatalf("recordings: %v", files)
	}
	play := tapeServer(t, TapeConfig{Replay: dir, OnMiss: OnMissError})
	if status, _, out := tapeCall(t, play, http.MethodPost, "/v1/messages", body, core.NamespaceHeader, "alpha"); status != http.StatusOK {
		t.Errorf("alpha's recording in alpha: %d %s", status, out)
	}
	for _, path := range []string{"/v1/messages", "/ns/beta/v1/messages"} {
		status, _, out := tapeCall(t, play, http.MethodPost, path, body)
		if status != http.StatusNotFound {
			t.Errorf("alpha's recording at %s: %d %s", path, status, out)
		}
	}
	status, _, out := tapeCall(t, play, http.MethodPost, "/ns/beta/v1/messages", body)
	if !strings.Contains(gjson.GetBytes(out, "error.message").String(), filepath.Join(dir, "beta", "messages-only-in-alpha-")) {
		t.Errorf("beta's miss names %d %s", status, out)
	}
}

func TestTapePassesThroughButDoesNotRecordOversizedAnswers(t *testing.T) {
	big := bytes.Repeat([]byte("x"), MaxRecordedBytes)
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(`{"data":[],"has_more":false,"first_id":null,"last_id":null,"padding":"`))
		w.Write(big)
		w.Write([]byte(`"}`))
	}))
	defer up.Close()
	dir := t.TempDir()
	tape, err := OpenTape(TapeConfig{Upstream: up.URL, Record: dir})
	if err != nil {
		t.Fatal(err)
	}
	var log bytes.Buffer
	ts := &TestServer{Server: httptest.NewServer(New(WithTape(tape), WithLogger(slog.New(slog.NewTextHandler(&log, nil)))))}
	defer ts.Close()
	status, _, out := tapeCall(t, ts, http.MethodGet, "/v1/models", nil)
	if status != http.StatusOK || len(out) != len(big)+len(`{"data":[],"has_more":false,"first_id":null,"last_id":null,"padding":""}`) {
		t.Errorf("pass-through: %d, %d bytes", status, len(out))
	}
	if !strings.Contains(log.String(), "the body is over the limit of 8388608 bytes") {
		t.Errorf("the log does not say why nothing was recorded:\n%s", log.String())
	}
	if files := recordings(t, dir); len(files) != 0 {
		t.Errorf("an answer over the limit was recorded: %v", files)
	}
}

func TestTapeAcceptsOnlyPresentCredentials(t *testing.T) {
	dir := recordOne(t, recordPost(t, "/v1/messages", msgBody()))
	play := tapeServer(t, TapeConfig{Replay: dir})
	status, _, out := tapeCall(t, play, http.MethodPost, "/v1/messages", msgBody(), "X-Api-Key", "")
	if status != http.StatusUnauthorized {
		t.Errorf("no credential: %d %s", status, out)
	}
	status, _, out = tapeCall(t, play, http.MethodPost, "/v1/messages", msgBody(), "X-Api-Key", core.DefaultAdminKey)
	if status != http.StatusForbidden {
		t.Errorf("the fake's admin key on messages: %d %s", status, out)
	}
	// The rest of the API keeps its own credentials.
	status, _, _ = tapeCall(t, play, http.MethodGet, "/v1/memory_stores", nil)
	if status != http.StatusUnauthorized {
		t.Errorf("an unknown key on memory stores: %d", status)
	}
}

// benchTape records body once from a second fake, then measures answering it from the tape,
// against BenchmarkCreateMessage and BenchmarkCreateMessageStream, which answer the same body
// with the scripted model.
func benchTape(b *testing.B, body map[string]any) {
	dir := b.TempDir()
	upstreamTS := NewTestServer(b)
	tape, err := OpenTape(TapeConfig{Upstream: upstreamTS.URL, Record: dir})
	if err != nil {
		b.Fatal(err)
	}
	rec := NewTestServer(b, WithTape(tape))
	data, _ := json.Marshal(body)
	if status, out := postMessages(b, rec, "/v1/messages", string(data)); status != http.StatusOK {
		b.Fatalf("%d %s", status, out)
	}
	if tape, err = OpenTape(TapeConfig{Replay: dir, OnMiss: OnMissError}); err != nil {
		b.Fatal(err)
	}
	ts := NewTestServer(b, WithTape(tape))
	b.ReportAllocs()
	for b.Loop() {
		if status, out := postMessages(b, ts, "/v1/messages", string(data)); status != http.StatusOK {
			b.Fatalf("%d %s", status, out)
		}
	}
}

func BenchmarkReplayMessage(b *testing.B) { benchTape(b, msgBody()) }

func BenchmarkReplayMessageStream(b *testing.B) { benchTape(b, msgBody("stream", true)) }

// FuzzRecording holds any recording file to this: it loads, or is refused with the file named;
// and a recording that loads is replayed, with and without stream, within the schemas (the
// violation handler fails the run) and without a 5xx the recording did not hold.
func FuzzRecording(f *testing.F) {
	seeds, _ := filepath.Glob("../examples/messages-record-replay/testdata/recordings/*.json")
	for _, p := range seeds {
		data, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
		f.Add(data[:len(data)/2])
	}
	f.Add([]byte(`{"request":{"method":"GET","path":"/v1/models"},"response":{"status":529,"body":{"type":"error","error":{"type":"overloaded_error","message":"busy"},"request_id":"req_1"}}}`))
	f.Add([]byte(`{"request":{"method":"POST","path":"/v1/complete","body":{"model":"m","max_tokens_to_sample":5,"prompt":"\n\nHuman: a\n\nAssistant:"}},"response":{"status":200,"events":[{"offset_ms":0,"event":"completion","data":{"type":"completion","id":"compl_1","completion":" b","model":"m","stop_reason":null}},{"offset_ms":1,"event":"completion","data":{"type":"completion","id":"compl_1","completion":"","model":"m","stop_reason":"stop_sequence"}}]}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		// As OpenTape loads a file, without the file system, which would slow the fuzzer down.
		tp, rec, err := tape.TapeOf("r.json", data)
		if err != nil {
			if !strings.HasPrefix(err.Error(), "r.json: ") {
				t.Fatalf("refusal does not name the file: %v", err)
			}
			return
		}
		s := New(WithTape(tp), WithViolationHandler(func(msg string) { t.Errorf("fake: %s", msg) }))
		r := rec.Request
		for _, stream := range []any{nil, true} {
			body := string(r.Body)
			if len(r.Body) > 0 && rec.Kind().Rt.Events != "" {
				var m map[string]any
				_ = tape.DecodeNumbers(r.Body, &m)
				m["stream"] = stream
				if stream == nil {
					delete(m, "stream")
				}
				b, _ := json.Marshal(m)
				body = string(b)
			}
			w := fuzzSend(s, r.Method, r.Path, r.Query, body, "X-Api-Key", liveKey, "vendor-version", core.APIVersion)
			if w.Code >= 500 && w.Code != rec.Response.Status && !failedEvents(rec) {
				t.Fatalf("%s %s: %d %.500s", r.Method, r.Path, w.Code, w.Body)
			}
		}
	})
}

// failedEvents reports whether a recorded stream ends in an error event, which a request without
// stream is answered with, 5xx included.
func failedEvents(rec *tape.Recording) bool {
	evs := rec.Response.Events
	return len(evs) > 0 && evs[len(evs)-1].Event == "error"
}

// A deployment that fails mid-stream sends an error event after some events: recorded with
// RecordErrors only, replayed event for event, and as its error to a request without stream.
func TestTapeStreamsThatFail(t *testing.T) {
	for _, route := range []struct {
		path string
		body map[string]any
	}{
		{"/v1/messages", msgBody("stream", true)},
		{"/v1/complete", map[string]any{"stream": true, "model": testModel, "max_tokens_to_sample": 50, "prompt": "\n\nHuman: Hi\n\nAssistant:"}},
	} {
		t.Run(route.path, func(t *testing.T) {
			for _, recordErrors := range []bool{false, true} {
				dir := t.TempDir()
				up := newUpstream(t, 0, nil)
				if _, err := up.inner.InjectFault(core.Fault{Path: route.path, StreamEvents: 3, Status: 529}); err != nil {
					t.Fatal(err)
				}
				rec := tapeServer(t, TapeConfig{Upstream: up.URL, Record: dir, RecordErrors: recordErrors})
				_, _, cut := tapeCall(t, rec, http.MethodPost, route.path, route.body)
				if evs := eventChunks(cut); len(evs) != 4 || !strings.HasPrefix(evs[3], "event: error\n") {
					t.Fatalf("the upstream's stream: %q", evs)
				}
				files := recordings(t, dir)
				if !recordErrors {
					if len(files) != 0 {
						t.Errorf("recorded without RecordErrors: %v", files)
					}
					continue
				}
				if len(files) != 1 {
					t.Fatalf("recordings: %v", files)
				}
				play := tapeServer(t, TapeConfig{Replay: dir, OnMiss: OnMissError})
				status, h, again := tapeCall(t, play, http.MethodPost, route.path, route.body)
				got, want := eventChunks(again), eventChunks(cut)
				if status != http.StatusOK || len(got) != len(want) || got[1] != want[1] || got[2] != want[2] ||
					gjson.Get(strings.TrimPrefix(got[3], "event: error\ndata: "), "request_id").String() != h.Get("Request-Id") {
					t.Errorf("replayed: %d %q\nwant %q", status, got, want)
				}
				status, _, plain := tapeCall(t, play, http.MethodPost, route.path, with(maps.Clone(route.body), []any{"stream", nil}))
				if status != 529 || gjson.GetBytes(plain, "error.type").String() != "overloaded_error" {
					t.Errorf("without stream: %d %s", status, plain)
				}
			}
		})
	}
}

// A client that stops reading at the end of the answer (a JSON decoder, an SDK that stops at
// message_stop) finds the recording written: the end of the answer leaves only once it is.
func TestTapeRecordingIsWrittenWhenTheAnswerEnds(t *testing.T) {
	for name, body := range map[string]map[string]any{"body": msgBody(), "stream": msgBody("stream", true)} {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			up := newUpstream(t, 0, nil)
			ts := tapeServer(t, TapeConfig{Upstream: up.URL, Record: dir})
			enc, _ := json.Marshal(body)
			req, _ := http.NewRequest(http.MethodPost, ts.URL+"/v1/messages", bytes.NewReader(enc))
			req.Header.Set("X-Api-Key", liveKey)
			req.Header.Set("vendor-version", core.APIVersion)
			resp, err := ts.Server.Client().Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			if name == "body" {
				var m wire.Message
				if err := json.NewDecoder(resp.Body).Decode(&m); err != nil {
					t.Fatal(err)
				}
			} else {
				br := bufio.NewReader(resp.Body)
				for {
					line, err := br.ReadString('\n')
					if err != nil {
						t.Fatal(err)
					}
					if strings.HasPrefix(line, "data: ") && strings.Contains(line, `"type":"message_stop"`) {
						break
					}
				}
			}
			if files := recordings(t, dir); len(files) != 1 {
				t.Errorf("the client has the whole answer, and the recordings are %v", files)
			}
		})
	}
}
