package fake

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/platformkit/platformkit/fake/internal/areas/messages/stubs"

	"github.com/platformkit/platformkit/fake/internal/core"

	"github.com/tidwall/gjson"
)

// The token counts below are worked out by hand from the fake's counter (messages_model.go): a
// word is one token, every object and array one more, every other scalar one. So
//
//	{"type": "text", "text": <n words>}                                       n+2
//	{"type": "text", "text": <n words>, "cache_control": {"type": "ephemeral"}} n+4
//	... with "ttl"                                                              n+5
//
// and the messages array, a message object, its role and its content array are one each.

// cacheModel has the 1,024-token minimum.
const cacheModel = "assistant-sonnet-4-6"

func words(n int) string { return strings.TrimSpace(strings.Repeat("w ", n)) }

var (
	cc5m = map[string]any{"type": "ephemeral"}
	cc1h = map[string]any{"type": "ephemeral", "ttl": "1h"}
)

func textBlock(n int, cc map[string]any) map[string]any {
	b := map[string]any{"type": "text", "text": words(n)}
	if cc != nil {
		b["cache_control"] = cc
	}
	return b
}

func cacheBody(kv ...any) map[string]any {
	return with(map[string]any{"model": cacheModel, "max_tokens": 20, "messages": userTurn("Hi")}, kv)
}

// usageOf is the input side of a message's usage: read, creation, 5m, 1h, input.
func usageOf(m gjson.Result) [5]int64 {
	u := m.Get("usage")
	return [5]int64{u.Get("cache_read_input_tokens").Int(), u.Get("cache_creation_input_tokens").Int(),
		u.Get("cache_creation.ephemeral_5m_input_tokens").Int(), u.Get("cache_creation.ephemeral_1h_input_tokens").Int(),
		u.Get("input_tokens").Int()}
}

func countTokensOf(t *testing.T, ts *TestServer, body map[string]any) int64 {
	t.Helper()
	status, out := postMessages(t, ts, "/v1/messages/count_tokens", without(body, "max_tokens"))
	if status != http.StatusOK {
		t.Fatalf("count_tokens = %d %s", status, out)
	}
	return gjson.GetBytes(out, "input_tokens").Int()
}

func without(b map[string]any, keys ...string) map[string]any {
	out := map[string]any{}
	for k, v := range b {
		out[k] = v
	}
	for _, k := range keys {
		delete(out, k)
	}
	return out
}

// smallConversation: a 1h system block of 1,100 words and a user turn of a 5m block of 2,000
// words and "Hi". system: 1 (array) + 1105 = 1106; messages: 4 + 2004 = 3114 at the 5m
// breakpoint; "Hi" 3 more: 3117 in all.
func smallConversation(userWords int, last string) map[string]any {
	return cacheBody("system", []any{textBlock(1100, cc1h)},
		"messages", userTurn([]any{textBlock(userWords, cc5m), map[string]any{"type": "text", "text": last}}))
}

func TestCacheUsageSmallConversation(t *testing.T) {
	ts := NewTestServer(t)
	body := smallConversation(2000, "Hi")
	if n := countTokensOf(t, ts, body); n != 3117 {
		t.Fatalf("count_tokens = %d, want 3117", n)
	}
	steps := []struct {
		name    string
		advance time.Duration
		body    map[string]any
		want    [5]int64 // read, creation, 5m, 1h, input
	}{
		{"first: both breakpoints written", 0, body, [5]int64{0, 3114, 2008, 1106, 3}},
		{"same prompt: read through the last breakpoint", time.Minute, body, [5]int64{3114, 0, 0, 0, 3}},
		{"new tail: still read", time.Minute, smallConversation(2000, "Bye now"), [5]int64{3114, 0, 0, 0, 4}},
		// A = 1106 (the system's 1h entry), B = A (no 1h breakpoint after it), C = 3114.
		{"new user block: system read, the rest written 5m", time.Minute, smallConversation(1999, "Hi"), [5]int64{1106, 2007, 2007, 0, 3}},
		// 6 minutes later the 5m entries are gone; the 1h one, refreshed at each read, is not.
		{"after 5 minutes: system read, messages written again", 6 * time.Minute, body, [5]int64{1106, 2008, 2008, 0, 3}},
	}
	for _, s := range steps {
		ts.Fake.AdvanceClock(s.advance)
		m := create(t, ts, s.body)
		if got := usageOf(m); got != s.want {
			t.Errorf("%s: usage (read, creation, 5m, 1h, input) = %v, want %v", s.name, got, s.want)
		}
	}
}

