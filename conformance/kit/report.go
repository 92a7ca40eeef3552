package kit

import (
	"encoding/json"
	"encoding/xml"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"
)

// Report files, written by WriteReports into one directory.
const (
	JUnitFile   = "conformance-junit.xml"    // for CI: one test case per check
	ResultsFile = "conformance-results.json" // for tools: every check and how it ended
	HumanFile   = "conformance-report.md"    // for people: one page, by clause and by area
	HTMLFile    = "conformance-report.html"  // for the deployment's owners: one self-contained page with reproducers
)

// suiteName names the ginkgo suite and the JUnit suite.
const suiteName = "Platform API conformance"

// WriteReports writes the JUnit report, the JSON results and the human reports into dir (created
// when missing) and returns their paths. Their counts are the summary's: one test case per check,
// plus one error per problem that stopped the run.
func (r *Run) WriteReports(dir string) ([]string, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	junit, err := r.JUnit()
	if err != nil {
		return nil, err
	}
	results, err := r.JSON()
	if err != nil {
		return nil, err
	}
	page, err := r.HTML()
	if err != nil {
		return nil, err
	}
	var paths []string
	for _, f := range []struct {
		name string
		data []byte
	}{{JUnitFile, junit}, {ResultsFile, results}, {HumanFile, []byte(r.Markdown())}, {HTMLFile, page}} {
		p := filepath.Join(dir, f.name)
		if err := os.WriteFile(p, f.data, 0o644); err != nil {
			return nil, err
		}
		paths = append(paths, p)
	}
	return paths, nil
}

func (r *Run) targetURL() string {
	if r.Target != nil {
		return r.Target.Config.BaseURL
	}
	return r.Config.BaseURL
}

// runConfig is what a report records of how the suite was run, so that an archived report can be
// reproduced: the suite's version, the selection, and the configuration with no secret in it
// (credentials by the names of their variables only).
type runConfig struct {
	SuiteVersion string   `json:"suite_version"`
	SuiteCommit  string   `json:"suite_commit"`
	LabelFilter  string   `json:"label_filter"`
	Focus        []string `json:"focus"`
	// APIVersion is the API version every request of the run named (CONFORMANCE_API_VERSION).
	APIVersion string `json:"api_version"`
	// CredentialsSet were configured; CredentialsDefault were not, and the fake's value was sent;
	// CredentialsUnset were not, and have no default (a second organization's against a
	// deployment), so the checks that need them were disabled.
	CredentialsSet     []string `json:"credentials_set"`
	CredentialsDefault []string `json:"credentials_default"`
	CredentialsUnset   []string `json:"credentials_unset"`
	Destructive        bool     `json:"destructive"`
	TimeoutSeconds     float64  `json:"timeout_seconds"`
	WorkEnqueue        bool     `json:"work_enqueue_command"`
}

func (r *Run) runConfig() runConfig {
	cfg := r.Config
	if r.Target != nil {
		cfg = r.Target.Config // as the run used it: destructive is on against the fake
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = DefaultTimeout
	}
	rc := runConfig{SuiteVersion: Version(), SuiteCommit: Commit(), LabelFilter: r.LabelFilter, Focus: append([]string{}, r.Focus...), APIVersion: cfg.APIVersion,
		CredentialsSet: []string{}, CredentialsDefault: []string{}, CredentialsUnset: []string{},
		Destructive: cfg.Destructive, TimeoutSeconds: cfg.Timeout.Seconds(), WorkEnqueue: cfg.WorkEnqueue != ""}
	// A credential the operator did not set is the fake's default when the target is the fake.
	exported := credentials(r.Config)
	for i, c := range credentials(cfg) {
		switch {
		case c.value == "":
			rc.CredentialsUnset = append(rc.CredentialsUnset, c.name)
		case exported[i].value == "":
			rc.CredentialsDefault = append(rc.CredentialsDefault, c.name)
		default:
			rc.CredentialsSet = append(rc.CredentialsSet, c.name)
		}
	}
	return rc
}

