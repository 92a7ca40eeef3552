package conformance

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	. "github.com/onsi/gomega"
	"github.com/tidwall/gjson"

	"github.com/platformkit/platformkit/fake"

	"github.com/platformkit/platformkit/conformance/kit"

	"github.com/platformkit/platformkit/conformance/messages"

	"github.com/platformkit/platformkit/conformance/tunnels"
)

// atItsVersion makes tg's client send the API version of c's version label, if it has one.
func atItsVersion(c kit.Check, tg *kit.Target) {
	for l, v := range kit.VersionLabels {
		if c.Has(l) {
			tg.Config.APIVersion, tg.Client.Config.APIVersion = v, v
		}
	}
}

// TestStrictRunFailsOnUnsupported: against a deployment without tunnels, a tunnel-order check is
// unsupported. By default that passes the run, saying what the check needed; strict, by
// environment variable or by flag, it fails the run, and every report says what was needed.
func TestStrictRunFailsOnUnsupported(t *testing.T) {
	srv := deployment(t, fake.New(fake.WithFixtures(sparseFixtures(t))))
	base := map[string]string{"CONFORMANCE_BASE_URL": srv.URL, "CONFORMANCE_API_KEY": secretAPIKey,
		"CONFORMANCE_ADMIN_API_KEY": secretAdmin, "CONFORMANCE_BEARER_TOKEN": secretBearer, "CONFORMANCE_COMPLIANCE_API_KEY": kit.FakeComplianceKey}
	focus := "-ginkgo.focus=tunnels/list-newest-first"
	const needed = "needs at least 2 tunnels"

	lenient := runSuite(t, base, focus)
	if lenient.code != 0 || !strings.Contains(lenient.out, "unsupported") || !strings.Contains(lenient.out, needed) {
		t.Errorf("by default an unsupported check passes the run and says what it needed: exit %d\n%s", lenient.code, lenient.out)
	}
	withVar := map[string]string{"CONFORMANCE_STRICT": "1"}
	for k, v := range base {
		withVar[k] = v
	}
	for name, s := range map[string]suiteRun{
		"CONFORMANCE_STRICT=1": runSuite(t, withVar, focus),
		"-conformance.strict":  runSuite(t, base, focus, "-conformance.strict"),
	} {
		if s.code == 0 || !strings.HasSuffix(s.lastLine(), "strict: the unsupported fail the run") {
			t.Errorf("%s: exit %d, last line %q; want a failed run that says why", name, s.code, s.lastLine())
		}
		for _, f := range []string{kit.JUnitFile, kit.ResultsFile, kit.HumanFile} {
			if !strings.Contains(s.file(t, f), needed) {
				t.Errorf("%s: the report %s does not say what the unsupported check needed", name, f)
			}
		}
		if j := s.file(t, kit.JUnitFile); !strings.Contains(j, `<failure message="needs at least 2 tunnels`) {
			t.Errorf("%s: a strict JUnit report shows the unsupported check as a failure:\n%s", name, j)
		}
	}
}

func TestRetryAfterMissing(t *testing.T) {
	for _, tc := range []struct {
		status int
		value  string
		bad    bool
	}{
		{429, "3", false}, {529, "0", false}, {429, "", true}, {529, "1.5", true},
		{429, "Wed, 21 Oct 2026 07:28:00 GMT", true}, {429, "-1", true}, {503, "", false}, {200, "", false},
	} {
		h := http.Header{}
		if tc.value != "" {
			h.Set("retry-after", tc.value)
		}
		if got := kit.RetryAfterMissing(tc.status, h); (got != "") != tc.bad {
			t.Errorf("%d with retry-after %q: %q; want a violation: %v", tc.status, tc.value, got, tc.bad)
		}
	}
}