func TestCacheMinimumEdge(t *testing.T) {
	for _, c := range []struct {
		model    string
		n        int // words of the one block: its prefix is n+8 tokens
		creation int64
	}{
		{cacheModel, 1015, 0}, {cacheModel, 1016, 1024},
		{"assistant-opus-4-7", 2039, 0}, {"assistant-opus-4-7", 2040, 2048},
		{"assistant-opus-4-6", 4087, 0}, {"assistant-opus-4-6", 4088, 4096},
		{"assistant-haiku-4-5", 4087, 0}, {"assistant-haiku-4-5", 4088, 4096}, // an alias
	} {
		ts := NewTestServer(t)
		m := create(t, ts, cacheBody("model", c.model, "messages", userTurn([]any{textBlock(c.n, cc5m)})))
		want := [5]int64{0, c.creation, c.creation, 0, int64(c.n+8) - c.creation}
		if got := usageOf(m); got != want {
			t.Errorf("%s, prefix %d: usage %v, want %v", c.model, c.n+8, got, want)
		}
		if got := len(ts.Fake.CacheEntries()); got != int(min(c.creation, 1)) {
			t.Errorf("%s, prefix %d: %d entries", c.model, c.n+8, got)
		}
	}
}

// TestCacheLookbackEdge writes an entry at the first block, then asks with a breakpoint 19 and
// 20 positions later: the window of 20 positions (the breakpoint's own the first) reaches the
// entry from 19 later and not from 20.
func TestCacheLookbackEdge(t *testing.T) {
	// The first request: 4 + 1104 = 1108 tokens, written.
	first := cacheBody("messages", userTurn([]any{textBlock(1100, cc5m)}))
	later := func(extra int) map[string]any {
		blocks := []any{textBlock(1100, nil)}
		for i := 1; i <= extra; i++ {
			var cc map[string]any
			if i == extra {
				cc = cc5m
			}
			blocks = append(blocks, textBlock(1, cc))
		}
		return cacheBody("messages", userTurn(blocks))
	}
	// 19 more: 4 + 1102 (no marker now) + 18*3 + 5 = 1165; the hit is at 4 + 1102 = 1106.
	// 20 more: 1168, all written.
	for _, c := range []struct {
		extra int
		want  [5]int64
	}{{19, [5]int64{1106, 59, 59, 0, 0}}, {20, [5]int64{0, 1168, 1168, 0, 0}}} {
		ts := NewTestServer(t)
		create(t, ts, first)
		if got := usageOf(create(t, ts, later(c.extra))); got != c.want {
			t.Errorf("breakpoint %d positions on: usage %v, want %v", c.extra, got, c.want)
		}
	}
}

// A run of tool_use blocks is one position, and so is a run of tool_result blocks.
func TestCacheLookbackCountsToolRunsAsOnePosition(t *testing.T) {
	ts := NewTestServer(t)
	create(t, ts, cacheBody("messages", userTurn([]any{textBlock(1100, cc5m)})))
	var uses, results []any
	for i := range 30 {
		uses = append(uses, map[string]any{"type": "tool_use", "id": fmt.Sprintf("toolu_%d", i), "name": "get", "input": map[string]any{}})
		results = append(results, map[string]any{"type": "tool_result", "tool_use_id": fmt.Sprintf("toolu_%d", i), "content": "ok"})
	}
	results = append(results, textBlock(1, cc5m))
	msgs := []any{
		map[string]any{"role": "user", "content": []any{textBlock(1100, nil)}},
		map[string]any{"role": "assistant", "content": uses},
		map[string]any{"role": "user", "content": results},
	}
	// 63 blocks but 4 positions: the entry at the first is within the window.
	m := create(t, ts, cacheBody("messages", msgs, "tools", []any{map[string]any{"name": "get", "input_schema": map[string]any{"type": "object"}}}))
	if got := m.Get("usage.cache_read_input_tokens").Int(); got != 0 {
		// The tools come first: a request with tools has another prefix than one without.
		t.Errorf("read %d with tools added, want 0", got)
	}
	m = create(t, ts, cacheBody("messages", msgs))
	if got := m.Get("usage.cache_read_input_tokens").Int(); got != 1106 {
		t.Errorf("read %d, want 1106 (the first block's prefix)", got)
	}
}

