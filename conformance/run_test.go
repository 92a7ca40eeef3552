package conformance

import (
	"bytes"
	"context"
	"encoding/json"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/platformkit/platformkit/fake"

	"github.com/platformkit/platformkit/conformance/kit"
)

// Secrets an operator would configure. The deployments below take them in place of the fake's
// keys; a test fails if one of them appears in any output.
const (
	secretAPIKey = "sk-live-7f3a9c1e5b"
	secretAdmin  = "sk-admin-2d8e4f6a0c"
	secretBearer = "wif-token-9b1d3f5e7a"
)

// deployment serves the fake as an operator's deployment would look: no control API, and the
// operator's secrets instead of the fake's keys. Any other credential is passed on, so the fake
// rejects it as a deployment would.
func deployment(t *testing.T, h http.Handler) *httptest.Server {
	t.Helper()
	keys := map[string]string{secretAPIKey: kit.FakeAPIKey, secretAdmin: kit.FakeAdminKey}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasPrefix(r.URL.Path, "/_fake/") {
			http.NotFound(w, r)
			return
		}
		if k, ok := keys[r.Header.Get("X-Api-Key")]; ok {
			r.Header.Set("X-Api-Key", k)
		}
		if r.Header.Get("Authorization") == "Bearer "+secretBearer {
			r.Header.Set("Authorization", "Bearer "+kit.FakeBearerToken)
		}
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	return srv
}

// echoAdminKey answers every administration call 401 with a message quoting the key it was given,
// as some gateways do: the preflight line must still not show it.
func echoAdminKey(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasPrefix(r.URL.Path, "/v1/organizations/me") {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusUnauthorized)
			fmt.Fprintf(w, `{"type":"error","error":{"type":"authentication_error","message":"unknown key %s"},"request_id":"req_1"}`, r.Header.Get("X-Api-Key"))
			return
		}
		next.ServeHTTP(w, r)
	})
}

func env(base string, kv ...string) func(string) string {
	m := map[string]string{"CONFORMANCE_BASE_URL": base}
	for i := 0; i+1 < len(kv); i += 2 {
		m[kv[i]] = kv[i+1]
	}
	return func(k string) string { return m[k] }
}

func TestPreflightRejectsCredentialsOneLineEach(t *testing.T) {
	srv := deployment(t, echoAdminKey(fake.New()))
	cfg := kit.ConfigFromEnv(env(srv.URL,
		"CONFORMANCE_API_KEY", secretAPIKey, // accepted
		"CONFORMANCE_ADMIN_API_KEY", "sk-admin-wrong-1234", // rejected, and echoed by the target
		"CONFORMANCE_BEARER_TOKEN", "wif-token-wrong-5678", // rejected
		"CONFORMANCE_COMPLIANCE_API_KEY", kit.FakeAPIKey, // a valid key of another interface: 403
	))
	var out bytes.Buffer
	r := kit.Begin(context.Background(), cfg, nil, &out)
	want := []string{
		"CONFORMANCE_ADMIN_API_KEY rejected: 401 authentication_error: unknown key [CONFORMANCE_ADMIN_API_KEY]",
		"CONFORMANCE_COMPLIANCE_API_KEY rejected: 403 permission_error: ",
		"CONFORMANCE_BEARER_TOKEN rejected: 401 authentication_error: ",
	}
	if len(r.Problems) != len(want) {
		t.Fatalf("problems = %q, want one line for each of the 3 rejected credentials", r.Problems)
	}
	for i, w := range want {
		if !strings.HasPrefix(r.Problems[i], w) {
			t.Errorf("problem %d = %q, want it to start with %q", i, r.Problems[i], w)
		}
	}
	for _, secret := range []string{"sk-admin-wrong-1234", "wif-token-wrong-5678", secretAPIKey} {
		if strings.Contains(out.String(), secret) {
			t.Errorf("the preflight output shows a secret:\n%s", out.String())
		}
	}
	if !strings.Contains(out.String(), "is a deployment: fake-only checks are disabled") {
		t.Errorf("the output does not say what the target is:\n%s", out.String())
	}
	if s := r.Summary(); !strings.HasPrefix(s, "conformance: not run: 3 errors") {
		t.Errorf("summary = %q, want it to say the run did not happen", s)
	}
}

