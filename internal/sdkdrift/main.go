// Command sdkdrift (make sdk-drift) runs the proofs of the official SDKs against the newest
// release each registry publishes, not the releases the repository pins, and reports per SDK
// what the fake refused (the API version, the key, a beta, a field, a route) or could not answer
// (a field the SDK requires, missing from an answer). The committed pins are left as they are:
// each SDK's newest release is installed into a copy (a temporary go.mod, a temporary npm
// project). It needs the registries, so make test does not run it; it exits 1 when a proof
// fails with the newest release, so that a scheduled job can say so the week a release ships.
//
//	go run ./internal/sdkdrift            # every SDK
//	go run ./internal/sdkdrift -sdk go-v2 # one
//
// To add an SDK (PyPI's anthropic, Maven's anthropic-java), add an entry to sdks: how to ask its
// registry for the newest version, and how to run its proof with that version in a scratch copy,
// returning the proof's whole output; the report reads the refusals from it.
package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"time"

	"github.com/platformkit/platformkit/internal/refusal"
)

// sdk is an official SDK whose proof runs against its newest release.
type sdk struct {
	id, name string
	registry string
	// pinned is the release the repository's proof pins.
	pinned func() (string, error)
	// latest asks the registry for the newest release.
	latest func() (string, error)
	// prove runs the proof with release version, in scratch (a directory of its own), and
	// returns its output; err is the proof's failure.
	prove func(version, scratch string) (out []byte, err error)
}

var sdks = []sdk{
	{
		id: "go-v1", name: "Go SDK v1 (github.com/anthropics/anthropic-sdk-go)", registry: "the Go module proxy",
		pinned: func() (string, error) {
			return goModRequire("examples/go-sdk/go.newest.mod", "github.com/anthropics/anthropic-sdk-go")
		},
		latest: func() (string, error) { return goLatest("github.com/anthropics/anthropic-sdk-go") },
		prove: func(version, scratch string) ([]byte, error) {
			return goProve("examples/go-sdk", "go.newest.mod", "github.com/anthropics/anthropic-sdk-go", version, scratch, "-tags", "sdknewest")
		},
	},
	{
		id: "go-v2", name: "Go SDK v2 (github.com/anthropics/anthropic-sdk-go/v2), with its own generated suite", registry: "the Go module proxy",
		pinned: func() (string, error) {
			return goModRequire("examples/go-sdk/v2/go.mod", "github.com/anthropics/anthropic-sdk-go/v2")
		},
		latest: func() (string, error) { return goLatest("github.com/anthropics/anthropic-sdk-go/v2") },
		prove: func(version, scratch string) ([]byte, error) {
			return goProve("examples/go-sdk/v2", "go.mod", "github.com/anthropics/anthropic-sdk-go/v2", version, scratch)
		},
	},
	{
		id: "typescript", name: "TypeScript SDK (@anthropic-ai/sdk)", registry: "npm",
		pinned: func() (string, error) { return npmPinned("examples/typescript-sdk/package.json", "@anthropic-ai/sdk") },
		latest: func() (string, error) {
			out, err := command("", nil, "npm", "view", "@anthropic-ai/sdk", "version")
			return strings.TrimSpace(string(out)), err
		},
		prove: typescriptProve,
	},
}

func main() {
	only := flag.String("sdk", "", "run only this SDK: "+ids())
	flag.Parse()
	if _, err := os.Stat("go.mod"); err != nil {
		fatal("run it from the repository's root (make sdk-drift)")
	}
	failed := 0
	for _, s := range sdks {
		if *only != "" && s.id != *only {
			continue
		}
		if !report(s) {
			failed++
		}
	}
	if failed > 0 {
		fmt.Printf("\nsdk-drift: the proofs of %d SDKs fail with their newest release\n", failed)
		os.Exit(1)
	}
}

