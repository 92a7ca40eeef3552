package conformance

import (
	"encoding/json"
	"net/http"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/net/html"

	"github.com/platformkit/platformkit/fake"
)

// TestRerunAndCompareAgainstADeviatingTarget runs the models checks against a deployment and
// against the same deployment behind a proxy that lists models oldest first, compares the two
// runs, and reruns what did not pass against each.
func TestRerunAndCompareAgainstADeviatingTarget(t *testing.T) {
	good := deployment(t, fake.New())
	behind := fake.New()
	deviating := deployment(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/v1/models" && r.Header.Get("X-Api-Key") == FakeAPIKey {
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
			"CONFORMANCE_COMPLIANCE_API_KEY": FakeComplianceKey}
		for i := 0; i+1 < len(kv); i += 2 {
			m[kv[i]] = kv[i+1]
		}
		return m
	}
	models := "-ginkgo.label-filter=models"
	before := runSuite(t, envOf(good.URL), models)
	after := runSuite(t, envOf(deviating.URL), models)
	beforeFile, afterFile := filepath.Join(before.reports, ResultsFile), filepath.Join(after.reports, ResultsFile)
	outcomes := func(s suiteRun) map[string]string {
		var doc resultsDocument
		if err := json.Unmarshal([]byte(s.file(t, ResultsFile)), &doc); err != nil {
			t.Fatal(err)
		}
		out := map[string]string{}
		for _, r := range doc.Checks {
			out[r.ID] = r.Outcome
		}
		return out
	}
	was, is := outcomes(before), outcomes(after)
	if was["models/list-newest-first"] != Passed || is["models/list-newest-first"] != Failed {
		t.Fatalf("models/list-newest-first: %s on the deployment, %s behind the proxy; want passed, failed", was["models/list-newest-first"], is["models/list-newest-first"])
	}

	page, differ, err := Compare([]string{beforeFile, afterFile})
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
	if _, differ, err := Compare([]string{beforeFile, beforeFile}); err != nil || differ {
		t.Errorf("a run compared with itself: differ %v, %v", differ, err)
	}
	if _, _, err := Compare([]string{beforeFile}); err == nil {
		t.Errorf("Compare of one file: no error")
	}

	// Rerun what did not pass behind the proxy: against the proxy it fails again, against the
	// deployment it passes; every other check is left out.
	var notPassed []string
	for id, o := range is {
		if o == Failed || o == Error || o == Unsupported {
			notPassed = append(notPassed, id)
		}
	}
	for _, tc := range []struct {
		base string
		want string
	}{{deviating.URL, Failed}, {good.URL, Passed}} {
		s := runSuite(t, envOf(tc.base, "CONFORMANCE_RERUN", afterFile))
		if !strings.Contains(s.out, "conformance: rerunning the ") {
			t.Errorf("the rerun does not say what it reruns:\n%s", s.out)
		}
		got := outcomes(s)
		ran := 0
		for _, o := range got {
			if o != Disabled {
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
	doc, err := html.Parse(strings.NewReader(s.file(t, HTMLFile)))
	if err != nil {
		t.Fatal(err)
	}
	verdict, problem := text(node(doc, withID("verdict"))), text(node(node(doc, withID("problems")), tag("li")))
	if !strings.HasPrefix(verdict, "NOT RUN: 1 error before the first check") || !strings.HasPrefix(problem, "CONFORMANCE_RERUN: ") {
		t.Errorf("the HTML report of a run that did not run: verdict %q, problem %q", verdict, problem)
	}
}
