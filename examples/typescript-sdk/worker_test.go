package typescriptsdk

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"
)

// TestTypeScriptWorker runs src/worker.ts: the official TypeScript SDK's EnvironmentWorker
// (@anthropic-ai/sdk 1.14.0, lib/environments/worker), unmodified, serves a self-hosted session
// against the fake end to end; the program fails unless the worker stopped the session's item
// within 5 s. Its output must equal testdata/worker.txt (-update rewrites it).
func TestTypeScriptWorker(t *testing.T) {
	node, errNode := exec.LookPath("node")
	npm, errNpm := exec.LookPath("npm")
	if errNode != nil || errNpm != nil {
		t.Skip("SKIPPED: node and npm are needed to run examples/typescript-sdk, and at least one is not installed")
	}
	if stale(t) {
		runIn(t, npm, "ci", "--no-audit", "--no-fund")
	}
	runIn(t, npm, "run", "--silent", "build")
	cmd := exec.Command(node, filepath.Join("dist", "worker.js"))
	cmd.Env = append(sdkFreeEnv(), "PLATFORMFAKE_BINARY="+buildFake(t))
	start := time.Now()
	out, err := cmd.Output()
	if err != nil {
		var stderr []byte
		if ee, ok := err.(*exec.ExitError); ok {
			stderr = ee.Stderr
		}
		t.Fatalf("node dist/worker.js: %v\n%s\n%s", err, out, stderr)
	}
	t.Logf("node dist/worker.js: %v in all (the fake's start and stop included)", time.Since(start).Round(time.Millisecond))
	golden := filepath.Join("testdata", "worker.txt")
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
		t.Errorf("output differs from %s (go test -run TestTypeScriptWorker ./examples/typescript-sdk -update rewrites it)\ngot:\n%s\nwant:\n%s", golden, out, want)
	}
}
