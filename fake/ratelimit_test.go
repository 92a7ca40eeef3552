package fake

import (
	"fmt"
	"io/fs"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"testing/fstest"
	"time"

	"github.com/platformkit/platformkit/fake/internal/areas/messages/scenarios"

	"github.com/platformkit/platformkit/fake/internal/areas/messages/stubs"

	"github.com/platformkit/platformkit/fake/internal/areas/ratelimit"

	"github.com/platformkit/platformkit/fake/internal/core"

	"github.com/gin-gonic/gin"
	"github.com/tidwall/gjson"

	"github.com/platformkit/platformkit/fixtures"
)

// Rate limits (ratelimit.go). The numbers below are worked out by hand from the fixtures:
//
//   - bigBody's input is 1,503 tokens: the messages array and its one object (1 each), the role
//     "user" (1) and 1,500 words " w" (1 each).
//   - tenTokens is a stub reply of 10 output tokens: "a" and nine " x".
//   - Acme's opus group (assistant-opus-4-7 is in it) allows 4,000 requests, 2,000,000 input
//     and 400,000 output tokens a minute; Globex's sonnet group 50 requests and 30,000 input
//     tokens, and no output limit.
const (
	researchKey   = "test-api-key-research" // a key of Acme's Research workspace
	acmeUUID      = "3f1c2a9e-5b7d-4e21-9c3a-1d2e3f4a5b6c"
	globexUUID    = "9a8b7c6d-1e2f-4a3b-8c4d-5e6f7a8b9c0d"
	researchWS    = "wrkspc_01AcmeResearch0000000001"
	tenTokensText = "a b c d e f g h i j"
)

var bigBody = `{"model":"assistant-opus-4-7","max_tokens":100,"messages":[{"role":"user","content":"` + strings.Repeat(" w", 1500) + `"}]}`

func bigBodyFor(model string) string {
	return strings.Replace(bigBody, "assistant-opus-4-7", model, 1)
}

// rlServer is a server with rate limits enforced, failing t on any response outside its schema.
func rlServer(t *testing.T, opts ...Option) *Server {
	t.Helper()
	return New(append([]Option{WithRateLimits(), WithViolationHandler(func(msg string) { t.Errorf("fake: %s", msg) })}, opts...)...)
}

func postAs(t *testing.T, s http.Handler, key, path, body string, header ...string) *httptest.ResponseRecorder {
	t.Helper()
	return send(t, s, core.Post, path, body, append([]string{"X-Api-Key", key, "vendor-version", core.APIVersion}, header...)...)
}

// setWorkspaceLimits sets the Research workspace's overrides of Acme's opus group through the
// admin API, as a client would.
func setWorkspaceLimits(t *testing.T, s *Server, limits string) {
	t.Helper()
	w := send(t, s, core.Get, "/v1/organizations/rate_limits?model=assistant-opus-4-7", "", "X-Api-Key", core.DefaultAdminKey, "vendor-version", core.APIVersion)
	id := gjson.Get(w.Body.String(), "data.0.id").String()
	w = send(t, s, core.Post, "/v1/organizations/workspaces/"+researchWS+"/rate_limits/"+id, `{"limits":`+limits+`}`, "X-Api-Key", core.DefaultAdminKey, "vendor-version", core.APIVersion)
	if w.Code != http.StatusOK {
		t.Fatalf("update workspace limits: %d %s", w.Code, w.Body)
	}
}

func groupOf(t *testing.T, s *Server, key, model string) string {
	t.Helper()
	w := send(t, s, core.Get, "/v1/organizations/rate_limits?model="+model, "", "X-Api-Key", key, "vendor-version", core.APIVersion)
	return gjson.Get(w.Body.String(), "data.0.group.id").String()
}

func stubTenTokens(t *testing.T, s *Server) {
	t.Helper()
	if _, err := s.AddStub(stubs.Stub{Replies: []stubs.Reply{{Content: []map[string]any{{"type": "text", "text": tenTokensText}}}}, Forever: true}); err != nil {
		t.Fatal(err)
	}
}

// wantHeaders checks the rate-limit headers, in both families, against "name=value" pairs
// (names without the family prefix), and that no other rate-limit header was sent.
func wantHeaders(t *testing.T, w *httptest.ResponseRecorder, want ...string) {
	t.Helper()
	n := 0
	for name := range w.Header() {
		if strings.Contains(strings.ToLower(name), "ratelimit") {
			n++
		}
	}
	if n != 2*len(want) {
		t.Errorf("%d rate-limit headers sent, want %d: %v", n, 2*len(want), w.Header())
	}
	for _, nv := range want {
		name, value, _ := strings.Cut(nv, "=")
		for _, f := range []string{"vendor-ratelimit-", "anthropic-ratelimit-"} {
			if got := w.Header().Get(f + name); got != value {
				t.Errorf("%s%s = %q, want %q", f, name, got, value)
			}
		}
	}
}

