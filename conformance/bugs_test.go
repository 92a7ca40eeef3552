package conformance

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/platformkit/platformkit/fake"

	"github.com/platformkit/platformkit/conformance/kit"
)

// TestEveryCheckFailsAgainstItsOwnBug runs every check that declares a bug alone, twice: against
// the fake behind that bug, where it must fail (saying Want, when the bug names it), and against
// the honest fake, where it must pass. A check that is not fake-only meets both as a deployment
// with rate limits on (Config.AsDeployment: control API unused, wall clock, work enqueued from
// outside); a fake-only check meets the fake itself. Each run gets a fresh server, so no check sees another's data.
func TestEveryCheckFailsAgainstItsOwnBug(t *testing.T) {
	for _, c := range kit.Checks() {
		if c.Bug == nil {
			continue
		}
		t.Run(c.ID, func(t *testing.T) {
			t.Parallel()
			o := kit.RunCheck(context.Background(), bugTarget(t, c, c.Bug.Break), c)
			failure := strings.Join(o.Failures, "\n")
			if len(o.Failures) == 0 || !strings.Contains(failure, c.Bug.Want) {
				t.Errorf("against a target where %s: %+v; want a failure saying %q", c.Bug.Says, o, c.Bug.Want)
			}
			if o := kit.RunCheck(context.Background(), bugTarget(t, c, nil), c); !o.Passed() {
				t.Errorf("fails against the honest fake: %+v", o)
			}
		})
	}
}

// bugTarget opens a fresh fake for c, behind brk when it is not nil: as a deployment with rate
// limits on (for a slow check, on a virtual clock its waits move), or, for a fake-only check, as
// the fake. Destructive checks are allowed (the server
// is the test's own), and the client sends the API version of c's version label.
func bugTarget(t *testing.T, c kit.Check, brk func(http.Handler) http.Handler) *kit.Target {
	wrap := func(h http.Handler) http.Handler {
		if brk == nil {
			return h
		}
		return brk(h)
	}
	var tg *kit.Target
	switch {
	case c.Has(kit.FakeOnly):
		tg = openAt(t, wrap(fake.New()))
	case c.Has(kit.Slow):
		// A slow check waits minutes of the deployment's time: here the deployment's clock is
		// virtual, and the wait moves it through the control API of the same server.
		srv := fake.New(fake.WithRateLimits())
		tg = asDeploymentBehind(t, srv, wrap(srv))
		tg.WaitFunc = hiddenClock(t, srv)
	default:
		srv := fake.New(fake.WithWallClock(), fake.WithRateLimits())
		tg = asDeploymentBehind(t, srv, wrap(srv))
	}
	tg.Config.Destructive = true
	atItsVersion(c, tg)
	return tg
}

// TestChecksDeclareTheirBugs: every check is proven against a bug of its own or says why it has
// none, and at least 90% of them are proven (a NoBug is the exception, not a way out).
func TestChecksDeclareTheirBugs(t *testing.T) {
	proven, all := 0, kit.Checks()
	for _, c := range all {
		switch {
		case c.Bug != nil:
			proven++
		case c.NoBug == "":
			t.Errorf("%s declares no bug and does not say why (Check.Bug or Check.NoBug)", c.ID)
		}
	}
	share := float64(proven) / float64(len(all))
	t.Logf("%d of %d checks are proven against a bug of their own (%.1f%%)", proven, len(all), 100*share)
	if share < 0.9 {
		t.Errorf("only %d of %d checks are proven against a bug of their own; at least 90%% must be", proven, len(all))
	}
}

// The generic defects change exactly the field their path names, in every element under "*".
func TestGenericDefects(t *testing.T) {
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Write([]byte(`{"data":[{"id":"a","x":1},{"id":"b","x":2}],"has_more":false,"x":3}`))
	})
	get := func(h http.Handler, path string) string {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, path, nil))
		return rec.Body.String()
	}
	all := func(*http.Request) bool { return true }
	for _, tc := range []struct {
		brk  func(http.Handler) http.Handler
		want string
	}{
		{kit.DropsField(all, "data.*.x"), `{"data":[{"id":"a"},{"id":"b"}],"has_more":false,"x":3}`},
		{kit.DropsField(all, "x"), `{"data":[{"id":"a","x":1},{"id":"b","x":2}],"has_more":false}`},
		{kit.SetsField(all, "has_more", true), `{"data":[{"id":"a","x":1},{"id":"b","x":2}],"has_more":true,"x":3}`},
		{kit.SetsField(all, "data.*.y", 1), `{"data":[{"id":"a","x":1},{"id":"b","x":2}],"has_more":false,"x":3}`},
		{kit.DropsField(kit.On(http.MethodPost, "."), "x"), `{"data":[{"id":"a","x":1},{"id":"b","x":2}],"has_more":false,"x":3}`},
	} {
		if got := get(tc.brk(h), "/v1/x"); got != tc.want {
			t.Errorf("got %s, want %s", got, tc.want)
		}
	}
	rec := httptest.NewRecorder()
	kit.AnswersStatus(all, 200, 404)(h).ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/", nil))
	if rec.Code != 404 {
		t.Errorf("answersStatus: %d, want 404", rec.Code)
	}
	var seen string
	kit.IgnoresQuery(all, "limit")(http.HandlerFunc(func(_ http.ResponseWriter, r *http.Request) { seen = r.URL.RawQuery })).
		ServeHTTP(httptest.NewRecorder(), httptest.NewRequest(http.MethodGet, "/v1/x?limit=2&after_id=a", nil))
	if seen != "after_id=a" {
		t.Errorf("ignoresQuery left %q, want after_id=a", seen)
	}
}
