// Like resource_test.go, these hold requests to a bound of the process's CPU, which the race
// detector multiplies: `make resources` runs them without it.

//go:build !race

package fake

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/platformkit/platformkit/fake/internal/areas/messages/stubs"

	"github.com/platformkit/platformkit/fake/internal/areas/messages/wire"

	"github.com/platformkit/platformkit/fake/internal/core"

	"github.com/gin-gonic/gin"
	"github.com/tidwall/gjson"
)

// cpuOf runs f and returns the CPU time the process used meanwhile: a bound on it holds on a
// loaded machine, where a bound on the wall clock does not.
func cpuOf(f func()) time.Duration {
	before := cpuTime()
	f()
	return time.Duration(cpuTime() - before)
}

// TestGeneratedValuesCharged: const and enum values and property names that a schema gives are
// charged to the 1 MiB of generated strings and to max_tokens like the values the fake makes
// (issue 47 item 2: a 100 KB request made a 100 MB answer, a 1 MB streamed one 1.9 GB of
// events). Each request is answered 200 with stop_reason max_tokens, a body of at most 4 MiB,
// within a second of CPU, streamed or not.
func TestGeneratedValuesCharged(t *testing.T) {
	if testing.Short() {
		t.Skip("sends megabytes of schemas")
	}
	big := strings.Repeat("v", 100_000)
	msgs := `"messages":[{"role":"user","content":"Hi"}],"model":"` + testModel + `"`
	forced := func(schema string) string {
		return `{"max_tokens":128000,` + msgs + `,"tools":[{"name":"t","input_schema":` + schema + `}],"tool_choice":{"type":"tool","name":"t"}}`
	}
	// A strict output format whose definitions fan out ten ways over three levels: 1,000 copies
	// of the leaf, within the 10,000 subschemas a strict schema may expand to.
	props := func(ref string) string {
		var p, req []string
		for i := range 10 {
			p = append(p, fmt.Sprintf(`"p%d":{"$ref":"#/$defs/%s"}`, i, ref))
			req = append(req, fmt.Sprintf(`"p%d"`, i))
		}
		return `{"type":"object","additionalProperties":false,"properties":{` + strings.Join(p, ",") + `},"required":[` + strings.Join(req, ",") + `]}`
	}
	fanOut := strings.TrimSuffix(props("l1"), "}") + `,"$defs":{"l1":` + props("l2") + `,"l2":` + props("leaf") + `,"leaf":{"const":"` + big + `"}}}`
	for _, tc := range []struct{ name, body string }{
		{"const of 100 KB in 1,000 items", forced(`{"type":"object","properties":{"a":{"type":"array","minItems":1000,"items":{"const":"` + big + `"}}}}`)},
		{"enum of 100 KB in 1,000 items", forced(`{"type":"object","properties":{"a":{"type":"array","minItems":1000,"items":{"enum":["` + big + `"]}}}}`)},
		{"property name of 100 KB in 1,000 items", forced(`{"type":"object","properties":{"a":{"type":"array","minItems":1000,"items":{"type":"object","properties":{"` + big + `":{"type":"null"}}}}}}`)},
		{"structured output of 1,000 references to a 100 KB const", `{"max_tokens":128000,` + msgs + `,"output_config":{"format":{"type":"json_schema","schema":` + fanOut + `}}}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := checked(t)
			header := append(headersFor(core.IfMessages), "Content-Type", "application/json")
			send(t, s, http.MethodPost, "/v1/messages", "{}", header...) // the route's schema compiled
			for _, stream := range []bool{false, true} {
				body := tc.body
				if stream {
					body = `{"stream":true,` + body[1:]
				}
				var code int
				var out string
				cpu := cpuOf(func() {
					w := send(t, s, http.MethodPost, "/v1/messages", body, header...)
					code, out = w.Code, w.Body.String()
				})
				t.Logf("stream %t (%d-byte body): %d, %d-byte answer, %v CPU", stream, len(body), code, len(out), cpu.Round(time.Millisecond))
				if code != http.StatusOK {
					t.Fatalf("stream %t: answered %d %.300s", stream, code, out)
				}
				if len(out) > 4<<20 {
					t.Errorf("stream %t: a %d-byte answer, want at most 4 MiB", stream, len(out))
				}
				if !strings.Contains(out, `"stop_reason":"max_tokens"`) {
					t.Errorf("stream %t: no stop_reason max_tokens in %.300s", stream, out)
				}
				if cpu > time.Second {
					t.Errorf("stream %t: %v of CPU, want at most 1s", stream, cpu)
				}
			}
		})
	}
}

// TestBetaValuesCharged: beta header values are deduplicated in linear time and charged to the
// request's meter (issue 47 item 5: 409 KB of values took 5 s of CPU, deduplicated pairwise).
// 60,000 values are a 400 naming the header within a second of CPU; 5,000 are read.
func TestBetaValuesCharged(t *testing.T) {
	values := func(n int) string {
		v := make([]string, n)
		for i := range v {
			v[i] = fmt.Sprintf("beta-%06d", i)
		}
		return strings.Join(v, ",")
	}
	s := checked(t)
	send(t, s, http.MethodGet, "/v1/models", "", headersFor(core.IfModels)...)
	for _, tc := range []struct {
		n      int
		status int
	}{{60_000, http.StatusBadRequest}, {5_000, http.StatusOK}} {
		header := append(headersFor(core.IfModels), "Vendor-Beta", values(tc.n))
		var code int
		var msg string
		cpu := cpuOf(func() {
			w := send(t, s, http.MethodGet, "/v1/models", "", header...)
			code, msg = w.Code, gjson.Get(w.Body.String(), "error.message").String()
		})
		t.Logf("%d values (%d bytes): %d in %v CPU %.120s", tc.n, len(header[len(header)-1]), code, cpu.Round(time.Millisecond), msg)
		if code != tc.status {
			t.Errorf("%d values: answered %d %q, want %d", tc.n, code, msg, tc.status)
		}
		if code == http.StatusBadRequest && !strings.HasPrefix(msg, "vendor-beta: ") {
			t.Errorf("%d values: %q, want it to name vendor-beta", tc.n, msg)
		}
		if cpu > time.Second {
			t.Errorf("%d values: %v of CPU, want at most 1s", tc.n, cpu)
		}
	}
}

// TestStubMatchingCharged: matching a request against the stubs, the near miss included, is
// charged in stubs × text scanned (issue 47 item 6: 1,000 stubs against a 3 MB last turn took
// 12.2 s of CPU, and went on after the client left). That request is a 400 naming the turn's
// content within a second of CPU; 1,000 stubs against a 64 KB turn, each with its own rule,
// are matched, the near miss named as before.
func TestStubMatchingCharged(t *testing.T) {
	if testing.Short() {
		t.Skip("sends a 3 MB prompt to 1,000 stubs")
	}
	s := checked(t)
	for i := range stubs.MaxStubs {
		// Each rule its own, of the text's letter but for its last byte: no two share a scan,
		// and every position of the text starts a partial match.
		rule := strings.Repeat("a", 99) + fmt.Sprintf("%04d", i)
		if _, err := s.AddStub(stubs.Stub{Match: stubs.StubMatch{UserTextContains: rule}, Replies: []stubs.Reply{{Content: []map[string]any{{"type": "text", "text": "stubbed"}}}}}); err != nil {
			t.Fatal(err)
		}
	}
	header := append(headersFor(core.IfMessages), "Content-Type", "application/json")
	send(t, s, http.MethodPost, "/v1/messages", "{}", header...)
	body := func(text string) string {
		return `{"max_tokens":10,"model":"` + testModel + `","messages":[{"role":"user","content":"` + text + `"}]}`
	}
	for _, tc := range []struct {
		name     string
		text     string
		status   int
		nearMiss string
	}{
		{"3 MB turn", strings.Repeat("a", 3<<20), http.StatusBadRequest, ""},
		{"64 KB turn", strings.Repeat("a", 64<<10), http.StatusOK, `stub_010000000000000000000001: user_text_contains "` + strings.Repeat("a", 80) + `"... not in "` + strings.Repeat("a", 80) + `"...`},
	} {
		var code int
		var msg, miss string
		cpu := cpuOf(func() {
			w := send(t, s, http.MethodPost, "/v1/messages", body(tc.text), header...)
			code, msg, miss = w.Code, gjson.Get(w.Body.String(), "error.message").String(), w.Header().Get(stubs.HeaderStubNearMiss)
		})
		t.Logf("%s: %d in %v CPU %.160s", tc.name, code, cpu.Round(time.Millisecond), msg)
		if code != tc.status {
			t.Errorf("%s: answered %d %q, want %d", tc.name, code, msg, tc.status)
		}
		if code == http.StatusBadRequest && !strings.HasPrefix(msg, "messages.0.content: ") {
			t.Errorf("%s: %q, want it to name messages.0.content", tc.name, msg)
		}
		if miss != tc.nearMiss {
			t.Errorf("%s: near miss %q, want %q", tc.name, miss, tc.nearMiss)
		}
		if cpu > time.Second {
			t.Errorf("%s: %v of CPU, want at most 1s", tc.name, cpu)
		}
	}
}

// TestStubMatchingStopsWhenTheClientGoes: the matching of a request whose client went stops at
// the next stub, with a 400 that says so, rather than scanning the rest.
func TestStubMatchingStopsWhenTheClientGoes(t *testing.T) {
	s := New()
	for i := range stubs.MaxStubs {
		if _, err := s.AddStub(stubs.Stub{Match: stubs.StubMatch{UserTextContains: fmt.Sprintf("b%04d", i)}, Replies: []stubs.Reply{{Content: []map[string]any{{"type": "text", "text": "x"}}}}}); err != nil {
			t.Fatal(err)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	gc, _ := gin.CreateTestContext(httptest.NewRecorder())
	gc.Request, _ = http.NewRequestWithContext(ctx, http.MethodPost, "/v1/messages", nil)
	c := &core.Call{Context: gc, X: &core.Exchange{}}
	req := &wire.MessageRequest{Model: testModel, Messages: []wire.InputMessage{{Role: "user", Blocks: []wire.Block{{"type": "text", "text": strings.Repeat("a", 1<<20)}}}}}
	_, _, err := stubs.StubsOf(s.srv).Take(c, req)
	if err == nil || !strings.HasPrefix(err.Error(), core.ErrInvalidRequest+": messages.0.content: the work stopped here: the client closed the request") {
		t.Fatalf("take = %v, want a 400 naming messages.0.content: the client went", err)
	}
	if scanned := (stubs.MaxStubSteps - c.Work.Left) * core.StepBytes; scanned > 4<<20 {
		t.Errorf("%d bytes scanned after the client went, want at most 4 MiB", scanned)
	}
}