// TestRateLimitBucketDrainsAndRefills: a workspace limit below the organization's drains with
// each request, refuses the one it cannot hold with retry-after exactly as long as the bucket
// needs, and refills continuously on the virtual clock; the headers follow the bucket at each point.
func TestRateLimitBucketDrainsAndRefills(t *testing.T) {
	s := rlServer(t)
	setWorkspaceLimits(t, s, `[{"type":"requests_per_minute","value":2},{"type":"input_tokens_per_minute","value":6000},{"type":"output_tokens_per_minute","value":60}]`)
	stubTenTokens(t, s)
	group := groupOf(t, s, core.DefaultAdminKey, "assistant-opus-4-7")

	// 00:00:00, first request: 1 of 2 requests left (full again in 30 s); 6,000 - 1,503 = 4,497
	// input tokens, shown as 4,000, full in 15.03 s; 60 - 10 = 50 output tokens, shown as 0, full
	// in 10 s. The tokens triple sums the two: 6,060, 4,000 + 0, and the earlier reset.
	w := postAs(t, s, researchKey, "/v1/messages", bigBody)
	if w.Code != http.StatusOK {
		t.Fatalf("first request: %d %s", w.Code, w.Body)
	}
	wantHeaders(t, w, "requests-limit=2", "requests-remaining=1", "requests-reset=2026-01-01T00:00:30Z",
		"input-tokens-limit=6000", "input-tokens-remaining=4000", "input-tokens-reset=2026-01-01T00:00:15Z",
		"output-tokens-limit=60", "output-tokens-remaining=0", "output-tokens-reset=2026-01-01T00:00:10Z",
		"tokens-limit=6060", "tokens-remaining=4000", "tokens-reset=2026-01-01T00:00:10Z")

	// Second request, same instant: 0 requests (full in 60 s), 2,994 input tokens (shown 3,000,
	// full in 30.06 s), 40 output tokens (full in 20 s).
	w = postAs(t, s, researchKey, "/v1/messages", bigBody)
	if w.Code != http.StatusOK {
		t.Fatalf("second request: %d %s", w.Code, w.Body)
	}
	after2 := []string{"requests-limit=2", "requests-remaining=0", "requests-reset=2026-01-01T00:01:00Z",
		"input-tokens-limit=6000", "input-tokens-remaining=3000", "input-tokens-reset=2026-01-01T00:00:30Z",
		"output-tokens-limit=60", "output-tokens-remaining=0", "output-tokens-reset=2026-01-01T00:00:20Z",
		"tokens-limit=6060", "tokens-remaining=3000", "tokens-reset=2026-01-01T00:00:20Z"}
	wantHeaders(t, w, after2...)

	// Third: the request bucket is empty; one request comes back in 30 s.
	before := s.RateLimits()
	w = postAs(t, s, researchKey, "/v1/messages", bigBody)
	wantError(t, w, http.StatusTooManyRequests, core.ErrRateLimit,
		"This request would exceed your workspace's rate limit of 2 requests per minute (workspace: wrkspc_01AcmeResearch0000000001, model: assistant-opus-4-7).")
	if ra, ms, retry := w.Header().Get("retry-after"), w.Header().Get("retry-after-ms"), w.Header().Get("x-should-retry"); ra != "30" || ms != "30000" || retry != "true" {
		t.Errorf("retry-after %q, retry-after-ms %q, x-should-retry %q; want 30, 30000, true", ra, ms, retry)
	}
	wantHeaders(t, w, after2...) // the 429 carries them, and took nothing
	if after := s.RateLimits(); fmt.Sprint(after) != fmt.Sprint(before) {
		t.Errorf("a 429 changed the buckets:\n%v\n%v", before, after)
	}
	if served := s.Stubs()[0].Served; served != 2 {
		t.Errorf("the stub served %d replies, want 2: a 429 uses none", served)
	}
	if e := s.Journal(); e[len(e)-1].RateLimit != "workspace "+group+" requests_per_minute" || e[len(e)-2].RateLimit != "" {
		t.Errorf("journal rate_limit = %q (and %q before it), want the workspace's requests_per_minute", e[len(e)-1].RateLimit, e[len(e)-2].RateLimit)
	}

	// 29 s later, 29/30 of a request has come back: one more second is needed.
	s.AdvanceClock(29 * time.Second)
	w = postAs(t, s, researchKey, "/v1/messages", bigBody)
	if w.Code != http.StatusTooManyRequests || w.Header().Get("retry-after") != "1" || w.Header().Get("retry-after-ms") != "1000" {
		t.Fatalf("at 00:00:29: %d, retry-after %q, retry-after-ms %q; want 429, 1, 1000", w.Code, w.Header().Get("retry-after"), w.Header().Get("retry-after-ms"))
	}
	// Advancing by retry-after lets the same request through: 00:00:30, the third message.
	s.AdvanceClock(time.Second)
	w = postAs(t, s, researchKey, "/v1/messages", bigBody)
	if w.Code != http.StatusOK || gjson.Get(w.Body.String(), "id").String() != "msg_010000000000000000000003" {
		t.Fatalf("at 00:00:30: %d %s; want the third message", w.Code, w.Body)
	}
	// Input: 2,994 + 30 s × 100/s = 5,994, less 1,503 = 4,491 (full in 15.09 s). Output: 40 +
	// 30 = 60 (full), less 10 = 50 (full in 10 s).
	wantHeaders(t, w, "requests-limit=2", "requests-remaining=0", "requests-reset=2026-01-01T00:01:30Z",
		"input-tokens-limit=6000", "input-tokens-remaining=4000", "input-tokens-reset=2026-01-01T00:00:45Z",
		"output-tokens-limit=60", "output-tokens-remaining=0", "output-tokens-reset=2026-01-01T00:00:40Z",
		"tokens-limit=6060", "tokens-remaining=4000", "tokens-reset=2026-01-01T00:00:40Z")
}

