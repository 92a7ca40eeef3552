package messages

import (
	"net/http"
	"strconv"
	"time"

	. "github.com/onsi/gomega"

	"github.com/platformkit/platformkit/conformance/kit"
)

// Rate-limit headers (conformance/EXTENSIONS.md, "Rate limits"). The reference names the 429
// rate_limit_error and retry-after only; the headers are the service's documented behaviour, so
// the check is an extension. It never provokes a 429: hammering a deployment to see one is not a
// conformance check's business. Whether a deployment limits rates at all is its own decision (the
// fake does only when asked), so a target that sends no headers leaves the header checks
// unsupported, and their titles say so; a target that sends them on one answer must send them on
// every answer the limits count (ratelimits_more.go).

// RateLimitFamilies are the header prefixes a deployment may send them under: the reference's
// neutral name and the one official clients read.
var RateLimitFamilies = []string{"vendor-ratelimit-", "anthropic-ratelimit-"}

func init() {
	kit.Register(kit.Check{ID: "messages/ratelimit-headers", Clause: "gaps §1", Labels: []kit.Label{kit.Messages, kit.Extension},
		Title: "the rate-limit headers of a message's answer, when it sends any (none: unsupported), are well formed: a requests triple, and every limit/remaining/reset triple sent has an integer limit, a remaining within it (token counts rounded to thousands) and an RFC 3339 reset",
		Bug: &kit.Bug{Says: "requests-remaining exceeds requests-limit", Want: "lies within the limit", Break: kit.InAnswers(msgCreate, func(_ *http.Request, _ int, h http.Header, b []byte) []byte {
			for _, f := range RateLimitFamilies {
				if l := h.Get(f + "requests-limit"); l != "" {
					h.Set(f+"requests-remaining", l+"0")
				}
			}
			return b
		})},
		Run: func(t *kit.T) {
			enforceRateLimits(t)
			model, _ := PickModel(t)
			resp := t.OK(CreateRequest(Body(model)))
			checked := 0
			for _, family := range RateLimitFamilies {
				if resp.Header.Get(family+"requests-limit") == "" {
					continue
				}
				checked++
				for _, kind := range []string{"requests", "input-tokens", "output-tokens", "tokens"} {
					limit, remaining, reset := resp.Header.Get(family+kind+"-limit"), resp.Header.Get(family+kind+"-remaining"), resp.Header.Get(family+kind+"-reset")
					if kind != "requests" && limit == "" && remaining == "" && reset == "" {
						continue // a limiter the deployment does not apply to this model
					}
					l, errL := strconv.ParseInt(limit, 10, 64)
					r, errR := strconv.ParseInt(remaining, 10, 64)
					_, errT := time.Parse(time.RFC3339, reset)
					t.Expect(errL).NotTo(HaveOccurred(), "%s%s-limit %q is an integer", family, kind, limit)
					t.Expect(errR).NotTo(HaveOccurred(), "%s%s-remaining %q is an integer", family, kind, remaining)
					t.Expect(errT).NotTo(HaveOccurred(), "%s%s-reset %q is an RFC 3339 time", family, kind, reset)
					t.Expect(r).To(And(BeNumerically(">=", 0), BeNumerically("<=", l)), "%s%s-remaining %d lies within the limit %d", family, kind, r, l)
					if kind != "requests" {
						t.Expect(r%1000).To(BeZero(), "%s%s-remaining %d is rounded to the nearest thousand", family, kind, r)
					}
				}
			}
			if checked == 0 {
				t.Unsupported("the target sends no rate-limit headers (vendor-ratelimit-* or anthropic-ratelimit-*) on a message's answer")
			}
		}})
}

// enforceRateLimits turns the fake's rate limiting on for the rest of the check, and back to what
// it was afterwards: the fake enforces rate limits, and sends their headers, only when asked. A
// deployment applies its own.
func enforceRateLimits(t *kit.T) {
	if !t.Target.IsFake {
		return
	}
	was := t.Control(http.MethodGet, "/_fake/rate_limits", nil).Get("enforce").Bool()
	t.Control(http.MethodPut, "/_fake/rate_limits", map[string]any{"enforce": true})
	t.Cleanup("restore rate-limit enforcement", t.Delete(kit.Request{Area: kit.Core, Method: http.MethodPut, Path: "/_fake/rate_limits",
		Body: map[string]any{"enforce": was}, As: kit.NoCred, Header: http.Header{"vendor-version": {""}}}))
}

// rateFamily is the header prefix an answer sends its rate-limit headers under, "" for none.
func rateFamily(resp *kit.Response) string {
	for _, f := range RateLimitFamilies {
		if resp.Header.Get(f+"requests-limit") != "" {
			return f
		}
	}
	return ""
}
