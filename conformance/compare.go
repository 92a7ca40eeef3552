package conformance

import (
	"fmt"
	"sort"
	"strings"
)

// absent is a check's outcome in a run whose results do not hold it (an older or newer suite).
const absent = "absent"

// Compare reads two or more results files (ResultsFile: two deployments, or one before and after
// a change) and writes a Markdown page: the runs with their totals, then a table of every check
// whose outcome is not the same in all of them. differ reports whether there was any such check.
func Compare(files []string) (page string, differ bool, err error) {
	if len(files) < 2 {
		return "", false, fmt.Errorf("compare needs two or more results files, got %d", len(files))
	}
	runs := make([]*resultsDocument, len(files))
	outcomes := map[string][]string{} // check ID: its outcome in each run
	clause := map[string]string{}
	for i, f := range files {
		if runs[i], err = readResults(f); err != nil {
			return "", false, err
		}
		for _, res := range runs[i].Checks {
			if outcomes[res.ID] == nil {
				outcomes[res.ID] = make([]string, len(files))
			}
			outcomes[res.ID][i] = res.Outcome
			clause[res.ID] = res.Clause
		}
	}
	var b strings.Builder
	p := func(format string, args ...any) { fmt.Fprintf(&b, format, args...) }
	p("# Conformance runs compared\n\n| run | results file | target | started | passed | failed | unsupported | disabled | errors |\n|---|---|---|---|---:|---:|---:|---:|---:|\n")
	for i, doc := range runs {
		c := doc.Counts
		p("| #%d | %s | %s | %s | %d | %d | %d | %d | %d |\n", i+1, oneLine(files[i]), oneLine(doc.Target), doc.Started, c.Passed, c.Failed, c.Unsupported, c.Disabled, c.Errors)
	}
	var ids []string
	for id, outs := range outcomes {
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
	p("\n%d of %d checks differ in outcome.\n", len(ids), len(outcomes))
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
