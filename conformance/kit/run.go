package kit

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"regexp"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/tidwall/gjson"

	"github.com/platformkit/platformkit/fake"
)

// Run is one run of the suite against a target, from the preflight to the reports. The ginkgo
// suite drives it (Begin, then Add for every check, then Finish); it holds nothing ginkgo-specific,
// so the harness can be tested without running the suite.
type Run struct {
	Config Config
	// Target is nil when the target could not be reached.
	Target  *Target
	Started time.Time
	Elapsed time.Duration
	// Problems are why no check ran (an unreachable target, rejected credentials), one line each.
	Problems []string
	Results  []Result
	// Notes are things the operator should know that are no check's outcome (a failed reset).
	Notes []string
	// LabelFilter and Focus are the selection of checks the runner applied (ginkgo's
	// -ginkgo.label-filter and -ginkgo.focus), which the reports record; empty: every check.
	LabelFilter string
	Focus       []string
	redact      *strings.Replacer
	// shellVars writes each configured credential, as it appears inside a single-quoted shell
	// word, as a reference to its variable ('"${CONFORMANCE_API_KEY}"'): the reproducers' form.
	shellVars *strings.Replacer
}

// Result is how one check ended. Every text in it has the configured credentials redacted.
type Result struct {
	ID          string   `json:"id"`
	Clause      string   `json:"clause"`
	ClauseTitle string   `json:"clause_title"`
	Statement   string   `json:"statement"`
	Labels      []string `json:"labels"`
	Outcome     string   `json:"outcome"`
	Seconds     float64  `json:"duration_seconds"`
	// Message says why the check did not pass, without the outcome's prefix.
	Message string `json:"message,omitempty"`
	// Exchange is the request and the answer that failed the check, when one did.
	Exchange        *Exchange `json:"exchange,omitempty"`
	CleanupFailures []string  `json:"cleanup_failures,omitempty"`
}

// Exchange is one request and its answer as text, headers included and credentials redacted.
type Exchange struct {
	Request  string `json:"request"`
	Response string `json:"response"`
	// Curl is a shell command that sends the request again, its credentials as references to the
	// variables that set them ("${CONFORMANCE_API_KEY}"), never their values.
	Curl string `json:"curl"`
}

// Counts are the summary's numbers. Errors include the problems that stopped a run before its
// first check. Failed counts failures of the reference's own statements; Differ counts failures of
// extension checks (the project's decisions where the reference is silent), apart, because a
// deployment that differs on an extension is different, not wrong.
type Counts struct {
	Passed      int `json:"passed"`
	Failed      int `json:"failed"`
	Differ      int `json:"extension_differences"`
	Unsupported int `json:"unsupported"`
	Disabled    int `json:"disabled"`
	Errors      int `json:"errors"`
	// Blocked did not run their statement because a precondition failed (a cause, listed once
	// with the checks it blocked); NotConfigured need a variable that is not set.
	Blocked       int `json:"blocked"`
	NotConfigured int `json:"not_configured"`
}

// Total is the number of checks and problems counted.
func (c Counts) Total() int {
	return c.Passed + c.Failed + c.Differ + c.Unsupported + c.Disabled + c.Errors + c.Blocked + c.NotConfigured
}

// credential is one configured credential: the variable that sets it, its value, and a cheap read
// of its interface that the preflight tries it with.
type credential struct {
	name, value string
	probe       Request
	// outsideScope: the probe is a call the credential may not make (an environment key reaches
	// only its environment's work, whose ID the suite does not know), so 403 means "known here";
	// only 401 is a rejection.
	outsideScope bool
}

