// The race detector allocates several times what a request does on its own, so these bounds hold
// without it: `make test` runs this file in a step of its own (make resources).

//go:build !race

package fake

import (
	"fmt"
	"net/http"
	"os"
	"runtime/debug"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/platformkit/platformkit/fake/internal/hostile"
	"github.com/tidwall/gjson"
)

// TestAmplifiersStayBounded sends the inputs known to turn a small or plain request into a lot of
// work (issue 13) and holds each to a stated bound on the memory it allocates (TotalAlloc, which a
// loaded machine does not change) and a very generous bound on its time (only a runaway reaches
// it). Every answer is a 2xx or a 4xx, never a 5xx. The bounds are about twice what the requests
// allocate today (run with -v to see the figures): a change of the order of growth fails, noise
// does not.
func TestAmplifiersStayBounded(t *testing.T) {
	if testing.Short() {
		t.Skip("sends tens of megabytes of requests")
	}
	const slow = 20 * time.Second // generous: the slowest of these takes well under a second
	msgs := `"messages":[{"role":"user","content":"Hi"}],"model":"` + testModel + `"`
	nested := func(levels, items int) string {
		schema := `{"type":"string","minLength":1000}`
		for range levels {
			schema = fmt.Sprintf(`{"type":"array","minItems":%d,"items":%s}`, items, schema)
		}
		return `{"max_tokens":128000,` + msgs + `,"tools":[{"name":"t","input_schema":{"type":"object","properties":{"a":` + schema + `}}}],"tool_choice":{"type":"tool","name":"t"}}`
	}
	many := func(n int, item string) string { return strings.TrimSuffix(strings.Repeat(item+",", n), ",") }
	turns := many(50_000, `{"role":"user","content":"Hi"},{"role":"assistant","content":"Yes"}`) // the most the API takes
	bigHeader := []string{"X-Big", strings.Repeat("h", 1<<20)}
	var manyHeaders []string
	for i := range 1000 {
		manyHeaders = append(manyHeaders, fmt.Sprintf("X-H%d", i), strings.Repeat("h", 1000))
	}

	for _, tc := range []struct {
		name, path, body string
		header           []string
		maxAlloc         uint64 // bytes allocated by the whole request, the body's own copy included
	}{
		{"huge exponent", "/v1/messages", `{"max_tokens":1e1000001,` + msgs + `}`, nil, 1 << 20},
		{"200,000-digit number", "/v1/messages", `{"max_tokens":10,"top_p":0.` + strings.Repeat("1", 200_000) + `,` + msgs + `}`, nil, 4 << 20},
		{"nesting 10,000 deep", "/v1/messages", `{"max_tokens":10,` + msgs + `,"metadata":{"user_id":` + strings.Repeat("[", 10_000) + strings.Repeat("]", 10_000) + `}}`, nil, 4 << 20},
		{"nesting 100,000 deep", "/v1/messages", `{"max_tokens":10,` + msgs + `,"metadata":{"user_id":` + strings.Repeat("[", 100_000) + strings.Repeat("]", 100_000) + `}}`, nil, 4 << 20},
		{"100,000 stop sequences", "/v1/messages", `{"max_tokens":10,` + msgs + `,"stop_sequences":[` + many(100_000, `"s"`) + `]}`, nil, 160 << 20},
		// Validation costs 11 to 23 KB of garbage per content block (the validator builds an error
		// for each if of the block's type dispatch that fails); linear, and bounded by the 32 MB body.
		{"10,000 content blocks", "/v1/messages", `{"max_tokens":10,"model":"` + testModel + `","messages":[{"role":"user","content":[` + many(10_000, `{"type":"text","text":"Hi"}`) + `]}]}`, nil, 256 << 20},
		{"100,000 messages", "/v1/messages", `{"max_tokens":10,` + `"model":"` + testModel + `","messages":[` + turns + `]}`, nil, 900 << 20},
		{"100,000 messages, count_tokens", "/v1/messages/count_tokens", `{"model":"` + testModel + `","messages":[` + turns + `]}`, nil, 900 << 20},
		{"tool schema 1000×1000×1000 minItems", "/v1/messages", nested(3, 1000), nil, 8 << 20},
		{"tool schema 1000^4 minItems", "/v1/messages", nested(4, 1000), nil, 8 << 20},
		{"tool schema enum of 100,000", "/v1/messages", `{"max_tokens":100,` + msgs + `,"tools":[{"name":"t","input_schema":{"type":"object","properties":{"a":{"enum":[` + many(100_000, `"e"`) + `]}}}}],"tool_choice":{"type":"any"}}`, nil, 128 << 20},
		{"a 1 MiB header", "/v1/models", "", bigHeader, 1 << 20},
		{"1,000 headers of 1 KB", "/v1/models", "", manyHeaders, 2 << 20},
		{"1 MB body of an unknown field", "/v1/organizations/workspaces", `{"zz":"` + strings.Repeat("z", 1<<20-20) + `"}`, nil, 16 << 20},
		// Issue 38: the prompt cache kept a copy of the model in every entry; the model is now at
		// most 256 characters, so this is refused by the schema.
		{"an 8 MiB model with a cache breakpoint", "/v1/messages", hostile.CachedBody(strings.Repeat("m", 8<<20), "a", 1, ""), nil, 128 << 20},
		{"memory path of 100,000 segments", "/v1/memory_stores/" + fzStore + "/memories", `{"content":"x","path":"` + strings.Repeat("/a", 100_000) + `"}`, nil, 8 << 20},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := checked(t)
			ifc := ifMessages
			switch {
			case strings.HasPrefix(tc.path, "/v1/models"):
				ifc = ifModels
			case strings.HasPrefix(tc.path, "/v1/organizations"):
				ifc = ifAdmin
			case strings.HasPrefix(tc.path, "/v1/memory_stores"):
				ifc = ifMemory
			}
			header := append(headersFor(ifc), tc.header...)
			method := http.MethodGet
			if tc.body != "" {
				method = http.MethodPost
				header = append(header, "Content-Type", "application/json")
			}
			// Warm the route first (its schema compiled, its area's state built): costs paid once.
			if method == http.MethodPost {
				send(t, s, method, tc.path, "{}", header...)
			} else {
				send(t, s, method, tc.path, "", headersFor(ifc)...)
			}
			began := time.Now()
			var status int
			alloc := allocated(func() { status = send(t, s, method, tc.path, tc.body, header...).Code })
			took := time.Since(began)
			t.Logf("%s (%d-byte body): %d, %.1f MiB allocated, %v", tc.name, len(tc.body), status, float64(alloc)/(1<<20), took.Round(time.Millisecond))
			if status >= 500 {
				t.Errorf("status %d", status)
			}
			if alloc > tc.maxAlloc {
				t.Errorf("allocated %.1f MiB, want at most %d MiB", float64(alloc)/(1<<20), tc.maxAlloc>>20)
			}
			if took > slow {
				t.Errorf("took %v, want under %v", took, slow)
			}
		})
	}
}

