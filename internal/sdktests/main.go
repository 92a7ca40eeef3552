// Command sdktests (make sdk-tests) runs the official SDKs' own generated tests, unmodified,
// against the fake's binary, and classifies every test that fails:
//
//	(a) not served: "no route" on a route family the fake does not implement (refusal.Unserved), once
//	    per family;
//	(b) placeholder: the fake refused a placeholder the generator wrote, as it should: an ID that
//	    names no record (404), or a value a listed rule refuses (placeholders);
//	(c) drift: anything else, e.g. an answer the SDK's strict validation rejects, a refused
//	    version, key or field, or a 400 no rule explains. It must be zero.
//
// The suites: the Python SDK's tests/api_resources from its PyPI sdist (pinned releases, each
// with its own virtual environment of pinned packages, kept in the user's cache), with pytest,
// strict and loose clients; and Go SDK v2's generated *_test.go files from its module zip,
// through examples/go-sdk/v2/sdksuite (the version that module pins). Every test reads the
// server's URL from TEST_API_BASE_URL and sends the key "my-anthropic-api-key", which the fake
// takes as an API key in one run and as an admin key in another (one key cannot be both): a
// test passes when it passes in either run.
//
// Families other work owns (agents, sessions, vaults, skills, batches) are listed apart; their
// drift does not fail the run. It exits 1 when some other test drifted.
//
//	go run ./internal/sdktests                   # Python 2.14.0 and Go SDK v2
//	go run ./internal/sdktests -python 1.17.0 -go=false
//	go run ./internal/sdktests -python '' -go=false -example worker   # two examples, with their output
package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/platformkit/platformkit/internal/refusal"
)

// suiteKey is the key every generated test sends, in both SDKs.
const suiteKey = "my-anthropic-api-key"

// keyRuns are the secrets of the first organization that suiteKey replaces, one run each.
var keyRuns = []string{"test-api-key", "test-admin-key"}

// testResult is one generated test's result over the key runs.
type testResult struct {
	test, file string
	runs       int
	passed     bool
	answers    [][]refusal.Answer // per run that failed it, the fake's error answers in order
	texts      []string           // per run that failed it, what the test said
}

func main() {
	pyVersions := flag.String("python", "2.14.0", "the Python SDK releases to run, comma-separated (each needs examples/python-sdk/sdk-tests/requirements-<version>.txt); empty: none")
	async := flag.Bool("async", false, "run the Python suite's Async classes too (the same requests through AsyncAnthropic, over httpx; their aiohttp variants need an extra the pinned runtime leaves out)")
	goV2 := flag.Bool("go", true, "run Go SDK v2's generated suite (examples/go-sdk/v2/sdksuite)")
	examples := flag.String("examples", "2.14.0", "the Python SDK release whose own examples (its sdist's examples/) to run as written; empty: none")
	only := flag.String("example", "", "run only the examples whose file name contains this, and print their output")
	fakeBin := flag.String("fake", "bin/platformfake", "the fake's binary")
	flag.Parse()
	start := time.Now()
	cache, err := os.UserCacheDir()
	if err != nil {
		cache = os.TempDir()
	}
	cache = filepath.Join(cache, "platformkit", "sdk-tests")

	drifted := 0
	for _, v := range strings.Split(*pyVersions, ",") {
		if v = strings.TrimSpace(v); v == "" {
			continue
		}
		suite := pythonSuite{version: v, async: *async}
		results, err := runPython(suite, cache, *fakeBin)
		if err != nil {
			fatal("python %s: %v", v, err)
		}
		scope := "tests/api_resources, the sync classes, strict and loose clients"
		if *async {
			scope = "tests/api_resources, sync and async (httpx) classes, strict and loose clients"
		}
		drifted += report(fmt.Sprintf("Python SDK anthropic %s (%s)", v, scope), results)
	}
	if v := strings.TrimSpace(*examples); v != "" {
		src, python, err := pythonSuite{version: v}.prepare(cache)
		if err != nil {
			fatal("python %s: %v", v, err)
		}
		fixtures, err := fixturesWithKey(keyRuns[0])
		if err != nil {
			fatal("examples: %v", err)
		}
		step("python %s: the SDK's own examples, as written, each against a fake of its own", v)
		drifted += reportExamples(fmt.Sprintf("Python SDK anthropic %s: its own examples, as written", v), runExamples(src, python, *fakeBin, fixtures, suiteKey, *only))
		os.RemoveAll(fixtures)
	}
	if *goV2 {
		results, version, err := runGo()
		if err != nil {
			fatal("go v2: %v", err)
		}
		drifted += report("Go SDK "+version+" (its generated *_test.go files)", results)
	}
	fmt.Printf("\nsdk-tests: %s in all; %d tests drifted or examples failed\n", time.Since(start).Round(time.Second), drifted)
	if drifted > 0 {
		os.Exit(1)
	}
}