func credentials(cfg Config) []credential {
	return []credential{
		{name: "CONFORMANCE_API_KEY", value: cfg.APIKey, probe: Request{Area: Models, Path: "/v1/models?limit=1"}},
		{name: "CONFORMANCE_ADMIN_API_KEY", value: cfg.AdminKey, probe: Request{Area: Admin, Path: "/v1/organizations/me"}},
		{name: "CONFORMANCE_COMPLIANCE_API_KEY", value: cfg.ComplianceKey, probe: Request{Area: Compliance, Path: "/v1/compliance/organizations"}},
		{name: "CONFORMANCE_BEARER_TOKEN", value: cfg.BearerToken, probe: Request{Area: Tunnels, Path: "/v1/organizations/tunnels"}},
		{name: "CONFORMANCE_ENVIRONMENT_KEY", value: cfg.EnvironmentKey, probe: Request{Area: Work, Path: "/v1/environments", As: EnvironmentKey}, outsideScope: true},
		{name: "CONFORMANCE_API_KEY_2", value: cfg.APIKey2, probe: Request{Area: Models, Path: "/v1/models?limit=1", Org2: true}},
		{name: "CONFORMANCE_ADMIN_API_KEY_2", value: cfg.AdminKey2, probe: Request{Area: Admin, Path: "/v1/organizations/me", Org2: true}},
		{name: "CONFORMANCE_COMPLIANCE_API_KEY_2", value: cfg.ComplianceKey2, probe: Request{Area: Compliance, Path: "/v1/compliance/organizations", Org2: true}},
		{name: "CONFORMANCE_BEARER_TOKEN_2", value: cfg.BearerToken2, probe: Request{Area: Tunnels, Path: "/v1/organizations/tunnels", Org2: true}},
	}
}

// Begin opens the target and runs the preflight. It tells w what the operator needs to know
// before the first check: what the target is and which checks that turns on, or one line per
// problem that stops the run (the target cannot be reached; a credential is rejected). When the
// run has Problems no check may run; Finish still writes the reports and the summary.
//
// The preflight tries each configured credential once, with a cheap read of its interface. A
// credential that is not set is the fake's default against the fake; against a deployment it is
// sent as nothing, the preflight says which interface it leaves unchecked, and the checks of that
// interface are unsupported, each naming the variable.
func Begin(ctx context.Context, cfg Config, onBug func(string), w io.Writer) *Run {
	r := &Run{Config: cfg, Started: time.Now()}
	r.setSecrets(cfg)
	if len(cfg.invalid) > 0 {
		for _, line := range cfg.invalid {
			r.problem(w, line)
		}
		return r
	}
	tg, err := open(ctx, cfg, onBug, w)
	if err != nil {
		r.problem(w, err.Error())
		return r
	}
	r.Target = tg
	// Against the fake, the credentials not set are now the fake's: redacted as theirs.
	r.setSecrets(tg.Config)
	// The checks' requests run in parallel under ginkgo's reporter; progress lines are the
	// preflight's.
	defer func() { tg.Client.progress = nil }()
	if tg.stop != "" {
		r.problem(w, tg.stop)
		return r
	}
	fmt.Fprintln(w, r.Redact("conformance: "+describeTarget(tg)))
	fmt.Fprintln(w, r.Redact(tg.DialectLine()))
	for _, c := range tg.Causes() {
		fmt.Fprintln(w, r.Redact("conformance: cause: "+c))
	}
	var unset []string
	for _, c := range credentials(tg.Config) {
		if c.value == "" {
			if !c.probe.Org2 {
				unset = append(unset, c.name)
			}
			continue
		}
		p := c.probe
		resp, err := tg.Client.Do(ctx, &p)
		switch {
		case err != nil:
			r.problem(w, fmt.Sprintf("cannot reach %s: %v", tg.Config.BaseURL, transportCause(err)))
			return r
		case resp.Status == http.StatusUnauthorized || resp.Status == http.StatusForbidden && !c.outsideScope:
			r.problem(w, fmt.Sprintf("%s rejected: %s", c.name, errorLine(resp)))
		}
	}
	if len(r.Problems) == 0 {
		// One line per interface left unchecked: the fake's keys are never sent to a deployment.
		for _, name := range unset {
			fmt.Fprintf(w, "conformance: skipping %s: %s is not set, so their checks are not configured\n", interfaces[name], name)
		}
	}
	return r
}

// notAModelList says why a 200 JSON answer is not a list of models at all, or "" when it is one,
// however far its models deviate from their schema (a model without display_name, created_at as
// a number): those deviations are the checks' to name, one each, and must not stop the run as a
// wrong URL. A list of models is an object whose data is an array of objects that are each
// identified as a model (type "model", or a string id); an empty one says whether there is more
// (has_more), as every list of the API does.
func notAModelList(resp *Response) string {
	body := resp.JSON()
	data := body.Get("data")
	switch {
	case !body.IsObject():
		return "not a list of models: not a JSON object"
	case !data.IsArray():
		return "not a list of models: no data array"
	case len(data.Array()) == 0 && !body.Get("has_more").Exists():
		return "not a list of models: an empty data array without has_more"
	}
	for i, m := range data.Array() {
		if !m.IsObject() || (m.Get("type").String() != "model" && m.Get("id").Type != gjson.String) {
			return fmt.Sprintf("not a list of models: data[%d] is neither of type model nor identified by a string id", i)
		}
	}
	return ""
}

