package conformance

import (
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/net/html"

	"github.com/platformkit/platformkit/fake"

	"github.com/platformkit/platformkit/conformance/kit"
)

// TestRerunAndCompareAgainstADeviatingTarget runs the models checks against a deployment and
// against the same deployment behind a proxy that lists models oldest first, compares the two
// runs, and reruns what did not pass against each.
func TestRerunAndCompareAgainstADeviatingTarget(t *testing.T) {
	good := deployment(t, fake.New())
	behind := fake.New()
	deviating := deployment(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/v1/models" && r.Header.Get("X-Api-Key") == kit.FakeAPIKey {
			w.Header().Set("Content-Type", "application/json")
			w.Header().Set("Request-Id", "req_deviating")
			w.Write(oldestFirst("A model"))
			return
		}
		behind.ServeHTTP(w, r)
	}))
	envOf := func(base string, kv ...string) map[string]string {
		m := map[string]string{"CONFORMANCE_BASE_URL": base, "CONFORMANCE_API_KEY": secretAPIKey,
			"CONFORMANCE_ADMIN_API_KEY": secretAdmin, "CONFORMANCE_BEARER_TOKEN": secretBearer,
			"CONFORMANCE_COMPLIANCE_API_KEY": kit.FakeComplianceKey}
		for i := 0; i+1 < len(kv); i += 2 {
			m[kv[i]] = kv[i+1]
		}
		return m
	}
	models := "-ginkgo.label-filter=models"
	before := runSuite(t, envOf(good.URL), models)
	after := runSuite(t, envOf(deviating.URL), models)
	beforeFile, afterFile := filepath.Join(before.reports, kit.ResultsFile), filepath.Join(after.reports, kit.ResultsFile)
	outcomes := func(s suiteRun) map[string]string {
		var doc kit.ResultsDocument
		if err := json.Unmarshal([]byte(s.file(t, kit.ResultsFile)), &doc); err != nil {
			t.Fatal(err)
		}
		out := map[string]string{}
		for _, r := range doc.Checks {
			out[r.ID] = r.Outcome
		}
		return out
	}
	was, is := outcomes(before), outcomes(after)
	if was["models/list-newest-first"] != kit.Passed || is["models/list-newest-first"] != kit.Failed {
		t.Fatalf("models/list-newest-first: %s on the deployment, %s behind the proxy; want passed, failed", was["models/list-newest-first"], is["models/list-newest-first"])
	}

	page, differ, err := kit.Compare([]string{beforeFile, afterFile}, false)
	if err != nil || !differ {
		t.Fatalf("Compare: differ %v, %v", differ, err)
	}
	if !strings.Contains(page, "| `models/list-newest-first` | 4.5 | passed | **failed** |") {
		t.Errorf("the comparison does not show the deviation:\n%s", page)
	}
	rows := 0
	for id, o := range was {
		if is[id] != o {
			rows++
		}
	}
	if got := strings.Count(page, "\n| `"); got != rows || !strings.Contains(page, "checks differ in outcome") {
		t.Errorf("the comparison lists %d checks, want the %d whose outcome differs:\n%s", got, rows, page)
	}
	if _, differ, err := kit.Compare([]string{beforeFile, beforeFile}, false); err != nil || differ {
		t.Errorf("a run compared with itself: differ %v, %v", differ, err)
	}
	if _, _, err := kit.Compare([]string{beforeFile}, false); err == nil {
		t.Errorf("Compare of one file: no error")
	}

	// Rerun what did not pass behind the proxy: against the proxy it fails again, against the
	// deployment it passes; every other check is left out.
	var notPassed []string
	for id, o := range is {
		if o == kit.Failed || o == kit.Error || o == kit.Unsupported {
			notPassed = append(notPassed, id)
		}
	}
	for _, tc := range []struct {
		base string
		want string
	}{{deviating.URL, kit.Failed}, {good.URL, kit.Passed}} {
		s := runSuite(t, envOf(tc.base, "CONFORMANCE_RERUN", afterFile))
		if !strings.Contains(s.out, "conformance: rerunning the ") {
			t.Errorf("the rerun does not say what it reruns:\n%s", s.out)
		}
		got := outcomes(s)
		ran := 0
		for _, o := range got {
			if o != kit.Disabled {
				ran++
			}
		}
		if ran != len(notPassed) || got["models/list-newest-first"] != tc.want {
			t.Errorf("rerun against %s: %d checks ran, want the %d that did not pass; models/list-newest-first %s, want %s",
				tc.base, ran, len(notPassed), got["models/list-newest-first"], tc.want)
		}
	}
	s := runSuite(t, envOf(good.URL, "CONFORMANCE_RERUN", filepath.Join(t.TempDir(), "missing.json")))
	if s.code == 0 || !strings.Contains(s.out, "CONFORMANCE_RERUN: ") {
		t.Errorf("a rerun of a missing results file: exit %d\n%s", s.code, s.out)
	}
	// A run that stopped before its first check says so first in its HTML report, with why.
	doc, err := html.Parse(strings.NewReader(s.file(t, kit.HTMLFile)))
	if err != nil {
		t.Fatal(err)
	}
	verdict, problem := text(node(doc, withID("verdict"))), text(node(node(doc, withID("problems")), tag("li")))
	if !strings.HasPrefix(verdict, "NOT RUN: 1 error before the first check") || !strings.HasPrefix(problem, "CONFORMANCE_RERUN: ") {
		t.Errorf("the HTML report of a run that did not run: verdict %q, problem %q", verdict, problem)
	}
}

