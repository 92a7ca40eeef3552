package platformkit_test

import (
	"encoding/json"

	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unicode"

	"github.com/platformkit/platformkit/conformance"
	"github.com/platformkit/platformkit/fake"
)

// The figures of the README and of docs/ that name a count of something the code holds are held
// to the code here, so that a figure cannot go stale: each subtest finds the figure in its page
// and compares it with what the code, the fixtures or the pins say. Elsewhere:
// fake/openapi_test.go holds docs/openapi.md's operation counts to the route table,
// fake/coverage_test.go docs/coverage.md's reason codes, and fake/docs_limits_test.go the
// bounds of docs/limits.md to the constants that enforce them. Timings and memory measured by
// a benchmark or a load run are given with the command that measures them again.

// page reads a page of the repository.
func page(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.FromSlash(name))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// figure finds re in the page and returns its submatches as integers (commas allowed: 1,000).
func figure(t *testing.T, name, text, re string) []int {
	t.Helper()
	m := regexp.MustCompile(re).FindStringSubmatch(text)
	if m == nil {
		t.Fatalf("%s: found nothing matching %s: has the sentence changed? Keep this test finding it", name, re)
	}
	var out []int
	for _, s := range m[1:] {
		n, err := strconv.Atoi(strings.ReplaceAll(s, ",", ""))
		if err != nil {
			t.Fatalf("%s: %q is not a number", name, s)
		}
		out = append(out, n)
	}
	return out
}

func expect(t *testing.T, name, what string, got, want int) {
	t.Helper()
	if got != want {
		t.Errorf("%s says %d %s; the code has %d: correct the page", name, got, what, want)
	}
}

// TestDocsCountsOfChecks: the operator's page quotes the suite's own lines, whose counts come
// from the check registry.
func TestDocsCountsOfChecks(t *testing.T) {
	const name = "docs/operators.md"
	text := page(t, name)
	checks := conformance.Checks()
	total := len(checks)
	expect(t, name, `checks in "0 of N checks ran"`, figure(t, name, text, `0 of (\d+) checks ran`)[0], total)

	// The run with -ginkgo.label-filter="models || core" against a deployment: the fake-only
	// checks, the destructive ones and those of the other API version are disabled.
	carry, fakeOnly, excluded := 0, 0, 0
	for _, c := range checks {
		if !c.Has(conformance.Models) && !c.Has(conformance.Core) {
			continue
		}
		carry++
		switch {
		case c.Has(conformance.FakeOnly):
			fakeOnly++
		case c.Has(conformance.Destructive), c.Has(conformance.V20261021):
			excluded++
		}
	}
	if excluded > 0 {
		t.Errorf("%d checks carrying models or core are destructive or of API version 2026-10-21: the sentence under the example run names only those that need the control API; reword it", excluded)
	}
	ran := carry - fakeOnly - excluded
	n := figure(t, name, text, "\\((\\d+) checks carry `models` or `core`; (\\d+) of them need the control API, so (\\d+) ran\\. The (\\d+) disabled\\s+are the other (\\d+), deselected by the filter, and those (\\d+)\\.")
	expect(t, name, "checks carrying models or core", n[0], carry)
	expect(t, name, "of them needing the control API", n[1], fakeOnly)
	expect(t, name, "checks that ran", n[2], ran)
	expect(t, name, "checks disabled", n[3], total-ran)
	expect(t, name, "checks deselected by the filter", n[4], total-carry)
	expect(t, name, "checks needing the control API (again)", n[5], fakeOnly)
	s := figure(t, name, text, `conformance: (\d+) passed, (\d+) failed, (\d+) differ on extensions, (\d+) unsupported, (\d+) disabled, (\d+) errors`)
	expect(t, name, "outcomes in the example's summary (passed + failed + differ + unsupported + errors)", s[0]+s[1]+s[2]+s[3]+s[5], ran)
	expect(t, name, "disabled in the example's summary", s[4], total-ran)

	// The checks the example lists exist, with the clause shown, and "differs" only for an extension.
	byID := map[string]conformance.Check{}
	for _, c := range checks {
		byID[c.ID] = c
	}
	listed := regexp.MustCompile(`(?m)^  (failed|differs|unsupported) +\[([^\]]+)\] .* \(([a-z]+/[a-z0-9-]+)\)`).FindAllStringSubmatch(text, -1)
	if len(listed) == 0 {
		t.Fatalf("%s lists no check outcome", name)
	}
	for _, l := range listed {
		c, ok := byID[l[3]]
		switch {
		case !ok:
			t.Errorf("%s lists check %s, which the suite does not have", name, l[3])
		case c.Clause != l[2]:
			t.Errorf("%s lists %s under clause [%s]; its clause is %s", name, l[3], l[2], c.Clause)
		case (l[1] == "differs") != c.Has(conformance.Extension) && l[1] != "unsupported":
			t.Errorf("%s lists %s as %s; a failed check reads differs exactly when it is an extension (extension: %v)", name, l[3], l[1], c.Has(conformance.Extension))
		}
	}
}

