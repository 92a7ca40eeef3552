package conformance

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/platformkit/platformkit/conformance/kit"
	"github.com/platformkit/platformkit/fake"
)

// TestBatchBeyondPatienceIsUnsupported: a deployment whose batch has not ended within the run's
// patience (one request timeout) leaves a batch check unsupported, naming that patience, not
// failed; and the check's cleanup still cancels the batch and deletes it once it has ended. The
// fake as a deployment, on the wall clock and run with CONFORMANCE_SLOW=1 as a deployment's slow
// checks are, takes 2 s for the check's 20 requests; the patience is 0.5 s.
func TestBatchBeyondPatienceIsUnsupported(t *testing.T) {
	c := checkByID(t, "messages/batch-results-once-ended")
	srv := fake.New(fake.WithWallClock())
	tg := asDeploymentBehind(t, srv, srv)
	tg.Config.Slow, tg.Config.Timeout = true, 500*time.Millisecond
	o := kit.RunCheck(context.Background(), tg, c)
	if want := "has not ended within the run's patience (CONFORMANCE_TIMEOUT, 500ms)"; !strings.HasPrefix(o.Skipped, kit.PrefixUnsupported) || !strings.Contains(o.Skipped, want) {
		t.Errorf("%s: %+v; want unsupported saying %q", c.ID, o, want)
	}
	if len(o.CleanupFailures) > 0 {
		t.Errorf("the batch was not cleaned up: %v", o.CleanupFailures)
	}
}
