package kit

import (
	"bytes"
	_ "embed"
	"html/template"
	"strings"
	"time"
)

//go:embed report.html.tmpl
var htmlTemplate string

// reportPage parses the HTML report's template once; html/template escapes every value the
// results hold (a deployment's answer is untrusted text).
var reportPage = template.Must(template.New("report").Parse(htmlTemplate))

// htmlReport is what the HTML report shows: the run's results, in the order a reader needs them.
type htmlReport struct {
	Verdict, VerdictClass, Summary  string
	Target, TargetKind, Started     string
	Took                            string
	Config                          [][2]string // how the suite was run: version, selection, configuration
	Strict                          bool        // unsupported checks fail the run
	Problems                        []string
	Total                           Counts
	Areas, Clauses                  []htmlCountRow
	Failures, Unsupported           []Result
	Disabled, Causes, NotConfigured []disabledGroup
	Cleanups, Notes                 []string
}

type htmlCountRow struct {
	Name, Title string
	Counts
}

// HTML renders the run as one self-contained page to hand to the team that owns the target: the
// verdict and any problem that stopped the run first, the counts by area and by clause, then every
// check that failed or broke with its statement, clause, the exchange that failed it and a curl
// command that sends that request again (credentials as variable references). It loads nothing
// and runs no script.
func (r *Run) HTML() ([]byte, error) {
	page := htmlReport{
		Summary: strings.TrimPrefix(r.Summary(), "conformance: "),
		Target:  r.targetURL(), TargetKind: r.targetKind(),
		Started: r.Started.UTC().Format(time.RFC3339), Took: r.Elapsed.Round(time.Millisecond).String(),
		Config: r.runConfig().lines(), Strict: r.Strict(),
		Problems: r.Problems, Total: r.Counts(),
		Failures: r.with(Failed, Error), Unsupported: r.with(Unsupported), Disabled: r.disabledGroups(),
		Causes: r.causeGroups(), NotConfigured: r.notConfiguredGroups(),
		Notes: r.Notes,
	}
	switch {
	case len(r.Problems) > 0:
		page.Verdict, page.VerdictClass = "NOT RUN", "bad"
		page.Summary = strings.TrimPrefix(page.Summary, "not run: ")
	case !r.OK():
		page.Verdict, page.VerdictClass = "FAIL", "bad"
	default:
		page.Verdict, page.VerdictClass = "PASS", "good"
	}
	byArea := r.countBy(area)
	for _, a := range Areas {
		if c, ok := byArea[string(a)]; ok {
			page.Areas = append(page.Areas, htmlCountRow{Name: string(a), Counts: c})
		}
	}
	byClause := r.countBy(func(res Result) string { return res.Clause })
	for _, cl := range ClauseIDs() {
		if c, ok := byClause[cl]; ok {
			page.Clauses = append(page.Clauses, htmlCountRow{Name: cl, Title: Clauses[cl], Counts: c})
		}
	}
	for _, res := range r.Results {
		for _, f := range res.CleanupFailures {
			page.Cleanups = append(page.Cleanups, res.ID+": "+oneLine(f))
		}
	}
	var b bytes.Buffer
	if err := reportPage.Execute(&b, page); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}
