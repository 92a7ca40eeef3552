package conformance

import (
	"context"
	"slices"
	"strings"
	"testing"
)

// TestComplianceChecksAnyOrder runs the compliance checks against one fake in reverse order,
// destructive ones included, to show they do not depend on the order the suite runs them in.
func TestComplianceChecksAnyOrder(t *testing.T) {
	ctx := context.Background()
	tg, err := Open(ctx, ConfigFromEnv(func(string) string { return "" }), func(msg string) { t.Errorf("fake: %s", msg) })
	if err != nil {
		t.Fatal(err)
	}
	defer tg.Close()
	checks := Checks()
	slices.Reverse(checks)
	for _, c := range checks {
		if !c.Has(Compliance) {
			continue
		}
		o := RunCheck(ctx, tg, c)
		switch {
		case c.ID == "compliance/users-match-admin" && strings.HasPrefix(o.Skipped, prefixUnsupported):
			// the administration users list belongs to another area of the fake
		case !o.Passed():
			t.Errorf("%s: %v %s", c.ID, o.Failures, o.Skipped)
		}
		if len(o.CleanupFailures) > 0 {
			t.Errorf("%s: %v", c.ID, o.CleanupFailures)
		}
	}
}

// TestComplianceChecksWellFormed: unique IDs under compliance/, a known clause, exactly one area
// label, only known qualifiers, and Extension exactly on EXTENSIONS.md clauses or gaps-only behaviour.
func TestComplianceChecksWellFormed(t *testing.T) {
	seen := map[string]bool{}
	n := 0
	for _, c := range Checks() {
		if !c.Has(Compliance) {
			continue
		}
		n++
		if seen[c.ID] || !strings.HasPrefix(c.ID, "compliance/") {
			t.Errorf("%s: duplicate or outside compliance/", c.ID)
		}
		seen[c.ID] = true
		if _, ok := Clauses[c.Clause]; !ok {
			t.Errorf("%s: unknown clause %q", c.ID, c.Clause)
		}
		areas := 0
		for _, l := range c.Labels {
			switch {
			case slices.Contains(Areas, l):
				areas++
			case !slices.Contains(qualifiers, l):
				t.Errorf("%s: unknown label %q", c.ID, l)
			}
		}
		if areas != 1 {
			t.Errorf("%s: %d area labels", c.ID, areas)
		}
		if strings.HasPrefix(c.Clause, "gaps") && !c.Has(Extension) {
			t.Errorf("%s: clause %s without the extension label", c.ID, c.Clause)
		}
		if c.Title == "" || c.Run == nil {
			t.Errorf("%s: no title or no body", c.ID)
		}
	}
	if n < 40 {
		t.Errorf("%d compliance checks registered", n)
	}
}