// TestEveryCheckSeesRetryAfter: any check that receives a 429 without retry-after fails, though
// its own assertions never look at it.
func TestEveryCheckSeesRetryAfter(t *testing.T) {
	busy := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("request-id", "req_busy_"+r.URL.RawQuery)
		w.WriteHeader(http.StatusTooManyRequests)
		w.Write([]byte(`{"type":"error","error":{"type":"rate_limit_error","message":"slow down"},"request_id":"req_busy"}`))
	})
	c := kit.Check{ID: "core/x", Clause: "5", Labels: []kit.Label{kit.Core}, Title: "x", Run: func(t *kit.T) {
		t.Do(kit.Request{Area: kit.Models, Path: "/v1/models"})
	}}
	o := kit.RunCheck(context.Background(), openAt(t, hideControl(busy)), c)
	if len(o.Failures) == 0 || !strings.Contains(o.Failures[0], "retry-after") {
		t.Errorf("a 429 without retry-after: %+v; want a failure naming retry-after", o)
	}
}

// TestFailuresSayWhatWasExpected: a failure of an assertion written without a description still
// names, in words, what was expected of the target.
func TestFailuresSayWhatWasExpected(t *testing.T) {
	c := kit.Check{ID: "core/x", Clause: "5", Labels: []kit.Label{kit.Core}, Title: "every answer carries a request-id header", Run: func(t *kit.T) {
		t.Expect("").NotTo(BeEmpty())
	}}
	o := kit.RunCheck(context.Background(), openAt(t, fake.New()), c)
	if want := "expected of the target: every answer carries a request-id header\ncame back:\n    \"\"\nexpected not to be empty"; len(o.Failures) != 1 || o.Failures[0] != want {
		t.Errorf("bare matcher output: %q, want %q", o.Failures, want)
	}
	c.Run = func(t *kit.T) { t.Expect("").NotTo(BeEmpty(), "a 200 answer carries a request-id header") }
	if o := kit.RunCheck(context.Background(), openAt(t, fake.New()), c); len(o.Failures) != 1 || !strings.HasPrefix(o.Failures[0], "a 200 answer carries a request-id header\n") {
		t.Errorf("a described assertion keeps its own words first: %q", o.Failures)
	}
	// The target's JSON is shown as JSON, never as gomega's dump of a gjson.Result, and no Go type
	// is named: what came back and what was expected, in the API's terms.
	body := gjson.Parse(`{"data":[{"id":"a", "type":"model"}],"status":400}`)
	for _, tc := range []struct {
		run  func(t *kit.T)
		want string
	}{
		{func(t *kit.T) { t.Expect(body.Get("data").Array()).To(HaveLen(2), "the page holds both models") },
			"the page holds both models\ncame back:\n    [{\"id\":\"a\", \"type\":\"model\"}]\nexpected to have length 2"},
		{func(t *kit.T) { t.Expect(body.Get("status").Int()).To(Equal(int64(200)), "the answer is 200") },
			"the answer is 200\ncame back:\n    400\nexpected to equal:\n    200"},
		{func(t *kit.T) {
			t.Expect(body.Get("data.0")).To(Equal(body.Get("first_id")), "first_id is the first item")
		},
			"first_id is the first item\ncame back:\n    {\"id\":\"a\", \"type\":\"model\"}\nexpected to equal:\n    (absent)"},
	} {
		c.Run = tc.run
		if o := kit.RunCheck(context.Background(), openAt(t, fake.New()), c); len(o.Failures) != 1 || o.Failures[0] != tc.want {
			t.Errorf("failure %q, want %q", o.Failures, tc.want)
		}
	}
}