// TestRateLimitOrganizationInputTokens: the organization's input-token limit refuses the 20th
// request of 1,503 tokens (19 × 1,503 = 28,557 of 30,000 taken), with the message the service
// sends; 60 tokens short at 500 a second is 120 ms. A group without an output limit sends no
// output-tokens triple, and the tokens triple is the input one.
func TestRateLimitOrganizationInputTokens(t *testing.T) {
	s := rlServer(t)
	body := bigBodyFor("assistant-sonnet-4-5")
	for i := range 19 {
		if w := postAs(t, s, "test-api-key-2", "/v1/messages", body); w.Code != http.StatusOK {
			t.Fatalf("request %d: %d %s", i+1, w.Code, w.Body)
		}
	}
	w := postAs(t, s, "test-api-key-2", "/v1/messages", body)
	wantError(t, w, http.StatusTooManyRequests, core.ErrRateLimit,
		"This request would exceed your organization's rate limit of 30,000 input tokens per minute (org: "+globexUUID+", model: assistant-sonnet-4-5).")
	if ra, ms := w.Header().Get("retry-after"), w.Header().Get("retry-after-ms"); ra != "1" || ms != "120" {
		t.Errorf("retry-after %q, retry-after-ms %q; want 1 and 120", ra, ms)
	}
	// 31 of 50 requests (full in 19 × 1.2 s = 22.8 s); 1,443 input tokens (shown 1,000; full in
	// 28,557 × 2 ms = 57.114 s).
	wantHeaders(t, w, "requests-limit=50", "requests-remaining=31", "requests-reset=2026-01-01T00:00:22Z",
		"input-tokens-limit=30000", "input-tokens-remaining=1000", "input-tokens-reset=2026-01-01T00:00:57Z",
		"tokens-limit=30000", "tokens-remaining=1000", "tokens-reset=2026-01-01T00:00:57Z")
	if e := s.Journal(); e[len(e)-1].RateLimit != "organization "+groupOf(t, s, "test-admin-key-2", "assistant-sonnet-4-5")+" input_tokens_per_minute" {
		t.Errorf("journal rate_limit = %q", e[len(e)-1].RateLimit)
	}
	s.AdvanceClock(119 * time.Millisecond)
	if w := postAs(t, s, "test-api-key-2", "/v1/messages", body); w.Code != http.StatusTooManyRequests || w.Header().Get("retry-after-ms") != "1" {
		t.Fatalf("1 ms early: %d, retry-after-ms %q; want 429 and 1", w.Code, w.Header().Get("retry-after-ms"))
	}
	s.AdvanceClock(time.Millisecond)
	if w := postAs(t, s, "test-api-key-2", "/v1/messages", body); w.Code != http.StatusOK {
		t.Fatalf("after retry-after-ms: %d %s", w.Code, w.Body)
	}
}

