package main

import (
	"archive/tar"
	"compress/gzip"
	"encoding/xml"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"

	"github.com/platformkit/platformkit/internal/refusal"
)

// pythonSuite is the Python SDK's generated suite (tests/api_resources of its sdist, which
// PyPI's sdist ships and its wheel does not), run unmodified with pytest in a virtual
// environment of pinned packages (examples/python-sdk/sdk-tests/requirements-<version>.txt).
type pythonSuite struct {
	version string // the anthropic release, e.g. 2.14.0
	async   bool   // run the Async test classes too (the same requests through AsyncAnthropic; not their aiohttp variants)
}

// prepare makes (or reuses) the virtual environment and the sdist's tests in the cache, and
// returns the directory of the unpacked sdist and the environment's python.
func (p pythonSuite) prepare(cache string) (srcDir, python string, err error) {
	reqs, err := filepath.Abs(filepath.Join("examples", "python-sdk", "sdk-tests", "requirements-"+p.version+".txt"))
	if err != nil {
		return "", "", err
	}
	if _, err := os.Stat(reqs); err != nil {
		return "", "", fmt.Errorf("no pinned requirements for anthropic %s: %w", p.version, err)
	}
	dir := filepath.Join(cache, "python-"+p.version)
	venv, python := filepath.Join(dir, "venv"), filepath.Join(dir, "venv", "bin", "python")
	stamp := filepath.Join(dir, "installed")
	want, err := os.ReadFile(reqs)
	if err != nil {
		return "", "", err
	}
	if got, err := os.ReadFile(stamp); err != nil || string(got) != string(want) {
		_ = os.RemoveAll(dir)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return "", "", err
		}
		step("python %s: a virtual environment of the pinned packages (PyPI)", p.version)
		if _, err := command("", nil, "python3", "-m", "venv", venv); err != nil {
			return "", "", err
		}
		if _, err := command("", nil, python, "-m", "pip", "install", "--quiet", "--disable-pip-version-check", "-r", reqs); err != nil {
			return "", "", err
		}
		step("python %s: the sdist, for its tests (PyPI)", p.version)
		if _, err := command("", nil, python, "-m", "pip", "download", "--quiet", "--disable-pip-version-check",
			"--no-deps", "--no-binary", ":all:", "anthropic=="+p.version, "-d", dir); err != nil {
			return "", "", err
		}
		if err := untar(filepath.Join(dir, "anthropic-"+p.version+".tar.gz"), dir); err != nil {
			return "", "", err
		}
		if err := os.WriteFile(stamp, want, 0o644); err != nil {
			return "", "", err
		}
	}
	return filepath.Join(dir, "anthropic-"+p.version), python, nil
}

