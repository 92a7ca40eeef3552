package fake

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/platformkit/platformkit/fake/internal/areas/messages/scenarios"

	"github.com/platformkit/platformkit/fake/internal/areas/messages/model"

	"github.com/platformkit/platformkit/fake/internal/core"
)

// benchCreate measures POST /v1/messages with a pre-encoded body, over a real listener.
func benchCreate(b *testing.B, body map[string]any, header ...string) {
	ts := NewTestServer(b)
	data, err := json.Marshal(body)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if status, out := postMessages(b, ts, "/v1/messages", string(data), header...); status != http.StatusOK {
			b.Fatalf("%d %s", status, out)
		}
	}
}

func BenchmarkCreateMessage(b *testing.B) { benchCreate(b, msgBody()) }

func BenchmarkCreateMessageStream(b *testing.B) { benchCreate(b, msgBody("stream", true)) }

func BenchmarkCreateMessageToolUse(b *testing.B) {
	benchCreate(b, msgBody("tools", []any{map[string]any{"name": "get_weather", "input_schema": weatherSchema}}, "tool_choice", map[string]any{"type": "any"}))
}

func BenchmarkCreateMessageScenario(b *testing.B) {
	benchCreate(b, msgBody(), scenarios.HeaderScenario, "text-editor")
}

// BenchmarkCreateMessage100k is a request at the limit of 100,000 messages (spec 8).
func BenchmarkCreateMessage100k(b *testing.B) {
	many := make([]any, 100000)
	for i := range many {
		many[i] = map[string]any{"role": []string{"user", "assistant"}[i%2], "content": "a"}
	}
	many[len(many)-1] = map[string]any{"role": "user", "content": "a"}
	benchCreate(b, msgBody("messages", many))
}

// BenchmarkCreateMessageParallel measures throughput under concurrent clients; the area keeps
// no state, so requests do not contend on a lock.
func BenchmarkCreateMessageParallel(b *testing.B) {
	ts := NewTestServer(b)
	data, _ := json.Marshal(msgBody("stream", true))
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			if status, out := postMessages(b, ts, "/v1/messages", string(data)); status != http.StatusOK {
				b.Errorf("%d %s", status, out)
				return
			}
		}
	})
}

// BenchmarkCreateMessageLongStream streams a long answer (200 cited documents, about 1,800
// events) over a real listener, without schema checks, and reports the time to the first event
// beside the time of the whole stream: the first event should not wait for the last.
func BenchmarkCreateMessageLongStream(b *testing.B) {
	var docs []any
	for i := range 200 {
		docs = append(docs, map[string]any{"type": "document", "citations": map[string]any{"enabled": true},
			"source": map[string]any{"type": "text", "media_type": "text/plain", "data": fmt.Sprintf("Document %d says that the weather in town %d was mild and dry all week long. More follows.", i, i)}})
	}
	benchFirstEvent(b, msgBody("stream", true, "max_tokens", 32000, "messages", []any{map[string]any{"role": "user", "content": append(docs, map[string]any{"type": "text", "text": "Summarise."})}}))
}

// BenchmarkCreateMessage200TurnsFirstEvent streams the answer to a conversation of 200 turns
// (100 exchanges, each turn a text block of about 40 words) and reports the time to its first
// event: what the whole request's parse stage costs a client that waits for a stream to begin.
func BenchmarkCreateMessage200TurnsFirstEvent(b *testing.B) {
	turns := make([]any, 200)
	for i := range turns {
		turns[i] = map[string]any{"role": []string{"user", "assistant"}[i%2],
			"content": []any{map[string]any{"type": "text", "text": fmt.Sprintf("Turn %d: %s", i, words(40))}}}
	}
	benchFirstEvent(b, msgBody("stream", true, "messages", turns))
}

// benchFirstEvent posts body, a streamed request, over a real listener without schema checks,
// and reports the time to the first event and the events of each answer.
func benchFirstEvent(b *testing.B, body map[string]any) {
	ts := httptest.NewServer(New())
	defer ts.Close()
	data, err := json.Marshal(body)
	if err != nil {
		b.Fatal(err)
	}
	var first time.Duration
	events := 0
	b.ReportAllocs()
	for b.Loop() {
		req, _ := http.NewRequest(http.MethodPost, ts.URL+"/v1/messages", bytes.NewReader(data))
		req.Header.Set("X-Api-Key", "test-api-key")
		req.Header.Set("vendor-version", core.APIVersion)
		req.Header.Set("Content-Type", "application/json")
		t0 := time.Now()
		resp, err := ts.Client().Do(req)
		if err != nil {
			b.Fatal(err)
		}
		if resp.StatusCode != http.StatusOK {
			out, _ := io.ReadAll(resp.Body)
			b.Fatalf("%d %s", resp.StatusCode, out)
		}
		sc := bufio.NewScanner(resp.Body)
		for n := 0; sc.Scan(); {
			if strings.HasPrefix(sc.Text(), "event: ") {
				if n++; n == 1 {
					first += time.Since(t0)
				}
				events++
			}
		}
		resp.Body.Close()
	}
	b.ReportMetric(float64(first.Nanoseconds())/float64(b.N), "ns-to-first-event/op")
	b.ReportMetric(float64(events)/float64(b.N), "events/op")
}