// TestRateLimitOrganizationAppliesAboveWorkspace: a workspace override above the organization's
// limit is stored, but the organization's bucket is the more restrictive one, and the headers
// show it; the default workspace has only the organization's buckets.
func TestRateLimitOrganizationAppliesAboveWorkspace(t *testing.T) {
	s := rlServer(t)
	setWorkspaceLimits(t, s, `[{"type":"requests_per_minute","value":5000}]`)
	w := postAs(t, s, researchKey, "/v1/messages", bigBody)
	if got := w.Header().Get("vendor-ratelimit-requests-limit") + " " + w.Header().Get("vendor-ratelimit-requests-remaining"); got != "4000 3999" {
		t.Errorf("requests limit and remaining = %s, want the organization's 4000 3999", got)
	}
	// A request of the default workspace takes from the organization's bucket only.
	w = postAs(t, s, core.DefaultAPIKey, "/v1/messages", bigBody)
	if got := w.Header().Get("vendor-ratelimit-requests-remaining"); got != "3998" {
		t.Errorf("requests remaining = %s, want 3998", got)
	}
	var scopes []string
	for _, b := range s.RateLimits().Buckets {
		if b.Limiter == ratelimit.LimitRequests {
			scopes = append(scopes, fmt.Sprintf("%s %s %d %d", b.Scope, b.Owner, b.Limit, b.Remaining))
		}
	}
	if got, want := strings.Join(scopes, "; "), "organization "+acmeUUID+" 4000 3998; workspace "+researchWS+" 5000 4999"; got != want {
		t.Errorf("request buckets = %s\nwant              %s", got, want)
	}
}

// TestRateLimitAdminUpdateChangesEnforcement: the admin area's update is enforced at once (the
// service takes up to an hour): a limit of 1 refuses the second request for 60 s; raised to 120,
// the same empty bucket refills in 0.5 s; an input limit below the request's size refuses it
// without retry-after, since no wait lets it through.
func TestRateLimitAdminUpdateChangesEnforcement(t *testing.T) {
	s := rlServer(t)
	setWorkspaceLimits(t, s, `[{"type":"requests_per_minute","value":1}]`)
	postAs(t, s, researchKey, "/v1/messages", bigBody)
	w := postAs(t, s, researchKey, "/v1/messages", bigBody)
	if w.Code != http.StatusTooManyRequests || w.Header().Get("retry-after-ms") != "60000" {
		t.Fatalf("limit 1: %d, retry-after-ms %q; want 429 and 60000", w.Code, w.Header().Get("retry-after-ms"))
	}
	setWorkspaceLimits(t, s, `[{"type":"requests_per_minute","value":120}]`)
	w = postAs(t, s, researchKey, "/v1/messages", bigBody)
	if w.Code != http.StatusTooManyRequests || w.Header().Get("retry-after-ms") != "500" || w.Header().Get("retry-after") != "1" {
		t.Fatalf("limit 120: %d, retry-after-ms %q; want 429 and 500", w.Code, w.Header().Get("retry-after-ms"))
	}
	setWorkspaceLimits(t, s, `[{"type":"requests_per_minute","value":null},{"type":"input_tokens_per_minute","value":1000}]`)
	w = postAs(t, s, researchKey, "/v1/messages", bigBody)
	wantError(t, w, http.StatusTooManyRequests, core.ErrRateLimit, "rate limit of 1,000 input tokens per minute (workspace: "+researchWS)
	if !strings.Contains(w.Body.String(), "It needs 1,503 input tokens") || w.Header().Get("retry-after") != "" || w.Header().Get("x-should-retry") != "false" {
		t.Errorf("a request above the limit: retry-after %q, x-should-retry %q, %s; want none, false, and the size", w.Header().Get("retry-after"), w.Header().Get("x-should-retry"), w.Body)
	}
	// Cleared, the workspace's limits are the organization's: its request bucket, still empty,
	// now refills 4,000 a minute, one request in 15 ms.
	setWorkspaceLimits(t, s, `[{"type":"input_tokens_per_minute","value":null}]`)
	w = postAs(t, s, researchKey, "/v1/messages", bigBody)
	wantError(t, w, http.StatusTooManyRequests, core.ErrRateLimit, "workspace's rate limit of 4,000 requests per minute")
	if w.Header().Get("retry-after-ms") != "15" {
		t.Errorf("overrides cleared: retry-after-ms %q, want 15", w.Header().Get("retry-after-ms"))
	}
	s.AdvanceClock(15 * time.Millisecond)
	if w := postAs(t, s, researchKey, "/v1/messages", bigBody); w.Code != http.StatusOK {
		t.Fatalf("overrides cleared, 15 ms later: %d %s", w.Code, w.Body)
	}
}

