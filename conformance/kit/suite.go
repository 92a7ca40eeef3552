package kit

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"sync"

	"github.com/onsi/ginkgo/v2"
	"github.com/onsi/ginkgo/v2/formatter"
	"github.com/onsi/ginkgo/v2/types"
	"github.com/onsi/gomega"
)

// strictFlag is the command-line form of Config.Strict (go test ./conformance -args
// -conformance.strict, or platformconformance -conformance.strict).
var strictFlag = flag.Bool("conformance.strict", false, "fail the run on any unsupported check (as CONFORMANCE_STRICT=1)")

// asDeploymentFlag is the command-line form of Config.AsDeployment.
var asDeploymentFlag = flag.Bool("conformance.as-deployment", false, "treat the target as a deployment even when it is the fake (as CONFORMANCE_AS_DEPLOYMENT=1)")

// RunSuite runs every registered check as a ginkgo spec, labelled with its labels, after a
// preflight of the target and the credentials, and writes the reports to reportsDir (none when
// empty). CONFORMANCE_RERUN names a results file of an earlier run whose checks that did not
// pass are the only ones to run (Run.Rerun). Ginkgo's flags (-ginkgo.label-filter, -ginkgo.focus, ...) are read from the command
// line's flag set, so the caller parses it first. t is told of a failure: a *testing.T under
// go test, anything with a Fail method in a command (ginkgo needs nothing more of it).
// It answers the run, whose OK says whether the target conformed; a suite runs once per process.
func RunSuite(t ginkgo.GinkgoTestingT, stdout *os.File, getenv func(string) string, reportsDir string) (*Run, error) {
	registerSpecs()
	gomega.RegisterFailHandler(ginkgo.Fail)
	suiteConfig, reporterConfig := ginkgo.GinkgoConfiguration()
	if !ColourWanted(stdout, getenv) {
		reporterConfig.NoColor = true
	}
	ctx := context.Background()
	cfg := ConfigFromEnv(getenv)
	cfg.Strict = cfg.Strict || *strictFlag
	cfg.AsDeployment = cfg.AsDeployment || *asDeploymentFlag
	run = Begin(ctx, cfg, func(msg string) {
		defer ginkgo.GinkgoRecover()
		ginkgo.Fail("the in-process fake reported a bug in itself: " + msg)
	}, stdout)
	if file := getenv("CONFORMANCE_RERUN"); file != "" && len(run.Problems) == 0 {
		suiteConfig.FocusStrings = append(suiteConfig.FocusStrings, run.Rerun(file, stdout)...)
	}
	run.LabelFilter, run.Focus = suiteConfig.LabelFilter, suiteConfig.FocusStrings
	if len(run.Problems) == 0 {
		target = run.Target
		// Ginkgo's reporter writes to formatter.ColorableStdOut, which RunSpecs reads when it
		// starts: the one place to redact its output and to drop its closing summary.
		ginkgoOutput.w, ginkgoOutput.redact = stdout, run.Redact
		formatter.ColorableStdOut = ginkgoOutput
		ginkgo.RunSpecs(t, suiteName, suiteConfig, reporterConfig)
	}
	if err := run.Finish(ctx, reportsDir, stdout); err != nil {
		return run, fmt.Errorf("writing the reports: %w", err)
	}
	if !run.OK() {
		t.Fail()
	}
	return run, nil
}

// LastRun is the run RunSuite started in this process, nil before it.
func LastRun() *Run { return run }

var (
	run    *Run
	target *Target
	// ginkgoOutput is where ginkgo's reporter writes.
	ginkgoOutput = &suiteOutput{}
	// failedExchanges holds the last exchanges of each check that failed, by check ID.
	failedExchanges sync.Map
)

// suiteOutput passes ginkgo's output to stdout with the credentials redacted, until the results
// are in: what ginkgo prints after that is its own summary, with counts of its own ("Skipped"
// lumps unsupported with disabled), which the run's one summary line replaces.
type suiteOutput struct {
	w      io.Writer
	redact func(string) string
	mu     sync.Mutex
	done   bool
	// midLine: the last write did not end a line (ginkgo's progress dots).
	midLine bool
}

func (o *suiteOutput) Write(p []byte) (int, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.done || len(p) == 0 {
		return len(p), nil
	}
	o.midLine = p[len(p)-1] != '\n'
	if _, err := io.WriteString(o.w, o.redact(string(p))); err != nil {
		return 0, err
	}
	return len(p), nil
}