func runPython(suite pythonSuite, cache, fakeBin string) (map[string]*testResult, error) {
	src, python, err := suite.prepare(cache)
	if err != nil {
		return nil, err
	}
	var bases []string
	for _, replaces := range keyRuns {
		fixtures, err := fixturesWithKey(replaces)
		if err != nil {
			return nil, err
		}
		defer os.RemoveAll(fixtures)
		base, stop, err := startFake(fakeBin, fixtures)
		if err != nil {
			return nil, err
		}
		defer stop()
		bases = append(bases, base)
	}
	step("python %s: pytest against the fake, one run per key", suite.version)
	return suite.run(src, python, bases)
}

// runGo runs examples/go-sdk/v2/sdksuite, which builds and starts the fake itself, and reads the
// results it writes.
func runGo() (map[string]*testResult, string, error) {
	out, err := os.CreateTemp("", "sdksuite-*.json")
	if err != nil {
		return nil, "", err
	}
	out.Close()
	defer os.Remove(out.Name())
	step("go v2: examples/go-sdk/v2/sdksuite (the SDK's module zip, from the Go module proxy)")
	log, err := command(filepath.Join("examples", "go-sdk", "v2"), []string{"SDKSUITE_RESULTS=" + out.Name()},
		"go", "test", "-count=1", "-run", "^TestOwnSuite$", "./sdksuite")
	data, rerr := os.ReadFile(out.Name())
	if rerr != nil || len(data) == 0 {
		return nil, "", fmt.Errorf("no results (%v, %v):\n%s", err, rerr, lastLines(string(log), 30))
	}
	var doc struct {
		SDK     string `json:"sdk"`
		Results []struct {
			Test    string   `json:"test"`
			File    string   `json:"file"`
			Passed  bool     `json:"passed"`
			Outputs []string `json:"outputs"`
		} `json:"results"`
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		return nil, "", err
	}
	results := map[string]*testResult{}
	for _, r := range doc.Results {
		tr := &testResult{test: r.Test, file: r.File, passed: r.Passed, runs: len(keyRuns)}
		for _, o := range r.Outputs {
			tr.answers = append(tr.answers, refusal.Find(o))
			tr.texts = append(tr.texts, lastLines(o, 3))
		}
		results[r.Test] = tr
	}
	return results, strings.TrimPrefix(doc.SDK, "github.com/anthropics/anthropic-sdk-go/"), nil
}

// fileCount is one test file's counts.
type fileCount struct{ tests, passed, a, b, c int }

// report prints one suite's summary and returns how many tests drifted.
func report(title string, results map[string]*testResult) int {
	files := map[string]*fileCount{}
	families := map[string]int{} // (a): family -> tests
	rules := map[string]int{}    // (b): rule -> tests
	var drift []string           // (c) lines
	names := make([]string, 0, len(results))
	for n := range results {
		names = append(names, n)
	}
	sort.Strings(names)
	passed := 0
	for _, n := range names {
		r := results[n]
		fc := files[r.file]
		if fc == nil {
			fc = &fileCount{}
			files[r.file] = fc
		}
		fc.tests++
		if r.passed {
			fc.passed++
			passed++
			continue
		}
		v := classify(r.answers, r.texts)
		switch v.cat {
		case catNotServed:
			fc.a++
			families[v.group]++
		case catPlaceholder:
			fc.b++
			rules[v.group]++
		case catDrift:
			fc.c++
			drift = append(drift, fmt.Sprintf("%s %s: %s", r.file, short(r.test), v.detail))
		}
	}
	a, b := sum(families), sum(rules)
	fmt.Printf("\n== %s: %d tests, %d passed, (a) %d not served in %d families, (b) %d placeholders, (c) %d drift\n",
		title, len(results), passed, a, len(families), b, len(drift))
	fmt.Printf("%-60s %6s %6s %5s %5s %5s\n", "test file", "tests", "passed", "(a)", "(b)", "(c)")
	fileNames := make([]string, 0, len(files))
	for f := range files {
		fileNames = append(fileNames, f)
	}
	sort.Strings(fileNames)
	for _, f := range fileNames {
		fc := files[f]
		fmt.Printf("%-60s %6d %6d %5d %5d %5d\n", f, fc.tests, fc.passed, fc.a, fc.b, fc.c)
	}
	fmt.Println("(a) not served, once per family:")
	printCounts(families)
	fmt.Println("(b) placeholders the fake refused as it should, by rule:")
	printCounts(rules)
	fmt.Printf("(c) drift (%d):\n", len(drift))
	for _, l := range drift {
		fmt.Println("  " + l)
	}
	return len(drift)
}