func TestCacheTTLExpiryEdge(t *testing.T) {
	for _, c := range []struct {
		ttl   map[string]any
		after time.Duration
		read  int64
	}{
		{cc5m, 5*time.Minute - time.Nanosecond, 1108}, {cc5m, 5 * time.Minute, 0},
		{cc1h, time.Hour - time.Nanosecond, 1109}, {cc1h, time.Hour, 0},
	} {
		ts := NewTestServer(t)
		body := cacheBody("messages", userTurn([]any{textBlock(1100, c.ttl)}))
		create(t, ts, body)
		ts.Fake.AdvanceClock(c.after)
		if got := create(t, ts, body).Get("usage.cache_read_input_tokens").Int(); got != c.read {
			t.Errorf("ttl %v, %v later: read %d, want %d", c.ttl["ttl"], c.after, got, c.read)
		}
	}
}

// A read refreshes the entry it hits, also when a lookback found it: the second request's
// breakpoint is one block later and reads the first's entry.
func TestCacheHitRefreshesTheEntry(t *testing.T) {
	ts := NewTestServer(t)
	body := cacheBody("messages", userTurn([]any{textBlock(1100, cc5m)}))
	create(t, ts, body)
	ts.Fake.AdvanceClock(4 * time.Minute)
	// 4 + 1102 = 1106 read through the first block (unmarked now), 5 written through the second.
	longer := cacheBody("messages", userTurn([]any{textBlock(1100, nil), textBlock(1, cc5m)}))
	if got := usageOf(create(t, ts, longer)); got != [5]int64{1106, 5, 5, 0, 0} {
		t.Fatalf("read at 00:04 by lookback: usage %v", got) // the first entry now lives until 00:09
	}
	ts.Fake.AdvanceClock(4 * time.Minute)
	if got := create(t, ts, body).Get("usage.cache_read_input_tokens").Int(); got != 1108 {
		t.Fatalf("read at 00:08 = %d, want 1108", got)
	}
	status, out := roundTripBody(t, ts, http.MethodGet, "/_fake/cache")
	entry := `{"key":"%s","organization_id":"org_01AcmeCorporation00000001","workspace_id":null,"model":"assistant-sonnet-4-6","prefix_tokens":%d,"ttl":"5m","created_at":"%s","expires_at":"%s","hits":%d}`
	want := `{"data":[` + fmt.Sprintf(entry, gjson.GetBytes(out, "data.0.key"), 1111, "2026-01-01T00:04:00Z", "2026-01-01T00:09:00Z", 0) + "," +
		fmt.Sprintf(entry, gjson.GetBytes(out, "data.1.key"), 1108, "2026-01-01T00:00:00Z", "2026-01-01T00:13:00Z", 2) + `]}`
	if status != http.StatusOK || string(out) != want {
		t.Errorf("GET /_fake/cache = %d\n%s\nwant\n%s", status, out, want)
	}
	status, out = roundTripBody(t, ts, http.MethodDelete, "/_fake/cache")
	if status != http.StatusOK || string(out) != `{"cleared":2}` {
		t.Errorf("DELETE /_fake/cache = %d %s", status, out)
	}
	if got := create(t, ts, body).Get("usage.cache_creation_input_tokens").Int(); got != 1108 {
		t.Errorf("after DELETE /_fake/cache: creation %d, want 1108", got)
	}
}

func roundTripBody(t *testing.T, ts *TestServer, method, path string) (int, []byte) {
	t.Helper()
	status, _, data, err := roundTrip(context.Background(), ts, method, path, nil)
	if err != nil {
		t.Fatal(err)
	}
	return status, bytes.TrimSpace(data)
}

