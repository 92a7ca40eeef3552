package conformance

import (
	"context"
	"slices"
	"testing"

	"github.com/platformkit/platformkit/conformance/kit"
)

// TestComplianceChecksAnyOrder runs the compliance checks against one fake in reverse order,
// destructive ones included, to show they do not depend on the order the suite runs them in.
func TestComplianceChecksAnyOrder(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	tg, err := kit.Open(ctx, kit.ConfigFromEnv(func(string) string { return "" }), func(msg string) { t.Errorf("fake: %s", msg) })
	if err != nil {
		t.Fatal(err)
	}
	defer tg.Close()
	checks := kit.Checks()
	slices.Reverse(checks)
	for _, c := range checks {
		if !c.Has(kit.Compliance) {
			continue
		}
		o := kit.RunCheck(ctx, tg, c)
		if !o.Passed() {
			t.Errorf("%s: %v %s", c.ID, o.Failures, o.Skipped)
		}
		if len(o.CleanupFailures) > 0 {
			t.Errorf("%s: %v", c.ID, o.CleanupFailures)
		}
	}
}
