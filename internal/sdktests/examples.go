package main

import (
	"bytes"
	"context"
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
	// claimed: the example serves one work item that something upstream claimed, as
	// `ant beta:worker poll --on-work` hands one to its script; claimedItem claims it first,
	// and servedSession checks afterwards, through the API, that the session was served.
	claimed bool
	// workdir: a fixed folder the example works in, as written; made where it is missing (and
	// removed afterwards), and the example is skipped, saying why, where it cannot be made.
	workdir string
	// want: lines the example's output must have; {workdir} is ANTHROPIC_WORKDIR's folder.
	want []string
	// stubs: bodies of POST /_fake/messages/stubs, registered before the example runs.
	stubs []string
}

// fixtureSelfHosted is the default data set's self-hosted environment, with its environment key.
const (
	fixtureSelfHosted = "env_01AcmePrimary000000000001"
	fixtureEnvKey     = "test-environment-key"
)

// pyExamples are the examples that need nothing outside this machine. Left out: azure.py,
// bedrock.py, vertex.py and google_cloud.py (other clouds' endpoints and credentials) and
// mcp_tool_runner.py (the mcp package and an MCP server).
//
// The first three wait a minute of real time each, as written, so they start first and the
// others run beside them. The self-hosted worker examples run the SDK's EnvironmentWorker until
// something stops it: managed-agents-self-hosted-sandbox-worker.py bounds worker.run() with a
// 60 s wait_for, and managed-agents-worker-dispatch.py's handle_item() returns once the session
// has been idle for the worker's max_idle (60 s). The data set queues three items in its
// self-hosted environment ahead of the example's own, each of a session archived before a worker
// took it: the sandbox worker polls them first, finds each session terminated and stops its item
// with nothing to run; claimedItem passes them by.
var pyExamples = []pyExample{
	// Runs the session's tools itself, and stops once the session has been idle a minute.
	{file: "managed-agents-observe-tool-calls.py", env: []string{"ANTHROPIC_ENVIRONMENT_ID=" + fixtureSelfHosted}},
	// Makes its agent and session, and serves them with worker.run() in ANTHROPIC_WORKDIR. The
	// agent's default script would call bash alone: a stub has it call both tools its message
	// asks for, the example's custom current_time and bash's pwd.
	{file: "managed-agents-self-hosted-sandbox-worker.py", env: []string{"ANTHROPIC_ENVIRONMENT_ID=" + fixtureSelfHosted},
		stubs: []string{`{"match":{"user_text_contains":"What is the current time?"},"replies":[{"content":[` +
			`{"type":"tool_use","id":"toolu_time","name":"current_time","input":{}},` +
			`{"type":"tool_use","id":"toolu_pwd","name":"bash","input":{"command":"pwd"}}]}]}`},
		want: []string{"agent.custom_tool_use", "agent.tool_use: name=bash input={'command': 'pwd'}",
			"user.custom_tool_result: ", "user.tool_result: {workdir}", "agent.message: The tool returned: "}},
	{file: "managed-agents-worker-dispatch.py", claimed: true, workdir: "/workspace", want: []string{"work item complete"}},
	{file: "messages.py"}, {file: "messages_stream.py"}, {file: "images.py"}, {file: "fallbacks.py"},
	{file: "thinking.py"}, {file: "thinking_stream.py"}, {file: "tools.py"}, {file: "tools_stream.py"},
	{file: "tools_runner.py"}, {file: "tools_runner_deferred_streaming.py"}, {file: "tools_runner_search_tool.py"},
	{file: "structured_outputs.py"}, {file: "structured_outputs_streaming.py"}, {file: "web_search.py"},
	{file: "web_search_stream.py"}, {file: "message_threads.py"}, {file: "workload_identity.py"},
	{file: "memory/basic.py"}, {file: "batch_results.py", batch: true},
	{file: "agents.py"}, {file: "agents_with_files.py"}, {file: "managed-agents-streaming-deltas-manual.py"},
	// The fake clones no repository and calls no MCP server: any token will do.
	{file: "agents_comprehensive.py", env: []string{"GITHUB_TOKEN=unused-by-the-fake"}},
}

// exampleResult is how one example ended.
type exampleResult struct {
	file    string
	ok      bool
	took    time.Duration
	problem string
	skipped string // why it did not run, where it cannot here
	output  string
}

