package typescriptsdk

import "testing"

// TestTypeScriptWorker runs src/worker.ts: the official TypeScript SDK's EnvironmentWorker
// (@anthropic-ai/sdk 1.14.0, lib/environments/worker), unmodified, serves a self-hosted session
// against the fake end to end; the program fails unless the worker stopped the session's item
// within 5 s. Its output must equal testdata/worker.txt (-update rewrites it).
func TestTypeScriptWorker(t *testing.T) {
	runGolden(t, build(t), "worker.js", "worker.txt")
}