// TestCompareDiffersAndRerunMode: an extension check's failure reads "differs" (apart in the
// totals, as the summary counts it), and -rerun compares a rerun with its original by the checks
// it reran only, instead of listing every check it left out as passed → disabled.
func TestCompareDiffersAndRerunMode(t *testing.T) {
	dir := t.TempDir()
	write := func(name, checks, counts string) string {
		f := filepath.Join(dir, name)
		doc := `{"target":"http://t","summary":"s","started":"2026-01-01T00:00:00Z","counts":` + counts + `,"checks":[` + checks + `]}`
		if err := os.WriteFile(f, []byte(doc), 0o644); err != nil {
			t.Fatal(err)
		}
		return f
	}
	original := write("original.json", `{"id":"a/ext","clause":"gaps §3","labels":["models","extension"],"outcome":"failed"},
		{"id":"a/x","clause":"4.5","labels":["models"],"outcome":"passed"},
		{"id":"a/y","clause":"4.5","labels":["models"],"outcome":"failed"},
		{"id":"a/z","clause":"4.5","labels":["models"],"outcome":"passed"}`,
		`{"passed":2,"failed":1,"extension_differences":1}`)
	rerun := write("rerun.json", `{"id":"a/ext","clause":"gaps §3","labels":["models","extension"],"outcome":"passed"},
		{"id":"a/x","clause":"4.5","labels":["models"],"outcome":"disabled","message":"not selected by the label filter or focus"},
		{"id":"a/y","clause":"4.5","labels":["models"],"outcome":"failed"},
		{"id":"a/z","clause":"4.5","labels":["models"],"outcome":"disabled","message":"not selected by the label filter or focus"}`,
		`{"passed":1,"failed":1,"disabled":2}`)

	page, differ, err := kit.Compare([]string{original, rerun}, false)
	for _, want := range []string{
		"| run | results file | target | started | passed | failed | differs | unsupported | disabled | errors |\n",
		"| #1 | " + original + " | http://t | 2026-01-01T00:00:00Z | 2 | 1 | 1 | 0 | 0 | 0 |\n",
		"\n3 of 4 checks differ in outcome.\n",
		"| `a/ext` | gaps §3 | **differs** | passed |\n",
		"| `a/x` | 4.5 | passed | **disabled** |\n",
	} {
		if err != nil || !differ || !strings.Contains(page, want) {
			t.Errorf("Compare: differ %v, %v; the page lacks %q:\n%s", differ, err, want, page)
		}
	}
	page, differ, err = kit.Compare([]string{original, rerun}, true)
	for _, want := range []string{
		"\nOnly the checks every run selected are compared (a rerun's): 2 of 4; 2 left out.\n",
		"\n1 of 2 checks differ in outcome.\n",
		"| `a/ext` | gaps §3 | **differs** | passed |\n",
	} {
		if err != nil || !differ || !strings.Contains(page, want) || strings.Contains(page, "`a/x`") {
			t.Errorf("Compare -rerun: differ %v, %v; the page lacks %q or lists a check the rerun left out:\n%s", differ, err, want, page)
		}
	}
	var out, errOut strings.Builder
	if code := kit.CompareMain("compare", []string{"-rerun", original, rerun}, &out, &errOut); code != 1 || !strings.Contains(out.String(), "1 of 2 checks differ") {
		t.Errorf("CompareMain -rerun: exit %d, want 1\n%s%s", code, out.String(), errOut.String())
	}
	if code := kit.CompareMain("compare", []string{original}, &out, &errOut); code != 2 || !strings.Contains(errOut.String(), "compare: compare needs two or more results files, got 1") {
		t.Errorf("CompareMain of one file: exit %d, want 2\n%s", code, errOut.String())
	}
}