// TestRateLimitCountTokensHasItsOwnBucket: count_tokens takes from the token_count group's
// requests (2,000 a minute), not from Messages', and sends only the requests triple.
func TestRateLimitCountTokensHasItsOwnBucket(t *testing.T) {
	s := rlServer(t)
	setWorkspaceLimits(t, s, `[{"type":"requests_per_minute","value":1}]`)
	postAs(t, s, researchKey, "/v1/messages", bigBody)
	if w := postAs(t, s, researchKey, "/v1/messages", bigBody); w.Code != http.StatusTooManyRequests {
		t.Fatalf("messages: %d, want 429", w.Code)
	}
	w := postAs(t, s, researchKey, "/v1/messages/count_tokens", strings.Replace(bigBody, `"max_tokens":100,`, "", 1))
	if w.Code != http.StatusOK {
		t.Fatalf("count_tokens: %d %s", w.Code, w.Body)
	}
	// 2,000 a minute: one request is back in 30 ms, so the reset is this very second.
	wantHeaders(t, w, "requests-limit=2000", "requests-remaining=1999", "requests-reset=2026-01-01T00:00:00Z")
}

// TestRateLimitHeadersOnEveryInferenceAnswer: streams carry the headers on their response,
// Completions count like Messages; with enforcement off, or for a model no group limits, no
// header is sent.
func TestRateLimitHeadersOnEveryInferenceAnswer(t *testing.T) {
	s := rlServer(t)
	stream := postAs(t, s, core.DefaultAPIKey, "/v1/messages", strings.Replace(bigBody, `"max_tokens":100`, `"max_tokens":100,"stream":true`, 1))
	if ct := stream.Header().Get("content-type"); !strings.HasPrefix(ct, "text/event-stream") || stream.Header().Get("vendor-ratelimit-requests-remaining") != "3999" {
		t.Errorf("stream: content-type %q, requests remaining %q; want an event stream with 3999", ct, stream.Header().Get("vendor-ratelimit-requests-remaining"))
	}
	compl := postAs(t, s, core.DefaultAPIKey, "/v1/complete", `{"model":"assistant-opus-4-7","max_tokens_to_sample":5,"prompt":"\n\nHuman: hi\n\nAssistant:"}`)
	if compl.Code != http.StatusOK || compl.Header().Get("anthropic-ratelimit-requests-remaining") != "3998" {
		t.Errorf("completion: %d, requests remaining %q; want 3998", compl.Code, compl.Header().Get("anthropic-ratelimit-requests-remaining"))
	}
	if w := postAs(t, s, core.DefaultAPIKey, "/v1/messages", bigBodyFor("assistant-mythos-preview")); w.Code != http.StatusOK || w.Header().Get("vendor-ratelimit-requests-limit") != "" {
		t.Errorf("a model no group limits: %d, requests limit %q; want 200 and none", w.Code, w.Header().Get("vendor-ratelimit-requests-limit"))
	}
	off := checked(t)
	w := postAs(t, off, core.DefaultAPIKey, "/v1/messages", bigBody)
	wantHeaders(t, w)
	if st := off.RateLimits(); st.Enforce || len(st.Buckets) != 0 {
		t.Errorf("off by default: %+v", st)
	}
}

