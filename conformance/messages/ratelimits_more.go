package messages

import (
	"fmt"
	"math"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	. "github.com/onsi/gomega"

	"github.com/platformkit/platformkit/conformance/kit"
)

// What the rate-limit headers say over several answers: every answer the limits count carries
// them once one does, and requests-remaining falls by each request and refills with time. A
// target that sends none leaves these unsupported (ratelimits.go says why).

func init() { kit.Register(rateHeaderChecks()...) }

// rateRequests is the requests triple's limit and remaining of an answer's headers.
func rateRequests(t *kit.T, resp *kit.Response, family string) (limit, remaining int64) {
	l, errL := strconv.ParseInt(resp.Header.Get(family+"requests-limit"), 10, 64)
	r, errR := strconv.ParseInt(resp.Header.Get(family+"requests-remaining"), 10, 64)
	t.Expect(errL).NotTo(HaveOccurred(), "%srequests-limit is an integer: %s", family, resp)
	t.Expect(errR).NotTo(HaveOccurred(), "%srequests-remaining is an integer: %s", family, resp)
	return l, r
}

// rateFirst sends a message and returns its answer and header family, unsupported without one.
func rateFirst(t *kit.T, model string) (*kit.Response, string) {
	resp := t.OK(CreateRequest(Body(model, "max_tokens", 8)))
	family := rateFamily(resp)
	if family == "" {
		t.Unsupported("the target sends no rate-limit headers (vendor-ratelimit-* or anthropic-ratelimit-*) on a message's answer")
	}
	return resp, family
}

