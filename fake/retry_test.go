package fake

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/platformkit/platformkit/fake/internal/core"

	"github.com/tidwall/gjson"
)

// wantRetryHeaders checks the wait headers of a 429 or 529: retry-after, retry-after-ms and
// fake-retry-after-ms ("" when it must be absent).
func wantRetryHeaders(t *testing.T, w *httptest.ResponseRecorder, retryAfter, retryAfterMS, fakeMS string) {
	t.Helper()
	h := w.Header()
	if got := h.Get("retry-after"); got != retryAfter {
		t.Errorf("retry-after = %q, want %q", got, retryAfter)
	}
	if got := h.Get("retry-after-ms"); got != retryAfterMS {
		t.Errorf("retry-after-ms = %q, want %q", got, retryAfterMS)
	}
	if got, ok := h["Fake-Retry-After-Ms"]; fakeMS == "" && ok || fakeMS != "" && (len(got) != 1 || got[0] != fakeMS) {
		t.Errorf("fake-retry-after-ms = %q, want %q", got, fakeMS)
	}
}

// TestScaleMillis: a scaled wait is the true one times the scale in millionths, rounded up to a
// whole millisecond, exactly.
func TestScaleMillis(t *testing.T) {
	for _, c := range []struct{ ms, ppm, want int64 }{
		{30000, 1000, 30},                 // 30 s at 0.001: 30 ms
		{2000, 1000, 2},                   // 2 s at 0.001
		{50, 250_000, 13},                 // 12.5 ms rounds up
		{2000, 1, 1},                      // 0.002 ms rounds up to 1: never 0 for a wait above 0
		{0, 1000, 0},                      // no wait stays none
		{86_400_000, 1, 87},               // a day at one millionth: 86.4 ms
		{86_400_000, 999_999, 86_399_914}, // 86,399,913.6 rounds up
		{1 << 62, 500_000, 1 << 61},       // no overflow however long the wait
	} {
		if got := core.ScaleMillis(c.ms, c.ppm); got != c.want {
			t.Errorf("scaleMillis(%d, %d) = %d, want %d", c.ms, c.ppm, got, c.want)
		}
	}
}

// TestRetryAfterScaleOnAFault: an injected 429 asking for 2 s says 2 ms (retry-after, whole
// seconds, 1) under the scale 0.001 and keeps the 2,000 in fake-retry-after-ms; the official
// SDK's retry (x-stainless-retry-count: 1) arrives with the clock moved to 00:00:02, which the
// journal shows. Without the scale the same fault says 2 and 2000 and nothing moves.
func TestRetryAfterScaleOnAFault(t *testing.T) {
	s := New(WithRetryAfterScale(0.001))
	if _, err := s.InjectFault(core.Fault{Path: "/v1/models", Status: http.StatusTooManyRequests, RetryAfter: 2 * time.Second}); err != nil {
		t.Fatal(err)
	}
	auth := []string{"X-Api-Key", core.DefaultAPIKey, "vendor-version", core.APIVersion}
	w := send(t, s, core.Get, "/v1/models", "", append(auth, "X-Stainless-Retry-Count", "0")...)
	if w.Code != http.StatusTooManyRequests {
		t.Fatalf("first request: %d, want 429", w.Code)
	}
	wantRetryHeaders(t, w, "1", "2", "2000")
	if now := s.Now(); !now.Equal(core.Epoch()) {
		t.Errorf("after the 429 the clock is %v, want %v: only the retry moves it", now, core.Epoch())
	}
	w = send(t, s, core.Get, "/v1/models", "", append(auth, "X-Stainless-Retry-Count", "1")...)
	if w.Code != http.StatusOK {
		t.Fatalf("retry: %d %s", w.Code, w.Body)
	}
	want := time.Date(2026, 1, 1, 0, 0, 2, 0, time.UTC)
	if now := s.Now(); !now.Equal(want) {
		t.Errorf("after the retry the clock is %v, want %v", now, want)
	}
	if j := s.Journal(); len(j) != 2 || !j[0].At.Equal(core.Epoch()) || !j[1].At.Equal(want) {
		t.Errorf("journal times %v, want the 429 at %v and the retry at %v", j, core.Epoch(), want)
	}
	// The wait was used up: a later retry moves nothing.
	send(t, s, core.Get, "/v1/models", "", append(auth, "X-Stainless-Retry-Count", "2")...)
	if now := s.Now(); !now.Equal(want) {
		t.Errorf("a second retry moved the clock to %v, want it at %v", now, want)
	}

	plain := New()
	if _, err := plain.InjectFault(core.Fault{Path: "/v1/models", Status: http.StatusTooManyRequests, RetryAfter: 2 * time.Second}); err != nil {
		t.Fatal(err)
	}
	wantRetryHeaders(t, send(t, plain, core.Get, "/v1/models", "", auth...), "2", "2000", "")
	send(t, plain, core.Get, "/v1/models", "", append(auth, "X-Stainless-Retry-Count", "1")...)
	if now := plain.Now(); !now.Equal(core.Epoch()) {
		t.Errorf("without a scale a retry moved the clock to %v", now)
	}
}

