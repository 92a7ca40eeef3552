package conformance

import (
	"context"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"

	"github.com/platformkit/platformkit/conformance/kit"

	"github.com/platformkit/platformkit/conformance/memory"
)

// memoryChecksOf returns the registered memory-store checks.
func memoryChecksOf(t *testing.T) []kit.Check {
	var out []kit.Check
	for _, c := range kit.Checks() {
		if strings.HasPrefix(c.ID, "memory/") {
			out = append(out, c)
		}
	}
	if len(out) == 0 {
		t.Fatal("no memory checks are registered")
	}
	return out
}

// TestMemoryChecksStandalone runs every memory check alone, last first and then again, against
// one fake: each passes whatever ran before it, and the cleanups leave no store behind.
func TestMemoryChecksStandalone(t *testing.T) {
	ctx := context.Background()
	tg, err := kit.Open(ctx, kit.ConfigFromEnv(func(string) string { return "" }), func(msg string) { t.Errorf("fake: %s", msg) })
	if err != nil {
		t.Fatal(err)
	}
	defer tg.Close()
	stores := func() []string {
		resp, err := tg.Client.Do(ctx, &kit.Request{Area: kit.Memory, Path: memory.StoresPath, Query: url.Values{"include_archived": {"true"}, "limit": {"100"}}})
		if err != nil || resp.Status != http.StatusOK {
			t.Fatalf("listing stores: %v %v", err, resp)
		}
		var ids []string
		for _, s := range resp.Get("data").Array() {
			ids = append(ids, s.Get("id").String())
		}
		return ids
	}
	before := stores()
	checks := memoryChecksOf(t)
	slices.Reverse(checks)
	for round := range 2 {
		for _, c := range checks {
			o := kit.RunCheck(ctx, tg, c)
			if !o.Passed() || len(o.CleanupFailures) > 0 {
				t.Errorf("round %d, %s: failures %v, skipped %q, cleanup failures %v", round, c.ID, o.Failures, o.Skipped, o.CleanupFailures)
			}
		}
	}
	if after := stores(); !slices.Equal(after, before) {
		t.Fatalf("the checks left stores behind: %v, before %v", after, before)
	}
}
