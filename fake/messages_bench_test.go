package fake

import (
	"encoding/json"
	"net/http"
	"testing"
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
	benchCreate(b, msgBody(), headerScenario, "text-editor")
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
