package main

import (
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
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
	if err != nil || !strings.Contains(string(out), "conformance: 21 passed, 0 failed") {
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