// TestRetryAfterScaleRounding: 50 ms at 0.25 is 12.5 ms, sent as 13 (and retry-after 1); a
// 529 is scaled as a 429 is; a fault asking for 0 still sends 0.
func TestRetryAfterScaleRounding(t *testing.T) {
	s := New(WithRetryAfterScale(0.25))
	for _, f := range []core.Fault{
		{Path: "/v1/models", Status: http.StatusTooManyRequests, RetryAfter: 50 * time.Millisecond},
		{Path: "/v1/models", Status: 529, RetryAfter: 50 * time.Millisecond},
	} {
		if _, err := s.InjectFault(f); err != nil {
			t.Fatal(err)
		}
		wantRetryHeaders(t, send(t, s, core.Get, "/v1/models", "", "X-Api-Key", core.DefaultAPIKey, "vendor-version", core.APIVersion), "1", "13", "50")
	}
	if _, err := s.srv.AddFault(core.Fault{Path: "/v1/models", Status: http.StatusTooManyRequests, Times: 1}); err != nil {
		t.Fatal(err)
	}
	wantRetryHeaders(t, send(t, s, core.Get, "/v1/models", "", "X-Api-Key", core.DefaultAPIKey, "vendor-version", core.APIVersion), "0", "0", "0")
}

// TestRetryAfterScaleOnARateLimit: the rate limit's 30 s wait (two requests a minute) is sent as
// 30 ms under 0.001. A request that is no retry meets the same 429 (nothing moved); the official
// SDK's retry arrives at 00:00:30 and is the third message, with the headers the clock advanced
// by hand gives in TestRateLimitBucketDrainsAndRefills.
func TestRateLimitRetriedOnTheVirtualClock(t *testing.T) {
	s := rlServer(t, WithRetryAfterScale(0.001))
	setWorkspaceLimits(t, s, `[{"type":"requests_per_minute","value":2},{"type":"input_tokens_per_minute","value":6000},{"type":"output_tokens_per_minute","value":60}]`)
	stubTenTokens(t, s)
	for i := range 2 {
		if w := postAs(t, s, researchKey, "/v1/messages", bigBody); w.Code != http.StatusOK {
			t.Fatalf("request %d: %d %s", i+1, w.Code, w.Body)
		}
	}
	for _, retry := range []string{"0", ""} { // a first attempt, and a client that sends no count
		var h []string
		if retry != "" {
			h = []string{"X-Stainless-Retry-Count", retry}
		}
		w := postAs(t, s, researchKey, "/v1/messages", bigBody, h...)
		if w.Code != http.StatusTooManyRequests || w.Header().Get("x-should-retry") != "true" {
			t.Fatalf("third request (retry count %q): %d, x-should-retry %q; want 429, true", retry, w.Code, w.Header().Get("x-should-retry"))
		}
		wantRetryHeaders(t, w, "1", "30", "30000")
	}
	w := postAs(t, s, researchKey, "/v1/messages", bigBody, "X-Stainless-Retry-Count", "1")
	if w.Code != http.StatusOK || gjson.Get(w.Body.String(), "id").String() != "msg_010000000000000000000003" {
		t.Fatalf("the retry: %d %s; want the third message", w.Code, w.Body)
	}
	if now, want := s.Now(), time.Date(2026, 1, 1, 0, 0, 30, 0, time.UTC); !now.Equal(want) {
		t.Errorf("clock %v, want %v", now, want)
	}
	wantHeaders(t, w, "requests-limit=2", "requests-remaining=0", "requests-reset=2026-01-01T00:01:30Z",
		"input-tokens-limit=6000", "input-tokens-remaining=4000", "input-tokens-reset=2026-01-01T00:00:45Z",
		"output-tokens-limit=60", "output-tokens-remaining=0", "output-tokens-reset=2026-01-01T00:00:40Z",
		"tokens-limit=6060", "tokens-remaining=4000", "tokens-reset=2026-01-01T00:00:40Z")
}

