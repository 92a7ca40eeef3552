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
// To add an SDK, add an entry to sdks: how to ask its registry for the newest version, and how to
// run its proof with that version in a scratch copy, returning the proof's whole output; the
// report reads the refusals from it.
package main

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"net/http"
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
	{
		id: "python", name: "Python SDK (anthropic)", registry: "PyPI",
		pinned: func() (string, error) {
			return requirementsPin("examples/python-sdk/requirements-2.x.txt", "anthropic")
		},
		latest: func() (string, error) { return pypiLatest("anthropic") },
		prove:  pythonProve,
	},
	{
		id: "java", name: "Java SDK (com.anthropic:anthropic-java)", registry: "Maven Central",
		pinned: func() (string, error) { return pomVersion("examples/java-sdk/pom.xml", "anthropic-java") },
		latest: func() (string, error) { return mavenLatest("com/anthropic/anthropic-java") },
		prove:  javaProve,
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

// pythonProve runs examples/python-sdk's pytest suite with the release, in a virtual environment
// of scratch where pip resolves the SDK's dependencies as a new user's install does (not the
// pinned requirements), with this checkout's wheel for the fake's pytest plugin.
func pythonProve(version, scratch string) ([]byte, error) {
	dist := filepath.Join(scratch, "dist")
	if out, err := command("", nil, "go", "run", "./internal/dist", "-host", "-cached", "-out", dist); err != nil {
		return out, fmt.Errorf("building the wheel: %w", err)
	}
	wheels, err := filepath.Glob(filepath.Join(dist, "python", "*.whl"))
	if err != nil || len(wheels) != 1 {
		return nil, fmt.Errorf("building the wheel: want one wheel in %s, found %v", dist, wheels)
	}
	venv := filepath.Join(scratch, "venv")
	if out, err := command("", nil, "python3", "-m", "venv", venv); err != nil {
		return out, fmt.Errorf("python3 -m venv: %w", err)
	}
	python := filepath.Join(venv, "bin", "python")
	if out, err := command("", nil, python, "-m", "pip", "install", "-q", "anthropic=="+version, "pytest", wheels[0]); err != nil {
		return out, fmt.Errorf("pip install anthropic==%s: %w", version, err)
	}
	env := []string{"PLATFORMFAKE_BINARY=", "PLATFORMFAKE_URL=", "PYTHONDONTWRITEBYTECODE=1"}
	return command("examples/python-sdk", env, python, "-m", "pytest", "-q", "-p", "no:cacheprovider")
}

// javaProve runs examples/java-sdk's JUnit suite with the release: a copy of the project in
// scratch whose pom takes the version, against a binary of the fake built from this checkout.
func javaProve(version, scratch string) ([]byte, error) {
	proj := filepath.Join(scratch, "java-sdk")
	for _, f := range []string{"pom.xml", "src"} {
		if err := copyTree(filepath.Join("examples", "java-sdk", f), filepath.Join(proj, f)); err != nil {
			return nil, err
		}
	}
	pom := filepath.Join(proj, "pom.xml")
	data, err := os.ReadFile(pom)
	if err != nil {
		return nil, err
	}
	pinned := regexp.MustCompile(`(<artifactId>anthropic-java</artifactId>\s*<version>)[^<]*(</version>)`)
	if !pinned.Match(data) {
		return nil, errors.New("examples/java-sdk/pom.xml has no version for anthropic-java")
	}
	if err := os.WriteFile(pom, pinned.ReplaceAll(data, []byte("${1}"+version+"${2}")), 0o644); err != nil {
		return nil, err
	}
	bin := filepath.Join(scratch, "platformfake")
	if out, err := command("", nil, "go", "build", "-o", bin, "./fake/cmd/platformfake"); err != nil {
		return out, err
	}
	var env []string
	for _, kv := range os.Environ() { // configured by its code alone, as in its test
		if !strings.HasPrefix(kv, "ANTHROPIC_") {
			env = append(env, kv)
		}
	}
	cmd := exec.Command("mvn", "-q", "-B", "test", "-Dplatformfake.binary="+bin)
	cmd.Dir, cmd.Env = proj, env
	out, err := cmd.CombinedOutput()
	if err != nil {
		return out, fmt.Errorf("mvn test: %w", err)
	}
	return out, nil
}

// pypiLatest asks PyPI (through pip, so through the index pip is configured with) for the newest
// release of pkg.
func pypiLatest(pkg string) (string, error) {
	out, err := command("", nil, "python3", "-m", "pip", "index", "versions", pkg)
	if err != nil {
		return "", fmt.Errorf("%w: %s", err, out)
	}
	return pipIndexLatest(string(out), pkg)
}

// pipIndexLatest reads the newest version from what pip index versions prints: "pkg (X.Y.Z)".
func pipIndexLatest(out, pkg string) (string, error) {
	m := regexp.MustCompile(`(?m)^` + regexp.QuoteMeta(pkg) + ` \(([^)]+)\)`).FindStringSubmatch(out)
	if m == nil {
		return "", fmt.Errorf("pip index versions %s printed no version: %s", pkg, lastLines(out, 3))
	}
	return m[1], nil
}

// mavenLatest asks Maven Central for the newest release of the artifact at path (group/artifact
// with slashes), from its maven-metadata.xml.
func mavenLatest(path string) (string, error) {
	resp, err := http.Get("https://repo.maven.apache.org/maven2/" + path + "/maven-metadata.xml")
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return "", fmt.Errorf("Maven Central answered %s for %s", resp.Status, path)
	}
	var meta struct {
		Versioning struct {
			Release string `xml:"release"`
		} `xml:"versioning"`
	}
	if err := xml.NewDecoder(io.LimitReader(resp.Body, 1<<20)).Decode(&meta); err != nil {
		return "", fmt.Errorf("the maven-metadata.xml of %s: %w", path, err)
	}
	if meta.Versioning.Release == "" {
		return "", fmt.Errorf("the maven-metadata.xml of %s names no release", path)
	}
	return meta.Versioning.Release, nil
}

// requirementsPin is the version a pip requirements file pins pkg to (pkg==X.Y.Z).
func requirementsPin(file, pkg string) (string, error) {
	data, err := os.ReadFile(file)
	if err != nil {
		return "", err
	}
	m := regexp.MustCompile(`(?mi)^` + regexp.QuoteMeta(pkg) + `==(\S+)`).FindSubmatch(data)
	if m == nil {
		return "", fmt.Errorf("%s pins no %s", file, pkg)
	}
	return string(m[1]), nil
}

// pomVersion is the version a pom.xml gives the dependency artifact.
func pomVersion(file, artifact string) (string, error) {
	data, err := os.ReadFile(file)
	if err != nil {
		return "", err
	}
	m := regexp.MustCompile(`<artifactId>` + regexp.QuoteMeta(artifact) + `</artifactId>\s*<version>([^<]+)</version>`).FindSubmatch(data)
	if m == nil {
		return "", fmt.Errorf("%s gives %s no version", file, artifact)
	}
	return string(m[1]), nil
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
