// Package typescriptsdk holds a TypeScript example, src/main.ts, that uses the official SDK from
// npm unmodified, and the test that runs it against the fake's binary as a user would.
package typescriptsdk

import (
	"bufio"
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

var update = flag.Bool("update", false, "rewrite testdata/output.txt with this run's output")

// TestTypeScriptSDK installs the SDK from the lockfile, compiles the program with the pinned
// TypeScript, starts the fake's binary on a free port and runs the program against it. Its
// output must equal testdata/output.txt: the fake makes every line of it deterministic.
func TestTypeScriptSDK(t *testing.T) {
	node, errNode := exec.LookPath("node")
	npm, errNpm := exec.LookPath("npm")
	if errNode != nil || errNpm != nil {
		t.Skip("SKIPPED: node and npm are needed to run examples/typescript-sdk, and at least one is not installed")
	}
	if stale(t) {
		runIn(t, npm, "ci", "--no-audit", "--no-fund")
	}
	runIn(t, npm, "run", "--silent", "build")

	cmd := exec.Command(node, filepath.Join("dist", "main.js"))
	cmd.Env = append(sdkFreeEnv(), "BASE_URL="+startFake(t))
	out, err := cmd.Output()
	if err != nil {
		var stderr []byte
		if ee, ok := err.(*exec.ExitError); ok {
			stderr = ee.Stderr
		}
		t.Fatalf("node dist/main.js: %v\n%s\n%s", err, out, stderr)
	}
	golden := filepath.Join("testdata", "output.txt")
	if *update {
		if err := os.WriteFile(golden, out, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if string(out) != string(want) {
		t.Errorf("output differs from %s (go test -run TestTypeScriptSDK ./examples/typescript-sdk -update rewrites it)\ngot:\n%s\nwant:\n%s", golden, out, want)
	}
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

// sdkFreeEnv is the environment without the variables the SDK reads (ANTHROPIC_*), so that the
// program is configured by its code alone, whatever the machine's shell exports.
func sdkFreeEnv() []string {
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "ANTHROPIC_") {
			env = append(env, kv)
		}
	}
	return env
}

// startFake builds the binary, starts it on a free loopback port and returns its base URL. It
// is stopped with SIGINT when the test ends.
func startFake(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "platformfake")
	if out, err := exec.Command("go", "build", "-o", bin, "github.com/platformkit/platformkit/fake/cmd/platformfake").CombinedOutput(); err != nil {
		t.Fatalf("building the binary: %v\n%s", err, out)
	}
	cmd := exec.Command(bin, "-addr", "127.0.0.1:0", "-quiet")
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Signal(os.Interrupt)
		done := make(chan struct{})
		go func() { _ = cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			_ = cmd.Process.Kill()
			t.Error("the fake did not stop within 10 s of SIGINT")
		}
	})
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil {
		t.Fatalf("reading the binary's first line: %v", err)
	}
	base, ok := strings.CutPrefix(strings.TrimSpace(line), "listening on ")
	if !ok {
		t.Fatalf("first line %q, want \"listening on http://ADDR\"", line)
	}
	return base
}