// versionRefused is one line when the target refused the API version the suite sends (a 400
// whose message names the version header), or "": a deployment that serves only another version
// would otherwise fail every check for one setting.
func versionRefused(base, version string, resp *Response) string {
	if resp.Status != http.StatusBadRequest {
		return ""
	}
	msg := resp.Get("error.message").String()
	// "header is required" says that the header sent is not the one the target reads, not that
	// it refused the version.
	if !strings.Contains(msg, "vendor-version") && !strings.Contains(msg, "anthropic-version") || !strings.Contains(msg, version) {
		return ""
	}
	return fmt.Sprintf("%s refused API version %s (%q): CONFORMANCE_API_VERSION selects another (%s)",
		base, version, msg, strings.Join(fake.APIVersions(), ", "))
}

func describeTarget(tg *Target) string {
	switch {
	case tg.IsFake && tg.InProcess:
		return "target is an in-process fake (CONFORMANCE_BASE_URL is not set): fake-only and destructive checks are on"
	case tg.IsFake:
		return fmt.Sprintf("target %s is the fake (GET /_fake/health answers): fake-only and destructive checks are on, and the fake is reset (POST /_fake/reset) when the run ends", tg.Config.BaseURL)
	case tg.Config.Destructive:
		return fmt.Sprintf("target %s is a deployment: fake-only checks are disabled; destructive checks are on (CONFORMANCE_DESTRUCTIVE=1)", tg.Config.BaseURL)
	}
	return fmt.Sprintf("target %s is a deployment: fake-only checks are disabled, and so are destructive checks (CONFORMANCE_DESTRUCTIVE=1 turns them on)", tg.Config.BaseURL)
}

// errorLine reads an answer as "401 authentication_error: message", or its status and the start of
// its body when it is not an error envelope.
func errorLine(resp *Response) string {
	if t := resp.Get("error.type").String(); t != "" {
		return fmt.Sprintf("%d %s: %s", resp.Status, t, resp.Get("error.message").String())
	}
	return fmt.Sprintf("%d (not an error envelope): %s", resp.Status, truncate(resp.Body, 200))
}

// setSecrets makes Redact and the reproducers' shell words replace the credentials of cfg.
func (r *Run) setSecrets(cfg Config) {
	// Longest first: a replacer tries its pairs in order, and one credential may contain another
	// (test-api-key-2, test-api-key).
	creds := credentials(cfg)
	sort.SliceStable(creds, func(i, j int) bool { return len(creds[i].value) > len(creds[j].value) })
	var pairs, vars []string
	for _, c := range creds {
		if c.value != "" {
			pairs = append(pairs, c.value, "["+c.name+"]")
			vars = append(vars, shellEscape(c.value), `'"${`+c.name+`}"'`)
		}
	}
	r.redact = strings.NewReplacer(pairs...)
	r.shellVars = strings.NewReplacer(vars...)
}

func (r *Run) problem(w io.Writer, line string) {
	line = r.Redact(line)
	r.Problems = append(r.Problems, line)
	fmt.Fprintln(w, line)
}

func (r *Run) note(line string) { r.Notes = append(r.Notes, r.Redact(line)) }

// Redact replaces every configured credential in s with the name of its variable, and the value
// of every tunnel_token field with "[redacted]": the deployment's own secret, which reveal and
// rotate answers carry (a failed tunnel check may quote one).
func (r *Run) Redact(s string) string {
	return tunnelToken.ReplaceAllString(r.redact.Replace(s), `${1}[redacted]"`)
}

var tunnelToken = regexp.MustCompile(`("tunnel_token"\s*:\s*")(?:[^"\\]|\\.)*"`)