// TestNeedMechanism: the harness's rule on checks over existing data. A check that only reads a
// list and says nothing of what it needed is the suite's own error; one that says it needs more
// than the target holds is unsupported, naming what it needed; one that writes is exempt.
func TestNeedMechanism(t *testing.T) {
	tg := openAt(t, hideControl(fake.New(fake.WithFixtures(sparseFixtures(t)))))
	tunnels := kit.Request{Area: kit.Tunnels, Path: tunnels.Path, Schema: "tunnels/tunnel_list"}
	for _, tc := range []struct {
		name string
		run  func(t *kit.T)
		want func(o kit.Outcome) bool
	}{
		{"reads a list, declares nothing", func(t *kit.T) { t.OK(tunnels) },
			func(o kit.Outcome) bool {
				return len(o.Failures) == 1 && strings.HasPrefix(o.Failures[0], kit.PrefixSuiteError) && strings.Contains(o.Failures[0], "T.Need")
			}},
		{"needs more than the target holds", func(t *kit.T) { t.Need("tunnels", len(t.OK(tunnels).Get("data").Array()), 2) },
			func(o kit.Outcome) bool {
				return o.Skipped == kit.PrefixUnsupported+"needs at least 2 tunnels to check this; the target has 0"
			}},
		{"needs what the target holds", func(t *kit.T) { t.Need("tunnels", len(t.OK(tunnels).Get("data").Array()), 0) },
			func(o kit.Outcome) bool { return o.Passed() }},
		{"reads no items", func(t *kit.T) { t.NoItemsNeeded(); t.OK(tunnels) }, func(o kit.Outcome) bool { return o.Passed() }},
		{"writes, then reads", func(t *kit.T) {
			t.OK(messages.CreateRequest(messages.Body("assistant-opus-4-7")))
			t.OK(tunnels)
		}, func(o kit.Outcome) bool { return o.Passed() }},
		{"reads no list", func(t *kit.T) {
			t.OK(kit.Request{Area: kit.Models, Path: "/v1/models/assistant-opus-4-7", Schema: "models/model"})
		},
			func(o kit.Outcome) bool { return o.Passed() }},
	} {
		c := kit.Check{ID: "core/x", Clause: "5", Labels: []kit.Label{kit.Core}, Title: "x", Run: tc.run}
		if o := kit.RunCheck(context.Background(), tg, c); !tc.want(o) {
			t.Errorf("%s: %+v", tc.name, o)
		}
	}
}

// TestRateLimitHeadersCheck: the rate-limit header check passes against the fake that enforces
// rate limits, whether as a deployment or in-process (where it turns enforcement on itself, and
// back off); a deployment that sends none leaves it unsupported, not passed; and a deployment
// whose requests-remaining exceeds its limit fails it.
func TestRateLimitHeadersCheck(t *testing.T) {
	c := checkByID(t, "messages/ratelimit-headers")
	if o := kit.RunCheck(context.Background(), openAt(t, hideControl(fake.New(fake.WithRateLimits()))), c); !o.Passed() {
		t.Errorf("against the fake enforcing rate limits, as a deployment: %+v", o)
	}
	inProcess := fake.New()
	if o := kit.RunCheck(context.Background(), openAt(t, inProcess), c); !o.Passed() || len(o.CleanupFailures) > 0 {
		t.Errorf("against the fake with its control API: %+v", o)
	}
	if inProcess.RateLimits().Enforce {
		t.Errorf("the check left the fake enforcing rate limits")
	}
	if o := kit.RunCheck(context.Background(), openAt(t, hideControl(fake.New())), c); !strings.HasPrefix(o.Skipped, kit.PrefixUnsupported) {
		t.Errorf("against a deployment without the headers: %+v; want unsupported", o)
	}
	broken := kit.EditAnswers(fake.New(fake.WithRateLimits()), kit.On(http.MethodPost, "^/v1/messages$"), func(_ *http.Request, _ int, h http.Header, b []byte) []byte {
		for _, f := range messages.RateLimitFamilies {
			h.Set(f+"requests-remaining", h.Get(f+"requests-limit")+"0")
		}
		return b
	})
	o := kit.RunCheck(context.Background(), openAt(t, hideControl(broken)), c)
	if len(o.Failures) == 0 || !strings.Contains(o.Failures[0], "lies within the limit") {
		t.Errorf("against a deployment whose requests-remaining exceeds its limit: %+v; want a failure", o)
	} else {
		t.Logf("caught: %.300s", o.Failures[0])
	}
}