func TestCacheBreakpointErrors(t *testing.T) {
	ts := NewTestServer(t)
	five := []any{}
	for range 5 {
		five = append(five, textBlock(1, cc5m))
	}
	four := five[:4]
	thinking := map[string]any{"type": "thinking", "thinking": "hm", "signature": "sig", "cache_control": cc5m}
	cases := []struct {
		name, want string
		body       map[string]any
	}{
		{"five breakpoints", "messages.0.content.4.cache_control: A maximum of 4 blocks with cache_control may be provided. Found 5.",
			cacheBody("messages", userTurn(five))},
		{"four and the top-level one", "cache_control: A maximum of 4 blocks with cache_control may be provided. Found 5.",
			cacheBody("messages", userTurn(append(append([]any{}, four...), textBlock(1, nil))), "cache_control", cc5m)},
		{"1h after 5m", "messages.0.content.1.cache_control.ttl: a ttl='1h' cache_control block must not come after a ttl='5m' cache_control block. Note that blocks are processed in the following order: `tools`, `system`, `messages`.",
			cacheBody("messages", userTurn([]any{textBlock(1, cc5m), textBlock(1, cc1h)}))},
		{"1h system after a tool without ttl", "system.0.cache_control.ttl: a ttl='1h' cache_control block must not come after a ttl='5m' cache_control block. Note that blocks are processed in the following order: `tools`, `system`, `messages`.",
			cacheBody("tools", []any{map[string]any{"name": "get", "input_schema": map[string]any{"type": "object"}, "cache_control": cc5m}}, "system", []any{textBlock(1, cc1h)})},
		{"empty text", "messages.0.content.1.text: cache_control cannot be set for empty text blocks",
			cacheBody("messages", userTurn([]any{textBlock(1, nil), map[string]any{"type": "text", "text": "", "cache_control": cc5m}}))},
		{"empty system text", "system.0.text: cache_control cannot be set for empty text blocks",
			cacheBody("system", []any{map[string]any{"type": "text", "text": "", "cache_control": cc5m}})},
		// The request schema refuses it first (the API says "messages.1.content.0.thinking.cache_control:
		// Extra inputs are not permitted"; EXTENSIONS.md).
		{"thinking", "messages.1.content.0.cache_control: unknown field",
			cacheBody("messages", []any{map[string]any{"role": "user", "content": "Hi"}, map[string]any{"role": "assistant", "content": []any{thinking, textBlock(1, nil)}}, map[string]any{"role": "user", "content": "Go on"}})},
		{"top-level TTL against the target's", "cache_control.ttl: Top-level cache_control has ttl='5m' but the target block already has cache_control with ttl='1h'",
			cacheBody("messages", userTurn([]any{textBlock(1, cc1h)}), "cache_control", cc5m)},
	}
	for _, c := range cases {
		for _, path := range []string{"/v1/messages", "/v1/messages/count_tokens"} {
			body := c.body
			if strings.HasSuffix(path, "count_tokens") {
				body = without(body, "max_tokens")
			}
			status, out := postMessages(t, ts, path, body)
			if msg := gjson.GetBytes(out, "error.message").String(); status != http.StatusBadRequest || msg != c.want {
				t.Errorf("%s, %s: %d %q\nwant 400 %q", c.name, path, status, msg, c.want)
			}
		}
	}
	if got := len(ts.Fake.CacheEntries()); got != 0 {
		t.Errorf("refused requests left %d entries", got)
	}
}

// Each block type that may carry cache_control does, alone.
func TestCacheControlOnEveryBlockType(t *testing.T) {
	ts := NewTestServer(t)
	for _, b := range []map[string]any{
		{"type": "text", "text": "x"},
		{"type": "image", "source": map[string]any{"type": "url", "url": "https://example.com/a.png"}},
		{"type": "document", "source": map[string]any{"type": "text", "media_type": "text/plain", "data": "d"}},
		{"type": "search_result", "source": "s", "title": "t", "content": []any{map[string]any{"type": "text", "text": "x"}}},
		{"type": "tool_result", "tool_use_id": "toolu_1", "content": "ok"},
	} {
		b["cache_control"] = cc5m
		create(t, ts, cacheBody("messages", userTurn([]any{b})))
	}
	create(t, ts, cacheBody("messages", []any{
		map[string]any{"role": "user", "content": "Hi"},
		map[string]any{"role": "assistant", "content": []any{map[string]any{"type": "server_tool_use", "id": "srvtoolu_1", "name": "web_search", "input": map[string]any{"query": "q"}, "cache_control": cc5m},
			map[string]any{"type": "tool_use", "id": "toolu_1", "name": "get", "input": map[string]any{}, "cache_control": cc5m}}},
		map[string]any{"role": "user", "content": []any{map[string]any{"type": "tool_result", "tool_use_id": "toolu_1", "content": []any{textBlock(1, cc5m)}}}},
	}))
}