// Add records how a check ended. msg is its failure or skip message (outcome prefix included or
// not); recent are its last exchanges, of which the report shows the one the message names.
func (r *Run) Add(c Check, outcome, msg string, d time.Duration, recent []*Response, cleanupFailures []string) {
	for _, p := range []string{PrefixUnsupported, PrefixDisabled, PrefixBlocked, PrefixNotConfigured} {
		msg = strings.TrimPrefix(msg, p)
	}
	res := Result{
		ID: c.ID, Clause: c.Clause, ClauseTitle: Clauses[c.Clause], Statement: c.Title,
		Outcome: outcome, Seconds: d.Seconds(), Message: r.Redact(msg),
	}
	for _, l := range c.Labels {
		res.Labels = append(res.Labels, string(l))
	}
	if outcome == Failed || outcome == Error {
		// A suite error (the target did not answer) has no answer of its own: show one only
		// when the message quotes it.
		if x := failedExchange(recent, msg, outcome == Failed); x != nil {
			res.Exchange = &Exchange{Request: r.Redact(requestText(x)), Response: r.Redact(responseText(x)), Curl: r.Curl(x)}
		}
	}
	for _, f := range cleanupFailures {
		res.CleanupFailures = append(res.CleanupFailures, r.Redact(f))
	}
	r.Results = append(r.Results, res)
}

// failedExchange picks, among a check's last exchanges, the one its failure message quotes
// (assertions print a response as "METHOD PATH -> STATUS ..."), or else the last one when
// orLast.
func failedExchange(recent []*Response, msg string, orLast bool) *Response {
	for i := len(recent) - 1; i >= 0; i-- {
		x := recent[i]
		if strings.Contains(msg, fmt.Sprintf("%s %s -> %d", x.req.Method, x.req.Path, x.Status)) {
			return x
		}
	}
	if len(recent) == 0 || !orLast {
		return nil
	}
	return recent[len(recent)-1]
}

// reportBodyLimit bounds each body in a report: enough to see what was wrong, not a whole export.
const reportBodyLimit = 4 << 10

func requestText(x *Response) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s\n", x.sent.Method, x.sent.URL)
	writeHeaders(&b, x.sent.Header)
	if len(x.sentBody) > 0 {
		b.WriteString("\n" + sized(x.sentBody))
	}
	return b.String()
}

func responseText(x *Response) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%d %s\n", x.Status, http.StatusText(x.Status))
	writeHeaders(&b, x.Header)
	if len(x.Body) > 0 {
		b.WriteString("\n" + sized(x.Body))
	}
	return b.String()
}

// sized is a body for a report: whole up to reportBodyLimit, else its start and its size.
func sized(b []byte) string {
	if len(b) <= reportBodyLimit {
		return string(b)
	}
	return fmt.Sprintf("%s… (cut: %d bytes in all)", strings.ToValidUTF8(string(b[:reportBodyLimit]), ""), len(b))
}