// report runs one SDK's proof with its newest release and prints what the fake refused; it
// reports whether the proof passed.
func report(s sdk) bool {
	fmt.Printf("== %s, from %s\n", s.name, s.registry)
	pinned, err := s.pinned()
	if err != nil {
		fmt.Printf("   the pinned release: %v\n", err)
		return false
	}
	latest, err := s.latest()
	if err != nil {
		fmt.Printf("   asking %s for the newest release: %v\n", s.registry, err)
		return false
	}
	same := ""
	if latest == pinned || "v"+latest == pinned {
		same = " (the pinned one)"
	}
	fmt.Printf("   pinned %s, newest %s%s\n", pinned, latest, same)
	scratch, err := os.MkdirTemp("", "sdkdrift-"+s.id+"-")
	if err != nil {
		fatal(err.Error())
	}
	defer os.RemoveAll(scratch)
	start := time.Now()
	out, err := s.prove(latest, scratch)
	took := time.Since(start).Round(time.Second)
	if err == nil {
		fmt.Printf("   proof passed in %s: the fake takes what %s %s sends\n\n", took, s.id, latest)
		return true
	}
	fmt.Printf("   proof FAILED in %s: %v\n", took, err)
	summarize(out)
	fmt.Println()
	return false
}

// summarize prints the fake's refusals found in a proof's output, by class and message with
// their counts, and the answers that missed a field the SDK requires.
func summarize(out []byte) {
	counts := map[string]int{}
	for _, a := range refusal.Find(string(out)) {
		msg := a.Message
		if a.Class() == refusal.Route {
			msg = "no route for " + a.Path()
		}
		counts[fmt.Sprintf("%-7s %d %s", a.Class(), a.Status, msg)]++
	}
	for _, line := range strings.Split(string(out), "\n") {
		if strings.Contains(line, "missing from the answer") || strings.Contains(line, "(missing)") || strings.Contains(line, "could not decode") {
			counts["answer  "+strings.TrimSpace(line)]++
		}
	}
	if len(counts) == 0 {
		fmt.Printf("   no refusal of the fake in the output; its last lines:\n%s\n", indent(lastLines(string(out), 15)))
		return
	}
	lines := make([]string, 0, len(counts))
	for l := range counts {
		lines = append(lines, l)
	}
	sort.Strings(lines)
	fmt.Println("   what the fake refused or could not answer (class, status, message; how often):")
	for _, l := range lines {
		fmt.Printf("     %3d× %s\n", counts[l], l)
	}
}

// goProve runs the Go proof in dir with module at version: a copy of modfile (and its .sum) in
// scratch takes the version, and every go command of the proof reads it (GOFLAGS -modfile), so
// the committed go.mod is not touched.
func goProve(dir, modfile, module, version, scratch string, testFlags ...string) ([]byte, error) {
	mod := filepath.Join(scratch, "drift.mod")
	if err := copyFile(filepath.Join(dir, modfile), mod); err != nil {
		return nil, err
	}
	if err := copyFile(filepath.Join(dir, strings.TrimSuffix(modfile, ".mod")+".sum"), filepath.Join(scratch, "drift.sum")); err != nil {
		return nil, err
	}
	env := []string{"GOFLAGS=-modfile=" + mod}
	if out, err := command(dir, env, "go", "get", module+"@"+version); err != nil {
		return out, fmt.Errorf("go get %s@%s: %w", module, version, err)
	}
	if out, err := command(dir, env, "go", "mod", "tidy"); err != nil {
		return out, fmt.Errorf("go mod tidy: %w", err)
	}
	args := append([]string{"test", "-count=1", "-timeout=20m"}, testFlags...)
	return command(dir, env, "go", append(args, "./...")...)
}