// TestRateLimitControl: PUT /_fake/rate_limits turns enforcement on and off in the namespace it
// addresses only; GET shows the buckets; Reset puts enforcement back as the server was built,
// with full buckets.
func TestRateLimitControl(t *testing.T) {
	s := checked(t)
	on := send(t, s, "PUT", "/ns/a/_fake/rate_limits", `{"enforce":true}`)
	if on.Code != http.StatusOK || gjson.Get(on.Body.String(), "enforce").Bool() != true {
		t.Fatalf("PUT: %d %s", on.Code, on.Body)
	}
	if w := send(t, s, core.Post, "/ns/a/_fake/messages/stubs", `{"replies":[{"content":[{"type":"text","text":"`+tenTokensText+`"}]}]}`); w.Code != http.StatusOK {
		t.Fatalf("stub: %d %s", w.Code, w.Body)
	}
	if w := postAs(t, s, core.DefaultAPIKey, "/ns/a/v1/messages", bigBody); w.Header().Get("vendor-ratelimit-requests-remaining") != "3999" {
		t.Errorf("namespace a: requests remaining %q, want 3999", w.Header().Get("vendor-ratelimit-requests-remaining"))
	}
	for _, p := range []string{"/v1/messages", "/ns/b/v1/messages"} {
		if w := postAs(t, s, core.DefaultAPIKey, p, bigBody); w.Header().Get("vendor-ratelimit-requests-limit") != "" {
			t.Errorf("%s: rate-limit headers sent while only namespace a enforces them", p)
		}
	}
	group := groupOf(t, s, core.DefaultAdminKey, "assistant-opus-4-7")
	// After one request with 1,503 input tokens and (by the stub) 10 output tokens: full again
	// in 1,503 × 60 s / 2,000,000 = 45.09 ms, 10 × 60 s / 400,000 = 1.5 ms, 60 s / 4,000 = 15 ms.
	got := send(t, s, core.Get, "/ns/a/_fake/rate_limits", "").Body.String()
	want := `{"enforce":true,"buckets":[` +
		`{"scope":"organization","owner":"` + acmeUUID + `","group":"` + group + `","limiter":"input_tokens_per_minute","limit":2000000,"remaining":1998497,"reset":"2026-01-01T00:00:00.04509Z"},` +
		`{"scope":"organization","owner":"` + acmeUUID + `","group":"` + group + `","limiter":"output_tokens_per_minute","limit":400000,"remaining":399990,"reset":"2026-01-01T00:00:00.0015Z"},` +
		`{"scope":"organization","owner":"` + acmeUUID + `","group":"` + group + `","limiter":"requests_per_minute","limit":4000,"remaining":3999,"reset":"2026-01-01T00:00:00.015Z"}]}` + "\n"
	if got != want {
		t.Errorf("GET /_fake/rate_limits =\n%s\nwant\n%s", got, want)
	}
	a, _ := s.Namespace("a")
	// Turning it on again changes nothing; off forgets the buckets; reset turns it back off.
	if b := a.SetRateLimits(true); len(b.Buckets) != 3 {
		t.Errorf("on again: %d buckets, want the 3 kept", len(b.Buckets))
	}
	if b := a.SetRateLimits(false); b.Enforce || len(b.Buckets) != 0 {
		t.Errorf("off: %+v", b)
	}
	a.SetRateLimits(true)
	a.Reset()
	if b := a.RateLimits(); b.Enforce {
		t.Errorf("after reset of a server built without WithRateLimits: %+v", b)
	}
	built := rlServer(t)
	postAs(t, built, core.DefaultAPIKey, "/v1/messages", bigBody)
	built.Reset()
	if b := built.RateLimits(); !b.Enforce || len(b.Buckets) != 0 {
		t.Errorf("after reset of a server built with WithRateLimits: %+v, want on with full buckets", b)
	}
	if w := send(t, s, "PUT", "/_fake/rate_limits", `{"enforce":"yes"}`); w.Code != http.StatusBadRequest || !strings.Contains(w.Body.String(), "enforce") {
		t.Errorf("bad body: %d %s", w.Code, w.Body)
	}
}

// TestRateLimitClientHonouringRetryAfterNeverSeesASecond429: a seeded client sends requests of
// random sizes at random moments and, on a 429, waits what retry-after says (on the virtual
// clock) and sends the same request again: that retry always goes through.
func TestRateLimitClientHonouringRetryAfterNeverSeesASecond429(t *testing.T) {
	s := rlServer(t)
	r := rand.New(rand.NewPCG(22, 2))
	refused := 0
	for i := range 200 {
		words := 1 + r.IntN(3000)
		body := `{"model":"assistant-sonnet-4-5","max_tokens":10,"messages":[{"role":"user","content":"` + strings.Repeat(" w", words) + `"}]}`
		if r.IntN(4) == 0 {
			s.AdvanceClock(time.Duration(r.IntN(3000)) * time.Millisecond)
		}
		w := postAs(t, s, "test-api-key-2", "/v1/messages", body)
		if w.Code == http.StatusOK {
			continue
		}
		if w.Code != http.StatusTooManyRequests {
			t.Fatalf("request %d: %d %s", i, w.Code, w.Body)
		}
		refused++
		secs, err := strconv.Atoi(w.Header().Get("retry-after"))
		if err != nil || secs < 1 {
			t.Fatalf("request %d: retry-after %q", i, w.Header().Get("retry-after"))
		}
		s.AdvanceClock(time.Duration(secs) * time.Second)
		if w := postAs(t, s, "test-api-key-2", "/v1/messages", body); w.Code != http.StatusOK {
			t.Fatalf("request %d (%d words) refused again after retry-after %d s: %d %s", i, words, secs, w.Code, w.Body)
		}
	}
	t.Logf("%d of 200 requests refused once, none twice", refused)
	if refused < 20 {
		t.Errorf("only %d of 200 requests were refused: the test does not exercise retries", refused)
	}
}

