// Package packaging tests the npm packages and the Python wheel of the fake as their users meet
// them: built for this machine's platform by the release tool (internal/dist), installed from the
// local files into a fresh project (npm, offline) and a fresh virtual environment (pip
// --no-index), and exercised by a suite in each language that starts the fake through the
// package's helper.
package packaging

import (
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

// TestPythonWheel makes a new virtual environment as a user makes one, installs pytest into it from
// PyPI (pinned: python/tests/requirements.txt) and this platform's wheel from its file (pip
// --no-index), and runs pytest over packaging/python/tests and examples/python-pytest: the
// plugin's fixtures come from the wheel's pytest11 entry point, as in any user's project.
func TestPythonWheel(t *testing.T) {
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