// typescriptProve runs examples/typescript-sdk with the release: a copy of the project in
// scratch, where npm installs it, against a binary of the fake built from this checkout. The
// output must equal the example's testdata/output.txt.
func typescriptProve(version, scratch string) ([]byte, error) {
	src, err := filepath.Abs("examples/typescript-sdk")
	if err != nil {
		return nil, err
	}
	proj := filepath.Join(scratch, "typescript-sdk")
	// Not the lockfile: the newest SDK resolves its own dependencies, as a new user's install does.
	for _, f := range []string{"package.json", "tsconfig.json", "src", "testdata"} {
		if err := copyTree(filepath.Join(src, f), filepath.Join(proj, f)); err != nil {
			return nil, err
		}
	}
	helper, err := filepath.Abs("packaging/npm/fake")
	if err != nil {
		return nil, err
	}
	pkg := filepath.Join(proj, "package.json")
	data, err := os.ReadFile(pkg)
	if err != nil {
		return nil, err
	}
	if err := os.WriteFile(pkg, bytes.ReplaceAll(data, []byte("file:../../packaging/npm/fake"), []byte("file:"+helper)), 0o644); err != nil {
		return nil, err
	}
	if out, err := command(proj, nil, "npm", "install", "--no-audit", "--no-fund", "--save-exact", "@anthropic-ai/sdk@"+version); err != nil {
		return out, fmt.Errorf("npm install @anthropic-ai/sdk@%s: %w", version, err)
	}
	if out, err := command(proj, nil, "npm", "run", "--silent", "build"); err != nil {
		return out, fmt.Errorf("the example does not compile with %s: %w", version, err)
	}
	bin := filepath.Join(scratch, "platformfake")
	if out, err := command("", nil, "go", "build", "-o", bin, "./fake/cmd/platformfake"); err != nil {
		return out, err
	}
	var env []string
	for _, kv := range os.Environ() { // configured by its code alone, as in its test
		if !strings.HasPrefix(kv, "ANTHROPIC_") && !strings.HasPrefix(kv, "BASE_URL=") && !strings.HasPrefix(kv, "PLATFORMFAKE_") {
			env = append(env, kv)
		}
	}
	cmd := exec.Command("node", filepath.Join("dist", "main.js"))
	cmd.Dir, cmd.Env = proj, append(env, "PLATFORMFAKE_BINARY="+bin)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	runErr := cmd.Run()
	out := append(stdout.Bytes(), stderr.Bytes()...)
	if runErr != nil {
		return out, fmt.Errorf("node dist/main.js: %w", runErr)
	}
	want, err := os.ReadFile(filepath.Join(src, "testdata", "output.txt"))
	if err != nil {
		return out, err
	}
	if !bytes.Equal(stdout.Bytes(), want) {
		return out, errors.New("the output differs from examples/typescript-sdk/testdata/output.txt at: " + firstDifference(stdout.String(), string(want)))
	}
	return out, nil
}

// goLatest asks the Go module proxy for the newest release of module.
func goLatest(module string) (string, error) {
	out, err := command("", nil, "go", "list", "-m", "-json", module+"@latest")
	if err != nil {
		return "", fmt.Errorf("%w: %s", err, out)
	}
	var m struct{ Version string }
	if err := json.Unmarshal(out, &m); err != nil {
		return "", err
	}
	return m.Version, nil
}

// goModRequire is the version of module that a go.mod file requires.
func goModRequire(file, module string) (string, error) {
	data, err := os.ReadFile(file)
	if err != nil {
		return "", err
	}
	m := regexp.MustCompile(`(?m)^\s*(?:require\s+)?` + regexp.QuoteMeta(module) + `\s+(v\S+)`).FindSubmatch(data)
	if m == nil {
		return "", fmt.Errorf("%s requires no %s", file, module)
	}
	return string(m[1]), nil
}

// npmPinned is the exact version of pkg a package.json depends on.
func npmPinned(file, pkg string) (string, error) {
	data, err := os.ReadFile(file)
	if err != nil {
		return "", err
	}
	var p struct{ Dependencies map[string]string }
	if err := json.Unmarshal(data, &p); err != nil {
		return "", err
	}
	if v, ok := p.Dependencies[pkg]; ok {
		return v, nil
	}
	return "", fmt.Errorf("%s has no dependency %s", file, pkg)
}

// command runs name in dir (the repository's root when "") with env added, and returns its
// combined output.
func command(dir string, env []string, name string, args ...string) ([]byte, error) {
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	return cmd.CombinedOutput()
}

func copyFile(src, dst string) error {
	data, err := os.ReadFile(src)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return err
	}
	return os.WriteFile(dst, data, 0o644)
}

func copyTree(src, dst string) error {
	return filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, err := filepath.Rel(src, p)
		if err != nil {
			return err
		}
		return copyFile(p, filepath.Join(dst, rel))
	})
}

func firstDifference(got, want string) string {
	g, w := strings.Split(got, "\n"), strings.Split(want, "\n")
	for i := range max(len(g), len(w)) {
		var gl, wl string
		if i < len(g) {
			gl = g[i]
		}
		if i < len(w) {
			wl = w[i]
		}
		if gl != wl {
			return fmt.Sprintf("line %d: got %q, want %q", i+1, gl, wl)
		}
	}
	return "(none)"
}

func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	return strings.Join(lines[max(0, len(lines)-n):], "\n")
}

func indent(s string) string { return "     " + strings.ReplaceAll(s, "\n", "\n     ") }

func ids() string {
	var out []string
	for _, s := range sdks {
		out = append(out, s.id)
	}
	return strings.Join(out, ", ")
}

func fatal(msg string) {
	fmt.Fprintln(os.Stderr, "sdkdrift:", msg)
	os.Exit(2)
}
