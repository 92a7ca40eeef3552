// Package packaging tests the npm packages and the Python wheel of the fake as their users meet
// them: built for this machine's platform by the release tool (internal/dist), installed from the
// local files into a fresh project (npm, offline) and a fresh virtual environment (pip
// --no-index), and exercised by a suite in each language that starts the fake through the
// package's helper.
package packaging

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

var (
	distOnce sync.Once
	distDir  string
	distErr  error
)

// dist builds the host platform's artifacts once per test binary, into a directory removed at the end.
func dist(t *testing.T) string {
	t.Helper()
	distOnce.Do(func() {
		distDir, distErr = os.MkdirTemp("", "platformkit-dist-")
		if distErr != nil {
			return
		}
		// -cached: the binary is linked from the packages make test's earlier targets compiled,
		// rather than rebuilt from scratch with a release's -trimpath and CGO_ENABLED=0, which
		// change nothing these tests check (internal/dist's goBuild says why).
		out, err := exec.Command("go", "run", "../internal/dist", "-host", "-cached", "-root", "..", "-out", distDir).CombinedOutput()
		if err != nil {
			distErr = &cmdError{"go run ./internal/dist -host -cached", err, out}
		}
	})
	if distErr != nil {
		t.Fatal(distErr)
	}
	return distDir
}

func TestMain(m *testing.M) {
	code := m.Run()
	if distDir != "" {
		os.RemoveAll(distDir)
	}
	os.Exit(code)
}

type cmdError struct {
	cmd string
	err error
	out []byte
}

func (e *cmdError) Error() string { return e.cmd + ": " + e.err.Error() + "\n" + string(e.out) }

// run runs name with args in dir and fails the test with its output.
func run(t *testing.T, dir string, env []string, name string, args ...string) string {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%s", &cmdError{name + " " + strings.Join(args, " "), err, out})
	}
	return string(out)
}

// glob is the one file matching pattern.
func glob(t *testing.T, pattern string) string {
	t.Helper()
	m, _ := filepath.Glob(pattern)
	if len(m) != 1 {
		t.Fatalf("%s: want one file, found %v", pattern, m)
	}
	return m[0]
}

