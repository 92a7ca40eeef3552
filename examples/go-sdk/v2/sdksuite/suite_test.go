// Package sdksuite runs Go SDK v2's own generated test suite against the fake's binary: the
// tests the SDK's generator writes for every operation (one with every optional parameter, one
// with the required ones), which ship in the module zip and read the server's URL from
// TEST_API_BASE_URL. The SDK's headers are untouched: what the fake sees is what v2 sends.
package sdksuite

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/platformkit/platformkit/internal/refusal"
)

// sdkModule is the module whose suite runs: the version go.mod of this module requires.
const sdkModule = "github.com/anthropics/anthropic-sdk-go/v2"

// suiteKey is the key every generated test sends (option.WithAPIKey("my-anthropic-api-key")),
// as Authorization: Bearer, for the API and the administration routes alike.
const suiteKey = "my-anthropic-api-key"

// keyRuns are the suite's runs: one key cannot be both an API key and an admin key in the
// fake, so the suite runs once with suiteKey as the first organization's API key and once as
// its admin key (which the tunnels interface takes too). A test passes when it passes in one
// run; a test that fails in both is judged by the run that did not refuse the key, if any.
var keyRuns = []struct{ kind, replaces string }{
	{"api_key", "test-api-key"},
	{"admin_key", "test-admin-key"},
}

// unserved are the routes the SDK has and the fake does not serve at all, by the pattern of
// their path, each with the reason. A test answered "no route" on a path that none matches is a
// route the fake is meant to serve: the test fails.
var unserved = []struct{ pattern, reason string }{
	{`^/v1/skills`, "Skills are not part of the Platform API the fake implements"},
	{`^/v1/agents`, "Managed Agents definitions are not served: the fake serves environments, their work queue and memory stores"},
	{`^/v1/sessions`, "agent sessions are not served, as agents are not"},
	{`^/v1/deployments`, "agent deployments are not served, as agents are not"},
	{`^/v1/deployment_runs`, "agent deployment runs are not served, as agents are not"},
	{`^/v1/dreams`, "not part of the Platform API the fake implements"},
	{`^/v1/vaults`, "credential vaults are not part of the Platform API the fake implements"},
	{`^/v1/user_profiles`, "user profiles are not part of the Platform API the fake implements (a user_profile_id on a workspace or a request is taken as given)"},
	{`^/v1/webhooks`, "webhooks are not part of the Platform API the fake implements"},
	{`^/v1/compliance/review/`, "compliance review cases are new in v2.15.0 and not in the Platform API; the fake serves /v1/compliance/apps/..., which the SDK has no methods for"},
	{`^/v1/organizations/(api_keys|service_accounts|rbac_groups|rbac_roles|federation_issuers|federation_rules|external_keys|external_storage|spend_limits?|spend_limit_increase_requests|telemetry_destinations|webhooks|plugins|plugin_marketplaces|compliance_settings|claude_code|claude_tag|analytics|usage_report|cost_report|providers)(/|$)`,
		"an administration resource the Platform API reference does not describe: the fake serves the organization, invites, users, workspaces and rate limits"},
	{`^/v1/organizations/workspaces/[^/]+/(members|service_accounts)(/|$)`, "workspace members and service accounts are not in the Platform API reference"},
}

// Classes of a failed test, read from its output.
const (
	classVersion  = "refused for its API version"
	classKey      = "refused for its key"
	classField    = "refused for an unknown field"
	classRoute    = "no route, on a route the fake is meant to serve"
	classUnserved = "no route, on a route the fake does not serve (listed)"
	classAbsent   = "404 for a placeholder ID of an absent resource"
	classOther    = "another answer (e.g. a placeholder value the fake validates)"
)

// failing are the classes that fail this test.
var failing = []string{classVersion, classKey, classField, classRoute}

