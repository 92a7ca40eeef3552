package fake

import (
	"bytes"
	"encoding/json"
	"fmt"
	"runtime"
	"strings"
	"testing"
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
		est := heldSize(v)
		ratio := float64(est) / float64(real)
		t.Logf("%s: %d bytes of JSON, heap %d, estimate %d (%.2f)", tc.name, len(data), real, est, ratio)
		if ratio < 0.8 || ratio > 1.5 {
			t.Errorf("%s: heldSize %d for a heap of %d bytes (%.2f of it); want 0.8 to 1.5", tc.name, est, real, ratio)
		}
		runtime.KeepAlive(v)
		runtime.KeepAlive(data) // else its freeing is counted against the value
	}
}