func writeHeaders(b *strings.Builder, h http.Header) {
	names := make([]string, 0, len(h))
	for k := range h {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, k := range names {
		for _, v := range h[k] {
			fmt.Fprintf(b, "%s: %s\n", k, v)
		}
	}
}

// Counts counts the results, and every problem as an error.
func (r *Run) Counts() Counts {
	c := Counts{Errors: len(r.Problems)}
	for _, res := range r.Results {
		c.add(res)
	}
	return c
}

func (c *Counts) add(res Result) {
	switch res.Outcome {
	case Passed:
		c.Passed++
	case Failed:
		if res.extension() {
			c.Differ++
		} else {
			c.Failed++
		}
	case Unsupported:
		c.Unsupported++
	case Disabled:
		c.Disabled++
	case Blocked:
		c.Blocked++
	case NotConfigured:
		c.NotConfigured++
	default:
		c.Errors++
	}
}

// ShownOutcome is the outcome as the listing and the reports name it: a failed extension check
// "differs".
func (res Result) ShownOutcome() string {
	if res.Outcome == Failed && res.extension() {
		return "differs"
	}
	return res.Outcome
}

// extension reports whether the result is of an extension check.
func (res Result) extension() bool { return slices.Contains(res.Labels, string(Extension)) }

// OK reports whether the run ran and nothing failed or broke; in a strict run, also that no
// check was unsupported. A difference on an extension fails the run too: the exit status is for
// CI, which filters extension checks out (label filter "!extension") when it does not hold a
// deployment to them.
func (r *Run) OK() bool {
	c := r.Counts()
	return len(r.Problems) == 0 && c.Failed == 0 && c.Differ == 0 && c.Errors == 0 && !(r.Strict() && c.Unsupported+c.Blocked > 0)
}

// Strict reports whether unsupported checks fail this run: when configured so, and always
// against the in-process fake, whose fixtures hold what every check needs.
func (r *Run) Strict() bool {
	return r.Config.Strict || r.Target != nil && r.Target.InProcess
}

// Summary is the run's one summary line.
func (r *Run) Summary() string {
	if len(r.Problems) > 0 {
		return fmt.Sprintf("conformance: not run: %d %s before the first check; 0 of %d checks ran",
			len(r.Problems), plural(len(r.Problems), "error", "errors"), len(Checks()))
	}
	c := r.Counts()
	line := fmt.Sprintf("conformance: %d passed, %d failed, %d %s on extensions, %d unsupported, %d disabled, %d %s",
		c.Passed, c.Failed, c.Differ, plural(c.Differ, "differs", "differ"), c.Unsupported, c.Disabled, c.Errors, plural(c.Errors, "error", "errors"))
	if c.Blocked+c.NotConfigured > 0 {
		n := len(r.causeGroups())
		line += fmt.Sprintf("; %d blocked by %d %s, %d not configured", c.Blocked, n, plural(n, "cause", "causes"), c.NotConfigured)
	}
	switch {
	case r.Strict() && c.Blocked > 0:
		line += "; strict: the unsupported and the blocked fail the run"
	case r.Strict() && c.Unsupported > 0:
		line += "; strict: the unsupported fail the run"
	}
	return line
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// Finish ends the run: it puts a fake target back to its fixtures (POST /_fake/reset), so that a
// server the operator left running is as it was, closes the target, writes the reports into dir
// (none when dir is empty), and tells w what did not pass and where the reports are. The caller
// prints Summary after it, last.
func (r *Run) Finish(ctx context.Context, dir string, w io.Writer) error {
	r.Elapsed = time.Since(r.Started)
	if tg := r.Target; tg != nil {
		// A run stopped by the preflight changed nothing to reset (and a target that only claims
		// to be the fake is not sent a reset).
		if tg.IsFake && len(r.Problems) == 0 {
			resp, err := tg.Client.Do(ctx, &Request{Area: Core, Method: http.MethodPost, Path: "/_fake/reset", As: NoCred})
			switch {
			case err != nil:
				r.note(fmt.Sprintf("the fake was not reset: %v", transportCause(err)))
			case resp.Status != http.StatusOK:
				r.note(fmt.Sprintf("the fake was not reset: POST /_fake/reset answered %s", errorLine(resp)))
			}
		}
		tg.Close()
	}
	// Causes first, each with the checks it blocked; then each unset variable once, with how
	// many checks it left unconfigured; then every other check that did not pass.
	for _, g := range r.causeGroups() {
		fmt.Fprintf(w, "conformance: cause: %s\n  blocks %d %s: %s\n", g.Reason, len(g.IDs), plural(len(g.IDs), "check", "checks"), listIDs(g.IDs, "", maxListed))
	}
	var lines []string
	unset := map[string]int{}
	for _, res := range r.with(NotConfigured) {
		unset[res.Message]++
	}
	for msg, n := range unset {
		lines = append(lines, fmt.Sprintf("  %-11s %d %s: %s", NotConfigured, n, plural(n, "check", "checks"), msg))
	}
	for _, res := range r.Results {
		switch res.Outcome {
		case Passed, Disabled, NotConfigured, Blocked:
		case Unsupported:
			// What it needed, so that the operator knows what data or setting would run it.
			lines = append(lines, fmt.Sprintf("  %-11s [%s] %s (%s): %s", res.Outcome, res.Clause, res.Statement, res.ID, oneLine(res.Message)))
		default:
			lines = append(lines, fmt.Sprintf("  %-11s [%s] %s (%s)", res.ShownOutcome(), res.Clause, res.Statement, res.ID))
		}
	}
	sort.Strings(lines)
	for _, l := range lines {
		fmt.Fprintln(w, l)
	}
	for _, n := range r.Notes {
		fmt.Fprintln(w, "conformance: "+n)
	}
	if dir == "" {
		return nil
	}
	paths, err := r.WriteReports(dir)
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "conformance: reports in %s\n", strings.Join(paths, ", "))
	return nil
}

// ColourWanted reports whether output to f may carry ANSI colour: only on a terminal, and never when
// NO_COLOR is set to anything (no-color.org).
func ColourWanted(f *os.File, getenv func(string) string) bool {
	if getenv("NO_COLOR") != "" {
		return false
	}
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}