// TestOwnSuite compiles the SDK's test binary from the module cache, starts the fake's binary
// twice (keyRuns), runs the generated tests against each, and classifies every test that failed
// in both runs by the fake's answer.
func TestOwnSuite(t *testing.T) {
	if testing.Short() {
		t.Skip("SKIPPED in -short: it compiles and runs Go SDK v2's own suite")
	}
	start := time.Now()
	dir, version := moduleDir(t), moduleVersion(t)
	tmp := t.TempDir()
	suiteBin := filepath.Join(tmp, "sdk.test")
	// The SDK's own module builds its tests: no -modfile of this module (make sdk-drift sets one
	// in GOFLAGS) applies there.
	t.Setenv("GOFLAGS", strings.TrimSpace(regexp.MustCompile(`-modfile=\S+`).ReplaceAllString(os.Getenv("GOFLAGS"), "")))
	run(t, dir, "go", "test", "-c", "-o", suiteBin, ".")
	fakeBin := filepath.Join(tmp, "platformfake")
	run(t, ".", "go", "build", "-o", fakeBin, "github.com/platformkit/platformkit/fake/cmd/platformfake")
	tests := generatedTests(t, dir)
	built := time.Since(start)

	results := map[string][]string{} // test -> its output in each run that failed it
	passed := map[string]bool{}
	for _, kr := range keyRuns {
		fixtures := fixturesWithKey(t, kr.replaces)
		base, stop := startFake(t, fakeBin, fixtures)
		out := runSuite(t, suiteBin, dir, base, tests)
		stop()
		for name, r := range out {
			if r.passed {
				passed[name] = true
			} else {
				results[name] = append(results[name], r.output)
			}
		}
	}

	byClass := map[string][]string{}
	for _, name := range tests {
		if passed[name] {
			continue
		}
		outs, ran := results[name]
		if !ran {
			byClass[classOther] = append(byClass[classOther], name+": did not run")
			continue
		}
		class, detail := classify(outs)
		if class == classUnserved { // one line per route pattern, with its reason
			byClass[class] = append(byClass[class], detail)
			continue
		}
		byClass[class] = append(byClass[class], name+": "+detail)
	}
	t.Logf("Go SDK v2 %s: %d generated tests, %d passed; built in %s, all in %s", version, len(tests), len(passed), built.Round(time.Second), time.Since(start).Round(time.Second))
	classes := slices.Sorted(func(yield func(string) bool) {
		for c := range byClass {
			if !yield(c) {
				return
			}
		}
	})
	for _, c := range classes {
		lines := byClass[c]
		sort.Strings(lines)
		n := len(lines)
		if c == classUnserved {
			lines = countDuplicates(lines)
		}
		report := t.Logf
		if slices.Contains(failing, c) {
			report = t.Errorf
		}
		report("%d tests %s:\n  %s", n, c, strings.Join(lines, "\n  "))
	}
}

// classify reads the outputs of a test that failed in every run, the one whose answer did not
// refuse the key first, and names the class and the fake's answer.
func classify(outs []string) (class, detail string) {
	sort.SliceStable(outs, func(i, j int) bool { return !keyRefused(outs[i]) && keyRefused(outs[j]) })
	answers := refusal.Find(outs[0])
	if len(answers) == 0 {
		return classOther, lastLines(outs[0], 3)
	}
	// A failing class's detail is the answer as the SDK printed it, which make sdk-drift reads
	// back; an allowed one's is not, so that it is not counted as a refusal there.
	a := answers[0]
	allowed := fmt.Sprintf("%s: %d %s", a.Request, a.Status, a.Message)
	switch a.Class() {
	case refusal.Version:
		return classVersion, a.String()
	case refusal.Key:
		return classKey, a.String()
	case refusal.Field:
		return classField, a.String()
	case refusal.Route:
		for _, u := range unserved {
			if regexp.MustCompile(u.pattern).MatchString(a.Path()) {
				return classUnserved, u.pattern + " (" + u.reason + ")"
			}
		}
		return classRoute, a.String()
	case refusal.Absent:
		return classAbsent, allowed
	}
	return classOther, allowed
}

// keyRefused reports whether the first answer in out refused the key.
func keyRefused(out string) bool {
	answers := refusal.Find(out)
	return len(answers) > 0 && answers[0].Class() == refusal.Key
}

// countDuplicates turns runs of equal sorted lines into one line with their count.
func countDuplicates(sorted []string) []string {
	var out []string
	for i := 0; i < len(sorted); {
		j := i
		for j < len(sorted) && sorted[j] == sorted[i] {
			j++
		}
		out = append(out, fmt.Sprintf("%d× %s", j-i, sorted[i]))
		i = j
	}
	return out
}

func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return strings.TrimSpace(strings.Join(lines[max(0, len(lines)-n):], " | "))
}

// moduleDir downloads the SDK module (the version this module requires) and returns its
// directory in the module cache, where its *_test.go files are.
func moduleDir(t *testing.T) string {
	var m struct{ Dir, Error string }
	out := run(t, ".", "go", "mod", "download", "-json", sdkModule)
	if err := json.Unmarshal(out, &m); err != nil || m.Dir == "" {
		t.Fatalf("go mod download %s: %v %s\n%s", sdkModule, err, m.Error, out)
	}
	return m.Dir
}

func moduleVersion(t *testing.T) string {
	return strings.TrimSpace(string(run(t, ".", "go", "list", "-m", "-f", "{{.Version}}", sdkModule)))
}