func printCounts(m map[string]int) {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool { return m[keys[i]] > m[keys[j]] || m[keys[i]] == m[keys[j]] && keys[i] < keys[j] })
	for _, k := range keys {
		fmt.Printf("  %5d  %s\n", m[k], k)
	}
}

func sum(m map[string]int) int {
	n := 0
	for _, v := range m {
		n += v
	}
	return n
}

// short is a test's name without its Python module path.
func short(test string) string {
	if i := strings.LastIndex(test, "."); i >= 0 && strings.Contains(test, "::") {
		return test[i+1:]
	}
	return test
}

// fixturesWithKey copies the repository's fixtures with suiteKey in place of the first
// organization's credential secret replaces, and returns the copy's directory.
func fixturesWithKey(replaces string) (string, error) {
	files, err := filepath.Glob(filepath.Join("fixtures", "*.json"))
	if err != nil || len(files) == 0 {
		return "", fmt.Errorf("no fixtures in ./fixtures (run from the repository's root): %v", err)
	}
	dst, err := os.MkdirTemp("", "sdktests-fixtures-")
	if err != nil {
		return "", err
	}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			return "", err
		}
		if filepath.Base(f) == "organizations.json" {
			old := []byte(`"secret": "` + replaces + `"`)
			if n := bytes.Count(data, old); n != 1 {
				return "", fmt.Errorf("organizations.json: %s appears %d times, want once", old, n)
			}
			data = bytes.Replace(data, old, []byte(`"secret": "`+suiteKey+`"`), 1)
		}
		if err := os.WriteFile(filepath.Join(dst, filepath.Base(f)), data, 0o644); err != nil {
			return "", err
		}
	}
	return dst, nil
}

// startFake starts the binary on a free port with the fixtures and returns its URL and a
// function that stops it. The suites open many connections: a higher -max-conns.
func startFake(bin, fixtures string) (string, func(), error) {
	cmd := exec.Command(bin, "-quiet", "-addr", "127.0.0.1:0", "-fixtures", fixtures, "-max-conns", "8192")
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return "", nil, err
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		return "", nil, fmt.Errorf("%s: %w (make sdk-tests builds it)", bin, err)
	}
	line, err := bufio.NewReader(stdout).ReadString('\n')
	url, found := strings.CutPrefix(strings.TrimSpace(line), "listening on ")
	if err != nil || !found {
		_ = cmd.Process.Kill()
		return "", nil, fmt.Errorf("the fake's first line: %q, %v", line, err)
	}
	go func() { _, _ = io.Copy(io.Discard, stdout) }()
	return url, func() {
		_ = cmd.Process.Signal(os.Interrupt)
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			_ = cmd.Process.Kill()
			<-done
		}
	}, nil
}

// command runs name in dir with env added and returns its combined output; a failure says the
// command and its output's end.
func command(dir string, env []string, name string, args ...string) ([]byte, error) {
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		return out, fmt.Errorf("%s %s: %v\n%s", name, strings.Join(args, " "), err, lastLines(string(out), 20))
	}
	return out, nil
}

func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return strings.TrimSpace(strings.Join(lines[max(0, len(lines)-n):], " | "))
}

func step(format string, args ...any) {
	fmt.Printf("sdk-tests: "+format+"\n", args...)
}

func fatal(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "sdk-tests: "+format+"\n", args...)
	os.Exit(2)
}
