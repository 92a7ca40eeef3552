// Package packaging tests the npm packages, the Python wheel and the Java helper of the fake as
// their users meet them: built for this machine's platform by the release tool (internal/dist),
// installed from the local files into a fresh project (npm, offline), a fresh virtual environment
// (pip --no-index) and the local Maven repository, and exercised by a suite in each language
// that starts the fake through the package's helper.
package packaging

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
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
	// Another make test on this machine (another checkout, a second terminal) uses the same
	// environment: the lock, held until the test ends, keeps its build and reinstalls of the
	// wheel from tearing this one's down halfway.
	lockDir(t, venv+".lock")
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

// TestJavaHelper installs the Java helper (packaging/java, dev.platformkit:platformkit-fake)
// into the local Maven repository as make java-helper does, carrying this platform's binary from
// the dist build, after its own suite passed (mvn install runs it: the tests start the binary
// the jar carries). Then it runs the Java quick starts of docs/java.md and of the README, as
// written, each in a new Maven project against the installed artifact.
func TestJavaHelper(t *testing.T) {
	t.Parallel() // the suites share the one dist build, and wait on their tools, not the CPU, for much of their time
	_, errJava := exec.LookPath("java")
	mvn, errMvn := exec.LookPath("mvn")
	if errJava != nil || errMvn != nil {
		t.Skip("SKIPPED: java and mvn are needed to test the Java helper, and at least one is not installed")
	}
	pom, err := os.ReadFile(filepath.Join("java", "pom.xml"))
	if err != nil {
		t.Fatal(err)
	}
	makefile, err := os.ReadFile(filepath.Join("..", "Makefile"))
	if err != nil {
		t.Fatal(err)
	}
	version := regexp.MustCompile(`(?m)^VERSION \?= (\S+)$`).FindSubmatch(makefile)
	own := regexp.MustCompile(`(?s)<artifactId>platformkit-fake</artifactId>.*?<version>([^<]+)</version>`).FindSubmatch(pom)
	if version == nil || own == nil {
		t.Fatal("no VERSION ?= in the Makefile, or no version in packaging/java/pom.xml")
	}
	if want := mavenVersion(string(version[1])); string(own[1]) != want {
		t.Errorf("packaging/java/pom.xml's version is %s, want %s: the Makefile's VERSION %s in Maven's spelling", own[1], want, version[1])
	}
	bundle := filepath.Join(t.TempDir(), runtime.GOOS+"-"+runtime.GOARCH)
	if err := os.MkdirAll(bundle, 0o755); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(glob(t, filepath.Join(dist(t), "bin", "platformfake-*")))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(bundle, "platformfake"+exeSuffix()), data, 0o755); err != nil {
		t.Fatal(err)
	}
	env := []string{"PLATFORMFAKE_BINARY=", "PLATFORMFAKE_URL=", "ANTHROPIC_API_KEY=", "ANTHROPIC_BASE_URL="}
	t.Log(run(t, "java", env, mvn, "-q", "-B", "install", "-Dplatformfake.bundle="+filepath.Dir(bundle)))
	for _, doc := range []struct {
		path     string
		required bool
	}{{filepath.Join("..", "docs", "java.md"), true}, {filepath.Join("..", "README.md"), false}} {
		t.Run(filepath.Base(doc.path), func(t *testing.T) {
			text, err := os.ReadFile(doc.path)
			if err != nil {
				t.Fatal(err)
			}
			deps, files, found := javaQuickStart(string(text))
			if !found && !doc.required {
				t.Skipf("%s has no %s section yet", doc.path, javaQuickStartMarker)
			}
			if len(files) == 0 || deps == "" {
				t.Fatalf("%s: no xml dependencies and java files after %s (found %v)", doc.path, javaQuickStartMarker, found)
			}
			project := t.TempDir()
			if err := os.WriteFile(filepath.Join(project, "pom.xml"), []byte(fmt.Sprintf(quickStartPOM, deps)), 0o644); err != nil {
				t.Fatal(err)
			}
			for name, src := range files {
				path := filepath.Join(project, filepath.FromSlash(name))
				if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			t.Log(run(t, project, env, mvn, "-q", "-B", "test"))
		})
	}
}

// mavenVersion is the project's VERSION in Maven's spelling: X.Y.Z-dev.N is X.Y.Z-SNAPSHOT (the
// development build before X.Y.Z; Maven would order "dev", a qualifier it does not know, after
// X.Y.Z), and the other versions are spelled as they are (Maven orders alpha, beta and rc
// before the release, as semver does).
func mavenVersion(v string) string {
	if m := regexp.MustCompile(`^(\d+\.\d+\.\d+)-dev\.\d+$`).FindStringSubmatch(v); m != nil {
		return m[1] + "-SNAPSHOT"
	}
	return v
}

func exeSuffix() string {
	if runtime.GOOS == "windows" {
		return ".exe"
	}
	return ""
}