// TestDocsCountsOfTheFixtures: what the page on the API's areas counts of the default data.
func TestDocsCountsOfTheFixtures(t *testing.T) {
	const name = "docs/api-areas.md"
	text := page(t, name)
	srv := httptest.NewServer(fake.New())
	defer srv.Close()
	get := func(path, key string, v any) {
		t.Helper()
		req, _ := http.NewRequest("GET", srv.URL+path, nil)
		req.Header.Set("X-Api-Key", key)
		req.Header.Set("Authorization", "Bearer "+key)
		req.Header.Set("vendor-version", fake.APIVersion)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		if resp.StatusCode != 200 {
			t.Fatalf("GET %s: %s", path, resp.Status)
		}
		if err := json.NewDecoder(resp.Body).Decode(v); err != nil {
			t.Fatal(err)
		}
	}
	var models struct {
		Data []struct {
			ID string `json:"id"`
		} `json:"data"`
	}
	get("/v1/models?limit=1000", fake.DefaultAPIKey, &models)
	n := figure(t, name, text, `the (\d+) models of the fixtures`)
	expect(t, name, "models", n[0], len(models.Data))

	var fixtures struct {
		Aliases map[string]string `json:"aliases"`
	}
	if err := json.Unmarshal([]byte(page(t, "fixtures/models.json")), &fixtures); err != nil {
		t.Fatal(err)
	}
	expect(t, name, "aliases", figure(t, name, text, `also resolves the (\d+) aliases`)[0], len(fixtures.Aliases))

	var compliance struct {
		Chats []struct {
			UserID string `json:"user_id"`
		} `json:"chats"`
	}
	if err := json.Unmarshal([]byte(page(t, "fixtures/compliance.json")), &compliance); err != nil {
		t.Fatal(err)
	}
	grace := 0
	for _, c := range compliance.Chats {
		if c.UserID == "user_01AcmeGraceDeveloper00001" {
			grace++
		}
	}
	expect(t, name, "chats of Grace", figure(t, name, text, "Grace \\(`user_01AcmeGraceDeveloper00001`\\) has (\\d+) chats")[0], grace)
}

// TestDocsCoverageExample: the example answer of GET /_fake/coverage counts the operations and
// fields a server has.
func TestDocsCoverageExample(t *testing.T) {
	const name = "docs/coverage.md"
	text := page(t, name)
	cov := fake.New().Coverage()
	n := figure(t, name, text, `"operations_total": (\d+), "operations_exercised": \d+, "fields_total": (\d+)`)
	expect(t, name, "operations_total", n[0], cov.OperationsTotal)
	expect(t, name, "fields_total", n[1], cov.FieldsTotal)
}

