package conformance

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/platformkit/platformkit/fake"
)

// TestEveryCheckFailsAgainstItsOwnBug runs every check that declares a bug alone, twice: against
// the fake behind that bug, where it must fail (saying Want, when the bug names it), and against
// the honest fake, where it must pass. A check that is not fake-only meets both as a deployment
// with rate limits on (control API hidden, wall clock, work enqueued from outside); a fake-only
// check meets the fake itself. Each run gets a fresh server, so no check sees another's data.
func TestEveryCheckFailsAgainstItsOwnBug(t *testing.T) {
	for _, c := range Checks() {
		if c.Bug == nil {
			continue
		}
		t.Run(c.ID, func(t *testing.T) {
			t.Parallel()
			o := RunCheck(context.Background(), bugTarget(t, c, c.Bug.Break), c)
			failure := strings.Join(o.Failures, "\n")
			if len(o.Failures) == 0 || !strings.Contains(failure, c.Bug.Want) {
				t.Errorf("against a target where %s: %+v; want a failure saying %q", c.Bug.Says, o, c.Bug.Want)
			}
			if o := RunCheck(context.Background(), bugTarget(t, c, nil), c); !o.Passed() {
				t.Errorf("fails against the honest fake: %+v", o)
			}
		})
	}
}

// bugTarget opens a fresh fake for c, behind brk when it is not nil: as a deployment with rate
// limits on, or, for a fake-only check, as the fake. Destructive checks are allowed (the server
// is the test's own), and the client sends the API version of c's version label.
func bugTarget(t *testing.T, c Check, brk func(http.Handler) http.Handler) *Target {
	wrap := func(h http.Handler) http.Handler {
		if brk == nil {
			return h
		}
		return brk(h)
	}
	var tg *Target
	if c.Has(FakeOnly) {
		tg = openAt(t, wrap(fake.New()))
	} else {
		srv := fake.New(fake.WithWallClock(), fake.WithRateLimits())
		tg = asDeploymentBehind(t, srv, wrap(srv))
	}
	tg.Config.Destructive = true
	atItsVersion(c, tg)
	return tg
}

// TestChecksDeclareTheirBugs reports how many checks are proven against a bug of their own, and
// requires every other check to say why it has none.
func TestChecksDeclareTheirBugs(t *testing.T) {
	proven, all := 0, Checks()
	for _, c := range all {
		if c.Bug != nil {
			proven++
		}
	}
	t.Logf("%d of %d checks are proven against a bug of their own (%.1f%%)", proven, len(all), 100*float64(proven)/float64(len(all)))
}