func TestPreflightAcceptsWorkingCredentials(t *testing.T) {
	srv := deployment(t, fake.New())
	cfg := kit.ConfigFromEnv(env(srv.URL, "CONFORMANCE_API_KEY", secretAPIKey, "CONFORMANCE_ADMIN_API_KEY", secretAdmin,
		"CONFORMANCE_BEARER_TOKEN", secretBearer, "CONFORMANCE_ENVIRONMENT_KEY", kit.FakeEnvironmentKey+"x"))
	var out bytes.Buffer
	r := kit.Begin(context.Background(), cfg, nil, &out)
	if len(r.Problems) != 1 || !strings.HasPrefix(r.Problems[0], "CONFORMANCE_ENVIRONMENT_KEY rejected: 401") {
		t.Errorf("problems = %q, want only the unknown environment key (403 outside its environment is not a rejection)", r.Problems)
	}
	// The rejected key stops the run, so nothing is said of checks that will not run.
	if strings.Contains(out.String(), "skipping") {
		t.Errorf("a run stopped by the preflight announces skipped interfaces:\n%s", out.String())
	}
}

// TestNoCredentialsAgainstADeployment: with no credential exported, the fake's keys are never sent
// to a deployment (the fake behind deployment() would take them): each interface is one line of
// the preflight and one of the summary, and its checks are unsupported naming the variable, never
// failed with a 401.
func TestNoCredentialsAgainstADeployment(t *testing.T) {
	srv := deployment(t, fake.New())
	s := runSuite(t, map[string]string{"CONFORMANCE_BASE_URL": srv.URL}, "-ginkgo.label-filter=models || admin || tunnels")
	for _, line := range []string{
		"conformance: skipping the API key's interfaces (models, messages, memory, work): CONFORMANCE_API_KEY is not set, so their checks are not configured\n",
		"conformance: skipping the Admin API: CONFORMANCE_ADMIN_API_KEY is not set, so their checks are not configured\n",
		"conformance: skipping the Compliance API: CONFORMANCE_COMPLIANCE_API_KEY is not set, so their checks are not configured\n",
		"conformance: skipping MCP tunnels (a workload-identity token): CONFORMANCE_BEARER_TOKEN is not set, so their checks are not configured\n",
		"conformance: skipping an environment's work queue (an environment key): CONFORMANCE_ENVIRONMENT_KEY is not set, so their checks are not configured\n",
		"checks: CONFORMANCE_ADMIN_API_KEY is not set: export it to run the checks of the Admin API\n",
	} {
		if strings.Count(s.out, line) != 1 {
			t.Errorf("the output does not hold once %q:\n%s", line, s.out)
		}
	}
	var results kit.ResultsDocument
	if err := json.Unmarshal([]byte(s.file(t, kit.ResultsFile)), &results); err != nil {
		t.Fatal(err)
	}
	unsupported := 0
	for _, res := range results.Checks {
		if (res.Outcome == kit.Failed || res.Outcome == kit.Error) && strings.Contains(res.Message, "401") {
			t.Errorf("%s %s with a 401: %s", res.ID, res.Outcome, res.Message)
		}
		if res.ID == "admin/interface-credential-accepted" && (res.Outcome != kit.NotConfigured || res.Message != "CONFORMANCE_ADMIN_API_KEY is not set: export it to run the checks of the Admin API") {
			t.Errorf("%s: %s %q, want not configured, naming the variable", res.ID, res.Outcome, res.Message)
		}
		if res.Outcome == kit.NotConfigured {
			unsupported++
		}
	}
	// "Unsupported" is the target's answer; an unset variable says nothing of the target.
	if unsupported < 50 || results.Counts.Unsupported != 0 {
		t.Errorf("%d checks not configured and %d unsupported, want the checks of the selected interfaces not configured, none unsupported:\n%s", unsupported, results.Counts.Unsupported, s.out)
	}
}