// TestDocsPinnedReleases: the releases the pages name are the ones the examples pin.
func TestDocsPinnedReleases(t *testing.T) {
	pin := func(file, re string) string {
		t.Helper()
		m := regexp.MustCompile(re).FindStringSubmatch(page(t, file))
		if m == nil {
			t.Fatalf("%s: no pin matching %s", file, re)
		}
		return m[1]
	}
	goV1 := pin("examples/go-sdk/go.mod", `anthropic-sdk-go (v[0-9.]+)`)
	goV1Newest := pin("examples/go-sdk/go.newest.mod", `anthropic-sdk-go (v[0-9.]+)`)
	goV2 := pin("examples/go-sdk/v2/go.mod", `anthropic-sdk-go/v2 (v[0-9.]+)`)
	ts := pin("examples/typescript-sdk/package.json", `"@anthropic-ai/sdk": "([0-9.]+)"`)
	py1 := pin("examples/python-sdk/requirements-1.x.txt", `anthropic==([0-9.]+)`)
	py2 := pin("examples/python-sdk/requirements-2.x.txt", `anthropic==([0-9.]+)`)
	java := pin("examples/java-sdk/pom.xml", `<artifactId>anthropic-java</artifactId>\s*<version>([0-9.]+)</version>`)

	const name = "docs/api-versions.md"
	text := page(t, name)
	for row, want := range map[string][]string{
		"| Go SDK v1,":      {goV1 + " and " + goV1Newest},
		"| Go SDK v2,":      {goV2},
		"| TypeScript SDK,": {ts},
		"| Python SDK 2.x,": {py2},
		"| Python SDK 1.x,": {py1},
		"| Java SDK 3.x,":   {java},
	} {
		line := lineStarting(t, name, text, row)
		for _, w := range want {
			if !strings.Contains(line, "| "+w+" ") {
				t.Errorf("%s: the row %q should name the pinned release %s:\n%s", name, row, w, line)
			}
		}
	}

	npmPins := page(t, "packaging/npm/examples/package.json")
	var examples struct {
		DevDependencies map[string]string `json:"devDependencies"`
	}
	if err := json.Unmarshal([]byte(npmPins), &examples); err != nil {
		t.Fatal(err)
	}
	const npmReadme = "packaging/npm/fake/README.md"
	readme := page(t, npmReadme)
	for _, pkg := range []string{"jest", "ts-jest", "typescript", "vitest", "@anthropic-ai/sdk"} {
		if want := pkg + " " + examples.DevDependencies[pkg]; !strings.Contains(readme, want) {
			t.Errorf("%s should name the pinned %q (packaging/npm/examples/package.json)", npmReadme, want)
		}
	}

	goVersion := pin("go.mod", `(?m)^go ([0-9.]+)`)
	if !strings.Contains(page(t, "README.md"), "Go ("+goVersion+"+)") {
		t.Errorf("README.md should say the Go it needs is %s+ (go.mod)", goVersion)
	}
}

// TestDocsNoLineCounts: a page never says how many lines a file has, which no test could hold
// ("the 70 lines of the route table", "FakeServer.java is 60 lines" went stale so); nor the size of
// a build's binaries, which make dist prints.
func TestDocsNoLineCounts(t *testing.T) {
	pages, _ := filepath.Glob(filepath.Join("docs", "*.md"))
	pages = append(pages, "README.md", "ARCHITECTURE.md")
	lineCount := regexp.MustCompile(`\b\d[\d,]*\s+lines\b|\bis\s+\d+\s+lines`)
	binarySize := regexp.MustCompile(`(platformfake|platformconformance)` + "`?" + `\s+\d+(\.\d+)?\s+MB`)
	for _, p := range pages {
		text := page(t, p)
		for _, re := range []*regexp.Regexp{lineCount, binarySize} {
			for _, loc := range re.FindAllStringIndex(text, -1) {
				t.Errorf("%s:%d: %q counts a file's lines or gives a binary's size, which go stale: name the file or what it holds (make dist prints the sizes)",
					p, 1+strings.Count(text[:loc[0]], "\n"), text[loc[0]:loc[1]])
			}
		}
	}
}

func lineStarting(t *testing.T, name, text, prefix string) string {
	t.Helper()
	for _, line := range strings.Split(text, "\n") {
		if strings.HasPrefix(line, prefix) {
			return line
		}
	}
	t.Fatalf("%s has no line starting %q", name, prefix)
	return ""
}

