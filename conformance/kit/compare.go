package kit

import (
	"flag"
	"fmt"
	"io"
	"sort"
	"strings"
)

// absent is a check's outcome in a run whose results do not hold it (an older or newer suite).
const absent = "absent"

// notSelected is the message of a check the run's label filter or focus left out (a rerun leaves
// out every check that passed before).
const notSelected = "not selected by the label filter or focus"

// Compare reads two or more results files (ResultsFile: two deployments, or one before and after
// a change) and writes a Markdown page: the runs with their totals, then a table of every check
// whose outcome is not the same in all of them, an extension check's failure shown as "differs"
// as the summary counts it. With selectedOnly (a rerun compared with its original), a check that
// some run did not select (its label filter or focus, as CONFORMANCE_RERUN sets it, left it out)
// is left out of the table: only the checks every run ran are compared. differ reports whether
// there was any such check.
func Compare(files []string, selectedOnly bool) (page string, differ bool, err error) {
	if len(files) < 2 {
		return "", false, fmt.Errorf("compare needs two or more results files, got %d", len(files))
	}
	runs := make([]*ResultsDocument, len(files))
	outcomes := map[string][]string{} // check ID: its outcome in each run, as shown
	clause := map[string]string{}
	skipped := map[string]bool{} // checks some run did not select
	for i, f := range files {
		if runs[i], err = readResults(f); err != nil {
			return "", false, err
		}
		for _, res := range runs[i].Checks {
			if outcomes[res.ID] == nil {
				outcomes[res.ID] = make([]string, len(files))
			}
			outcomes[res.ID][i] = res.ShownOutcome()
			clause[res.ID] = res.Clause
			if res.Outcome == Disabled && res.Message == notSelected {
				skipped[res.ID] = true
			}
		}
	}
	var b strings.Builder
	p := func(format string, args ...any) { fmt.Fprintf(&b, format, args...) }
	p("# Conformance runs compared\n\n| run | results file | target | started | passed | failed | differs | unsupported | disabled | errors |\n|---|---|---|---|---:|---:|---:|---:|---:|---:|\n")
	for i, doc := range runs {
		c := doc.Counts
		p("| #%d | %s | %s | %s | %d | %d | %d | %d | %d | %d |\n", i+1, oneLine(files[i]), oneLine(doc.Target), doc.Started, c.Passed, c.Failed, c.Differ, c.Unsupported, c.Disabled, c.Errors)
	}
	var ids []string
	compared := 0
	for id, outs := range outcomes {
		if selectedOnly && skipped[id] {
			continue
		}
		compared++
		for i := range outs {
			if outs[i] == "" {
				outs[i] = absent
			}
		}
		for _, o := range outs[1:] {
			if o != outs[0] {
				ids = append(ids, id)
				break
			}
		}
	}
	sort.Strings(ids)
	if selectedOnly {
		p("\nOnly the checks every run selected are compared (a rerun's): %d of %d; %d left out.\n", compared, len(outcomes), len(outcomes)-compared)
	}
	p("\n%d of %d checks differ in outcome.\n", len(ids), compared)
	if len(ids) == 0 {
		return b.String(), false, nil
	}
	p("\n| check | clause |")
	for i := range runs {
		p(" #%d |", i+1)
	}
	p("\n|---|---|%s\n", strings.Repeat("---|", len(runs)))
	for _, id := range ids {
		p("| `%s` | %s |", id, clause[id])
		for _, o := range outcomes[id] {
			if o == Passed {
				p(" %s |", o)
			} else {
				p(" **%s** |", o)
			}
		}
		p("\n")
	}
	return b.String(), true, nil
}

// CompareMain is the command line of the comparison, as conformance-compare and
// `platformconformance compare` take it: [-rerun] FILE FILE [FILE...]. It prints the page to
// stdout and answers the exit status: 0 when every check ended alike, 1 when some differ, 2 on an
// error (like diff).
func CompareMain(name string, args []string, stdout, stderr io.Writer) int {
	fl := flag.NewFlagSet(name, flag.ContinueOnError)
	fl.SetOutput(stderr)
	rerun := fl.Bool("rerun", false, "compare only the checks every run selected: a rerun (CONFORMANCE_RERUN) with its original, by the checks it reran")
	fl.Usage = func() {
		fmt.Fprintf(stderr, "usage: %s [-rerun] RESULTS.json RESULTS.json [...]\n\n"+
			"Compares the results files (%s) of two or more conformance runs and prints a Markdown page:\n"+
			"each run's totals, and every check whose outcome differs (an extension check's failure reads\n"+
			"\"differs\"). Exits 0 when every check ended alike, 1 when some differ, 2 on an error.\n\n", name, ResultsFile)
		fl.PrintDefaults()
	}
	if err := fl.Parse(args); err != nil {
		if err == flag.ErrHelp {
			return 0
		}
		return 2
	}
	page, differ, err := Compare(fl.Args(), *rerun)
	if err != nil {
		fmt.Fprintf(stderr, "%s: %v\n", name, err)
		return 2
	}
	fmt.Fprint(stdout, page)
	if differ {
		return 1
	}
	return 0
}