func rateHeaderChecks() []kit.Check {
	return []kit.Check{
		{ID: "messages/ratelimit-headers-on-every-counted-answer", Clause: "gaps §1", Labels: []kit.Label{kit.Messages, kit.Extension},
			Title: "a target that sends rate-limit headers on a message's answer sends the requests triple on count_tokens and legacy completion answers too",
			Bug:   &kit.Bug{Says: "count_tokens answers carry no rate-limit headers", Want: "count_tokens", Break: kit.Both(kit.DropsHeader(msgCount, "vendor-ratelimit-requests-limit"), kit.DropsHeader(msgCount, "anthropic-ratelimit-requests-limit"))},
			Run: func(t *kit.T) {
				enforceRateLimits(t)
				model, _ := PickModel(t)
				_, family := rateFirst(t, model)
				count := t.OK(kit.Request{Area: kit.Messages, Method: http.MethodPost, Path: "/v1/messages/count_tokens", Schema: "messages/count_tokens",
					Body: map[string]any{"model": model, "messages": []any{UserTurn("Hello")}}})
				t.Expect(count.Header.Get(family+"requests-limit")).NotTo(BeEmpty(), "a count_tokens answer carries %srequests-limit: %s", family, count)
				rateRequests(t, count, family)
				done := t.OK(completeReq(completeBody(model)))
				t.Expect(done.Header.Get(family+"requests-limit")).NotTo(BeEmpty(), "a legacy completion answer carries %srequests-limit: %s", family, done)
				rateRequests(t, done, family)
			}},
		{ID: "messages/ratelimit-remaining-falls", Clause: "gaps §1", Labels: []kit.Label{kit.Messages, kit.Extension},
			Title: "requests-remaining falls by one a request: every counted answer shows it below the limit (the request took one), and over 20 requests it falls by at least 19, less what the bucket refilled meanwhile (limit/60 a second)",
			Bug: &kit.Bug{Says: "requests-remaining stays at the limit", Want: "falls", Break: kit.InAnswers(msgCreate, func(_ *http.Request, _ int, h http.Header, b []byte) []byte {
				for _, f := range RateLimitFamilies {
					if l := h.Get(f + "requests-limit"); l != "" {
						h.Set(f+"requests-remaining", l)
					}
				}
				return b
			})},
			Run: func(t *kit.T) {
				enforceRateLimits(t)
				model, _ := PickModel(t)
				const n = 20
				start := time.Now()
				resp, family := rateFirst(t, model)
				limit, first := rateRequests(t, resp, family)
				lowest, highest := first, first
				for range n - 1 {
					_, r := rateRequests(t, t.OK(CreateRequest(Body(model, "max_tokens", 8))), family)
					lowest, highest = min(lowest, r), max(highest, r)
				}
				// However slow the target (a refill of more than one request between two answers
				// hides the fall over 20), the request an answer counts has taken its one: a
				// full bucket on a counted answer is the bug, whatever the timing.
				t.Expect(highest).To(BeNumerically("<", limit),
					"requests-remaining falls by one a request: each counted answer shows it below the limit %d (the request took one), got %d", limit, highest)
				refill := int64(math.Ceil(float64(limit) / 60 * time.Since(start).Seconds()))
				t.Expect(first-lowest).To(BeNumerically(">=", n-1-refill),
					"requests-remaining falls by one a request: from %d it falls by at least %d-%d (the refill of %s at %d a minute), to %d at most", first, n-1, refill, time.Since(start), limit, first-(n-1-refill))
			}},
		{ID: "messages/ratelimit-remaining-refills", Clause: "gaps §1", Labels: []kit.Label{kit.Messages, kit.Extension, kit.FakeOnly},
			Title: "a minute after a burst, requests-remaining is back to the limit less the one request that reads it",
			Bug:   &kit.Bug{Says: "the requests bucket never refills", Want: "refill", Break: msgClockFrozen},
			Run: func(t *kit.T) {
				enforceRateLimits(t)
				model, _ := PickModel(t)
				_, family := rateFirst(t, model)
				for range 4 {
					t.OK(CreateRequest(Body(model, "max_tokens", 8)))
				}
				t.Control(http.MethodPost, "/_fake/clock/advance", map[string]any{"seconds": 60})
				limit, after := rateRequests(t, t.OK(CreateRequest(Body(model, "max_tokens", 8))), family)
				t.Expect(after).To(Equal(limit-1), "a minute's refill fills the bucket: requests-remaining is the limit %d less this request", limit)
			}},
		{ID: "messages/ratelimit-workspace-override-429", Clause: "gaps §1", Labels: []kit.Label{kit.Messages, kit.Extension, kit.FakeOnly},
			Title: "a workspace's requests_per_minute override of 2 is enforced on its key: the headers show limit 2, the third request is 429 rate_limit_error with retry-after, and after retry-after seconds it passes",
			Bug: &kit.Bug{Says: "a workspace's requests_per_minute override is not applied", Want: "override", Break: func(h http.Handler) http.Handler {
				return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
					if strings.HasPrefix(r.URL.Path, "/v1/organizations/workspaces/"+rateWorkspace+"/rate_limits/") {
						msgRewriteBody(r, func(b map[string]any) {
							b["limits"] = []any{map[string]any{"type": "requests_per_minute", "value": nil}}
						})
					}
					h.ServeHTTP(w, r)
				})
			}},
			Run: func(t *kit.T) {
				enforceRateLimits(t)
				model, _ := PickModel(t)
				group := t.OK(kit.Request{Area: kit.Admin, Path: "/v1/organizations/rate_limits", Query: url.Values{"model": {model}}, Schema: "admin/rate_limit_list"})
				id := group.Get("data.0.id").String()
				if id == "" {
					t.Unsupported("no rate-limit group lists %s: %s", model, group)
				}
				update := func(value any) kit.Request {
					return kit.Request{Area: kit.Admin, Method: http.MethodPost, Path: "/v1/organizations/workspaces/" + rateWorkspace + "/rate_limits/" + id,
						Body: map[string]any{"limits": []any{map[string]any{"type": "requests_per_minute", "value": value}}}, Schema: "admin/workspace_rate_limit"}
				}
				t.OK(update(2))
				t.Cleanup("clear the workspace override", func() error {
					if resp := t.Do(update(nil)); resp.Status != http.StatusOK {
						return fmt.Errorf("clearing the override: %s", resp)
					}
					return nil
				})
				send := func() *kit.Response {
					r := CreateRequest(Body(model, "max_tokens", 8))
					r.As, r.Header = kit.NoCred, http.Header{"X-Api-Key": {rateWorkspaceKey}}
					return t.Do(r)
				}
				first := send()
				t.Expect(first.Status).To(Equal(http.StatusOK), "%s", first)
				family := rateFamily(first)
				t.Expect(family).NotTo(BeEmpty(), "the answer carries rate-limit headers: %s", first)
				limit, _ := rateRequests(t, first, family)
				t.Expect(limit).To(Equal(int64(2)), "the workspace's override is the most restrictive requests limit: %s", first)
				t.Expect(send().Status).To(Equal(http.StatusOK))
				third := send()
				t.ExpectError(third, http.StatusTooManyRequests, "rate_limit_error")
				wait, err := strconv.Atoi(third.Header.Get("retry-after"))
				t.Expect(err).NotTo(HaveOccurred(), "a 429 carries retry-after in whole seconds: %s", third)
				t.Expect(wait).To(BeNumerically(">=", 1), "%s", third)
				t.Control(http.MethodPost, "/_fake/clock/advance", map[string]any{"seconds": wait})
				again := send()
				t.Expect(again.Status).To(Equal(http.StatusOK), "after retry-after seconds the request passes: %s", again)
			}},
	}
}

// The fixture workspace and its key that the fake-only override check limits.
const (
	rateWorkspace    = "wrkspc_01AcmeResearch0000000001"
	rateWorkspaceKey = "test-api-key-research"
)