// TestDocsLinksResolve: every relative link of the README, of docs/ and of the other pages a
// reader is sent to names a file that exists, and a #fragment names a heading of that page (as
// GitHub makes its anchors), so that moving a section cannot leave a link behind.
func TestDocsLinksResolve(t *testing.T) {
	var pages []string
	for _, pattern := range []string{"docs/*.md", "conformance/*.md", "examples/*/README.md", "packaging/*/README.md", "packaging/npm/*/README.md"} {
		m, _ := filepath.Glob(filepath.FromSlash(pattern))
		pages = append(pages, m...)
	}
	pages = append(pages, "README.md", "CHANGELOG.md", "ARCHITECTURE.md")
	link := regexp.MustCompile(`\]\(([^)\s]+)\)`)
	for _, p := range pages {
		for _, m := range link.FindAllStringSubmatch(page(t, p), -1) {
			target := m[1]
			if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
				continue
			}
			file, fragment, _ := strings.Cut(target, "#")
			path := p
			if file != "" {
				path = filepath.Join(filepath.Dir(p), filepath.FromSlash(file))
			}
			if _, err := os.Stat(path); err != nil {
				if filepath.Base(path) == "java.md" {
					continue // the Java helper's page, written on its own branch
				}
				t.Errorf("%s links to %s, which does not exist", p, target)
				continue
			}
			if fragment != "" && strings.HasSuffix(path, ".md") && !slices.Contains(anchors(page(t, path)), fragment) {
				t.Errorf("%s links to %s, but %s has no heading whose anchor is #%s (it has %v)", p, target, path, fragment, anchors(page(t, path)))
			}
		}
	}
}

// anchors are the fragments GitHub gives a page's headings (lower case, punctuation but - and _
// dropped, spaces as -), and the page's own <a id="..."> anchors.
func anchors(markdown string) []string {
	var out []string
	for _, m := range regexp.MustCompile(`<a id="([^"]+)">`).FindAllStringSubmatch(markdown, -1) {
		out = append(out, m[1])
	}
	inCode := false
	for _, line := range strings.Split(markdown, "\n") {
		if strings.HasPrefix(line, "```") {
			inCode = !inCode
		}
		if inCode || !strings.HasPrefix(line, "#") {
			continue
		}
		heading := strings.ToLower(strings.TrimSpace(strings.TrimLeft(line, "#")))
		var b strings.Builder
		for _, r := range heading {
			switch {
			case r == ' ':
				b.WriteRune('-')
			case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r):
				b.WriteRune(r)
			}
		}
		out = append(out, b.String())
	}
	return out
}

// TestReadmeIsAFrontDoor: the README stays a page a newcomer reads in a few minutes, beginning
// with the two commands; the rest belongs in docs/.
func TestReadmeIsAFrontDoor(t *testing.T) {
	text := page(t, "README.md")
	if n := strings.Count(text, "\n"); n >= 300 {
		t.Errorf("README.md has %d lines; keep it under 300 and move the rest to docs/", n)
	}
	_, rest, _ := strings.Cut(text, "```sh\n")
	if !strings.HasPrefix(rest, "make run ") || !strings.Contains(strings.SplitN(rest, "\n", 2)[1], "make test ") {
		t.Errorf("README.md should begin with a block of make run, then make test")
	}
}

// TestDocsCurlSendsContentType: a curl command of the pages that sends a body to the API says it
// is JSON, as the fake requires (without it curl sends application/x-www-form-urlencoded, and the
// answer is a 400). The control API under /_fake/ reads any body as JSON.
func TestDocsCurlSendsContentType(t *testing.T) {
	pages, _ := filepath.Glob(filepath.Join("docs", "*.md"))
	pages = append(pages, "README.md")
	for _, p := range pages {
		// A command continued with \ at the end of a line is one command.
		text := strings.ReplaceAll(page(t, p), "\\\n", " ")
		for _, line := range strings.Split(text, "\n") {
			cmd := strings.TrimSpace(line)
			if !strings.HasPrefix(cmd, "curl ") || !regexp.MustCompile(` (-d|--data(-binary|-raw)?) `).MatchString(cmd) {
				continue
			}
			if strings.Contains(cmd, "/_fake/") || !strings.Contains(cmd, "/v1/") {
				continue
			}
			if !strings.Contains(strings.ToLower(cmd), "content-type: application/json") {
				t.Errorf("%s: this curl sends a body to the API without 'content-type: application/json', and gets a 400:\n%s", p, cmd)
			}
		}
	}
}
