package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"
)

// pyExample is one of the Python SDK's own examples (its sdist's examples/), run as written:
// python examples/<file>, with the SDK configured by its README's variables (ANTHROPIC_BASE_URL,
// ANTHROPIC_API_KEY) and the example's own (env), against a fake of its own.
type pyExample struct {
	file string
	env  []string
	// batch: the example takes the ID of an ended message batch as its argument, as it says
	// (batch_results.py msgbatch_123); one is made first, through the API.
	batch bool
}

// fixtureSelfHosted is the default data set's self-hosted environment, with its environment key.
const (
	fixtureSelfHosted = "env_01AcmePrimary000000000001"
	fixtureEnvKey     = "test-environment-key"
)

// pyExamples are the examples that need nothing outside this machine. Left out: azure.py,
// bedrock.py, vertex.py and google_cloud.py (other clouds' endpoints and credentials),
// mcp_tool_runner.py (the mcp package and an MCP server), and the self-hosted worker examples
// managed-agents-self-hosted-sandbox-worker.py and managed-agents-worker-dispatch.py (a worker
// runs until it is stopped; examples/python-sdk/test_managed_agents.py runs the SDK's worker
// against the fake instead).
var pyExamples = []pyExample{
	{file: "messages.py"}, {file: "messages_stream.py"}, {file: "images.py"}, {file: "fallbacks.py"},
	{file: "thinking.py"}, {file: "thinking_stream.py"}, {file: "tools.py"}, {file: "tools_stream.py"},
	{file: "tools_runner.py"}, {file: "tools_runner_deferred_streaming.py"}, {file: "tools_runner_search_tool.py"},
	{file: "structured_outputs.py"}, {file: "structured_outputs_streaming.py"}, {file: "web_search.py"},
	{file: "web_search_stream.py"}, {file: "message_threads.py"}, {file: "workload_identity.py"},
	{file: "memory/basic.py"}, {file: "batch_results.py", batch: true},
	{file: "agents.py"}, {file: "agents_with_files.py"}, {file: "managed-agents-streaming-deltas-manual.py"},
	// The fake clones no repository and calls no MCP server: any token will do.
	{file: "agents_comprehensive.py", env: []string{"GITHUB_TOKEN=unused-by-the-fake"}},
	// Runs the session's tools itself, and stops once the session has been idle a minute.
	{file: "managed-agents-observe-tool-calls.py", env: []string{"ANTHROPIC_ENVIRONMENT_ID=" + fixtureSelfHosted}},
}

// exampleResult is how one example ended.
type exampleResult struct {
	file    string
	ok      bool
	took    time.Duration
	problem string
}

// runExamples runs every example, four at a time, each against a fake of its own started with
// fixtures, and returns how each ended.
func runExamples(src, python, fakeBin, fixtures, key string) []exampleResult {
	out := make([]exampleResult, len(pyExamples))
	sem := make(chan struct{}, 4)
	var wg sync.WaitGroup
	for i, ex := range pyExamples {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			out[i] = runExample(src, python, fakeBin, fixtures, key, ex)
		}()
	}
	wg.Wait()
	return out
}

func runExample(src, python, fakeBin, fixtures, key string, ex pyExample) exampleResult {
	r := exampleResult{file: ex.file}
	base, stop, err := startFake(fakeBin, fixtures)
	if err != nil {
		r.problem = err.Error()
		return r
	}
	defer stop()
	args := []string{filepath.Join("examples", ex.file)}
	if ex.batch {
		id, err := endedBatch(base, key)
		if err != nil {
			r.problem = "making its batch: " + err.Error()
			return r
		}
		args = append(args, id)
	}
	work, err := os.MkdirTemp("", "sdk-example")
	if err != nil {
		r.problem = err.Error()
		return r
	}
	defer os.RemoveAll(work)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, python, args...)
	cmd.Dir = src
	cmd.Env = append(os.Environ(), append([]string{"ANTHROPIC_BASE_URL=" + base, "ANTHROPIC_API_KEY=" + key,
		"ANTHROPIC_ENVIRONMENT_KEY=" + fixtureEnvKey, "ANTHROPIC_WORKDIR=" + work}, ex.env...)...)
	start := time.Now()
	output, err := cmd.CombinedOutput()
	r.took = time.Since(start)
	if err != nil {
		r.problem = fmt.Sprintf("%v: %s", err, lastLines(string(output), 6))
		return r
	}
	r.ok = true
	return r
}

// endedBatch makes a message batch of two requests, one the Messages rules refuse, and moves
// the fake's clock past its end; it returns the batch's ID.
func endedBatch(base, key string) (string, error) {
	body := `{"requests":[{"custom_id":"hello","params":{"model":"claude-sonnet-4-5","max_tokens":64,"messages":[{"role":"user","content":"Hello"}]}},` +
		`{"custom_id":"refused","params":{"model":"claude-sonnet-4-5","max_tokens":64,"messages":[]}}]}`
	req, err := http.NewRequest(http.MethodPost, base+"/v1/messages/batches", strings.NewReader(body))
	if err != nil {
		return "", err
	}
	req.Header.Set("X-Api-Key", key)
	req.Header.Set("Anthropic-Version", "2023-06-01")
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	var batch struct{ ID string }
	if err := json.NewDecoder(resp.Body).Decode(&batch); err != nil || resp.StatusCode != http.StatusOK {
		return "", fmt.Errorf("POST /v1/messages/batches: %d %v", resp.StatusCode, err)
	}
	adv, err := http.Post(base+"/_fake/clock/advance", "application/json", bytes.NewReader([]byte(`{"seconds":60}`)))
	if err != nil {
		return "", err
	}
	adv.Body.Close()
	return batch.ID, nil
}

// reportExamples prints one line an example and returns how many failed.
func reportExamples(title string, results []exampleResult) int {
	fmt.Printf("\n== %s\n", title)
	sort.Slice(results, func(i, j int) bool { return results[i].file < results[j].file })
	failed := 0
	for _, r := range results {
		if r.ok {
			fmt.Printf("  ok      %-45s %v\n", r.file, r.took.Round(100*time.Millisecond))
			continue
		}
		failed++
		fmt.Printf("  FAILED  %-45s %s\n", r.file, r.problem)
	}
	fmt.Printf("%d of %d examples ran as written; %d failed\n", len(results)-failed, len(results), failed)
	return failed
}
