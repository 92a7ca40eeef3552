package conformance

import (
	"context"
	"net/http"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/platformkit/platformkit/fake"

	"github.com/platformkit/platformkit/conformance/kit"
)

// A defect is a deployment with one deliberate bug: the fake behind a bug handler, serving
// version (the API version the suite then sends). area names where to look first: the suite's
// verdict does not depend on the order its checks run in, only the time to reach it does.
type defect struct {
	says, version, area string
	slow                bool // its check waits minutes: the deployment's clock is virtual, moved by T.Wait
	brk                 func(http.Handler) http.Handler
}

// declared is the bug a check declares, as a defect of a deployment.
func declared(t *testing.T, id, version string) defect {
	c := checkByID(t, id)
	return defect{says: c.Bug.Says, version: version, area: strings.Split(id, "/")[0], slow: c.Has(kit.Slow), brk: c.Bug.Break}
}

// editAnswers is a defect's bug that edits the JSON object of 2xx answers to method and pattern.
func editAnswers(method, pattern string, f func(r *http.Request, m map[string]any)) func(http.Handler) http.Handler {
	return kit.InOKAnswers(kit.On(method, pattern), f)
}

// TestDefectsOfTheNewestBehaviours measures the share of deployments, each with one defect in
// the behaviours that landed last (the list and others of the same kinds), that the
// suite fails: run as a deployment (Config.AsDeployment), rate limits on, on the wall clock, at
// the deployment's API version, a defect counts as caught when at least one check fails. The
// honest fake passes the same run (TestChecksAgainstTheFakeAsADeployment). It takes minutes, so
// it runs only with PLATFORMKIT_MEASURE=1:
//
//	PLATFORMKIT_MEASURE=1 go test -count=1 -run TestDefectsOfTheNewestBehaviours -v ./conformance
func TestDefectsOfTheNewestBehaviours(t *testing.T) {
	if os.Getenv("PLATFORMKIT_MEASURE") != "1" {
		t.Skip("set PLATFORMKIT_MEASURE=1 to measure (minutes)")
	}
	const v23, v26 = fake.APIVersion, fake.APIVersion20261021
	defects := []defect{
		// Named by the issue, as the checks declare them.
		declared(t, "admin/v2026-workspace-rate-limits-without-group-type", v26),
		declared(t, "core/later-version-refused", v26),
		declared(t, "messages/version-header-required", v26),
		declared(t, "messages/thread-fingerprint-model", v26),
		declared(t, "messages/thread-fingerprint-mcp-servers", v26),
		declared(t, "messages/thread-continue-unsupported", v26),
		declared(t, "messages/thread-expiry-slides-wall-clock", v26),
		declared(t, "admin/workspace-user-profile-id", v26),
		declared(t, "admin/workspace-inference-data-privacy-beta", v26),
		declared(t, "admin/workspace-list-ids", v26),
		declared(t, "admin/user-sign-out-unknown-404", v26),
		declared(t, "messages/billing-policy", v26),
		declared(t, "messages/text-citations-null", v23),
		declared(t, "messages/stop-sequence-when-reproducible", v23),
		declared(t, "messages/stream-max-tokens-respected", v23),
		declared(t, "admin/workspace-update-keeps-tags", v23),
		// Found past the list: statements of EXTENSIONS.md and the version fact sheets no check held.
		declared(t, "messages/thread-other-key-404", v26),
		declared(t, "messages/thread-needs-beta", v23),
		declared(t, "messages/v2026-thread-continue-whole-rules", v26),
		declared(t, "messages/thread-fingerprint-by-value", v26),
		declared(t, "messages/v2026-complete-sampling-accepted", v26),
		declared(t, "core/error-quotes-bounded", v23),
		// Others of the same kinds, declared by no check.
		{says: "only the workspace rate-limit update's answer keeps group_type at 2026-10-21", version: v26, area: "admin",
			brk: editAnswers(http.MethodPost, "^/v1/organizations/workspaces/[^/]+/rate_limits/[^/]+$", func(_ *http.Request, m map[string]any) {
				if g, ok := m["group"].(map[string]any); ok {
					m["group_type"] = g["type"]
				}
			})},
		{says: "only the inherited entries of a workspace's rate-limit list keep group_type at 2026-10-21", version: v26, area: "admin",
			brk: editAnswers(http.MethodGet, "^/v1/organizations/workspaces/[^/]+/rate_limits$", func(r *http.Request, m map[string]any) {
				if r.URL.Query().Get("include_inherited") == "true" {
					kit.EachDataItem(m, func(e map[string]any) { e["group_type"] = "model_group" })
				}
			})},
		{says: "the workspace rate-limit update's answer lacks group_type at 2023-06-01", version: v23, area: "admin",
			brk: kit.DropsField(kit.On(http.MethodPost, "^/v1/organizations/workspaces/[^/]+/rate_limits/[^/]+$"), "group_type")},
		{says: "a version later than the newest is answered as the newest on Messages only", version: v26, area: "messages",
			brk: kit.InRequestHeaders(kit.On(http.MethodPost, "^/v1/messages$"), func(h http.Header) {
				if h.Get("vendor-version") > v26 {
					h.Set("vendor-version", v26)
				}
			})},
		{says: "a continue with max_tokens 0 is answered as a turn of 1 token", version: v26, area: "messages",
			brk: kit.InRequests(http.MethodPost, "/v1/messages", func(b map[string]any) {
				if th, _ := b["thread"].(map[string]any); th["type"] == "continue" && b["max_tokens"] == float64(0) {
					b["max_tokens"] = 1
				}
			})},
		{says: "a continue may send context_management and max_tokens 0 both ignored", version: v23, area: "messages",
			brk: kit.InRequests(http.MethodPost, "/v1/messages", func(b map[string]any) {
				if th, _ := b["thread"].(map[string]any); th["type"] == "continue" {
					delete(b, "context_management")
					if b["max_tokens"] == float64(0) {
						b["max_tokens"] = 1
					}
				}
			})},
		{says: "user_profile_id is dropped on update", version: v26, area: "admin",
			brk: kit.InRouteRequests(http.MethodPost, "^/v1/organizations/workspaces/[^/]+$", func(_ *http.Request, b map[string]any) { delete(b, "user_profile_id") })},
		{says: "inference_data_privacy is answered to requests without its beta", version: v26, area: "admin",
			brk: editAnswers(http.MethodGet, "^/v1/organizations/workspaces/[^/]+$", func(r *http.Request, m map[string]any) {
				if !strings.Contains(r.Header.Get("Vendor-Beta")+r.Header.Get("Anthropic-Beta"), "efs-2026-10-01") {
					m["inference_data_privacy"] = map[string]any{"human_review": map[string]any{"type": "enabled"}}
				}
			})},
		{says: "the workspace list takes ids only without brackets", version: v23, area: "admin",
			brk: kit.IgnoresQuery(kit.On(http.MethodGet, "^/v1/organizations/workspaces$"), "ids[]")},
		{says: "billing_policy is ignored on count_tokens", version: v26, area: "messages",
			brk: kit.IgnoresField(http.MethodPost, "/v1/messages/count_tokens", "billing_policy")},
		{says: "a text block that cites nothing answers citations []", version: v23, area: "messages",
			brk: kit.SetsField(kit.On(http.MethodPost, "^/v1/messages$"), "content.*.citations", []any{})},
		{says: "stop_sequence is null when a reply stops at one", version: v26, area: "messages",
			brk: editAnswers(http.MethodPost, "^/v1/messages$", func(_ *http.Request, m map[string]any) {
				if m["stop_reason"] == "stop_sequence" {
					m["stop_sequence"] = nil
				}
			})},
		{says: "an update without tags is answered with them, but stores none", version: v26, area: "admin",
			brk: kit.InRouteRequests(http.MethodPost, "^/v1/organizations/workspaces/[^/]+$", func(_ *http.Request, b map[string]any) {
				if _, ok := b["tags"]; !ok && b["name"] != nil {
					b["tags"] = map[string]any{}
				}
			})},
		{says: "signing out needs no beta", version: v26, area: "admin",
			brk: kit.InRequestHeaders(kit.On(http.MethodPost, "/sign_out$"), func(h http.Header) { h.Set("Vendor-Beta", "admin-user-sign-out-2026-10-08") })},
	}
	caught := 0
	for _, d := range defects {
		by := firstFailure(t, d)
		if by != "" {
			caught++
		}
		t.Logf("%-90s %s", d.says+" ("+d.version+")", map[bool]string{true: "caught by " + by, false: "MISSED"}[by != ""])
	}
	share := 100 * float64(caught) / float64(len(defects))
	t.Logf("the suite fails against %d of %d deployments with one defect each: %.1f%%", caught, len(defects), share)
	if share < 95 {
		t.Errorf("only %.1f%% of the defects are caught; the suite must fail on at least 95%%", share)
	}
}

// firstFailure runs the checks that are not fake-only against a fresh deployment with the defect,
// those of its area first, and returns the ID of the first that fails, or "".
func firstFailure(t *testing.T, d defect) string {
	srv := fake.New(fake.WithWallClock(), fake.WithRateLimits())
	if d.slow {
		srv = fake.New(fake.WithRateLimits())
	}
	tg := asDeploymentBehind(t, srv, d.brk(srv))
	if d.slow {
		tg.WaitFunc = hiddenClock(t, srv)
	}
	tg.Config.APIVersion, tg.Client.Config.APIVersion = d.version, d.version
	checks := slices.DeleteFunc(kit.Checks(), func(c kit.Check) bool { return c.Has(kit.FakeOnly) })
	slices.SortStableFunc(checks, func(a, b kit.Check) int {
		rank := func(c kit.Check) int {
			switch {
			case strings.HasPrefix(c.ID, d.area+"/"):
				return 0
			case c.Has(kit.Work):
				return 2 // the lease checks wait in real time
			}
			return 1
		}
		return rank(a) - rank(b)
	})
	for _, c := range checks {
		if o := kit.RunCheck(context.Background(), tg, c); len(o.Failures) > 0 {
			return c.ID
		}
	}
	return ""
}