// lines is the configuration as the Markdown report and the JUnit properties show it.
func (rc runConfig) lines() [][2]string {
	list := func(names []string) string {
		if len(names) == 0 {
			return "none"
		}
		return strings.Join(names, ", ")
	}
	filter := rc.LabelFilter
	if filter == "" {
		filter = "none"
	}
	focus := list(rc.Focus)
	onOff := func(b bool) string {
		if b {
			return "on"
		}
		return "off"
	}
	enqueue := "not set"
	if rc.WorkEnqueue {
		enqueue = "set"
	}
	return [][2]string{
		{"suite_version", rc.SuiteVersion}, {"suite_commit", rc.SuiteCommit}, {"api_version", rc.APIVersion},
		{"label_filter", filter}, {"focus", focus},
		{"credentials_set", list(rc.CredentialsSet)},
		{"credentials_default", list(rc.CredentialsDefault)},
		{"credentials_unset", list(rc.CredentialsUnset)},
		{"destructive", onOff(rc.Destructive)},
		{"timeout", time.Duration(rc.TimeoutSeconds * float64(time.Second)).String()},
		{"work_enqueue_command", enqueue},
	}
}

func (r *Run) targetKind() string {
	switch {
	case r.Target == nil:
		return "unreachable"
	case r.Target.InProcess:
		return "in-process fake"
	case r.Target.IsFake:
		return "fake"
	}
	return "deployment"
}

// junitTotals are the counts JUnit readers show, on the document and on its one suite.
type junitTotals struct {
	Tests    int     `xml:"tests,attr"`
	Failures int     `xml:"failures,attr"`
	Errors   int     `xml:"errors,attr"`
	Skipped  int     `xml:"skipped,attr"`
	Time     float64 `xml:"time,attr"`
}

type JUnitSuites struct {
	XMLName xml.Name `xml:"testsuites"`
	Name    string   `xml:"name,attr"`
	junitTotals
	Suites []junitSet `xml:"testsuite"`
}

type junitSet struct {
	Name string `xml:"name,attr"`
	junitTotals
	Timestamp  string          `xml:"timestamp,attr"`
	Properties []junitProperty `xml:"properties>property"`
	Cases      []junitCase     `xml:"testcase"`
}

type junitProperty struct {
	Name  string `xml:"name,attr"`
	Value string `xml:"value,attr"`
}

type junitCase struct {
	Name      string        `xml:"name,attr"`
	Classname string        `xml:"classname,attr"`
	Time      float64       `xml:"time,attr"`
	Failure   *junitMessage `xml:"failure"`
	Error     *junitMessage `xml:"error"`
	Skipped   *junitMessage `xml:"skipped"`
	SystemOut string        `xml:"system-out,omitempty"`
}

type junitMessage struct {
	Message string `xml:"message,attr"`
	Type    string `xml:"type,attr,omitempty"`
	Text    string `xml:",chardata"`
}

