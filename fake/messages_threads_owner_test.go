package fake

import (
	"strings"
	"testing"
	"time"

	"github.com/platformkit/platformkit/fake/internal/core"

	"github.com/tidwall/gjson"
)

// TestThreadBelongsToItsCreator (issue 47 items 1 and 9): a key of another organization, and one
// of another workspace of the same organization, continuing the owner's thread get exactly the
// answer of a message ID never stored (404 thread_not_found, the same message but for the ID),
// and the owner's own continue afterwards is answered as if nobody else had tried.
func TestThreadBelongsToItsCreator(t *testing.T) {
	ts := NewTestServer(t)
	system := "The owner's secret system prompt."
	first := create(t, ts, msgBody("thread", threadCreate(), "system", system, "tools", loopTools), threadBeta...)
	prev := first.Get("id").String()
	// An ID of the same form that no reply ever had: the answer any stranger must get.
	never := "msg_01" + string(core.AppendBase62(nil, 999_999, core.IDWidth))
	status, _, want := threadPost(t, ts, msgBody("thread", threadContinue(never)))
	if status != 404 {
		t.Fatalf("continuing an ID never stored: %d %s", status, want.Raw)
	}
	wantMsg := strings.ReplaceAll(want.Get("error.message").String(), never, "<id>")
	for _, key := range []string{"test-api-key" + core.SecondOrganizationSuffix, "test-api-key-research"} {
		status, _, got := threadPost(t, ts, msgBody("thread", threadContinue(prev)), "X-Api-Key", key)
		if status != 404 || got.Get("type").String() != "error" ||
			got.Get("error.type").String() != want.Get("error.type").String() ||
			got.Get("error.details").Raw != want.Get("error.details").Raw ||
			strings.ReplaceAll(got.Get("error.message").String(), prev, "<id>") != wantMsg {
			t.Errorf("key %s continuing another's thread: %d %s\nwant the answer of an ID never stored: 404 %s", key, status, got.Raw, want.Raw)
		}
		if strings.Contains(got.Raw, "secret system prompt") {
			t.Errorf("key %s was answered from the owner's conversation: %s", key, got.Raw)
		}
	}
	status, _, got := threadPost(t, ts, msgBody("thread", threadContinue(prev), "messages", userTurn("And now?")))
	if status != 200 {
		t.Fatalf("the owner's continue after the strangers': %d %s", status, got.Raw)
	}
	// The stranger's continue, refused, took nothing from the thread: the owner's next turn
	// continues from the owner's reply.
	status, _, got = threadPost(t, ts, msgBody("thread", threadContinue(got.Get("id").String()), "messages", userTurn("Again?")))
	if status != 200 {
		t.Errorf("the owner's second continue: %d %s", status, got.Raw)
	}
}

// TestThreadContinueMeetsTheVersionRules (issue 47 item 10): a thread created at 2023-06-01,
// whose conversation holds what 2026-10-21 refuses (a document in an assistant message), continued
// at 2026-10-21 is refused with the very 400 of the whole conversation sent at 2026-10-21.
func TestThreadContinueMeetsTheVersionRules(t *testing.T) {
	ts := NewTestServer(t)
	doc := map[string]any{"type": "document", "source": map[string]any{"type": "text", "media_type": "text/plain", "data": "A note."}}
	history := []any{
		map[string]any{"role": "user", "content": "Read this."},
		map[string]any{"role": "assistant", "content": []any{doc}},
		map[string]any{"role": "user", "content": "Summarize it."},
	}
	reply := create(t, ts, msgBody("thread", threadCreate(), "messages", history), threadBeta...)
	next := userTurn("Shorter?")
	whole := append(append(append([]any{}, history...), map[string]any{"role": "assistant", "content": jsonValue(t, reply.Get("content").Raw)}), next...)
	v2 := []string{"vendor-version", core.APIVersion20261021}
	wantStatus, _, want := threadPost(t, ts, msgBody("messages", whole), v2...)
	if wantStatus != 400 || want.Get("error.message").String() == "" {
		t.Fatalf("the whole conversation at %s: %d %s, want a 400", core.APIVersion20261021, wantStatus, want.Raw)
	}
	status, _, got := threadPost(t, ts, msgBody("thread", threadContinue(reply.Get("id").String()), "messages", next), v2...)
	if status != wantStatus || got.Get("error").Raw != want.Get("error").Raw {
		t.Errorf("the continue at %s: %d %s\nwant the whole conversation's %d %s", core.APIVersion20261021, status, got.Raw, wantStatus, want.Raw)
	}
	// Refused, the continue is not in flight: the owner continues at the version the thread holds to.
	if status, _, got := threadPost(t, ts, msgBody("thread", threadContinue(reply.Get("id").String()), "messages", next)); status != 200 {
		t.Errorf("the continue at %s after the refusal: %d %s", core.APIVersion, status, got.Raw)
	}
}

// TestThreadContinueMeetsTheMessageBound (issue 47 item 11): a continue whose whole conversation
// holds more than 100,000 messages is refused with the 400 the schema gives that conversation
// sent whole, within a second of CPU.
func TestThreadContinueMeetsTheMessageBound(t *testing.T) {
	if testing.Short() {
		t.Skip("sends 100,000 messages")
	}
	ts := NewTestServer(t)
	turns := func(n int) []any {
		out := make([]any, n)
		for i := range out {
			out[i] = map[string]any{"role": []string{"user", "assistant"}[i%2], "content": "a"}
		}
		return out
	}
	kept := turns(20_001) // small enough for the thread's byte bound
	reply := create(t, ts, msgBody("thread", threadCreate(), "messages", kept, "max_tokens", 5), threadBeta...)
	next := turns(80_001) // the user's first and last
	whole := append(append(append([]any{}, kept...), map[string]any{"role": "assistant", "content": jsonValue(t, reply.Get("content").Raw)}), next...)
	wantStatus, _, want := threadPost(t, ts, msgBody("messages", whole))
	if wantStatus != 400 {
		t.Fatalf("the whole conversation of %d messages: %d %.300s, want a 400", len(whole), wantStatus, want.Raw)
	}
	cpu0 := cpuTime()
	status, _, got := threadPost(t, ts, msgBody("thread", threadContinue(reply.Get("id").String()), "messages", next))
	cpu := time.Duration(cpuTime() - cpu0)
	if status != wantStatus || got.Get("error").Raw != want.Get("error").Raw {
		t.Errorf("a continue of %d messages onto %d: %d %.300s\nwant the whole conversation's %d %s", len(next), len(kept)+1, status, got.Raw, wantStatus, want.Raw)
	}
	if cpu > time.Second && !raceDetector {
		t.Errorf("the refusal took %v of CPU, want at most 1s", cpu)
	}
	t.Logf("%d messages: %d %s (%v CPU)", len(whole), status, got.Get("error.message"), cpu.Round(time.Millisecond))
}

// jsonValue decodes raw JSON for a request body built in Go.
func jsonValue(t *testing.T, raw string) any {
	t.Helper()
	v := gjson.Parse(raw).Value()
	if v == nil {
		t.Fatalf("not JSON: %s", raw)
	}
	return v
}