// BenchmarkCreateMessageRateLimits measures what enforcing rate limits costs a message: off (the
// baseline, one atomic load) and on (six bucket lookups and updates under a lock, the overrides
// lookup of a workspace key, and 24 response headers). The handler is called directly, without a
// listener or schema checks, so that the difference is the fake's own work; the clock moves a
// second per request in both, so the buckets never run dry.
func BenchmarkCreateMessageRateLimits(b *testing.B) {
	data, err := json.Marshal(msgBody())
	if err != nil {
		b.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		key  string
		opts []Option
	}{
		{"off", core.DefaultAPIKey, nil},
		{"on", core.DefaultAPIKey, []Option{WithRateLimits()}},
		{"on-workspace-key", "test-api-key-research", []Option{WithRateLimits()}},
	} {
		b.Run(tc.name, func(b *testing.B) {
			s := New(tc.opts...)
			serve := func() {
				s.AdvanceClock(time.Second)
				if w := send(b, s, core.Post, "/v1/messages", string(data), "X-Api-Key", tc.key, "vendor-version", core.APIVersion); w.Code != http.StatusOK {
					b.Fatalf("%d %s", w.Code, w.Body)
				}
			}
			serve() // outside the measure: compiling the schemas, building the admin store
			b.ReportAllocs()
			before := cpuTime()
			for b.Loop() {
				serve()
			}
			// CPU time beside wall time, as BenchmarkCoverage: steadier on a shared machine.
			b.ReportMetric(float64(cpuTime()-before)/float64(b.N), "cpu-ns/op")
		})
	}
}

// benchConversation is a conversation of a 1,100-word system prompt and 12 turns; with marks,
// it carries three breakpoints (the system, the middle and the last user block), so that every
// request after the first reads the cache.
func benchConversation(marks bool) map[string]any {
	mark := func(b map[string]any) map[string]any {
		if marks {
			b["cache_control"] = map[string]any{"type": "ephemeral"}
		}
		return b
	}
	var msgs []any
	for i := range 12 {
		role := []string{"user", "assistant"}[i%2]
		b := map[string]any{"type": "text", "text": fmt.Sprintf("Turn %d: %s", i, words(150))}
		if role == "user" && (i == 6 || i == 10) {
			b = mark(b)
		}
		msgs = append(msgs, map[string]any{"role": role, "content": []any{b}})
	}
	msgs = append(msgs, map[string]any{"role": "user", "content": "And now?"})
	return msgBody("model", cacheModel, "system", []any{mark(map[string]any{"type": "text", "text": words(1100)})}, "messages", msgs)
}

// BenchmarkCreateMessageConversation is the conversation without cache_control: the baseline of
// BenchmarkCreateMessageCached, the same body size with nothing to look up.
func BenchmarkCreateMessageConversation(b *testing.B) { benchCreate(b, benchConversation(false)) }

// BenchmarkCreateMessageCached is the conversation with three breakpoints: the first request
// writes, every later one reads (and refreshes) the cache.
func BenchmarkCreateMessageCached(b *testing.B) { benchCreate(b, benchConversation(true)) }

// threadBenchConversation is a conversation of 1,000 messages, for the thread benchmarks.
func threadBenchConversation() []any {
	many := make([]any, 1000)
	for i := range many {
		many[i] = map[string]any{"role": []string{"user", "assistant"}[i%2], "content": "a short turn of the conversation"}
	}
	many[len(many)-1] = map[string]any{"role": "user", "content": "and the last question"}
	return many
}

// BenchmarkCreateMessageThreadContinue continues a thread of 1,000 messages with one new message;
// BenchmarkCreateMessageThreadFull sends the same conversation in full, unthreaded. A continue
// costs what the full request costs, less reading the messages it does not send.
func BenchmarkCreateMessageThreadContinue(b *testing.B) {
	ts := NewTestServer(b)
	create, _ := json.Marshal(msgBody("messages", threadBenchConversation(), "thread", threadCreate()))
	b.ReportAllocs()
	for b.Loop() {
		b.StopTimer()
		status, out := postMessages(b, ts, "/v1/messages", string(create), threadBeta...)
		if status != http.StatusOK {
			b.Fatalf("%d %s", status, out)
		}
		var reply struct{ ID string }
		_ = json.Unmarshal(out, &reply)
		next, _ := json.Marshal(msgBody("messages", userTurn("one more"), "thread", threadContinue(reply.ID)))
		b.StartTimer()
		if status, out := postMessages(b, ts, "/v1/messages", string(next), threadBeta...); status != http.StatusOK {
			b.Fatalf("%d %s", status, out)
		}
	}
}

func BenchmarkCreateMessageThreadFull(b *testing.B) {
	ts := NewTestServer(b)
	conv := threadBenchConversation()
	first := create(b, ts, msgBody("messages", conv))
	var content any
	_ = json.Unmarshal([]byte(first.Get("content").Raw), &content)
	whole := append(conv, map[string]any{"role": "assistant", "content": content}, map[string]any{"role": "user", "content": "one more"})
	benchCreate(b, msgBody("messages", whole))
}

// BenchmarkSeedOf hashes the canonical form of a 200-turn request (seedOf): what deciding the
// answer of a long conversation costs before its first event.
func BenchmarkSeedOf(b *testing.B) {
	turns := make([]any, 200)
	for i := range turns {
		turns[i] = map[string]any{"role": []string{"user", "assistant"}[i%2],
			"content": []any{map[string]any{"type": "text", "text": fmt.Sprintf("Turn %d: %s", i, strings.Repeat("the weather in town was mild and dry all week ", 4))}}}
	}
	body := msgBody("stream", true, "messages", turns)
	b.ReportAllocs()
	for b.Loop() {
		model.SeedOf(body)
	}
}

// BenchmarkCountTokens counts the tokens of a turn of the load test's long conversation.
func BenchmarkCountTokens(b *testing.B) {
	s := "Turn 7: " + strings.Repeat("the weather in town was mild and dry all week ", 4)
	b.SetBytes(int64(len(s)))
	for b.Loop() {
		model.TextTokens(s)
	}
}
