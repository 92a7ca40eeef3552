// Package typescriptsdk holds a TypeScript example, src/main.ts, that uses the official SDK from
// npm unmodified, and the test that runs it against the fake's binary as a user would.
package typescriptsdk

import (
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

var update = flag.Bool("update", false, "rewrite the programs' golden outputs in testdata/ with this run's")

// TestTypeScriptSDK installs the SDK from the lockfile, compiles the program with the pinned
// TypeScript, and runs it: it starts the fake through the npm package's helper
// (packaging/npm/fake), here with the binary this test builds. Its output must equal
// testdata/output.txt: the fake makes every line of it deterministic.
func TestTypeScriptSDK(t *testing.T) {
	node := build(t)
	// The build skips the libraries' declarations (skipLibCheck); the helper's own, generated in
	// part from the control API's OpenAPI document, must check strictly.
	runIn(t, node, filepath.Join("node_modules", "typescript", "bin", "tsc"), "--noEmit", "--strict", "--types", "node",
		filepath.Join("..", "..", "packaging", "npm", "fake", "index.d.ts"))
	out := runGolden(t, node, "main.js", "output.txt")
	checkSent(t, string(out))
}

// build skips the test unless node and npm are installed, installs the packages from the
// lockfile when they are missing or older than it, and compiles the programs; it returns node.
func build(t *testing.T) string {
	t.Helper()
	node, errNode := exec.LookPath("node")
	npm, errNpm := exec.LookPath("npm")
	if errNode != nil || errNpm != nil {
		t.Skip("SKIPPED: node and npm are needed to run examples/typescript-sdk, and at least one is not installed")
	}
	if stale(t) {
		runIn(t, npm, "ci", "--no-audit", "--no-fund")
	}
	runIn(t, npm, "run", "--silent", "build")
	return node
}

// runGolden runs the compiled program dist/<script> against the fake's binary this test builds,
// and fails the test unless it exits 0 with the output of testdata/<golden> (-update rewrites
// it): the fake makes every line of it deterministic. It returns the output.
func runGolden(t *testing.T, node, script, golden string) []byte {
	t.Helper()
	cmd := exec.Command(node, filepath.Join("dist", script))
	cmd.Env = append(sdkFreeEnv(), "PLATFORMFAKE_BINARY="+buildFake(t))
	start := time.Now()
	out, err := cmd.Output()
	if err != nil {
		var stderr []byte
		if ee, ok := err.(*exec.ExitError); ok {
			stderr = ee.Stderr
		}
		t.Fatalf("node dist/%s: %v\n%s\n%s", script, err, out, stderr)
	}
	t.Logf("node dist/%s: %v in all (the fake's start and stop included)", script, time.Since(start).Round(time.Millisecond))
	path := filepath.Join("testdata", golden)
	if *update {
		if err := os.WriteFile(path, out, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if string(out) != string(want) {
		t.Errorf("output differs from %s (go test -run %s ./examples/typescript-sdk -update rewrites it)\ngot:\n%s\nwant:\n%s", path, t.Name(), out, want)
	}
	return out
}

// checkSent fails the test unless the program's summary of the fake's journal ("what the SDK
// sent:") says that every request carried the version the SDK sends by itself, 2026-10-21, under
// the SDK's header name, and its key in Authorization (as a Bearer key: the program's clients
// are given API keys, not tokens), with no vendor-version added: the proof that the example
// configures the SDK as its README says and the fake takes what the SDK sends. It holds apart
// from the golden file, which -update rewrites.
func checkSent(t *testing.T, out string) {
	t.Helper()
	if problem := sentProblem(out); problem != "" {
		t.Error(problem)
	}
}

// sentProblem is what checkSent finds wrong in the output, or "".
func sentProblem(out string) string {
	_, summary, found := strings.Cut(out, "what the SDK sent:\n")
	if !found {
		return `the output has no "what the SDK sent:" summary of the journal`
	}
	summary, _, _ = strings.Cut(summary, "coverage:\n")
	lines := strings.Split(strings.TrimSpace(summary), "\n")
	const want = "anthropic-version 2026-10-21, vendor-version not sent, key in authorization: "
	if len(lines) != 1 || !strings.HasPrefix(lines[0], want) {
		return fmt.Sprintf("what the SDK sent, per the fake's journal:\n%s\nwant one line, every request: %q", summary, want+"N requests")
	}
	return ""
}

// stale reports whether node_modules is missing or older than the lockfile, so that npm ci,
// which reinstalls everything, runs only when the installed packages may differ from it.
func stale(t *testing.T) bool {
	lock, err := os.Stat("package-lock.json")
	if err != nil {
		t.Fatal(err)
	}
	installed, err := os.Stat(filepath.Join("node_modules", ".package-lock.json"))
	return err != nil || installed.ModTime().Before(lock.ModTime())
}

// runIn runs a command in the example's directory and fails the test with its output.
func runIn(t *testing.T, name string, args ...string) {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Env = sdkFreeEnv()
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%s %s: %v\n%s", filepath.Base(name), strings.Join(args, " "), err, out)
	}
}

// sdkFreeEnv is the environment without the variables the SDK reads (ANTHROPIC_*) or the
// program does (BASE_URL), so that the program is configured by its code alone, whatever the
// machine's shell exports.
func sdkFreeEnv() []string {
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "ANTHROPIC_") && !strings.HasPrefix(kv, "BASE_URL=") && !strings.HasPrefix(kv, "PLATFORMFAKE_") {
			env = append(env, kv)
		}
	}
	return env
}

// buildFake builds the fake's binary for the helper to start: the helper from this repository
// carries none (installed from npm, it brings its platform's).
func buildFake(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "platformfake")
	if out, err := exec.Command("go", "build", "-o", bin, "github.com/platformkit/platformkit/fake/cmd/platformfake").CombinedOutput(); err != nil {
		t.Fatalf("building the binary: %v\n%s", err, out)
	}
	return bin
}