func TestCacheAutomatic(t *testing.T) {
	// The top-level marker lands on the last eligible block: past an empty text, the 1,100-word
	// block (4 + 1102 = 1106, the whole prompt but the empty block's 2 tokens; the top-level
	// marker is not an input token).
	ts := NewTestServer(t)
	body := cacheBody("messages", userTurn([]any{textBlock(1100, nil), map[string]any{"type": "text", "text": ""}}), "cache_control", cc5m)
	want := [5]int64{0, 1106, 1106, 0, 2}
	if got := usageOf(create(t, ts, body)); got != want {
		t.Errorf("automatic: usage %v, want %v", got, want)
	}
	if got := usageOf(create(t, ts, body)); got != [5]int64{1106, 0, 0, 0, 2} {
		t.Errorf("automatic, again: usage %v", got)
	}
	// With a 1h top-level marker, the write is 1h.
	ts = NewTestServer(t)
	body = cacheBody("messages", userTurn([]any{textBlock(1100, nil)}), "cache_control", cc1h)
	if got := usageOf(create(t, ts, body)); got != [5]int64{0, 1106, 0, 1106, 0} {
		t.Errorf("automatic 1h: usage %v", got)
	}
	// The target already marked with the same TTL: one breakpoint, so four explicit ones pass.
	four := []any{textBlock(1, cc5m), textBlock(1, cc5m), textBlock(1, cc5m), textBlock(1100, cc5m)}
	create(t, ts, cacheBody("messages", userTurn(four), "cache_control", cc5m))
	// No eligible block: nothing cached, no error.
	m := create(t, ts, cacheBody("messages", []any{map[string]any{"role": "user", "content": "Hi"},
		map[string]any{"role": "assistant", "content": []any{map[string]any{"type": "thinking", "thinking": "hm", "signature": "sig"}}}}, "cache_control", cc5m))
	if got := m.Get("usage.cache_creation_input_tokens").Int(); got != 0 {
		t.Errorf("a short prompt wrote %d", got)
	}
}

func TestCacheIsolation(t *testing.T) {
	body := cacheBody("messages", userTurn([]any{textBlock(1100, cc5m)}))
	ts := NewTestServer(t)
	create(t, ts, body)
	read := func(header ...string) int64 {
		return create(t, ts, body, header...).Get("usage.cache_read_input_tokens").Int()
	}
	if got := read(); got != 1108 {
		t.Fatalf("same organization: read %d", got)
	}
	if got := read("X-Api-Key", "test-api-key-2"); got != 0 {
		t.Errorf("another organization read %d", got)
	}
	if got := read(core.NamespaceHeader, "other"); got != 0 {
		t.Errorf("another namespace read %d", got)
	}
	other := cacheBody("model", "assistant-sonnet-4-5", "messages", body["messages"])
	if got := create(t, ts, other).Get("usage.cache_read_input_tokens").Int(); got != 0 {
		t.Errorf("another model read %d", got)
	}
	if got := create(t, ts, with(without(body), []any{"speed", "fast"})).Get("usage.cache_read_input_tokens").Int(); got != 0 {
		t.Errorf("speed fast read %d", got)
	}
	ts.Fake.Reset()
	if got := read(); got != 0 {
		t.Errorf("after reset: read %d", got)
	}
}

func TestCacheWorkspaceIsolation(t *testing.T) {
	fx, err := core.DefaultFixtures()
	if err != nil {
		t.Fatal(err)
	}
	fx2 := *fx
	fx2.Creds = map[string]*core.Credential{}
	for k, c := range fx.Creds {
		fx2.Creds[k] = c
	}
	ws := *fx.Creds["test-api-key"]
	ws.Secret, ws.WorkspaceID = "test-api-key-ws", "wrkspc_01AcmeResearch0000000001"
	fx2.Creds[ws.Secret] = &ws
	ts := NewTestServer(t, WithFixtures(&Fixtures{fx: &fx2}))
	body := cacheBody("messages", userTurn([]any{textBlock(1100, cc5m)}))
	create(t, ts, body)
	if got := create(t, ts, body, "X-Api-Key", "test-api-key-ws").Get("usage.cache_read_input_tokens").Int(); got != 0 {
		t.Errorf("another workspace read %d", got)
	}
	if got := create(t, ts, body, "X-Api-Key", "test-api-key-ws").Get("usage.cache_read_input_tokens").Int(); got != 1108 {
		t.Errorf("the same workspace read %d", got)
	}
	if e := ts.Fake.CacheEntries(); len(e) != 2 || e[1].WorkspaceID == nil || *e[1].WorkspaceID != ws.WorkspaceID {
		t.Errorf("entries %+v", e)
	}
}