// close ends the line ginkgo left open and drops the rest of its output.
func (o *suiteOutput) close() {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.midLine {
		io.WriteString(o.w, "\n")
	}
	o.done = true
}

func specText(c Check) string { return fmt.Sprintf("[%s] %s (%s)", c.Clause, c.Title, c.ID) }

// registerSpecs builds ginkgo's tree of the checks, once, when a suite is about to run: a
// program that imports the package for its harness registers nothing with ginkgo.
var registerSpecs = sync.OnceFunc(func() {
	ginkgo.Describe("Platform API", func() {
		for _, c := range Checks() {
			labels := make([]string, len(c.Labels))
			for i, l := range c.Labels {
				labels[i] = string(l)
			}
			ginkgo.It(specText(c), ginkgo.Label(labels...), func(ctx ginkgo.SpecContext) {
				runSpec(ctx, c)
			})
		}
	})
	ginkgo.ReportAfterSuite("conformance results", reportResults)
})

// runSpec runs one check inside ginkgo: gomega failures fail the spec, Unsupported and Disabled
// skip it with their prefix, and cleanup failures become report entries.
func runSpec(ctx context.Context, c Check) {
	if msg := gate(c, target); msg != "" {
		ginkgo.Skip(msg)
	}
	t := &T{Target: target, ctx: ctx, check: c, skip: func(msg string) { ginkgo.Skip(msg, 2) }}
	t.fail = t.symptomOf(func(msg string) { ginkgo.Fail(msg, 2) })
	t.Gomega = gomega.NewGomega(func(msg string, skip ...int) { t.fail(failureText(c, msg, t.recent)) })
	ginkgo.DeferCleanup(func() {
		t.runCleanups()
		for _, f := range t.CleanupFailures {
			ginkgo.AddReportEntry(cleanupEntry, f)
			fmt.Fprintln(ginkgo.GinkgoWriter, f)
		}
		if ginkgo.CurrentSpecReport().Failed() {
			failedExchanges.Store(c.ID, t.recent)
		}
	})
	c.Run(t)
	t.finish(c)
}

const cleanupEntry = "cleanup failure"

// The results are taken from ginkgo's report once every spec has run, in the order of the check
// list, so that the reports read the same from run to run.
func reportResults(r ginkgo.Report) {
	byText := map[string]types.SpecReport{}
	for _, sr := range r.SpecReports {
		if sr.LeafNodeType == types.NodeTypeIt {
			byText[sr.LeafNodeText] = sr
		}
	}
	for _, c := range Checks() {
		outcome, msg := Error, "did not run: the suite stopped before it"
		sr, ran := byText[specText(c)]
		if ran {
			outcome, msg = outcomeOf(sr)
		}
		var recent []*Response
		if x, ok := failedExchanges.Load(c.ID); ok {
			recent = x.([]*Response)
		}
		// An envelope check judges once more, over every error answer of the run.
		if outcome == Passed {
			if why, first := target.envelopeVerdict(c); why != "" {
				outcome, msg, recent = Failed, why, []*Response{first}
			}
		}
		var cleanups []string
		for _, e := range sr.ReportEntries {
			if e.Name == cleanupEntry {
				cleanups = append(cleanups, e.StringRepresentation())
			}
		}
		run.Add(c, outcome, msg, sr.RunTime, recent, cleanups)
	}
	ginkgoOutput.close()
}

// outcomeOf reads how a spec ended: the prefixes of Unsupported and Disabled tell skips apart, a
// skip without one was not selected (label filter, focus), and a panic, timeout or interruption is
// the suite's own error.
func outcomeOf(sr types.SpecReport) (outcome, msg string) {
	msg = sr.Failure.Message
	if sr.Failure.ForwardedPanic != "" {
		msg += "\npanic: " + sr.Failure.ForwardedPanic
	}
	switch {
	case sr.State == types.SpecStatePassed:
		return Passed, ""
	case sr.State.Is(types.SpecStateSkipped | types.SpecStatePending):
		if cat := Category(msg, false); cat != Passed {
			return cat, msg
		}
		return Disabled, notSelected
	case sr.State == types.SpecStateFailed:
		return Category(msg, true), msg
	}
	return Error, fmt.Sprintf("%s: %s", sr.State, msg)
}