// generatedTests lists the SDK's tests that talk to the server at TEST_API_BASE_URL: the
// generated ones. The SDK's other tests (its helpers, against mock servers of their own) do not
// exercise the fake.
func generatedTests(t *testing.T, dir string) []string {
	files, err := filepath.Glob(filepath.Join(dir, "*_test.go"))
	if err != nil {
		t.Fatal(err)
	}
	var tests []string
	fset := token.NewFileSet()
	for _, f := range files {
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Contains(src, []byte("TEST_API_BASE_URL")) {
			continue
		}
		file, err := parser.ParseFile(fset, f, src, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range file.Decls {
			fn, ok := d.(*ast.FuncDecl)
			if !ok || fn.Recv != nil || !strings.HasPrefix(fn.Name.Name, "Test") {
				continue
			}
			if bytes.Contains(src[fset.Position(fn.Body.Pos()).Offset:fset.Position(fn.Body.End()).Offset], []byte("TEST_API_BASE_URL")) {
				tests = append(tests, fn.Name.Name)
			}
		}
	}
	if len(tests) == 0 {
		t.Fatalf("no test of %s reads TEST_API_BASE_URL: the suite's layout changed", dir)
	}
	sort.Strings(tests)
	return tests
}

// fixturesWithKey copies the repository's fixtures with suiteKey in place of the first
// organization's credential secret replaces.
func fixturesWithKey(t *testing.T, replaces string) string {
	src := filepath.Join("..", "..", "..", "..", "fixtures")
	dst := t.TempDir()
	files, err := filepath.Glob(filepath.Join(src, "*.json"))
	if err != nil || len(files) == 0 {
		t.Fatalf("fixtures in %s: %v", src, err)
	}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if filepath.Base(f) == "organizations.json" {
			old := []byte(`"secret": "` + replaces + `"`)
			if bytes.Count(data, old) != 1 {
				t.Fatalf("organizations.json: %s appears %d times, want once", old, bytes.Count(data, old))
			}
			data = bytes.Replace(data, old, []byte(`"secret": "`+suiteKey+`"`), 1)
		}
		if err := os.WriteFile(filepath.Join(dst, filepath.Base(f)), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dst
}

// startFake starts the binary on a free port and returns its URL and a function that stops
// it. The suite makes a client, with connections of its own, per test: more than the binary's
// default -max-conns stay open, so it gets a higher bound.
func startFake(t *testing.T, bin, fixtures string) (string, func()) {
	cmd := exec.Command(bin, "-quiet", "-addr", "127.0.0.1:0", "-fixtures", fixtures, "-max-conns", "8192")
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	line, err := bufio.NewReader(stdout).ReadString('\n')
	url, found := strings.CutPrefix(strings.TrimSpace(line), "listening on ")
	if err != nil || !found {
		_ = cmd.Process.Kill()
		t.Fatalf("the fake's first line: %q, %v", line, err)
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
	}
}

type testResult struct {
	passed bool
	output string
}

// runSuite runs the generated tests of the compiled suite against base, in the module's
// directory (its tests read testdata there), through test2json, and returns each test's result.
func runSuite(t *testing.T, bin, dir, base string, tests []string) map[string]testResult {
	cmd := exec.Command("go", "tool", "test2json", bin, "-test.v=test2json", "-test.count=1", "-test.timeout=10m",
		"-test.run", "^("+strings.Join(tests, "|")+")$")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "TEST_API_BASE_URL="+base)
	out, err := cmd.Output()
	if err != nil && len(out) == 0 {
		t.Fatalf("running the suite: %v", err)
	}
	outputs := map[string]*strings.Builder{}
	results := map[string]testResult{}
	for _, line := range bytes.Split(out, []byte("\n")) {
		var ev struct{ Action, Test, Output string }
		if json.Unmarshal(line, &ev) != nil || ev.Test == "" {
			continue
		}
		top, _, _ := strings.Cut(ev.Test, "/")
		if outputs[top] == nil {
			outputs[top] = &strings.Builder{}
		}
		switch ev.Action {
		case "output":
			outputs[top].WriteString(ev.Output)
		case "pass", "skip", "fail":
			if ev.Test == top {
				results[top] = testResult{passed: ev.Action != "fail", output: outputs[top].String()}
			}
		}
	}
	if len(results) == 0 {
		t.Fatalf("the suite reported no test: %v\n%s", err, lastLines(string(out), 20))
	}
	return results
}

// run runs a command in dir and returns its standard output; it fails the test with the
// command's output if it fails.
func run(t *testing.T, dir, name string, args ...string) []byte {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%s %s (in %s): %v\n%s%s", name, strings.Join(args, " "), dir, err, out, stderr.Bytes())
	}
	return out
}