// run runs the suite against each base URL (one per key run) at once, and returns every test's
// result, named by its file and pytest's name.
func (p pythonSuite) run(src, python string, bases []string) (map[string]*testResult, error) {
	// --tb=line: the fake's answer is in the exception's line, and pytest takes 2.7 times as long
	// (measured on two files) to write the failures' tracebacks in --tb=short.
	args := []string{"-m", "pytest", "-o", "addopts=", "-p", "no:cacheprovider", "-q", "--tb=line"}
	if _, err := os.Stat(filepath.Join(src, "tests", "_alias_httpx.py")); err == nil {
		args = append(args, "-p", "tests._alias_httpx") // 2.x: respx mocks httpx2 through this alias
	}
	if !p.async {
		args = append(args, "-k", "not Async")
	}
	// The webhooks tests import standardwebhooks, which the SDK's runtime does not need; the
	// fake serves no webhooks.
	args = append(args, "--ignore=tests/api_resources/beta/test_webhooks.py", "--ignore=tests/api_resources/test_webhooks.py")
	results := map[string]*testResult{}
	var mu sync.Mutex
	errs := make([]error, len(bases))
	var wg sync.WaitGroup
	for i, base := range bases {
		wg.Add(1)
		go func() {
			defer wg.Done()
			junit := filepath.Join(os.TempDir(), fmt.Sprintf("sdktests-%d-%d.xml", os.Getpid(), i))
			defer os.Remove(junit)
			out, err := command(src, []string{"TEST_API_BASE_URL=" + base}, python, append(args, "--junitxml="+junit, "tests/api_resources")...)
			cases, perr := readJUnit(junit)
			if perr != nil {
				errs[i] = fmt.Errorf("pytest against %s: %v (%v)\n%s", base, perr, err, lastLines(string(out), 20))
				return
			}
			mu.Lock()
			defer mu.Unlock()
			for _, c := range cases {
				r := results[c.id]
				if r == nil {
					r = &testResult{test: c.id, file: c.file}
					results[c.id] = r
				}
				r.runs++
				if c.failure == "" {
					r.passed = true
					continue
				}
				r.answers = append(r.answers, pythonAnswers(c.failure))
				r.texts = append(r.texts, pythonSummary(c.failure))
			}
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	return results, nil
}

type junitCase struct{ id, file, failure string }

// readJUnit reads pytest's JUnit XML: each test case, its file (the module under
// tests/api_resources, e.g. beta/test_files.py) and its failure or error text, if any.
func readJUnit(path string) ([]junitCase, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var doc struct {
		Cases []struct {
			Class   string `xml:"classname,attr"`
			Name    string `xml:"name,attr"`
			Failure *struct {
				Message string `xml:"message,attr"`
				Text    string `xml:",chardata"`
			} `xml:"failure"`
			Error *struct {
				Message string `xml:"message,attr"`
				Text    string `xml:",chardata"`
			} `xml:"error"`
		} `xml:"testsuite>testcase"`
	}
	if err := xml.Unmarshal(data, &doc); err != nil {
		return nil, err
	}
	var cases []junitCase
	for _, c := range doc.Cases {
		if strings.HasSuffix(c.Name, "[aiohttp]") {
			// The async classes' aiohttp variants need the SDK's aiohttp extra, which the pinned
			// runtime does not install: they fail before sending anything.
			continue
		}
		mod, _, _ := strings.Cut(c.Class, ".Test")
		mod = strings.TrimPrefix(mod, "tests.api_resources.")
		jc := junitCase{id: c.Class + "::" + c.Name, file: strings.ReplaceAll(mod, ".", "/") + ".py"}
		switch {
		case c.Failure != nil:
			jc.failure = c.Failure.Message + "\n" + c.Failure.Text
		case c.Error != nil:
			jc.failure = c.Error.Message + "\n" + c.Error.Text
		}
		cases = append(cases, jc)
	}
	return cases, nil
}

// pythonError finds the Python SDK's APIStatusError text: `Error code: 404 - {'type': 'error',
// 'error': {'type': 'not_found_error', 'message': '...'}, ...}`, a Python dict's repr, whose
// strings are in single quotes unless they hold one.
var pythonError = regexp.MustCompile(`Error code: ([1-5][0-9]{2}) - \{.*?'error': \{'type': '([a-z_]+)', 'message': (?:'((?:[^'\\]|\\.)*)'|"((?:[^"\\]|\\.)*)")`)

// pythonAnswers reads the fake's error answers out of a failed Python test.
func pythonAnswers(text string) []refusal.Answer {
	var out []refusal.Answer
	for _, m := range pythonError.FindAllStringSubmatch(text, -1) {
		status, _ := strconv.Atoi(m[1])
		msg := m[3] + m[4]
		msg = strings.NewReplacer(`\'`, `'`, `\"`, `"`, `\\`, `\`).Replace(msg)
		out = append(out, refusal.Answer{Status: status, Type: m[2], Message: msg})
	}
	return out
}

// pythonSummary is what a failed Python test says that is not an answer of the fake: the
// exception's lines (e.g. strict validation's "Data returned by API invalid for expected schema"
// and pydantic's fields).
func pythonSummary(text string) string {
	var lines []string
	for _, l := range strings.Split(text, "\n") {
		if t, ok := strings.CutPrefix(strings.TrimSpace(l), "E "); ok {
			lines = append(lines, strings.TrimSpace(t))
		}
	}
	if len(lines) == 0 {
		return lastLines(text, 3)
	}
	if len(lines) > 8 {
		lines = lines[:8]
	}
	return strings.Join(lines, " | ")
}

// untar unpacks the gzipped tarball into dir.
func untar(tgz, dir string) error {
	f, err := os.Open(tgz)
	if err != nil {
		return err
	}
	defer f.Close()
	gz, err := gzip.NewReader(f)
	if err != nil {
		return err
	}
	tr := tar.NewReader(gz)
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		name := filepath.Join(dir, filepath.Clean("/" + h.Name)[1:])
		switch h.Typeflag {
		case tar.TypeDir:
			if err := os.MkdirAll(name, 0o755); err != nil {
				return err
			}
		case tar.TypeReg:
			if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
				return err
			}
			out, err := os.Create(name)
			if err != nil {
				return err
			}
			if _, err := io.Copy(out, tr); err != nil {
				out.Close()
				return err
			}
			if err := out.Close(); err != nil {
				return err
			}
		}
	}
}
