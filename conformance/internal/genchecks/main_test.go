package main

import (
	"bytes"
	"os"
	"strings"
	"testing"

	"github.com/platformkit/platformkit/conformance"
)

// TestChecksDocumentIsCurrent keeps conformance/CHECKS.md equal to the registry, so that a check
// added, removed or reworded without regenerating the document is caught.
func TestChecksDocumentIsCurrent(t *testing.T) {
	want, err := os.ReadFile("../../CHECKS.md")
	if err != nil {
		t.Fatal(err)
	}
	var got bytes.Buffer
	write(&got, conformance.Checks())
	if !bytes.Equal(got.Bytes(), want) {
		t.Fatal("conformance/CHECKS.md differs from the check registry; run from the repository root: " + Command)
	}
}

// TestDocumentNamesEveryCheckAndClause guards the generator itself: every check appears once with
// its statement, every clause has a heading, and the labels that change where a check runs stand
// out.
func TestDocumentNamesEveryCheckAndClause(t *testing.T) {
	checks := []conformance.Check{
		{ID: "models/a", Clause: "4.5", Title: "lists | newest first", Labels: []conformance.Label{conformance.Models}},
		{ID: "core/b", Clause: conformance.ClauseFake, Title: "health", Labels: []conformance.Label{conformance.Core, conformance.FakeOnly}},
		{ID: "admin/c", Clause: "gaps §6", Title: "removes", Labels: []conformance.Label{conformance.Admin, conformance.Extension, conformance.Destructive}},
	}
	var b bytes.Buffer
	write(&b, checks)
	doc := b.String()
	for _, want := range []string{
		"3 checks; 2 run against any deployment, 1 need the fake (**fake-only**), 1 are **destructive**, 1 check an extension",
		"| `models/a` | lists \\| newest first | models |",
		"| `core/b` | health | core, **fake-only** |",
		"| `admin/c` | removes | admin, extension, **destructive** |",
		"## gaps §5b: Models", "[EXTENSIONS.md](EXTENSIONS.md)", "| [4.7](#clause-4-7) | Memory stores | 0 |",
	} {
		if !strings.Contains(doc, want) {
			t.Errorf("the document lacks %q", want)
		}
	}
	if n := strings.Count(doc, "\n## "); n != len(conformance.Clauses)+1 {
		t.Errorf("%d headings, want one per clause plus the index", n)
	}
}
