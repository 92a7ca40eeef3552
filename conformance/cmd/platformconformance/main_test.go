package main

import (
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

func TestCommandLine(t *testing.T) {
	// Only the arguments that end before the suite runs: a suite runs once per process.
	for _, tc := range []struct {
		args       []string
		wantStatus int
		wantOut    string
	}{
		{[]string{"-version"}, 0, "platformconformance devel"},
		{[]string{"-h"}, 0, "Usage: CONFORMANCE_BASE_URL="},
		{[]string{"-nope"}, 2, "flag provided but not defined: -nope\nusage: platformconformance [flags]"},
		{[]string{"https://api.example.com"}, 2, "the target is set by CONFORMANCE_BASE_URL"},
	} {
		out, err := os.CreateTemp(t.TempDir(), "out")
		if err != nil {
			t.Fatal(err)
		}
		var stderr strings.Builder
		status := run(tc.args, func(string) string { return "" }, out, &stderr)
		b, _ := os.ReadFile(out.Name())
		if got := string(b) + stderr.String(); status != tc.wantStatus || !strings.Contains(got, tc.wantOut) {
			t.Errorf("%v: status %d, output %q; want %d and %q", tc.args, status, got, tc.wantStatus, tc.wantOut)
		}
	}
}

// The binary runs the suite as go test does: against the in-process fake it passes and writes its
// reports; against a target that answers nothing right it exits 1 and says why.
func TestBinaryRunsTheSuite(t *testing.T) {
	bin := filepath.Join(t.TempDir(), "platformconformance")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	reports := t.TempDir()
	cmd := exec.Command(bin, "-reports", reports, "-ginkgo.label-filter", "models")
	cmd.Env = append(os.Environ(), "CONFORMANCE_BASE_URL=")
	out, err := cmd.CombinedOutput()
	// Every models check passes (how many there are is the registry's business, not this test's).
	if err != nil || !regexp.MustCompile(`conformance: [1-9][0-9]* passed, 0 failed, 0 differ on extensions, 0 unsupported`).Match(out) {
		t.Fatalf("against the in-process fake: %v\n%s", err, out)
	}
	if m, _ := filepath.Glob(filepath.Join(reports, "*")); len(m) == 0 {
		t.Errorf("no report was written to %s", reports)
	}

	broken := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { http.NotFound(w, r) }))
	defer broken.Close()
	cmd = exec.Command(bin, "-ginkgo.label-filter", "models")
	cmd.Env = append(os.Environ(), "CONFORMANCE_BASE_URL="+broken.URL, "CONFORMANCE_REPORTS=")
	out, err = cmd.CombinedOutput()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 1 {
		t.Fatalf("against a target that answers 404 to everything (the preflight stops the run): %v, want exit status 1\n%s", err, out)
	}
	if !strings.Contains(string(out), "conformance: not run: 1 error before the first check") {
		t.Errorf("against a broken target: output lacks the summary\n%s", out)
	}
}

// TestHelpListsEverySettingFirst: -h names every CONFORMANCE_ variable the suite's code mentions,
// the reports, and the suite's own flags, all before ginkgo's ~110 flags.
func TestHelpListsEverySettingFirst(t *testing.T) {
	out, err := os.CreateTemp(t.TempDir(), "out")
	if err != nil {
		t.Fatal(err)
	}
	if status := run([]string{"-h"}, func(string) string { return "" }, out, io.Discard); status != 0 {
		t.Fatalf("-h: status %d", status)
	}
	b, _ := os.ReadFile(out.Name())
	help, _, found := strings.Cut(string(b), "\n  -ginkgo.")
	if !found {
		t.Fatalf("-h lists no ginkgo flag:\n%s", b)
	}
	// The suite's sources: the public face and its packages (kit and the areas), not the commands.
	face, _ := filepath.Glob("../../*.go")
	packages, _ := filepath.Glob("../../*/*.go")
	sources := append(face, packages...)
	vars := map[string]bool{}
	for _, f := range sources {
		if strings.HasSuffix(f, "_test.go") || strings.HasPrefix(f, "../../cmd/") || strings.HasPrefix(f, "../../internal/") {
			continue
		}
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, v := range regexp.MustCompile(`CONFORMANCE_[A-Z0-9_]*[A-Z0-9]`).FindAllString(string(src), -1) {
			vars[v] = true
		}
	}
	if len(vars) < 15 {
		t.Fatalf("found %d variables in %v; the sources moved?", len(vars), sources)
	}
	for v := range vars {
		if !regexp.MustCompile(`\b` + v + `\b`).MatchString(help) {
			t.Errorf("-h does not name %s before ginkgo's flags", v)
		}
	}
	for _, want := range []string{"conformance-report.html", "\n  -reports string\n", "\n  -version\n", "\n  -api-version string\n", "\n  -conformance.strict\n", "platformconformance compare [-rerun]"} {
		if !strings.Contains(help, want) {
			t.Errorf("-h lacks %q before ginkgo's flags:\n%s", want, help)
		}
	}
}

// TestCompareSubcommand: platformconformance compare is conformance-compare, for an operator
// without Go: a run compared with itself exits 0, one file is an error (2).
func TestCompareSubcommand(t *testing.T) {
	f := filepath.Join(t.TempDir(), "results.json")
	doc := `{"target":"http://t","summary":"s","counts":{"passed":1},"checks":[{"id":"a/x","clause":"4.5","labels":["models"],"outcome":"passed"}]}`
	if err := os.WriteFile(f, []byte(doc), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args       []string
		wantStatus int
		wantOut    string
	}{
		{[]string{"compare", f, f}, 0, "0 of 1 checks differ in outcome."},
		{[]string{"compare", "-rerun", f, f}, 0, "Only the checks every run selected are compared (a rerun's): 1 of 1; 0 left out."},
		{[]string{"compare", f}, 2, "platformconformance compare: compare needs two or more results files, got 1"},
	} {
		out, err := os.CreateTemp(t.TempDir(), "out")
		if err != nil {
			t.Fatal(err)
		}
		var stderr strings.Builder
		status := run(tc.args, func(string) string { return "" }, out, &stderr)
		b, _ := os.ReadFile(out.Name())
		if got := string(b) + stderr.String(); status != tc.wantStatus || !strings.Contains(got, tc.wantOut) {
			t.Errorf("%v: status %d, output %q; want %d and %q", tc.args, status, got, tc.wantStatus, tc.wantOut)
		}
	}
}