// TestRateLimitInputUsageCountsCacheByModel: the input-token bucket takes uncached input and
// cache writes, and cache reads only on the model that counts them.
func TestRateLimitInputUsageCountsCacheByModel(t *testing.T) {
	u := ratelimit.InputUsage{Input: 100, CacheCreation: 20, CacheRead: 3}
	if got := u.Charged("assistant-opus-4-7"); got != 120 {
		t.Errorf("opus: %d, want 120", got)
	}
	if got := u.Charged("assistant-3-haiku-20240307"); got != 123 {
		t.Errorf("3 haiku: %d, want 123", got)
	}
}

// TestRateLimitHeaderFormats: remaining rounds to the nearest thousand, halves up; messages
// write thousands with commas.
func TestRateLimitHeaderFormats(t *testing.T) {
	for n, want := range map[int64]int64{0: 0, 499: 0, 500: 1000, 1499: 1000, 1500: 2000, 1998497: 1998000} {
		if got := ratelimit.RoundThousand(n); got != want {
			t.Errorf("roundThousand(%d) = %d, want %d", n, got, want)
		}
	}
	for n, want := range map[int64]string{0: "0", 999: "999", 1000: "1,000", 30000: "30,000", 2000000: "2,000,000"} {
		if got := ratelimit.Thousands(n); got != want {
			t.Errorf("thousands(%d) = %q, want %q", n, got, want)
		}
	}
}

// TestWorkspaceKeyFixtureRules: an API key's workspace must be one of its organization's in
// admin.json, and only an API key belongs to a workspace.
func TestWorkspaceKeyFixtureRules(t *testing.T) {
	orgs, _ := fs.ReadFile(fixtures.FS(), "organizations.json")
	admin, _ := fs.ReadFile(fixtures.FS(), "admin.json")
	for name, tc := range map[string]struct {
		edit func(string) string
		want string
	}{
		"another organization's workspace": {func(s string) string {
			return strings.Replace(s, `"workspace_id": "wrkspc_01AcmeResearch0000000001"`, `"workspace_id": "wrkspc_01GlobexOps000000000001"`, 1)
		}, "apikey_01AcmeResearchKey0000001 belongs to workspace wrkspc_01GlobexOps000000000001, which is not a workspace of its organization"},
		"not an API key": {func(s string) string {
			return strings.Replace(s, `"kind": "api_key", "name": "research"`, `"kind": "admin_key", "name": "research"`, 1)
		}, "credential apikey_01AcmeResearchKey0000001 is an admin API key; only an API key belongs to a workspace"},
	} {
		_, err := core.LoadFixtures(fstest.MapFS{"organizations.json": {Data: []byte(tc.edit(string(orgs)))}, "admin.json": {Data: admin}})
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: err = %v, want it to say %q", name, err, tc.want)
		}
	}
}

// TestRateLimitConcurrentRequestsTakeExactlyTheLimit: 200 requests at once against Globex's 50
// requests a minute: exactly 50 are admitted, whatever the interleaving.
func TestRateLimitConcurrentRequestsTakeExactlyTheLimit(t *testing.T) {
	s := rlServer(t)
	body := `{"model":"assistant-sonnet-4-5","max_tokens":10,"messages":[{"role":"user","content":"Hello there"}]}`
	codes := make(chan int, 200)
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for range 25 {
				codes <- postAs(t, s, "test-api-key-2", "/v1/messages", body).Code
			}
		})
	}
	wg.Wait()
	close(codes)
	count := map[int]int{}
	for c := range codes {
		count[c]++
	}
	if count[http.StatusOK] != 50 || count[http.StatusTooManyRequests] != 150 {
		t.Errorf("answers by status: %v, want 50 × 200 and 150 × 429", count)
	}
}