// closedPort is an address where nothing listens.
func closedPort(t *testing.T) string {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	return "http://" + addr
}

func TestUnreachableTargetIsOneLine(t *testing.T) {
	base := closedPort(t)
	var out bytes.Buffer
	r := kit.Begin(context.Background(), kit.ConfigFromEnv(env(base)), nil, &out)
	if got, want := out.String(), "cannot reach "+base+": connection refused\n"; got != want {
		t.Errorf("output = %q, want %q", got, want)
	}
	if s := r.Summary(); strings.Contains(s, "0 errors") || !strings.Contains(s, "not run: 1 error") {
		t.Errorf("summary = %q, want it to say the run did not happen", s)
	}
}

func TestColour(t *testing.T) {
	file, err := os.Create(filepath.Join(t.TempDir(), "out"))
	if err != nil {
		t.Fatal(err)
	}
	defer file.Close()
	tty, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0) // a character device, as a terminal is
	if err != nil {
		t.Fatal(err)
	}
	defer tty.Close()
	none := func(string) string { return "" }
	noColor := func(k string) string { return map[string]string{"NO_COLOR": "1"}[k] }
	if kit.ColourWanted(file, none) {
		t.Error("colour into a file")
	}
	if !kit.ColourWanted(tty, none) {
		t.Error("no colour on a character device")
	}
	if kit.ColourWanted(tty, noColor) {
		t.Error("colour although NO_COLOR is set")
	}
}

func TestClauseOrder(t *testing.T) {
	ids := kit.ClauseIDs()
	pos := map[string]int{}
	for i, id := range ids {
		pos[id] = i
	}
	for _, pair := range [][2]string{{"2.2", "2.10"}, {"2.17", "3.1"}, {"9", "gaps §1"}, {"gaps §5", "gaps §5b"}, {"gaps §5b", "gaps §6"}, {"gaps §9", "gaps §10"}, {"gaps §10", kit.ClauseFake}} {
		if pos[pair[0]] >= pos[pair[1]] {
			t.Errorf("%q sorts after %q in %q", pair[0], pair[1], ids)
		}
	}
}

// suiteRun is what an operator sees of one run of the suite.
type suiteRun struct {
	out     string
	code    int
	reports string // the reports directory
}