// The messages level's key holds tool_choice, thinking and output_config: changing them misses
// the messages but still reads the system.
func TestCacheInvalidation(t *testing.T) {
	base := cacheBody("system", []any{textBlock(1100, cc5m)}, "messages", userTurn([]any{textBlock(1100, cc5m)}),
		"tools", []any{map[string]any{"name": "get", "input_schema": map[string]any{"type": "object"}}})
	// tools: 1 + (1 + 1 + 1 + 1) = 5; system: 1 + 1104 = 1105, at 1110; messages 4 + 1104 = 1108, at 2218.
	for _, c := range []struct {
		name string
		kv   []any
		read int64
	}{
		{"tool_choice", []any{"tool_choice", map[string]any{"type": "auto"}}, 1110},
		{"thinking", []any{"thinking", map[string]any{"type": "disabled"}}, 1110},
		{"output_config.effort", []any{"output_config", map[string]any{"effort": "low"}}, 1110},
		{"image added", []any{"messages", append(userTurn([]any{textBlock(1100, cc5m)}), map[string]any{"role": "assistant", "content": "ok"},
			map[string]any{"role": "user", "content": []any{map[string]any{"type": "image", "source": map[string]any{"type": "url", "url": "https://example.com/a.png"}}}})}, 1110},
		{"system changed", []any{"system", []any{textBlock(1101, cc5m)}}, 0},
		{"tools changed", []any{"tools", []any{map[string]any{"name": "got", "input_schema": map[string]any{"type": "object"}}}}, 0},
		{"nothing changed", nil, 2218},
	} {
		ts := NewTestServer(t)
		create(t, ts, base)
		body := with(without(base), c.kv)
		if got := create(t, ts, body).Get("usage.cache_read_input_tokens").Int(); got != c.read {
			t.Errorf("%s: read %d, want %d", c.name, got, c.read)
		}
	}
}

func TestCachePrewarm(t *testing.T) {
	ts := NewTestServer(t)
	body := cacheBody("messages", userTurn([]any{textBlock(1100, cc5m)}), "max_tokens", 0)
	m := create(t, ts, body)
	if got := m.Get("content").Raw; got != "[]" {
		t.Errorf("content %s", got)
	}
	if m.Get("stop_reason").String() != "max_tokens" || m.Get("usage.output_tokens").Int() != 0 {
		t.Errorf("stop_reason %s, output_tokens %d", m.Get("stop_reason"), m.Get("usage.output_tokens").Int())
	}
	if got := usageOf(m); got != [5]int64{0, 1108, 1108, 0, 0} {
		t.Errorf("pre-warm usage %v", got)
	}
	if got := usageOf(create(t, ts, with(without(body), []any{"max_tokens", 20}))); got != [5]int64{1108, 0, 0, 0, 0} {
		t.Errorf("after the pre-warm: usage %v", got)
	}
	for _, c := range []struct {
		kv    []any
		field string
	}{
		{[]any{"stream", true}, "stream"},
		{[]any{"thinking", map[string]any{"type": "enabled", "budget_tokens": 1024}}, "thinking.type"},
		{[]any{"output_config", map[string]any{"format": map[string]any{"type": "json_schema", "schema": map[string]any{"type": "object", "additionalProperties": false}}}}, "output_config.format"},
		{[]any{"tool_choice", map[string]any{"type": "any"}, "tools", []any{map[string]any{"name": "get", "input_schema": map[string]any{"type": "object"}}}}, "tool_choice.type"},
		{[]any{"tool_choice", map[string]any{"type": "tool", "name": "get"}, "tools", []any{map[string]any{"name": "get", "input_schema": map[string]any{"type": "object"}}}}, "tool_choice.type"},
	} {
		expect400(t, ts, "/v1/messages", with(without(body), c.kv), c.field)
	}
}

// A stub's reply gets the same usage accounting as the model's.
func TestCacheUsageOfStubs(t *testing.T) {
	ts := NewTestServer(t)
	if _, err := ts.Fake.AddStub(stubs.Stub{Replies: []stubs.Reply{{Content: []map[string]any{{"type": "text", "text": "stubbed"}}}}, Times: 2}); err != nil {
		t.Fatal(err)
	}
	body := cacheBody("messages", userTurn([]any{textBlock(1100, cc5m)}))
	if got := usageOf(create(t, ts, body)); got != [5]int64{0, 1108, 1108, 0, 0} {
		t.Errorf("stub, first: %v", got)
	}
	m := create(t, ts, body)
	if got := usageOf(m); got != [5]int64{1108, 0, 0, 0, 0} || m.Get("content.0.text").String() != "stubbed" {
		t.Errorf("stub, second: %v %s", got, m.Get("content"))
	}
}

