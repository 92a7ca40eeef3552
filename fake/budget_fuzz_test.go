package fake

import (
	"encoding/binary"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/platformkit/platformkit/fake/internal/areas/messages/threads"

	"github.com/platformkit/platformkit/fake/internal/core"

	"github.com/tidwall/gjson"
)

// FuzzHeldSize holds heldSize, which the thread and stub bounds charge, to what any decoded body
// keeps: at least the bytes of its strings and keys, and at most a fixed multiple of its JSON, so
// that no shape is charged less than it holds nor costs more to measure than to decode.
func FuzzHeldSize(f *testing.F) {
	for _, s := range []string{`{}`, `[]`, `{"a":1}`, `[{"k":1},{"k":1}]`, `"text"`, `[[[[[]]]]]`, `12345678901234567890`,
		`{"role":"user","content":[{"type":"text","text":"hello"}]}`, `[true,false,null,1.5e300,"\u00e9"]`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, data string) {
		d := json.NewDecoder(strings.NewReader(data))
		d.UseNumber()
		var v any
		if d.Decode(&v) != nil {
			return
		}
		var text int
		var walk func(any)
		walk = func(v any) {
			switch v := v.(type) {
			case string:
				text += len(v)
			case json.Number:
				text += len(v)
			case []any:
				for _, x := range v {
					walk(x)
				}
			case map[string]any:
				for k, x := range v {
					text += len(k)
					walk(x)
				}
			}
		}
		walk(v)
		got := core.HeldSize(v)
		if got < text {
			t.Errorf("heldSize %d for a value whose strings alone hold %d bytes: %.200s", got, text, data)
		}
		// {"a":1} keeps some 55 times its 7 bytes, the most of any shape; 64 leaves room.
		if most := 64*len(strings.TrimSpace(data)) + 512; got > most {
			t.Errorf("heldSize %d for %d bytes of JSON, over %d: %.200s", got, len(data), most, data)
		}
	})
}

// FuzzByteBudget drives a shared budget with any sequence of charges, refunds and reservations:
// a reservation never takes it past its limit, and the count is always the sum of what was
// charged and reserved less what was refunded.
func FuzzByteBudget(f *testing.F) {
	f.Add([]byte{0, 10, 0, 0, 1, 200, 0, 0, 2, 5, 0, 0})
	f.Add([]byte{1, 255, 255, 0, 2, 1, 0, 0})
	f.Fuzz(func(t *testing.T, ops []byte) {
		b := core.NewByteBudget(1 << 16)
		var want int64
		for len(ops) >= 4 {
			op, n := ops[0]%3, int(binary.LittleEndian.Uint16(ops[1:3]))+int(ops[3])<<16
			ops = ops[4:]
			switch op {
			case 0:
				if over := b.Add(n); over != (want+int64(n) > b.Limit) {
					t.Fatalf("add(%d) at %d reported over %t, limit %d", n, want, over, b.Limit)
				}
				want += int64(n)
			case 1:
				n = min(n, int(want))
				b.Add(-n)
				want -= int64(n)
			case 2:
				fits := want+int64(n) <= b.Limit
				if got := b.Reserve(n); got != fits {
					t.Fatalf("reserve(%d) at %d of %d: %t, want %t", n, want, b.Limit, got, fits)
				}
				if fits {
					want += int64(n)
				}
			}
			if b.Bytes.Load() != want {
				t.Fatalf("the budget counts %d, want %d", b.Bytes.Load(), want)
			}
		}
	})
}

// FuzzThreadContinue sends any body as a thread continue of an owner's thread, with the owner's
// key or a stranger's (another organization's, another workspace's): never a 5xx, a stranger is
// never answered from the thread, and the owner's plain continue afterwards still works unless
// the fuzzed request was the owner's own successful continue.
func FuzzThreadContinue(f *testing.F) {
	f.Add(uint8(0), `{"messages":[{"role":"user","content":"Hi"}]}`)
	f.Add(uint8(1), `{"messages":[{"role":"user","content":"Hi"}]}`)
	f.Add(uint8(2), `{"messages":[],"max_tokens":5}`)
	f.Add(uint8(0), `{"messages":[{"role":"user","content":"Hi"}],"temperature":1}`)
	f.Add(uint8(1), `{"thread":{"type":"create"},"messages":[{"role":"user","content":"Hi"}]}`)
	keys := []string{"test-api-key", "test-api-key-2", "test-api-key-research"}
	f.Fuzz(func(t *testing.T, who uint8, body string) {
		s := fuzzServer(t)
		header := func(key string) []string {
			return []string{"X-Api-Key", key, "vendor-version", core.APIVersion, "anthropic-beta", threads.BetaMessageThreads, "Content-Type", "application/json"}
		}
		w := send(t, s, http.MethodPost, "/v1/messages", `{"model":"`+testModel+`","max_tokens":5,"thread":{"type":"create"},"system":"owner only","messages":[{"role":"user","content":"Hi"}]}`, header(keys[0])...)
		prev := gjson.Get(w.Body.String(), "id").String()
		var fields map[string]any
		if json.Unmarshal([]byte(body), &fields) != nil || fields == nil {
			return
		}
		if _, ok := fields["thread"]; !ok {
			fields["thread"] = threadContinue(prev)
		}
		fields["model"], fields["max_tokens"] = testModel, 5
		data, _ := json.Marshal(fields)
		key := keys[int(who)%len(keys)]
		w = send(t, s, http.MethodPost, "/v1/messages", string(data), header(key)...)
		if w.Code >= 500 {
			t.Fatalf("%s: %d %.300s", data, w.Code, w.Body)
		}
		th, _ := fields["thread"].(map[string]any)
		continued := th["type"] == "continue" && th["previous_message_id"] == prev
		if key != keys[0] && continued && w.Code != http.StatusNotFound && w.Code != http.StatusBadRequest {
			t.Fatalf("a stranger (%s) continuing the owner's thread: %d %.300s", key, w.Code, w.Body)
		}
		if key == keys[0] && continued && w.Code == http.StatusOK {
			return // the owner continued: the thread moved on
		}
		w = send(t, s, http.MethodPost, "/v1/messages", `{"model":"`+testModel+`","max_tokens":5,"thread":{"type":"continue","previous_message_id":"`+prev+`"},"messages":[{"role":"user","content":"Again"}]}`, header(keys[0])...)
		if w.Code != http.StatusOK {
			t.Fatalf("the owner's continue after %s sent %s: %d %.300s", key, data, w.Code, w.Body)
		}
	})
}
