// Command genchecks writes conformance/CHECKS.md, the check list as a document: every clause with
// its title and every check with its statement and labels, so that a reader can see what
// "conformant" means without reading the source. The registry of checks is the source of truth;
// a test fails when the committed file differs from it.
//
// Run from the repository root: go run ./conformance/internal/genchecks > conformance/CHECKS.md
package main

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/platformkit/platformkit/conformance"
)

// Command is how to regenerate the document, as the test tells it.
const Command = "go run ./conformance/internal/genchecks > conformance/CHECKS.md"

func main() {
	w := bufio.NewWriter(os.Stdout)
	write(w, conformance.Checks())
	if err := w.Flush(); err != nil {
		fmt.Fprintln(os.Stderr, "genchecks:", err)
		os.Exit(1)
	}
}

func write(w io.Writer, checks []conformance.Check) {
	p := func(format string, args ...any) { fmt.Fprintf(w, format, args...) }
	byClause := map[string][]conformance.Check{}
	var fakeOnly, destructive, extension, proven int
	for _, c := range checks {
		proven += count(c.Bug != nil)
		byClause[c.Clause] = append(byClause[c.Clause], c)
		fakeOnly += count(c.Has(conformance.FakeOnly))
		destructive += count(c.Has(conformance.Destructive))
		extension += count(c.Has(conformance.Extension))
	}
	p("# Conformance checks\n\n")
	p("<!-- Generated from the check registry; do not edit. Regenerate with: %s -->\n\n", Command)
	p("What \"conformant\" means, check by check: %d checks; %d run against any deployment, %d need the fake (**fake-only**), %d are **destructive**, %d check an extension.\n\n",
		len(checks), len(checks)-fakeOnly, fakeOnly, destructive, extension)
	p("Every check verifies one clause:\n\n")
	p("- **1 to 9**, with subsections such as 4.7: sections of the Platform API reference, the statements every deployment must satisfy.\n")
	p("- **gaps §1 to gaps §12**: the project's decisions where the reference is silent, described in [EXTENSIONS.md](EXTENSIONS.md). Their checks carry the `extension` label: a deployment that decided otherwise is different, not wrong.\n")
	p("- **fake**: the fake's own contract: tenancy, its control API, determinism, scripted answers.\n\n")
	p("Labels: one area (%s), plus `extension`; `destructive` (irreversibly deletes or changes pre-existing data, or leaves behind what it cannot remove; against a deployment it runs only with `CONFORMANCE_DESTRUCTIVE=1`); `fake-only` (needs the fake's control API; disabled against a deployment). Select checks with `-ginkgo.label-filter`, e.g. `make conformance GINKGO_FLAGS='-ginkgo.label-filter=\"models && !extension\"'`.\n\n", areas())

	p("Every check is proven against the bug it exists to catch (the last column): run alone against the fake with exactly that defect, it fails, and against the honest fake it passes (`TestEveryCheckFailsAgainstItsOwnBug`). %d of %d checks are; the others say why they have no bug of their own.\n\n", proven, len(checks))
	p("## Clauses\n\n| clause | title | checks |\n|---|---|---:|\n")
	for _, cl := range conformance.ClauseIDs() {
		p("| [%s](#%s) | %s | %d |\n", cl, anchor(cl), conformance.Clauses[cl], len(byClause[cl]))
	}
	for _, cl := range conformance.ClauseIDs() {
		p("\n<a id=\"%s\"></a>\n\n## %s: %s\n\n", anchor(cl), cl, conformance.Clauses[cl])
		if len(byClause[cl]) == 0 {
			p("No check verifies this clause.\n")
			continue
		}
		p("| check | statement | labels | proven against |\n|---|---|---|---|\n")
		for _, c := range byClause[cl] {
			p("| `%s` | %s | %s | %s |\n", c.ID, cell(c.Title), labels(c), provenAgainst(c))
		}
	}
}

// provenAgainst is the bug a check is proven against, or why it has none.
func provenAgainst(c conformance.Check) string {
	switch {
	case c.Bug != nil:
		return cell(c.Bug.Says)
	case c.NoBug != "":
		return "none of its own: " + cell(c.NoBug)
	}
	return "not yet proven"
}

func count(b bool) int {
	if b {
		return 1
	}
	return 0
}

func areas() string {
	out := make([]string, len(conformance.Areas))
	for i, a := range conformance.Areas {
		out[i] = "`" + string(a) + "`"
	}
	return strings.Join(out, ", ")
}

// labels marks the labels that change where a check runs in bold.
func labels(c conformance.Check) string {
	out := make([]string, len(c.Labels))
	for i, l := range c.Labels {
		out[i] = string(l)
		if l == conformance.FakeOnly || l == conformance.Destructive {
			out[i] = "**" + out[i] + "**"
		}
	}
	return strings.Join(out, ", ")
}

// anchor is a clause's HTML id: "4.7" is clause-4-7, "gaps §5b" is clause-gaps-5b.
func anchor(clause string) string {
	r := strings.NewReplacer(" §", "-", ".", "-", " ", "-")
	return "clause-" + r.Replace(clause)
}

// cell keeps a statement inside its table cell.
func cell(s string) string {
	return strings.ReplaceAll(strings.Join(strings.Fields(s), " "), "|", "\\|")
}