// TestNPMPackage installs the packed tarballs of @platformkit/fake and this platform's binary
// package into a new project, offline with an empty cache (so nothing can come from the
// registry), and runs packaging/npm/test with node --test.
func TestNPMPackage(t *testing.T) {
	t.Parallel() // the suites share the one dist build, and wait on their tools, not the CPU, for much of their time
	node, errNode := exec.LookPath("node")
	npm, errNpm := exec.LookPath("npm")
	if errNode != nil || errNpm != nil {
		t.Skip("SKIPPED: node and npm are needed to test the npm package, and at least one is not installed")
	}
	out := dist(t)
	project := t.TempDir()
	if err := os.WriteFile(filepath.Join(project, "package.json"), []byte(`{"name": "user-project", "private": true}`), 0o644); err != nil {
		t.Fatal(err)
	}
	run(t, project, nil, npm, "install", "--offline", "--no-audit", "--no-fund", "--cache", filepath.Join(project, ".npm-cache"),
		glob(t, filepath.Join(out, "npm", "platformkit-fake-[0-9]*.tgz")),
		glob(t, filepath.Join(out, "npm", "platformkit-fake-*-*-[0-9]*.tgz")))
	suite, err := os.ReadFile(filepath.Join("npm", "test", "helper.test.mjs"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(project, "helper.test.mjs"), suite, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Log(run(t, project, []string{"PLATFORMFAKE_BINARY=", "PLATFORMFAKE_URL="}, node, "--test", "--test-reporter=dot", "helper.test.mjs"))
}

// TestNPMReadmeExamples runs the examples of the npm package's README as written: each js or ts
// block whose first line names its file (// jest.config.js) is written into a directory of its
// section in packaging/npm/examples (run-the-helper, run-jest, run-vitest), a project that pins
// Jest, ts-jest, TypeScript, Vitest and the official SDK (npm ci when its lockfile changed); then
// the helper's example runs under node, and each test set-up under its runner.
func TestNPMReadmeExamples(t *testing.T) {
	t.Parallel() // the suites share the one dist build, and wait on their tools, not the CPU, for much of their time
	node, errNode := exec.LookPath("node")
	npm, errNpm := exec.LookPath("npm")
	if errNode != nil || errNpm != nil {
		t.Skip("SKIPPED: node and npm are needed to run the npm README's examples, and at least one is not installed")
	}
	project, _ := filepath.Abs(filepath.Join("npm", "examples"))
	if npmStale(t, project) {
		run(t, project, nil, npm, "ci", "--no-audit", "--no-fund")
	}
	readme, err := os.ReadFile(filepath.Join("npm", "fake", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	dirs := map[string]string{}
	for section, files := range namedBlocks(string(readme)) {
		dir := filepath.Join(project, "run-"+strings.ToLower(strings.ReplaceAll(section, " ", "-")))
		if err := os.RemoveAll(dir); err != nil {
			t.Fatal(err)
		}
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		for name, content := range files {
			if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		dirs[section] = dir
	}
	t.Cleanup(func() {
		for _, dir := range dirs {
			os.RemoveAll(dir)
		}
	})
	for _, want := range []string{"The helper", "Jest", "Vitest"} {
		if dirs[want] == "" {
			t.Fatalf("the README has no section %q with named code blocks (found %v)", want, dirs)
		}
	}
	// The helper from this repository carries no binary (installed from npm, it brings its
	// platform's): the one make dist built for this machine stands in for it.
	bin := glob(t, filepath.Join(dist(t), "bin", "platformfake-*"))
	env := []string{"PLATFORMFAKE_BINARY=" + bin, "PLATFORMFAKE_URL=", "ANTHROPIC_API_KEY=", "ANTHROPIC_BASE_URL=", "CI=true"}
	t.Log(run(t, dirs["The helper"], env, node, "example.mjs"))
	t.Log(run(t, dirs["Jest"], env, node, filepath.Join(project, "node_modules", "jest", "bin", "jest.js"), "--ci"))
	vitest := run(t, dirs["Vitest"], env, node, filepath.Join(project, "node_modules", "vitest", "vitest.mjs"), "run")
	t.Log(vitest)
	// Vite prints its warnings about a config file this way, and still passes the run.
	if strings.Contains(vitest, "(!)") {
		t.Errorf("Vite warned about the README's Vitest set-up, in a project of \"type\": \"commonjs\" as npm init -y makes:\n%s", vitest)
	}
}

// namedBlocks returns, by README section (## heading), the js and ts code blocks whose first
// line is a comment naming their file ("// jest.config.js", "// fake-setup.ts: ..."), by name.
func namedBlocks(markdown string) map[string]map[string]string {
	out := map[string]map[string]string{}
	section := ""
	for _, part := range strings.Split(markdown, "\n## ") {
		heading, body, _ := strings.Cut(part, "\n")
		section = strings.TrimSpace(heading)
		for _, lang := range []string{"js", "ts"} {
			for _, block := range codeBlocks(body, lang) {
				first, _, _ := strings.Cut(block, "\n")
				name, ok := strings.CutPrefix(first, "// ")
				if !ok {
					continue
				}
				name, _, _ = strings.Cut(name, ":")
				name = strings.TrimSpace(name)
				if strings.ContainsAny(name, " /") || !strings.Contains(name, ".") {
					continue
				}
				if out[section] == nil {
					out[section] = map[string]string{}
				}
				out[section][name] = block
			}
		}
	}
	return out
}

// npmStale reports whether dir's node_modules is missing or older than its lockfile, so that npm
// ci, which reinstalls everything, runs only when the installed packages may differ from it.
func npmStale(t *testing.T, dir string) bool {
	lock, err := os.Stat(filepath.Join(dir, "package-lock.json"))
	if err != nil {
		t.Fatal(err)
	}
	installed, err := os.Stat(filepath.Join(dir, "node_modules", ".package-lock.json"))
	return err != nil || installed.ModTime().Before(lock.ModTime())
}

// TestPythonWheel makes a new virtual environment as a user makes one, installs pytest into it from
// PyPI (pinned: python/tests/requirements.txt) and this platform's wheel from its file (pip
// --no-index), and runs pytest over packaging/python/tests and examples/python-pytest: the
// plugin's fixtures come from the wheel's pytest11 entry point, as in any user's project.
func TestPythonWheel(t *testing.T) {
	t.Parallel() // the suites share the one dist build, and wait on their tools, not the CPU, for much of their time
	python := needPython(t)
	out := dist(t)
	venv := filepath.Join(t.TempDir(), "venv")
	makeVenv(t, python, venv, filepath.Join("python", "tests", "requirements.txt"))
	pip(t, python, venv, "--no-index", glob(t, filepath.Join(out, "python", "*.whl")))
	tests, _ := filepath.Abs(filepath.Join("python", "tests"))
	example, _ := filepath.Abs(filepath.Join("..", "examples", "python-pytest"))
	t.Log(run(t, tests, pythonEnv, venvPython(venv), "-m", "pytest", "-q", "-p", "no:cacheprovider"))
	t.Log(run(t, example, pythonEnv, venvPython(venv), "-m", "pytest", "-q", "-p", "no:cacheprovider"))
}

// TestPythonSDK runs examples/python-sdk with pytest at each pinned line of the official Python
// SDK (requirements-1.x.txt, requirements-2.x.txt), each in a virtual environment of its own with
// this platform's wheel, and then the Python examples of the READMEs there, as written. The
// environments are kept between runs (in the user's cache directory, one per requirements file
// and Python), since the SDK and its dependencies change only with the pins; the wheel is
// reinstalled into them on every run.
func TestPythonSDK(t *testing.T) {
	t.Parallel() // the suites share the one dist build, and wait on their tools, not the CPU, for much of their time
	python := needPython(t)
	wheel := glob(t, filepath.Join(dist(t), "python", "*.whl"))
	example, _ := filepath.Abs(filepath.Join("..", "examples", "python-sdk"))
	readmes := t.TempDir()
	writePythonExamples(t, readmes, filepath.Join("..", "README.md"), filepath.Join("..", "docs", "python.md"), filepath.Join("python", "README.md"),
		filepath.Join("..", "examples", "python-pytest", "README.md"), filepath.Join(example, "README.md"))
	for _, line := range []string{"1.x", "2.x"} {
		t.Run(line, func(t *testing.T) {
			t.Parallel()
			venv := cachedVenv(t, python, filepath.Join(example, "requirements-"+line+".txt"))
			pip(t, python, venv, "--no-index", "--no-deps", "--force-reinstall", wheel)
			t.Log(run(t, example, pythonEnv, venvPython(venv), "-m", "pytest", "-q", "-p", "no:cacheprovider"))
			for _, script := range globAll(t, filepath.Join(readmes, "script_*.py")) {
				t.Log(run(t, readmes, pythonEnv, venvPython(venv), script))
			}
			t.Log(run(t, readmes, pythonEnv, venvPython(venv), "-m", "pytest", "-q", "-p", "no:cacheprovider"))
		})
	}
}

// writePythonExamples writes each python code block of the READMEs into dir: a block that defines
// a test as test_readme_N.py, for pytest; any other as script_N.py, to run as a script.
func writePythonExamples(t *testing.T, dir string, readmes ...string) {
	t.Helper()
	n := 0
	for _, readme := range readmes {
		b, err := os.ReadFile(readme)
		if err != nil {
			t.Fatal(err)
		}
		for _, block := range codeBlocks(string(b), "python") {
			n++
			name := fmt.Sprintf("script_%d.py", n)
			if strings.Contains(block, "\ndef test_") || strings.HasPrefix(block, "def test_") {
				name = fmt.Sprintf("test_readme_%d.py", n)
			}
			src := fmt.Sprintf("# %s, example %d\n%s", readme, n, block)
			if err := os.WriteFile(filepath.Join(dir, name), []byte(src), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	if n == 0 {
		t.Fatalf("no python code blocks in %v", readmes)
	}
}

// codeBlocks returns the fenced code blocks of a Markdown text whose info string is lang.
func codeBlocks(markdown, lang string) []string {
	var blocks []string
	var cur *strings.Builder
	for _, line := range strings.SplitAfter(markdown, "\n") {
		trimmed := strings.TrimSpace(line)
		switch {
		case cur == nil && trimmed == "```"+lang:
			cur = &strings.Builder{}
		case cur != nil && trimmed == "```":
			blocks = append(blocks, cur.String())
			cur = nil
		case cur != nil:
			cur.WriteString(line)
		}
	}
	return blocks
}

// globAll is every file matching pattern, sorted.
func globAll(t *testing.T, pattern string) []string {
	t.Helper()
	m, err := filepath.Glob(pattern)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// cachedVenv is a virtual environment with requirements installed, made once per requirements
// file and Python under the user's cache directory (platformkit/venvs/) and reused while both
// stay the same. One whose making did not finish is made again.
func cachedVenv(t *testing.T, python, requirements string) string {
	t.Helper()
	reqs, err := os.ReadFile(requirements)
	if err != nil {
		t.Fatal(err)
	}
	version, err := exec.Command(python, "-c", "import sys; print(sys.version, sys.executable)").Output()
	if err != nil {
		t.Fatal(err)
	}
	cache, err := os.UserCacheDir()
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(append(reqs, version...))
	venv := filepath.Join(cache, "platformkit", "venvs", strings.TrimSuffix(filepath.Base(requirements), ".txt")+"-"+hex.EncodeToString(sum[:6]))
	done := filepath.Join(venv, ".platformkit-complete")
	// Complete, and still whole: two test runs making the same environment at once (nothing
	// serializes them) can leave it marked complete without its interpreter.
	if _, err := os.Stat(done); err == nil {
		if _, err := os.Stat(venvPython(venv)); err == nil {
			return venv
		}
	}
	if err := os.RemoveAll(venv); err != nil {
		t.Fatal(err)
	}
	makeVenv(t, python, venv, requirements)
	if err := os.WriteFile(done, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	return venv
}

// pythonEnv is the environment of the Python suites: the wheel's own binary, a server of their
// own, no bytecode written into the repository.
var pythonEnv = []string{"PLATFORMFAKE_BINARY=", "PLATFORMFAKE_URL=", "PYTHONDONTWRITEBYTECODE=1"}

// needPython returns python3, or skips the test when it (or its venv module) is missing.
func needPython(t *testing.T) string {
	t.Helper()
	python, err := exec.LookPath("python3")
	if err != nil {
		t.Skip("SKIPPED: python3 is needed to test the Python wheel and examples, and it is not installed")
	}
	if out, err := exec.Command(python, "-m", "venv", "--help").CombinedOutput(); err != nil {
		t.Skipf("SKIPPED: python3 has no venv module (on Debian: apt-get install python3-venv), so the Python wheel and examples are not tested: %s", out)
	}
	return python
}

// makeVenv makes a virtual environment at venv with python -m venv and installs requirements into
// it with pip from the package index (pip's cache makes a warm run cheap).
func makeVenv(t *testing.T, python, venv, requirements string) {
	t.Helper()
	// The machine's pip installs into the new environment when it can (--python, pip 22.3+):
	// seeding the environment with a pip of its own costs several seconds more, and the
	// environment is the same.
	if pipHasPython(python) {
		run(t, "", nil, python, "-m", "venv", "--without-pip", venv)
	} else {
		run(t, "", nil, python, "-m", "venv", venv)
	}
	pip(t, python, venv, "-r", requirements)
}

// pip runs pip install with args into venv.
func pip(t *testing.T, python, venv string, args ...string) {
	t.Helper()
	cmd := []string{"-m", "pip"}
	if pipHasPython(python) {
		cmd = append(cmd, "--python", venvPython(venv))
	} else {
		python = venvPython(venv)
	}
	run(t, "", nil, python, append(append(cmd, "install", "--quiet", "--disable-pip-version-check"), args...)...)
}

// pipHasPython reports whether the machine's pip can install into another environment
// (--python), asked once per test binary.
func pipHasPython(python string) bool {
	pipPython.once.Do(func() {
		out, err := exec.Command(python, "-m", "pip", "--help").Output()
		pipPython.ok = err == nil && strings.Contains(string(out), "--python")
	})
	return pipPython.ok
}

var pipPython struct {
	once sync.Once
	ok   bool
}

func venvPython(venv string) string {
	if _, err := os.Stat(filepath.Join(venv, "Scripts")); err == nil {
		return filepath.Join(venv, "Scripts", "python.exe")
	}
	return filepath.Join(venv, "bin", "python")
}