// javaQuickStartMarker opens the Java quick start of a Markdown page; "<!-- /java-quick-start -->"
// closes it, or else the next heading does.
const javaQuickStartMarker = "<!-- java-quick-start"

// javaQuickStart returns the xml blocks of the page's Java quick start, joined (the dependencies
// of its pom.xml), and its java blocks by path: the path a block's first line names
// ("// src/test/java/HelloFakeTest.java"), else src/test/java/<its class>.java. found reports
// whether the page has the marker.
func javaQuickStart(markdown string) (deps string, files map[string]string, found bool) {
	_, section, found := strings.Cut(markdown, javaQuickStartMarker)
	if !found {
		return "", nil, false
	}
	if i := strings.Index(section, "<!-- /java-quick-start -->"); i >= 0 {
		section = section[:i]
	} else {
		section = untilHeading(section)
	}
	deps = strings.Join(codeBlocks(section, "xml"), "")
	files = map[string]string{}
	for _, block := range codeBlocks(section, "java") {
		first, _, _ := strings.Cut(block, "\n")
		name, ok := strings.CutPrefix(strings.TrimSpace(first), "// ")
		if !ok || !strings.HasSuffix(name, ".java") || strings.Contains(name, " ") {
			class := regexp.MustCompile(`(?m)^(?:public\s+)?(?:final\s+)?class\s+(\w+)`).FindStringSubmatch(block)
			if class == nil {
				continue
			}
			name = "src/test/java/" + class[1] + ".java"
		}
		files[name] = block
	}
	return deps, files, true
}

// untilHeading is markdown up to its first heading outside a fenced code block (where "# x" is
// a shell comment).
func untilHeading(markdown string) string {
	fenced, at := false, 0
	for _, line := range strings.SplitAfter(markdown, "\n") {
		trimmed := strings.TrimSpace(line)
		if strings.HasPrefix(trimmed, "```") {
			fenced = !fenced
		} else if !fenced && regexp.MustCompile(`^#{1,6} `).MatchString(line) {
			return markdown[:at]
		}
		at += len(line)
	}
	return markdown
}

// quickStartPOM is the pom.xml of a new project for a quick start: its dependencies are the
// page's, its plugins pinned as the examples' are.
const quickStartPOM = `<?xml version="1.0" encoding="UTF-8"?>
<project xmlns="http://maven.apache.org/POM/4.0.0">
  <modelVersion>4.0.0</modelVersion>
  <groupId>com.example</groupId>
  <artifactId>quick-start</artifactId>
  <version>0</version>
  <properties>
    <maven.compiler.release>17</maven.compiler.release>
    <project.build.sourceEncoding>UTF-8</project.build.sourceEncoding>
  </properties>
  <dependencies>
%s  </dependencies>
  <build>
    <plugins>
      <plugin><groupId>org.apache.maven.plugins</groupId><artifactId>maven-resources-plugin</artifactId><version>3.3.1</version></plugin>
      <plugin><groupId>org.apache.maven.plugins</groupId><artifactId>maven-compiler-plugin</artifactId><version>3.13.0</version></plugin>
      <plugin><groupId>org.apache.maven.plugins</groupId><artifactId>maven-surefire-plugin</artifactId><version>3.5.2</version></plugin>
    </plugins>
  </build>
</project>
`

// TestJavaQuickStartSection: the section runs from the marker to its end marker, headings
// included, or without one to the next heading; a shell comment does not end it.
func TestJavaQuickStartSection(t *testing.T) {
	page := "# Page\n\n```java\nclass Before {}\n```\n\n<!-- java-quick-start -->\n\n```sh\n# a comment\nmake java-helper\n```\n\n" +
		"```xml\n<dependency>a</dependency>\n```\n\n## Quick start\n\n```java\n// src/test/java/p/ATest.java\npackage p;\nclass ATest {}\n```\n\n" +
		"```java\npublic final class BTest {}\n```\n\n<!-- /java-quick-start -->\n\n```xml\n<dependency>after</dependency>\n```\n"
	deps, files, found := javaQuickStart(page)
	if !found || deps != "<dependency>a</dependency>\n" || len(files) != 2 ||
		files["src/test/java/p/ATest.java"] == "" || files["src/test/java/BTest.java"] != "public final class BTest {}\n" {
		t.Errorf("with an end marker: deps %q, files %q, found %v", deps, files, found)
	}
	open := strings.Replace(page, "<!-- /java-quick-start -->", "", 1)
	if deps, files, _ := javaQuickStart(open); deps != "<dependency>a</dependency>\n" || len(files) != 0 {
		t.Errorf("without an end marker, the section should end at ## Quick start: deps %q, files %q", deps, files)
	}
	if _, _, found := javaQuickStart("# Page\n"); found {
		t.Error("found a section in a page without the marker")
	}
}