// TestWorkAmplifiersRefusedWithinASecond sends the requests that cost work without output (issue
// 38: patterns of empty-width repeats, $defs fan-out, allOf merges) and holds each to a 400 that
// names the schema, within a second of the process's CPU.
func TestWorkAmplifiersRefusedWithinASecond(t *testing.T) {
	if testing.Short() {
		t.Skip("sends megabytes of schemas")
	}
	for _, tc := range hostile.CPU() {
		t.Run(tc.Name, func(t *testing.T) {
			s := checked(t)
			header := append(headersFor(ifMessages), "Content-Type", "application/json")
			send(t, s, http.MethodPost, tc.Path, "{}", header...) // the route's schema compiled
			cpu0, began := cpuTime(), time.Now()
			w := send(t, s, http.MethodPost, tc.Path, tc.Body, header...)
			cpu, took := time.Duration(cpuTime()-cpu0), time.Since(began)
			msg := gjson.Get(w.Body.String(), "error.message").String()
			t.Logf("%s (%d-byte body): %d in %v (%v CPU): %.120s", tc.Name, len(tc.Body), w.Code, took.Round(time.Millisecond), cpu.Round(time.Millisecond), msg)
			if w.Code != tc.Status || !strings.HasPrefix(msg, tc.Field+": ") {
				t.Errorf("answered %d %q, want %d naming %s", w.Code, msg, tc.Status, tc.Field)
			}
			if cpu > time.Second {
				t.Errorf("took %v of CPU, want at most 1s", cpu)
			}
			if tc.Path != "/v1/messages" {
				return
			}
			// Streamed, the refusal comes before the first event: a JSON 400, not a stream.
			w = send(t, s, http.MethodPost, tc.Path, `{"stream":true,`+tc.Body[1:], header...)
			msg = gjson.Get(w.Body.String(), "error.message").String()
			if w.Code != tc.Status || !strings.HasPrefix(msg, tc.Field+": ") || !strings.HasPrefix(w.Header().Get("Content-Type"), "application/json") {
				t.Errorf("streamed: answered %d (%s) %q, want %d naming %s", w.Code, w.Header().Get("Content-Type"), msg, tc.Status, tc.Field)
			}
		})
	}
}

// rssMiB is the process's resident set, in MiB (Linux); 0 where /proc is not there.
func rssMiB() float64 {
	data, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for line := range strings.Lines(string(data)) {
		if rest, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			kb, _ := strconv.Atoi(strings.TrimSuffix(strings.TrimSpace(rest), " kB"))
			return float64(kb) / 1024
		}
	}
	return 0
}

// TestRefusedSnapshotReleasesItsMemory: a refused 64 MiB POST /_fake/snapshot takes a few
// hundred MiB to read and check; two seconds after its 400 the process is back within 50 MiB of
// where it was (issue 38 item 10: it stayed at 470 MiB).
func TestRefusedSnapshotReleasesItsMemory(t *testing.T) {
	if testing.Short() {
		t.Skip("sends a 64 MiB body")
	}
	if rssMiB() == 0 {
		t.Skip("no /proc/self/status")
	}
	s := checked(t)
	send(t, s, http.MethodGet, "/_fake/snapshot", "")
	debug.FreeOSMemory()
	idle := rssMiB()
	func() {
		body := `{"users.json":"` + strings.Repeat("x", snapshotBodyLimit-32) + `"}`
		w := send(t, s, http.MethodPost, "/_fake/snapshot", body, "Content-Type", "application/json")
		if w.Code != http.StatusBadRequest {
			t.Fatalf("answered %d %.200s, want 400", w.Code, w.Body)
		}
		t.Logf("peak while refusing: %.0f MiB (idle %.0f MiB)", rssMiB(), idle)
	}()
	// gin's pooled context holds the last *http.Request, whose body here is the test's string
	// (over a connection it is the socket): the next request lets it go.
	send(t, s, http.MethodGet, "/_fake/health", "")
	time.Sleep(2 * time.Second)
	after := rssMiB()
	t.Logf("2 s after the refusal: %.0f MiB", after)
	if after > idle+50 {
		t.Errorf("RSS %.0f MiB two seconds after the refusal, want at most %.0f (idle + 50)", after, idle+50)
	}
}