// JUnit renders the run as a JUnit report: one test case per check, classed by area; failed
// checks are failures, suite errors and preflight problems are errors, unsupported and disabled
// checks are skipped with their outcome as the skip's type.
func (r *Run) JUnit() ([]byte, error) {
	c := r.Counts()
	// In a strict run an unsupported check fails the run, so CI shows it as a failure.
	failures, skipped := c.Failed+c.Differ, c.Unsupported+c.Disabled+c.Blocked+c.NotConfigured
	if r.Strict() {
		failures, skipped = failures+c.Unsupported+c.Blocked, c.Disabled+c.NotConfigured
	}
	set := junitSet{
		Name: suiteName,
		junitTotals: junitTotals{Tests: c.Total(), Failures: failures, Errors: c.Errors,
			Skipped: skipped, Time: r.Elapsed.Seconds()},
		Timestamp: r.Started.UTC().Format(time.RFC3339),
		Properties: []junitProperty{
			{"target", r.targetURL()}, {"target_kind", r.targetKind()}, {"summary", r.Summary()},
		},
	}
	for _, l := range r.runConfig().lines() {
		set.Properties = append(set.Properties, junitProperty{l[0], l[1]})
	}
	for _, p := range r.Problems {
		set.Cases = append(set.Cases, junitCase{Name: "preflight: " + p, Classname: "preflight",
			Error: &junitMessage{Message: p, Type: Error}})
	}
	for _, res := range r.Results {
		jc := junitCase{Name: fmt.Sprintf("[%s] %s (%s)", res.Clause, res.Statement, res.ID),
			Classname: area(res), Time: res.Seconds, SystemOut: strings.Join(res.CleanupFailures, "\n")}
		msg := &junitMessage{Message: firstLine(res.Message), Type: res.ShownOutcome(), Text: res.Message}
		if res.Exchange != nil {
			msg.Text += "\n\n" + res.Exchange.Request + "\n" + res.Exchange.Response
		}
		switch res.Outcome {
		case Failed:
			jc.Failure = msg
		case Error:
			jc.Error = msg
		case Unsupported:
			if r.Strict() {
				jc.Failure = msg
			} else {
				jc.Skipped = msg
			}
		case Disabled, NotConfigured:
			jc.Skipped = msg
		case Blocked:
			if r.Strict() {
				jc.Failure = msg
			} else {
				jc.Skipped = msg
			}
		}
		set.Cases = append(set.Cases, jc)
	}
	doc := JUnitSuites{Name: suiteName, junitTotals: set.junitTotals, Suites: []junitSet{set}}
	out, err := xml.MarshalIndent(doc, "", "  ")
	if err != nil {
		return nil, err
	}
	return append([]byte(xml.Header), append(out, '\n')...), nil
}

// area is a result's area label.
func area(res Result) string {
	for _, l := range res.Labels {
		for _, a := range Areas {
			if l == string(a) {
				return l
			}
		}
	}
	return ""
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}

// ResultsDocument is the JSON results file.
type ResultsDocument struct {
	Target     string    `json:"target"`
	TargetKind string    `json:"target_kind"`
	Run        runConfig `json:"run"`
	Started    string    `json:"started"`
	Seconds    float64   `json:"duration_seconds"`
	Summary    string    `json:"summary"`
	Strict     bool      `json:"strict"` // unsupported checks fail the run
	Counts     Counts    `json:"counts"`
	Problems   []string  `json:"problems"`
	// Causes are the failed preconditions, each with the checks it blocked, most first.
	Causes []disabledGroup `json:"causes"`
	Notes  []string        `json:"notes"`
	Checks []Result        `json:"checks"`
}

// JSON renders the run as the JSON results file: the summary, its counts, and every check with
// its clause, labels, outcome, duration, message and failing exchange.
func (r *Run) JSON() ([]byte, error) {
	c := r.Counts()
	doc := ResultsDocument{
		Target: r.targetURL(), TargetKind: r.targetKind(), Run: r.runConfig(), Started: r.Started.UTC().Format(time.RFC3339),
		Seconds: r.Elapsed.Seconds(), Summary: r.Summary(), Strict: r.Strict(),
		Counts:   c,
		Problems: append([]string{}, r.Problems...), Notes: append([]string{}, r.Notes...),
		Causes: append([]disabledGroup{}, r.causeGroups()...),
		Checks: append([]Result{}, r.Results...),
	}
	out, err := json.MarshalIndent(doc, "", "  ")
	return append(out, '\n'), err
}