// runSuite runs the suite as an operator would, as a child process of this test binary running
// only TestConformance, with the environment env (and no CONFORMANCE_ variable of this process).
func runSuite(t *testing.T, env map[string]string, args ...string) suiteRun {
	t.Helper()
	dir := t.TempDir()
	cmd := exec.Command(os.Args[0], append([]string{"-test.run=^TestConformance$"}, args...)...)
	cmd.Env = []string{"CONFORMANCE_REPORTS=" + dir}
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "CONFORMANCE_") && !strings.HasPrefix(kv, "NO_COLOR=") {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	for k, v := range env {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	out, err := cmd.CombinedOutput()
	var exit *exec.ExitError
	code := 0
	if errors.As(err, &exit) {
		code = exit.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return suiteRun{out: string(out), code: code, reports: dir}
}

func (s suiteRun) lastLine() string {
	lines := strings.Split(strings.TrimRight(s.out, "\n"), "\n")
	return lines[len(lines)-1]
}

func (s suiteRun) file(t *testing.T, name string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(s.reports, name))
	if err != nil {
		t.Fatalf("report %s: %v", name, err)
	}
	return string(data)
}

func TestSuiteStopsOnRejectedCredentials(t *testing.T) {
	srv := deployment(t, fake.New())
	s := runSuite(t, map[string]string{"CONFORMANCE_BASE_URL": srv.URL, "CONFORMANCE_API_KEY": secretAPIKey,
		"CONFORMANCE_ADMIN_API_KEY": "sk-admin-wrong-1234"})
	if s.code == 0 {
		t.Errorf("exit status 0 with a rejected credential:\n%s", s.out)
	}
	if n := strings.Count(s.out, "rejected: "); n != 1 || !strings.Contains(s.out, "\nCONFORMANCE_ADMIN_API_KEY rejected: 401 authentication_error: ") {
		t.Errorf("want one line for the rejected admin key, got %d:\n%s", n, s.out)
	}
	if strings.Contains(s.out, "Ran ") || strings.Contains(s.out, "sk-admin-wrong-1234") {
		t.Errorf("checks ran, or the secret shows:\n%s", s.out)
	}
	if got := s.lastLine(); !strings.HasPrefix(got, "conformance: not run: 1 error") {
		t.Errorf("last line = %q, want the summary", got)
	}
	if j := s.file(t, kit.JUnitFile); !strings.Contains(j, `tests="1" failures="0" errors="1"`) {
		t.Errorf("the JUnit report does not count the one problem:\n%s", j)
	}
}

func TestSuiteStopsOnUnreachableTarget(t *testing.T) {
	base := closedPort(t)
	s := runSuite(t, map[string]string{"CONFORMANCE_BASE_URL": base})
	if s.code == 0 || !strings.HasPrefix(s.out, "cannot reach "+base+": connection refused\n") {
		t.Errorf("exit %d, output:\n%s", s.code, s.out)
	}
	if got := s.lastLine(); strings.Contains(got, "0 errors") || !strings.HasPrefix(got, "conformance: not run: 1 error") {
		t.Errorf("last line = %q", got)
	}
}

// TestReportsAgreeWithTheSummary runs the models checks against a deployment whose model list is
// oldest first and names the API key in a display name: the JUnit counts must be the summary's,
// the JSON results and the Markdown report must hold every check and the failing exchange, and
// no output may show the key.
func TestReportsAgreeWithTheSummary(t *testing.T) {
	good := fake.New()
	srv := deployment(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/v1/models" && r.Header.Get("X-Api-Key") == kit.FakeAPIKey {
			w.Header().Set("Content-Type", "application/json")
			w.Header().Set("Request-Id", "req_broken")
			w.Write(oldestFirst("A " + secretAPIKey))
			return
		}
		good.ServeHTTP(w, r)
	}))
	s := runSuite(t, map[string]string{"CONFORMANCE_BASE_URL": srv.URL, "CONFORMANCE_API_KEY": secretAPIKey,
		"CONFORMANCE_ADMIN_API_KEY": secretAdmin, "CONFORMANCE_BEARER_TOKEN": secretBearer,
		"CONFORMANCE_COMPLIANCE_API_KEY": kit.FakeComplianceKey}, "-ginkgo.label-filter=models || core")
	if s.code == 0 {
		t.Errorf("exit status 0 although checks failed")
	}

	if strings.Contains(s.out, "\x1b[") {
		t.Errorf("ANSI colour in output that is not a terminal:\n%q", s.out)
	}
	summary := regexp.MustCompile(`^conformance: (\d+) passed, (\d+) failed, (\d+) differs? on extensions, (\d+) unsupported, (\d+) disabled, (\d+) errors?$`)
	if n := len(regexp.MustCompile(`(?m)^conformance: \d+ passed`).FindAllString(s.out, -1)); n != 1 || strings.Contains(s.out, "Ran ") || strings.Contains(s.out, "FAIL! --") {
		t.Errorf("%d summary lines of the suite, want 1 and none of ginkgo's:\n%s", n, s.out)
	}
	m := summary.FindStringSubmatch(s.lastLine())
	if m == nil {
		t.Fatalf("last line %q is not the summary:\n%s", s.lastLine(), s.out)
	}
	var c kit.Counts
	fmt.Sscan(strings.Join(m[1:], " "), &c.Passed, &c.Failed, &c.Differ, &c.Unsupported, &c.Disabled, &c.Errors)
	// The broken list fails checks of the reference's statements and extension checks (gaps §3:
	// first_id and last_id), which are counted apart.
	if c.Failed == 0 || c.Differ == 0 || c.Passed == 0 || c.Disabled == 0 {
		t.Errorf("counts %+v: want passes, failures, differences on extensions and disabled checks", c)
	}
	for _, line := range []string{"  failed      [4.5] the model list is ordered by release time, most recent first (models/list-newest-first)\n",
		"  differs     [gaps §3] first_id and last_id are the IDs of the first and last item, and null on an empty page (models/list-cursors)\n"} {
		if !strings.Contains(s.out, line) {
			t.Errorf("the output lacks %q:\n%s", line, s.out)
		}
	}

	var junit kit.JUnitSuites
	if err := xml.Unmarshal([]byte(s.file(t, kit.JUnitFile)), &junit); err != nil {
		t.Fatal(err)
	}
	props := map[string]string{}
	for _, p := range junit.Suites[0].Properties {
		props[p.Name] = p.Value
	}
	if props["label_filter"] != "models || core" || props["suite_version"] != "devel" || props["api_version"] != "2023-06-01" || props["destructive"] != "off" || props["credentials_default"] != "none" || props["credentials_unset"] != "CONFORMANCE_ENVIRONMENT_KEY, CONFORMANCE_API_KEY_2, CONFORMANCE_ADMIN_API_KEY_2, CONFORMANCE_COMPLIANCE_API_KEY_2, CONFORMANCE_BEARER_TOKEN_2" {
		t.Errorf("the JUnit properties do not record how the suite was run: %v", props)
	}
	got := [4]int{junit.Tests, junit.Failures, junit.Errors, junit.Skipped}
	if want := [4]int{c.Total(), c.Failed + c.Differ, c.Errors, c.Unsupported + c.Disabled}; got != want || len(junit.Suites[0].Cases) != c.Total() {
		t.Errorf("JUnit tests/failures/errors/skipped = %v (%d cases), want the summary's %v", got, len(junit.Suites[0].Cases), want)
	}

	var results kit.ResultsDocument
	if err := json.Unmarshal([]byte(s.file(t, kit.ResultsFile)), &results); err != nil {
		t.Fatal(err)
	}
	if results.Counts != c {
		t.Errorf("results counts %+v, want the summary's %+v", results.Counts, c)
	}
	differ := 0
	for _, r := range results.Checks {
		if r.Outcome == kit.Failed && slices.Contains(r.Labels, "extension") {
			differ++
		}
	}
	if differ != c.Differ {
		t.Errorf("%d failed extension checks in the results, but the summary counts %d apart", differ, c.Differ)
	}
	if len(results.Checks) != len(kit.Checks()) || results.Summary != s.lastLine() {
		t.Errorf("results hold %d checks and summary %q; want %d and the printed summary", len(results.Checks), results.Summary, len(kit.Checks()))
	}
	if rc := results.Run; rc.SuiteVersion != "devel" || rc.SuiteCommit == "" || rc.APIVersion != "2023-06-01" || rc.LabelFilter != "models || core" ||
		!slices.Equal(rc.CredentialsSet, []string{"CONFORMANCE_API_KEY", "CONFORMANCE_ADMIN_API_KEY", "CONFORMANCE_COMPLIANCE_API_KEY", "CONFORMANCE_BEARER_TOKEN"}) ||
		// Against a deployment nothing defaults to the fake's keys: what is not exported is unset.
		!slices.Equal(rc.CredentialsDefault, []string{}) ||
		!slices.Equal(rc.CredentialsUnset, []string{"CONFORMANCE_ENVIRONMENT_KEY", "CONFORMANCE_API_KEY_2", "CONFORMANCE_ADMIN_API_KEY_2", "CONFORMANCE_COMPLIANCE_API_KEY_2", "CONFORMANCE_BEARER_TOKEN_2"}) ||
		rc.Destructive || rc.TimeoutSeconds != 60 || rc.WorkEnqueue {
		t.Errorf("the results do not record how the suite was run: %+v", rc)
	}
	var failed *kit.Result
	for i, r := range results.Checks {
		if r.ID == "" || r.ClauseTitle == "" || len(r.Labels) == 0 || r.Outcome == "" {
			t.Errorf("incomplete result %+v", r)
		}
		if r.ID == "models/list-newest-first" {
			failed = &results.Checks[i]
		}
	}
	if failed == nil || failed.Outcome != kit.Failed || failed.Exchange == nil ||
		!strings.Contains(failed.Exchange.Request, "GET "+srv.URL+"/v1/models") ||
		!strings.Contains(failed.Exchange.Request, "X-Api-Key: [CONFORMANCE_API_KEY]") ||
		!strings.Contains(failed.Exchange.Response, "Request-Id: req_broken") {
		t.Errorf("the failed check's result does not show the exchange that failed it: %+v", failed)
	}

	checkHTMLReport(t, s.file(t, kit.HTMLFile), results, secretAPIKey, secretAdmin, secretBearer)
	md := s.file(t, kit.HumanFile)
	for _, want := range []string{"## By area", "## By clause", "| 4.5 | Models |", "### failed: models/list-newest-first", "### differs: models/list-cursors", "| area | passed | failed | differ on extensions |",
		"- suite_version: devel\n- suite_commit: ", "- label_filter: models \\|\\| core\n", "- credentials_set: CONFORMANCE_API_KEY, CONFORMANCE_ADMIN_API_KEY, CONFORMANCE_COMPLIANCE_API_KEY, CONFORMANCE_BEARER_TOKEN\n",
		"- destructive: off\n- timeout: 1m0s\n", "- api_version: 2023-06-01\n",
		"Request:", "X-Api-Key: [CONFORMANCE_API_KEY]", "## Disabled, and why", "needs the fake's control API"} {
		if !strings.Contains(md, want) {
			t.Errorf("the report lacks %q:\n%s", want, md)
		}
	}
	for name, text := range map[string]string{"output": s.out, kit.JUnitFile: s.file(t, kit.JUnitFile), kit.ResultsFile: s.file(t, kit.ResultsFile), kit.HumanFile: md} {
		for _, secret := range []string{secretAPIKey, secretAdmin, secretBearer} {
			if strings.Contains(text, secret) {
				t.Errorf("%s shows a configured secret", name)
			}
		}
	}
}

