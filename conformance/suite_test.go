package conformance

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"testing"

	"github.com/onsi/ginkgo/v2"
	"github.com/onsi/ginkgo/v2/types"
	"github.com/onsi/gomega"
)

// TestConformance runs every registered check as a ginkgo spec, labelled with its labels.
func TestConformance(t *testing.T) {
	gomega.RegisterFailHandler(ginkgo.Fail)
	ginkgo.RunSpecs(t, "Platform API conformance")
}

var target *Target

var _ = ginkgo.BeforeSuite(func(ctx ginkgo.SpecContext) {
	var err error
	target, err = Open(ctx, ConfigFromEnv(nil), func(msg string) {
		defer ginkgo.GinkgoRecover()
		ginkgo.Fail("the in-process fake reported a bug in itself: " + msg)
	})
	gomega.Expect(err).NotTo(gomega.HaveOccurred())
	ginkgo.DeferCleanup(target.Close)
	fmt.Fprintf(ginkgo.GinkgoWriter, "target %s (fake: %v)\n", target.Config.BaseURL, target.IsFake)
})

var _ = ginkgo.Describe("Platform API", func() {
	for _, c := range Checks() {
		labels := make([]string, len(c.Labels))
		for i, l := range c.Labels {
			labels[i] = string(l)
		}
		ginkgo.It(fmt.Sprintf("[%s] %s (%s)", c.Clause, c.Title, c.ID), ginkgo.Label(labels...), func(ctx ginkgo.SpecContext) {
			runSpec(ctx, c)
		})
	}
})

// runSpec runs one check inside ginkgo: gomega failures fail the spec, Unsupported and Disabled
// skip it with their prefix, and cleanup failures become report entries.
func runSpec(ctx context.Context, c Check) {
	if msg := gate(c, target); msg != "" {
		ginkgo.Skip(msg)
	}
	t := &T{Target: target, ctx: ctx, skip: func(msg string) { ginkgo.Skip(msg, 1) }, fail: func(msg string) { ginkgo.Fail(msg, 1) }}
	t.Gomega = gomega.NewGomega(func(msg string, skip ...int) { ginkgo.Fail(msg, append(skip, 0)[0]+1) })
	ginkgo.DeferCleanup(func() {
		t.runCleanups()
		for _, f := range t.CleanupFailures {
			ginkgo.AddReportEntry("cleanup failure", f)
			fmt.Fprintln(ginkgo.GinkgoWriter, f)
		}
	})
	c.Run(t)
}

// The summary distinguishes passed, failed, unsupported, disabled and suite errors.
var _ = ginkgo.ReportAfterSuite("conformance summary", func(r ginkgo.Report) {
	counts := map[string]int{}
	var notes []string
	for _, sr := range r.SpecReports {
		if sr.LeafNodeType != types.NodeTypeIt {
			continue
		}
		cat := "passed"
		switch sr.State {
		case types.SpecStatePassed:
		case types.SpecStateSkipped:
			cat = category(sr.Failure.Message, false)
			if cat == "passed" {
				cat = "disabled" // skipped by a label filter or focus
			}
		default:
			cat = category(sr.Failure.Message, true)
		}
		counts[cat]++
		if cat != "passed" && cat != "disabled" {
			notes = append(notes, fmt.Sprintf("  %-11s %s", cat, sr.LeafNodeText))
		}
	}
	sort.Strings(notes)
	fmt.Printf("\nconformance: %d passed, %d failed, %d unsupported, %d disabled, %d errors\n",
		counts["passed"], counts["failed"], counts["unsupported"], counts["disabled"], counts["error"])
	if len(notes) > 0 {
		fmt.Println(strings.Join(notes, "\n"))
	}
})