// runExamples runs every example whose file name contains only (all, when it is empty), four
// at a time in the list's order, each against a fake of its own started with fixtures, and
// returns how each ended.
// With only, each example's output is printed too.
func runExamples(src, python, fakeBin, fixtures, key, only string) []exampleResult {
	var chosen []pyExample
	for _, ex := range pyExamples {
		if strings.Contains(ex.file, only) {
			chosen = append(chosen, ex)
		}
	}
	out := make([]exampleResult, len(chosen))
	sem := make(chan struct{}, 4)
	var wg sync.WaitGroup
	for i, ex := range chosen {
		sem <- struct{}{}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			out[i] = runExample(src, python, fakeBin, fixtures, key, ex)
			if only != "" {
				fmt.Printf("\n== %s's output\n%s", ex.file, out[i].output)
			}
		}()
	}
	wg.Wait()
	return out
}

func runExample(src, python, fakeBin, fixtures, key string, ex pyExample) exampleResult {
	r := exampleResult{file: ex.file}
	if ex.workdir != "" {
		made, err := prepareWorkdir(ex.workdir)
		if err != nil {
			r.skipped = err.Error()
			return r
		}
		if made {
			defer os.RemoveAll(ex.workdir)
		}
	}
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
	for _, stub := range ex.stubs {
		if err := (fakeAPI{base: base}).do(http.MethodPost, "/_fake/messages/stubs", stub, nil); err != nil {
			r.problem = "registering its stub: " + err.Error()
			return r
		}
	}
	var claimedEnv []string
	var item []byte
	var session string
	if ex.claimed {
		if claimedEnv, item, session, err = claimedItem(base, key); err != nil {
			r.problem = "claiming its work item: " + err.Error()
			return r
		}
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
	cmd.Env = append(os.Environ(), append(append([]string{"ANTHROPIC_BASE_URL=" + base, "ANTHROPIC_API_KEY=" + key,
		"ANTHROPIC_ENVIRONMENT_KEY=" + fixtureEnvKey, "ANTHROPIC_WORKDIR=" + work}, ex.env...), claimedEnv...)...)
	if item != nil {
		cmd.Stdin = bytes.NewReader(item)
	}
	start := time.Now()
	output, err := cmd.CombinedOutput()
	r.took, r.output = time.Since(start), string(output)
	if err != nil {
		r.problem = fmt.Sprintf("%v: %s", err, lastLines(string(output), 6))
		return r
	}
	for _, w := range ex.want {
		if w = strings.ReplaceAll(w, "{workdir}", work); !hasLine(string(output), w) {
			r.problem = fmt.Sprintf("no line %q in its output: %s", w, lastLines(string(output), 6))
			return r
		}
	}
	if ex.claimed {
		if err := servedSession(base, key, session, ex.workdir); err != nil {
			r.problem = err.Error()
			return r
		}
	}
	r.ok = true
	return r
}

// hasLine reports whether a line of out starts with prefix.
func hasLine(out, prefix string) bool {
	for line := range strings.Lines(out) {
		if strings.HasPrefix(line, prefix) {
			return true
		}
	}
	return false
}

// endedBatch makes a message batch of two requests, one the Messages rules refuse, and moves
// the fake's clock past its end; it returns the batch's ID.
func endedBatch(base, key string) (string, error) {
	body := `{"requests":[{"custom_id":"hello","params":{"model":"claude-sonnet-4-5","max_tokens":64,"messages":[{"role":"user","content":"Hello"}]}},` +
		`{"custom_id":"refused","params":{"model":"claude-sonnet-4-5","max_tokens":64,"messages":[]}}]}`
	var batch struct{ ID string }
	if err := (fakeAPI{base: base, key: key}).do(http.MethodPost, "/v1/messages/batches", body, &batch); err != nil {
		return "", err
	}
	if err := (fakeAPI{base: base}).do(http.MethodPost, "/_fake/clock/advance", `{"seconds":60}`, nil); err != nil {
		return "", err
	}
	return batch.ID, nil
}

// reportExamples prints one line an example and returns how many failed.
func reportExamples(title string, results []exampleResult) int {
	fmt.Printf("\n== %s\n", title)
	sort.Slice(results, func(i, j int) bool { return results[i].file < results[j].file })
	failed, skipped := 0, 0
	for _, r := range results {
		if r.skipped != "" {
			skipped++
			fmt.Printf("  skipped %-45s %s\n", r.file, r.skipped)
			continue
		}
		if r.ok {
			fmt.Printf("  ok      %-45s %v\n", r.file, r.took.Round(100*time.Millisecond))
			continue
		}
		failed++
		fmt.Printf("  FAILED  %-45s %s\n", r.file, r.problem)
	}
	fmt.Printf("%d of %d examples ran as written; %d failed, %d skipped\n", len(results)-failed-skipped, len(results), failed, skipped)
	return failed
}