func TestCacheDiagnostics(t *testing.T) {
	ts := NewTestServer(t)
	diag := func(prev any) map[string]any { return map[string]any{"previous_message_id": prev} }
	sys := []any{textBlock(1100, cc5m)}
	turn1 := userTurn([]any{textBlock(1100, cc5m)})
	first := create(t, ts, cacheBody("system", sys, "messages", turn1, "diagnostics", diag(nil)))
	if got := first.Get("diagnostics").Raw; got != "null" {
		t.Errorf("previous_message_id null: diagnostics %s", got)
	}
	id := first.Get("id").String()
	turn2 := append(append([]any{}, turn1...), map[string]any{"role": "assistant", "content": "ok"}, map[string]any{"role": "user", "content": "more"})
	// system 1105; messages at the breakpoint 2213: the first request cached 2213.
	for _, c := range []struct {
		name string
		body map[string]any
		want string
	}{
		{"appended", cacheBody("system", sys, "messages", turn2, "diagnostics", diag(id)), `null`},
		{"unknown id", cacheBody("system", sys, "messages", turn2, "diagnostics", diag("msg_nope")), `{"cache_miss_reason":{"type":"previous_message_not_found"}}`},
		{"model", cacheBody("model", "assistant-sonnet-4-5", "system", sys, "messages", turn2, "diagnostics", diag(id)), `{"cache_miss_reason":{"type":"model_changed","cache_missed_input_tokens":2213}}`},
		{"system", cacheBody("system", []any{textBlock(1101, cc5m)}, "messages", turn2, "diagnostics", diag(id)), `{"cache_miss_reason":{"type":"system_changed","cache_missed_input_tokens":2213}}`},
		{"tools", cacheBody("tools", []any{map[string]any{"name": "get", "input_schema": map[string]any{"type": "object"}}}, "system", sys, "messages", turn2, "diagnostics", diag(id)), `{"cache_miss_reason":{"type":"tools_changed","cache_missed_input_tokens":2213}}`},
		{"messages", cacheBody("system", sys, "messages", userTurn([]any{textBlock(1101, cc5m)}), "diagnostics", diag(id)), `{"cache_miss_reason":{"type":"messages_changed","cache_missed_input_tokens":1108}}`},
		{"tool_choice", cacheBody("system", sys, "messages", turn2, "tool_choice", map[string]any{"type": "none"}, "diagnostics", diag(id)), `{"cache_miss_reason":{"type":"unavailable"}}`},
		{"no diagnostics", cacheBody("system", sys, "messages", turn2), `null`},
	} {
		if got := create(t, ts, c.body).Get("diagnostics").Raw; got != c.want {
			t.Errorf("%s: diagnostics %s, want %s", c.name, got, c.want)
		}
	}
	// A request without diagnostics leaves no fingerprint to compare with.
	plain := create(t, ts, cacheBody("system", sys, "messages", turn1)).Get("id").String()
	m := create(t, ts, cacheBody("system", sys, "messages", turn2, "diagnostics", diag(plain)))
	if got := m.Get("diagnostics").Raw; got != `{"cache_miss_reason":{"type":"previous_message_not_found"}}` {
		t.Errorf("previous request without diagnostics: %s", got)
	}
	// Another organization does not see the fingerprint.
	m = create(t, ts, cacheBody("system", sys, "messages", turn2, "diagnostics", diag(id)), "X-Api-Key", "test-api-key-2")
	if got := m.Get("diagnostics.cache_miss_reason.type").String(); got != "previous_message_not_found" {
		t.Errorf("another organization: %s", got)
	}
	// Streamed: in message_start, with the cache usage (a system of 1 + 1106, then 4 + 1104
	// through the user's block: 2215 written).
	body := cacheBody("system", []any{textBlock(1102, cc5m)}, "messages", turn2, "diagnostics", diag(id), "stream", true)
	status, out := postMessages(t, ts, "/v1/messages", body)
	start := streamEvent(t, out, "message_start")
	if status != http.StatusOK || start.Get("message.diagnostics.cache_miss_reason.type").String() != "system_changed" ||
		start.Get("message.usage.cache_creation_input_tokens").Int() != 2215 {
		t.Errorf("stream: %d %s", status, start.Raw)
	}
}