// Markdown renders the run as one self-contained page for people: the summary, outcomes per area
// and per clause, every failure with the request and answer that failed it, and what did not run
// and why.
func (r *Run) Markdown() string {
	var b strings.Builder
	p := func(format string, args ...any) { fmt.Fprintf(&b, format, args...) }
	p("# Platform API conformance report\n\n")
	p("- Target: %s (%s)\n- Started: %s, took %s\n", r.targetURL(), r.targetKind(),
		r.Started.UTC().Format(time.RFC3339), r.Elapsed.Round(time.Millisecond))
	for _, l := range r.runConfig().lines() {
		p("- %s: %s\n", l[0], oneLine(l[1]))
	}
	p("\n")
	p("**%s**\n\n", strings.TrimPrefix(r.Summary(), "conformance: "))
	if groups := r.causeGroups(); len(groups) > 0 {
		p("## Causes\n\nPreconditions the target does not meet; each blocked the checks listed, which did not run their statement.\n\n")
		for _, g := range groups {
			p("- %s\n  blocks %d: %s\n", oneLine(g.Reason), len(g.IDs), listIDs(g.IDs, "`", maxListed))
		}
		p("\n")
	}
	if len(r.Problems) > 0 {
		p("## Why no check ran\n\n")
		for _, pr := range r.Problems {
			p("- %s\n", pr)
		}
		p("\n")
	}
	if len(r.Results) > 0 {
		p("## By area\n\n| area | passed | failed | differ on extensions | unsupported | blocked | not configured | disabled | errors |\n|---|---:|---:|---:|---:|---:|---:|---:|---:|\n")
		byArea := r.countBy(area)
		for _, a := range Areas {
			if c, ok := byArea[string(a)]; ok {
				p("| %s | %d | %d | %d | %d | %d | %d | %d | %d |\n", a, c.Passed, c.Failed, c.Differ, c.Unsupported, c.Blocked, c.NotConfigured, c.Disabled, c.Errors)
			}
		}
		p("\n## By clause\n\nClauses 1 to 9 are sections of the Platform API reference; \"gaps §N\" are the project's decisions where it is silent (conformance/EXTENSIONS.md); \"fake\" is the fake's own contract.\n\n")
		p("| clause | title | passed | failed | differ on extensions | unsupported | disabled | errors |\n|---|---|---:|---:|---:|---:|---:|---:|\n")
		byClause := r.countBy(func(res Result) string { return res.Clause })
		for _, cl := range ClauseIDs() {
			if c, ok := byClause[cl]; ok {
				p("| %s | %s | %d | %d | %d | %d | %d | %d |\n", cl, Clauses[cl], c.Passed, c.Failed, c.Differ, c.Unsupported, c.Disabled, c.Errors)
			}
		}
		p("\n")
	}
	if bad := r.with(Failed, Error); len(bad) > 0 {
		p("## Failures\n\n")
		if r.Counts().Differ > 0 {
			p("A check that \"differs\" verifies an extension: the project's decision where the reference is silent (conformance/EXTENSIONS.md). A deployment that differs there is different, not wrong.\n\n")
		}
		for _, res := range bad {
			p("### %s: %s\n\n", res.ShownOutcome(), res.ID)
			p("Clause %s (%s), labels %s. Statement: %s\n\n", res.Clause, res.ClauseTitle, strings.Join(res.Labels, ", "), res.Statement)
			p("%s\n", fenced(res.Message))
			if x := res.Exchange; x != nil {
				p("Request:\n\n%s\nAnswer:\n\n%s\n", fenced(x.Request), fenced(x.Response))
			}
		}
	}
	if groups := r.notConfiguredGroups(); len(groups) > 0 {
		p("## Not configured\n\nChecks that need a variable that is not set; they say nothing of the target.\n\n")
		for _, g := range groups {
			p("- %s (%d): %s\n", g.Reason, len(g.IDs), listIDs(g.IDs, "`", maxListed))
		}
		p("\n")
	}
	if un := r.with(Unsupported); len(un) > 0 {
		p("## Unsupported\n\nThe target answered validly that it does not do these, or does not hold the data they need (each says what it needed).")
		if r.Strict() {
			p(" This run is strict: they fail it.")
		}
		p("\n\n")
		for _, res := range un {
			p("- `%s` [%s] %s: %s\n", res.ID, res.Clause, res.Statement, oneLine(res.Message))
		}
		p("\n")
	}
	if groups := r.disabledGroups(); len(groups) > 0 {
		p("## Disabled, and why\n\n")
		for _, g := range groups {
			ids := make([]string, 0, min(len(g.IDs), maxListed+1))
			for _, id := range g.IDs[:min(len(g.IDs), maxListed)] {
				ids = append(ids, "`"+id+"`")
			}
			if len(g.IDs) > maxListed {
				ids = append(ids, fmt.Sprintf("and %d more", len(g.IDs)-maxListed))
			}
			p("- %s (%d): %s\n", g.Reason, len(g.IDs), strings.Join(ids, ", "))
		}
		p("\n")
	}
	var cleanups []string
	for _, res := range r.Results {
		for _, f := range res.CleanupFailures {
			cleanups = append(cleanups, fmt.Sprintf("- `%s`: %s", res.ID, oneLine(f)))
		}
	}
	if len(cleanups) > 0 || len(r.Notes) > 0 {
		p("## Left behind\n\nCleanups that failed (not counted as failed checks) and other notes.\n\n")
		for _, l := range cleanups {
			p("%s\n", l)
		}
		for _, n := range r.Notes {
			p("- %s\n", n)
		}
	}
	return b.String()
}