// TestRetryAfterScaleClockAlreadyPast: a test that advanced the clock past the wait itself keeps
// its time when the retry arrives.
func TestRetryAfterScaleClockAlreadyPast(t *testing.T) {
	s := New(WithRetryAfterScale(0.001))
	if _, err := s.InjectFault(core.Fault{Path: "/v1/models", Status: http.StatusTooManyRequests, RetryAfter: 2 * time.Second}); err != nil {
		t.Fatal(err)
	}
	send(t, s, core.Get, "/v1/models", "", "X-Api-Key", core.DefaultAPIKey, "vendor-version", core.APIVersion)
	s.AdvanceClock(time.Minute)
	send(t, s, core.Get, "/v1/models", "", "X-Api-Key", core.DefaultAPIKey, "vendor-version", core.APIVersion, "X-Stainless-Retry-Count", "1")
	if now, want := s.Now(), time.Date(2026, 1, 1, 0, 1, 0, 0, time.UTC); !now.Equal(want) {
		t.Errorf("clock %v, want %v", now, want)
	}
}

// TestRetryAfterControl: GET and PUT /_fake/retry_after per server or namespace, the bounds of a
// scale, reset back to the scale the server was built with, and a wall-clock server that takes 1
// only.
func TestRetryAfterControl(t *testing.T) {
	s := New(WithRetryAfterScale(0.5))
	if w := send(t, s, core.Get, "/_fake/retry_after", ""); w.Code != http.StatusOK || strings.TrimSpace(w.Body.String()) != `{"scale":0.5}` {
		t.Fatalf("GET: %d %s", w.Code, w.Body)
	}
	if w := send(t, s, core.Put, "/ns/a/_fake/retry_after", `{"scale":0.001}`); w.Code != http.StatusOK || strings.TrimSpace(w.Body.String()) != `{"scale":0.001}` {
		t.Fatalf("PUT: %d %s", w.Code, w.Body)
	}
	if w := send(t, s, core.Get, "/ns/b/_fake/retry_after", ""); strings.TrimSpace(w.Body.String()) != `{"scale":0.5}` {
		t.Errorf("namespace b: %s, want the server's 0.5: a namespace's scale is its own", w.Body)
	}
	if w := send(t, s, core.Get, "/_fake/retry_after", ""); strings.TrimSpace(w.Body.String()) != `{"scale":0.5}` {
		t.Errorf("default server: %s, want 0.5", w.Body)
	}
	for body, msg := range map[string]string{
		`{"scale":0}`:         "scale: ",
		`{"scale":1.5}`:       "scale: ",
		`{"scale":-1}`:        "scale: ",
		`{"scale":0.0000005}`: "scale: must be a whole number of millionths (0.001, 0.000001), got 5e-07",
		`{}`:                  "scale",
	} {
		wantError(t, send(t, s, core.Put, "/ns/a/_fake/retry_after", body), http.StatusBadRequest, core.ErrInvalidRequest, msg)
	}
	send(t, s, core.Post, "/ns/a/_fake/reset", "")
	if w := send(t, s, core.Get, "/ns/a/_fake/retry_after", ""); strings.TrimSpace(w.Body.String()) != `{"scale":0.5}` {
		t.Errorf("after reset: %s, want the scale the server was built with", w.Body)
	}

	wall := New(WithWallClock())
	wantError(t, send(t, wall, core.Put, "/_fake/retry_after", `{"scale":0.5}`), http.StatusBadRequest, core.ErrInvalidRequest,
		"scale: a server on the wall clock sends the true waits: only 1 is accepted, got 0.5")
	if w := send(t, wall, core.Put, "/_fake/retry_after", `{"scale":1}`); w.Code != http.StatusOK {
		t.Errorf("wall clock, scale 1: %d %s", w.Code, w.Body)
	}
	if err := core.CheckRetryAfterScale(0.001); err != nil {
		t.Errorf("CheckRetryAfterScale(0.001) = %v", err)
	}
	if err := core.CheckRetryAfterScale(2); err == nil || err.Error() != "scale: must be more than 0 and at most 1 (1 sends the true waits), got 2" {
		t.Errorf("CheckRetryAfterScale(2) = %v", err)
	}
}