// TestRateLimitTurnedOffMidRequest: an admitted request whose output is charged after
// enforcement was turned off, or turned off and on, neither panics nor leaves buckets behind.
func TestRateLimitTurnedOffMidRequest(t *testing.T) {
	s := rlServer(t)
	c := &core.Call{X: &core.Exchange{}, Srv: s.srv, St: s.srv.State(), Cred: s.srv.State().Fx.Creds[core.DefaultAPIKey], Org: s.srv.State().Fx.Creds[core.DefaultAPIKey].Org}
	c.Context, _ = gin.CreateTestContext(httptest.NewRecorder())
	adm, err := ratelimit.Admit(s.srv, c, "assistant-opus-4-7", ratelimit.InputUsage{Input: 10}, false)
	if err != nil || adm == nil {
		t.Fatalf("admit: %v, %v", adm, err)
	}
	s.SetRateLimits(false)
	adm.ChargeOutput(5)
	if st := s.RateLimits(); len(st.Buckets) != 0 {
		t.Errorf("off: %+v", st)
	}
	s.SetRateLimits(true)
	adm.ChargeOutput(5)
	// Back on with full buckets: only the output is taken, from a full 400,000.
	for _, b := range s.RateLimits().Buckets {
		if want := map[string]int64{ratelimit.LimitRequests: 4000, ratelimit.LimitInput: 2000000, ratelimit.LimitOutput: 399995}[b.Limiter]; b.Remaining != want {
			t.Errorf("%s remaining %d, want %d", b.Limiter, b.Remaining, want)
		}
	}
}

// TestRateLimitUnknownScenarioTakesNothing: a request refused for naming an unknown scenario
// is the request's own error, and takes nothing from the buckets.
func TestRateLimitUnknownScenarioTakesNothing(t *testing.T) {
	s := rlServer(t)
	w := postAs(t, s, core.DefaultAPIKey, "/v1/messages", bigBody, scenarios.HeaderScenario, "no-such-scenario")
	if w.Code != http.StatusBadRequest {
		t.Fatalf("unknown scenario: %d %s", w.Code, w.Body)
	}
	if st := s.RateLimits(); len(st.Buckets) != 0 {
		t.Errorf("buckets after a 400: %+v", st.Buckets)
	}
}

// TestRateLimitCountsTheCachePlan: the input-token bucket takes what the prompt cache leaves
// uncached (smallConversation: 3,117 tokens; written in full the first time, 3 uncached the
// second), and a request refused by a limit writes no cache entry.
func TestRateLimitCountsTheCachePlan(t *testing.T) {
	s := rlServer(t)
	body := mustJSON(t, smallConversation(2000, "Hi"))
	inputBucket := func() int64 {
		for _, b := range s.RateLimits().Buckets {
			if b.Scope == "organization" && b.Owner == acmeUUID && b.Limiter == "input_tokens_per_minute" {
				return b.Remaining
			}
		}
		t.Fatal("no input-token bucket of Acme's")
		return 0
	}
	for i, want := range []int64{2_000_000 - 3117, 2_000_000 - 3117 - 3} {
		if w := postAs(t, s, core.DefaultAPIKey, "/v1/messages", body); w.Code != http.StatusOK {
			t.Fatalf("request %d: %d %s", i+1, w.Code, w.Body)
		}
		if got := inputBucket(); got != want {
			t.Errorf("after request %d: input tokens remaining %d, want %d", i+1, got, want)
		}
	}

	s.ClearCache()
	setWorkspaceLimits(t, s, `[{"type":"requests_per_minute","value":1}]`)
	opus := mustJSON(t, with(smallConversation(2000, "Hi"), []any{"model", "assistant-opus-4-7"}))
	if w := postAs(t, s, researchKey, "/v1/messages", bigBody); w.Code != http.StatusOK {
		t.Fatalf("first request: %d %s", w.Code, w.Body)
	}
	w := postAs(t, s, researchKey, "/v1/messages", opus)
	if w.Code != http.StatusTooManyRequests || w.Header().Get("retry-after") != "60" {
		t.Fatalf("second request: %d, retry-after %q; want 429 and 60", w.Code, w.Header().Get("retry-after"))
	}
	if n := len(s.CacheEntries()); n != 0 {
		t.Fatalf("a refused request left %d cache entries, want 0", n)
	}
	s.AdvanceClock(60 * time.Second)
	w = postAs(t, s, researchKey, "/v1/messages", opus)
	if w.Code != http.StatusOK {
		t.Fatalf("after retry-after: %d %s", w.Code, w.Body)
	}
	// opus-4-7's minimum is 2,048: the system's 1,106 tokens are not written, the messages'
	// breakpoint at 3,114 is (5m).
	if got := usageOf(gjson.Parse(w.Body.String())); got != [5]int64{0, 3114, 3114, 0, 3} {
		t.Errorf("usage (read, creation, 5m, 1h, input) = %v, want [0 3114 3114 0 3]", got)
	}
	if n := len(s.CacheEntries()); n != 1 {
		t.Errorf("%d cache entries, want 1", n)
	}
}