// TestThreadChecks: the fake-only expiry check fails against a fake whose threads never expire,
// and passes against the honest fake; against a target that does not take the thread field (as a
// deployment without the beta answers: 400 "thread: unknown field"), every thread check ends
// unsupported, never passed or failed.
func TestThreadChecks(t *testing.T) {
	expiry := checkByID(t, "messages/thread-expires-after-five-minutes")
	// The clock's advance is answered but not made: a thread never ages.
	honest := fake.New()
	frozen := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/_fake/clock/advance" {
			r = httptest.NewRequest(http.MethodGet, "/_fake/clock", nil)
		}
		honest.ServeHTTP(w, r)
	})
	if o := kit.RunCheck(context.Background(), openAt(t, frozen), expiry); len(o.Failures) == 0 || !strings.Contains(strings.Join(o.Failures, "\n"), "thread_not_found") {
		t.Errorf("against threads that never expire: %+v", o)
	}
	if o := kit.RunCheck(context.Background(), openAt(t, fake.New()), expiry); !o.Passed() {
		t.Errorf("against the honest fake: %+v", o)
	}
	noThreads := func(h http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			data, _ := io.ReadAll(r.Body)
			r.Body = io.NopCloser(bytes.NewReader(data))
			if r.URL.Path == "/v1/messages" && bytes.Contains(data, []byte(`"thread"`)) {
				w.Header().Set("Content-Type", "application/json")
				w.Header().Set("request-id", "req_nothreads")
				w.WriteHeader(http.StatusBadRequest)
				w.Write([]byte(`{"type":"error","error":{"type":"invalid_request_error","message":"thread: unknown field"},"request_id":"req_nothreads"}`))
				return
			}
			h.ServeHTTP(w, r)
		})
	}
	for _, c := range kit.Checks() {
		if !strings.HasPrefix(c.ID, "messages/thread-") {
			continue
		}
		tg := openAt(t, noThreads(fake.New()))
		if c.Has(kit.Slow) {
			// Let the slow check run: it stops at its create, before any wait.
			tg.WaitFunc = func(context.Context, int) error { return nil }
		}
		if o := kit.RunCheck(context.Background(), tg, c); !strings.HasPrefix(o.Skipped, kit.PrefixUnsupported) {
			t.Errorf("%s against a target without threads: %+v; want unsupported", c.ID, o)
		}
	}
}

// TestVersionChecks: a version's check is disabled at the other version, saying which it needs,
// and a rate-limit check with no entries to inspect is unsupported, never passed.
func TestVersionChecks(t *testing.T) {
	c := checkByID(t, "admin/v2026-rate-limits-without-group-type")
	tg := openAt(t, hideControl(fake.New()))
	o := kit.RunCheck(context.Background(), tg, c)
	if want := "disabled: runs only at API version 2026-10-21; the suite sends 2023-06-01 (CONFORMANCE_API_VERSION=2026-10-21 selects it)"; o.Skipped != want || len(o.Failures) != 0 {
		t.Errorf("at 2023-06-01: %+v, want skipped %q", o, want)
	}
	none := openAt(t, hideControl(kit.EditAnswers(fake.New(), kit.On(http.MethodGet, "^/v1/organizations/rate_limits$"), kit.EditJSON(func(m map[string]any) { m["data"] = []any{} }))))
	for _, id := range []string{"admin/v2026-rate-limits-without-group-type", "admin/v2023-rate-limits-group-type"} {
		c := checkByID(t, id)
		atItsVersion(c, none)
		o := kit.RunCheck(context.Background(), none, c)
		if want := "unsupported: needs at least 1 rate-limit entries to check this; the target has 0"; o.Skipped != want || len(o.Failures) != 0 {
			t.Errorf("%s without entries: %+v, want skipped %q", id, o, want)
		}
	}
}