// disabledGroup is the checks that share one reason not to run: disabled, not configured, or
// blocked by one cause.
type disabledGroup struct {
	Reason string   `json:"cause"`
	IDs    []string `json:"checks"`
}

// notConfiguredGroups groups the checks not configured by the variable they need.
func (r *Run) notConfiguredGroups() []disabledGroup {
	why := map[string][]string{}
	for _, res := range r.with(NotConfigured) {
		why[res.Message] = append(why[res.Message], res.ID)
	}
	out := make([]disabledGroup, 0, len(why))
	for k, ids := range why {
		out = append(out, disabledGroup{k, ids})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Reason < out[j].Reason })
	return out
}

// disabledGroups groups the disabled checks by why, the reasons sorted.
func (r *Run) disabledGroups() []disabledGroup {
	why := map[string][]string{}
	for _, res := range r.with(Disabled) {
		msg := oneLine(res.Message)
		if msg == "" {
			msg = notSelected
		}
		why[msg] = append(why[msg], res.ID)
	}
	out := make([]disabledGroup, 0, len(why))
	for k, ids := range why {
		out = append(out, disabledGroup{k, ids})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Reason < out[j].Reason })
	return out
}

func (r *Run) countBy(key func(Result) string) map[string]Counts {
	out := map[string]Counts{}
	for _, res := range r.Results {
		k := key(res)
		c := out[k]
		c.add(res)
		out[k] = c
	}
	return out
}

func (r *Run) with(outcomes ...string) []Result {
	var out []Result
	for _, res := range r.Results {
		for _, o := range outcomes {
			if res.Outcome == o {
				out = append(out, res)
			}
		}
	}
	return out
}

// maxListed bounds the check IDs listed for one reason of being disabled; the JSON results list
// them all.
const maxListed = 20

// fenced puts text in a Markdown code block whose fence is longer than any run of backticks in
// it, so no answer body can end the block early.
func fenced(s string) string {
	fence := "```"
	for strings.Contains(s, fence) {
		fence += "`"
	}
	return fence + "\n" + strings.TrimRight(s, "\n") + "\n" + fence + "\n"
}

// oneLine folds a message onto one line for a list item, and keeps Markdown from reading it.
func oneLine(s string) string {
	return strings.Join(strings.Fields(strings.ReplaceAll(s, "|", "\\|")), " ")
}
