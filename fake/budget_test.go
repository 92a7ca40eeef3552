package fake

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/platformkit/platformkit/fake/internal/areas/messages/threads"

	"github.com/platformkit/platformkit/fake/internal/areas/messages/stubs"

	"github.com/platformkit/platformkit/fake/internal/core"
)

// decodeAny decodes data as the fake decodes a body: into any, numbers as json.Number.
func decodeAny(t testing.TB, data []byte) any {
	d := json.NewDecoder(bytes.NewReader(data))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		t.Fatal(err)
	}
	return v
}

// heapHeld is the heap that the value build returns keeps, as the runtime reports it.
func heapHeld(build func() any) (any, int64) {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	v := build()
	runtime.GC()
	runtime.ReadMemStats(&after)
	return v, int64(after.HeapAlloc) - int64(before.HeapAlloc)
}

// TestHeldSizeMatchesTheHeap holds heldSize to the heap the runtime reports for decoded JSON of
// the shapes the stores keep: the estimate is neither far under what is kept (the bounds would
// not bound) nor far over it (they would refuse what fits).
func TestHeldSizeMatchesTheHeap(t *testing.T) {
	rep := func(n int, s string) string { return "[" + strings.TrimSuffix(strings.Repeat(s+",", n), ",") + "]" }
	cases := []struct{ name, json string }{
		{"tiny objects", rep(50000, `{"a":1}`)},
		{"text messages", ""},
		{"block messages", rep(20000, `{"role":"user","content":[{"type":"text","text":"hello there"}]}`)},
		{"wide object", `{` + strings.TrimSuffix(strings.Repeat(`"key_number_%d":true,`, 1), ",") + `}`},
		{"numbers", rep(100000, `12345.5`)},
		{"strings", rep(100000, `"ab"`)},
		{"nested arrays", rep(30000, `[[1],[2,3]]`)},
	}
	var wide strings.Builder
	wide.WriteString("{")
	for i := range 20000 {
		fmt.Fprintf(&wide, `"key_number_%d":true,`, i)
	}
	cases[3].json = strings.TrimSuffix(wide.String(), ",") + "}"
	var text strings.Builder
	text.WriteString("[")
	for i := range 2000 {
		fmt.Fprintf(&text, `{"role":"user","content":"%d %s"},`, i, strings.Repeat("x", 1000))
	}
	cases[1].json = strings.TrimSuffix(text.String(), ",") + "]"
	for _, tc := range cases {
		data := []byte(tc.json)
		v, real := heapHeld(func() any { return decodeAny(t, data) })
		est := core.HeldSize(v)
		ratio := float64(est) / float64(real)
		t.Logf("%s: %d bytes of JSON, heap %d, estimate %d (%.2f)", tc.name, len(data), real, est, ratio)
		if ratio < 0.8 || ratio > 1.5 {
			t.Errorf("%s: heldSize %d for a heap of %d bytes (%.2f of it); want 0.8 to 1.5", tc.name, est, real, ratio)
		}
		runtime.KeepAlive(v)
		runtime.KeepAlive(data) // else its freeing is counted against the value
	}
}

// TestSharedBudgetsUnderConcurrency registers stubs and creates threads from many goroutines in
// many namespaces, with stubs cleared and namespaces dropped meanwhile, against shared budgets
// lowered so that they bind: afterwards each budget counts exactly what the stores hold, and the
// stubs' never passed its limit (a reservation is all or nothing). Run with -race.
func TestSharedBudgetsUnderConcurrency(t *testing.T) {
	s := New()
	s.srv.Cfg.Budget(stubs.StubsBudget).Limit, s.srv.Cfg.Budget(threads.ThreadBudget).Limit = 64<<10, 64<<10
	stub := `{"replies":[{"content":[{"type":"text","text":"` + strings.Repeat("s", 4000) + `"}]}]}`
	thread := `{"model":"` + testModel + `","max_tokens":5,"thread":{"type":"create"},"system":"` + strings.Repeat("y", 6000) + `","messages":[{"role":"user","content":"Hi"}]}`
	header := []string{"X-Api-Key", core.DefaultAPIKey, "vendor-version", core.APIVersion, "anthropic-beta", threads.BetaMessageThreads, "Content-Type", "application/json"}
	var peak atomic.Int64
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 40 {
				ns, _ := s.Namespace(fmt.Sprint("n", (g+i)%5))
				switch i % 10 {
				case 9:
					send(t, ns, http.MethodDelete, "/_fake/messages/stubs", "")
				case 7:
					s.DeleteNamespace(fmt.Sprint("n", i%5))
				default:
					if w := send(t, ns, http.MethodPost, "/_fake/messages/stubs", stub, "Content-Type", "application/json"); w.Code != 200 && w.Code != 400 {
						t.Errorf("stub: %d %.200s", w.Code, w.Body)
					}
					if w := send(t, ns, http.MethodPost, "/v1/messages", thread, header...); w.Code != 200 {
						t.Errorf("thread: %d %.200s", w.Code, w.Body)
					}
				}
				if n := s.srv.Cfg.Budget(stubs.StubsBudget).Bytes.Load(); n > peak.Load() {
					peak.Store(n)
				}
			}
		}()
	}
	wg.Wait()
	if p := peak.Load(); p > s.srv.Cfg.Budget(stubs.StubsBudget).Limit {
		t.Errorf("the stubs' budget reached %d, over its limit %d", p, s.srv.Cfg.Budget(stubs.StubsBudget).Limit)
	}
	stubBytes, threadBytes := stubs.StubsOf(s.srv).Bytes, 0
	if st := threads.ThreadStores.In(s.srv.State().Stores).Built(); st != nil {
		threadBytes += st.Bytes
	}
	for _, info := range s.Namespaces() {
		ns, _ := s.Namespace(info.Name)
		stubBytes += stubs.StubsOf(ns.srv).Bytes
		if st := threads.ThreadStores.In(ns.srv.State().Stores).Built(); st != nil {
			threadBytes += st.Bytes
		}
	}
	if got := s.srv.Cfg.Budget(stubs.StubsBudget).Bytes.Load(); got != int64(stubBytes) {
		t.Errorf("the stubs' budget counts %d, the stores hold %d", got, stubBytes)
	}
	if got := s.srv.Cfg.Budget(threads.ThreadBudget).Bytes.Load(); got != int64(threadBytes) || got > s.srv.Cfg.Budget(threads.ThreadBudget).Limit {
		t.Errorf("the threads' budget counts %d, the stores hold %d (limit %d)", got, threadBytes, s.srv.Cfg.Budget(threads.ThreadBudget).Limit)
	}
	s.ClearNamespaces()
	s.Reset()
	if a, b := s.srv.Cfg.Budget(stubs.StubsBudget).Bytes.Load(), s.srv.Cfg.Budget(threads.ThreadBudget).Bytes.Load(); a != 0 || b != 0 {
		t.Errorf("with every namespace dropped and the server reset, the budgets count %d and %d, want 0", a, b)
	}
}
