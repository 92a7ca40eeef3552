package kit

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"regexp"
	"slices"
	"strings"
)

// readResults reads a results file (ResultsFile) of an earlier run.
func readResults(file string) (*ResultsDocument, error) {
	data, err := os.ReadFile(file)
	if err != nil {
		return nil, err
	}
	var doc ResultsDocument
	if err := json.Unmarshal(data, &doc); err != nil {
		return nil, fmt.Errorf("%s is not a conformance results file: %v", file, err)
	}
	if doc.Summary == "" || doc.Checks == nil {
		return nil, fmt.Errorf("%s is not a conformance results file: it has no summary or no checks", file)
	}
	return &doc, nil
}

// Rerun selects, for a run of the suite (CONFORMANCE_RERUN), the checks that did not pass in the
// results file of an earlier run: those that failed, broke (error) or were unsupported. Checks
// that were disabled said nothing about their target and are left out, as are those the suite no
// longer has. It returns ginkgo focus expressions that select them, and tells w what it selected;
// a file it cannot read is a problem of the run, which then runs no check.
func (r *Run) Rerun(file string, w io.Writer) []string {
	doc, err := readResults(file)
	if err != nil {
		r.problem(w, "CONFORMANCE_RERUN: "+err.Error())
		return nil
	}
	known := map[string]bool{}
	for _, c := range Checks() {
		known[c.ID] = true
	}
	var focus, gone []string
	for _, res := range doc.Checks {
		if !slices.Contains([]string{Failed, Error, Unsupported, Blocked, NotConfigured}, res.Outcome) {
			continue
		}
		if !known[res.ID] {
			gone = append(gone, res.ID)
			continue
		}
		// The spec text ends with the check's ID in parentheses (specText).
		focus = append(focus, `\(`+regexp.QuoteMeta(res.ID)+`\)$`)
	}
	fmt.Fprintf(w, "conformance: rerunning the %d %s that did not pass in %s (%s)\n", len(focus), plural(len(focus), "check", "checks"), file, doc.Target)
	if len(gone) > 0 {
		fmt.Fprintf(w, "conformance: no longer in the suite, not rerun: %s\n", strings.Join(gone, ", "))
	}
	if len(focus) == 0 {
		return []string{`a^`} // matches no spec: with no focus at all, ginkgo would run every one
	}
	return focus
}