// streamEvent is the data of the first event called name.
func streamEvent(t *testing.T, stream []byte, name string) gjson.Result {
	t.Helper()
	for ev := range strings.SplitSeq(string(stream), "\n\n") {
		if rest, ok := strings.CutPrefix(ev, "event: "+name+"\ndata: "); ok {
			return gjson.Parse(rest)
		}
	}
	t.Fatalf("no %s event in %s", name, stream)
	return gjson.Result{}
}

// randomConversation is a request of 1 to 30 blocks over tools, system and messages, with up to
// four breakpoints in a valid TTL order, and sometimes the top-level marker.
func randomConversation(r *rand.Rand) map[string]any {
	n1h := 0
	marks := 0
	mark := func() map[string]any {
		if marks >= 3 || r.IntN(4) != 0 {
			return nil
		}
		marks++
		if n1h == marks-1 && r.IntN(2) == 0 {
			n1h++
			return cc1h
		}
		return cc5m
	}
	body := cacheBody()
	if r.IntN(2) == 0 {
		var tools []any
		for i := range 1 + r.IntN(3) {
			t := map[string]any{"name": fmt.Sprintf("t%d", i), "description": words(1 + r.IntN(400)), "input_schema": map[string]any{"type": "object"}}
			if cc := mark(); cc != nil {
				t["cache_control"] = cc
			}
			tools = append(tools, t)
		}
		body["tools"] = tools
	}
	if r.IntN(2) == 0 {
		var sys []any
		for range 1 + r.IntN(3) {
			sys = append(sys, textBlock(1+r.IntN(800), mark()))
		}
		body["system"] = sys
	}
	var msgs []any
	for i := range 1 + 2*r.IntN(4) {
		role := "user"
		if i%2 == 1 {
			role = "assistant"
		}
		var blocks []any
		for range 1 + r.IntN(4) {
			blocks = append(blocks, textBlock(1+r.IntN(600), mark()))
		}
		msgs = append(msgs, map[string]any{"role": role, "content": blocks})
	}
	body["messages"] = msgs
	if marks < 4 && n1h == 0 && r.IntN(3) == 0 {
		body["cache_control"] = cc5m
	}
	if r.IntN(3) == 0 {
		body["tool_choice"] = map[string]any{"type": "auto"}
	}
	return body
}

func TestCacheProperties(t *testing.T) {
	r := rand.New(rand.NewPCG(22, 1))
	ts := NewTestServer(t)
	for i := range 60 {
		body := randomConversation(r)
		ts.Fake.ClearCache()
		total := countTokensOf(t, ts, body)
		sum := func(u [5]int64) int64 { return u[0] + u[1] + u[4] }
		first := usageOf(create(t, ts, body))
		if sum(first) != total || first[1] != first[2]+first[3] || first[0] != 0 {
			t.Fatalf("#%d first: usage %v, count_tokens %d\n%v", i, first, total, body)
		}
		ts.Fake.AdvanceClock(4 * time.Minute)
		again := usageOf(create(t, ts, body))
		if sum(again) != total || again[0] != first[1] || again[1] != 0 || again[4] != first[4] {
			t.Fatalf("#%d within the TTL: usage %v after %v, count_tokens %d\n%v", i, again, first, total, body)
		}
		ts.Fake.AdvanceClock(2 * time.Hour)
		expired := usageOf(create(t, ts, body))
		if expired != first {
			t.Fatalf("#%d after the TTL: usage %v, want the first's %v", i, expired, first)
		}
	}
}

// A key spelled with a JSON escape is the same key: the breakpoint counts.
func TestCacheControlSpelledWithEscapes(t *testing.T) {
	ts := NewTestServer(t)
	body := `{"model":"` + cacheModel + `","max_tokens":20,"messages":[{"role":"user","content":[{"type":"text","text":"` + words(1100) + `","cache\u005fcontrol":{"type":"ephemeral"}}]}]}`
	status, out := postMessages(t, ts, "/v1/messages", body)
	if got := gjson.GetBytes(out, "usage.cache_creation_input_tokens").Int(); status != http.StatusOK || got != 1108 {
		t.Errorf("%d, creation %d, want 1108", status, got)
	}
}