// TestFakeTargetIsAnnouncedAndReset: a fake the operator left running is said to be the fake, with
// what that turns on, and is back at its fixtures (here, its clock) when the run ends.
func TestFakeTargetIsAnnouncedAndReset(t *testing.T) {
	fk := fake.New()
	srv := httptest.NewServer(fk)
	t.Cleanup(srv.Close)
	var out bytes.Buffer
	r := kit.Begin(context.Background(), kit.ConfigFromEnv(env(srv.URL)), nil, &out)
	if len(r.Problems) > 0 || !strings.HasPrefix(out.String(), "conformance: target "+srv.URL+" is the fake (GET /_fake/health answers): fake-only and destructive checks are on, and the fake is reset") {
		t.Fatalf("problems %q, output:\n%s", r.Problems, out.String())
	}
	start := fk.Now()
	fk.AdvanceClock(time.Hour)
	if err := r.Finish(context.Background(), "", &out); err != nil {
		t.Fatal(err)
	}
	if got := fk.Now(); !got.Equal(start) {
		t.Errorf("clock after the run = %v, want %v: the fake was not reset", got, start)
	}
}

// TestRedaction: the longer of two credentials that share a prefix is redacted as itself, and a
// revealed tunnel token (the deployment's secret, not a configured one) is redacted too.
func TestRedaction(t *testing.T) {
	r := kit.Begin(context.Background(), kit.ConfigFromEnv(env(closedPort(t), "CONFORMANCE_API_KEY", "test-api-key",
		"CONFORMANCE_API_KEY_2", "test-api-key-2", "CONFORMANCE_BEARER_TOKEN", "test-bearer-token")), nil, io.Discard)
	got := r.Redact(`X-Api-Key: test-api-key-2; Authorization: Bearer test-bearer-token; {"tunnel_token": "tt_a\"b", "id":"ttkn_1"}`)
	if want := `X-Api-Key: [CONFORMANCE_API_KEY_2]; Authorization: Bearer [CONFORMANCE_BEARER_TOKEN]; {"tunnel_token": "[redacted]", "id":"ttkn_1"}`; got != want {
		t.Errorf("Redact = %q, want %q", got, want)
	}
}
