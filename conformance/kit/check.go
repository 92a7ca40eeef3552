package kit

import (
	"context"
	"fmt"
	"net/http"
	"regexp"
	"slices"
	"sort"
	"strings"

	"github.com/onsi/gomega"
	"github.com/onsi/gomega/format"
	"github.com/tidwall/gjson"

	"github.com/platformkit/platformkit/schemas"
)

// Check is one verifiable statement about the API. Run is a plain function, so a check can be
// run outside the ginkgo suite (see RunCheck) and tested on its own.
type Check struct {
	ID     string  // unique, "area/what-it-checks"
	Clause string  // the clause it verifies: a section of the specification ("4.5") or a decision of EXTENSIONS.md ("gaps §3")
	Title  string  // the statement, as a sentence
	Labels []Label // exactly one area, plus qualifiers
	Run    func(t *T)
	// Bug is the defect the check exists to catch (see Bug); NoBug, when it has none of its own,
	// says why (a pure schema check is proven by a shared schema mutation, say). One of the two.
	Bug   *Bug
	NoBug string
}

var registry []Check

// Register adds checks to the suite. Each area's file calls it from init.
func Register(checks ...Check) { registry = append(registry, checks...) }

// Checks returns every registered check, sorted by ID.
func Checks() []Check {
	out := slices.Clone(registry)
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out
}

// Has reports whether the check carries the label.
func (c Check) Has(l Label) bool { return slices.Contains(c.Labels, l) }

// Outcome prefixes. A check that does not pass or fail ends with one of these messages, and the
// suite's summary counts them apart, as the Kubernetes and OCI conformance suites do.
const (
	PrefixUnsupported   = "unsupported: "    // the target answered validly that it does not do this
	PrefixNotConfigured = "not configured: " // a variable the check needs is not set
	PrefixDisabled      = "disabled: "       // turned off by configuration
	PrefixSuiteError    = "suite error: "    // the suite itself broke (network, cleanup of its own setup)
)

// T is what a check runs with: gomega assertions (failures end the check), a client for the
// target, and cleanup registration.
type T struct {
	gomega.Gomega
	Target *Target
	// check is the check running, whose statement decides which deviations fail it (causes.go).
	check Check
	// pending are the causes the check met (deviations other checks hold): should the check then
	// fail on a field of one, it ends blocked by it instead, its failure being the cause's symptom.
	pending []*cause
	ctx     context.Context
	skip    func(msg string)
	fail    func(msg string)
	// cleanups run after the check, last registered first.
	cleanups []cleanup
	// CleanupFailures collects cleanups that failed: reported, never turned into a failed check.
	CleanupFailures []string
	// recent holds the check's last exchanges, oldest first, so that a report can show the one
	// that failed it.
	recent []*Response
	// What the check did, for the harness's rule on checks over existing data (see Need).
	wrote, readList, needed bool
}

// keepExchanges bounds T.recent: the exchange that fails a check is almost always one of its last.
const keepExchanges = 4

type cleanup struct {
	what string
	f    func() error
}

// Config returns the suite configuration.
func (t *T) Config() Config { return t.Target.Config }

// Do sends r and checks its body against the schemas: a 2xx body against r.Schema, any error
// body against the error envelope of spec 7. A transport error ends the check as a suite error.
func (t *T) Do(r Request) *Response {
	if line := t.Target.missingCredential(&r); line != "" {
		t.skip(PrefixNotConfigured + line)
	}
	if c := t.Target.notServed(&r); c != nil {
		t.blockedBy(c)
	}
	if c := t.Target.causeOf("refused " + strings.TrimPrefix(routeOf(&r), "route ")); c != nil && r.As == AreaCred && len(r.Header) == 0 {
		t.blockedBy(c)
	}
	resp, err := t.Target.Client.Do(t.ctx, &r)
	if err != nil {
		t.fail(PrefixSuiteError + fmt.Sprintf("%s %s: %v", r.Method, r.Path, err))
		return nil
	}
	if len(t.recent) == keepExchanges {
		t.recent = append(t.recent[:0], t.recent[1:]...)
	}
	t.recent = append(t.recent, resp)
	t.noteKind(resp)
	t.checkSchema(resp)
	t.checkEveryResponse(resp)
	return resp
}

// checkSchema holds a 2xx body to its schema (see schemaDeviation for what a deviation does to
// the check) and records the defects of an error body's envelope for the envelope check of the
// request's area, which alone fails on them (envelope.go).
func (t *T) checkSchema(resp *Response) {
	if resp.Status >= 400 {
		t.Target.noteEnvelope(resp)
		return
	}
	schema := resp.req.Schema
	if resp.Status < 200 || resp.Status > 299 || schema == "" {
		return
	}
	if err := schemas.Validate(schema, resp.Body, t.Target.SchemaMode); err != nil {
		t.schemaDeviation(resp, schema, err)
	}
}

// OK sends r and requires a 200 answer.
func (t *T) OK(r Request) *Response {
	resp := t.Do(r)
	t.ExpectWithOffset(1, resp.Status).To(gomega.Equal(http.StatusOK), "the answer is 200: %s", resp)
	return resp
}

// ExpectError requires resp to be an error of the status and error type. The rest of the
// envelope (type error, request_id: reference 7) is the envelope check's statement, which holds
// it on every error answer of the run (envelope.go), not this check's.
func (t *T) ExpectError(resp *Response, status int, errType string) {
	t.ExpectWithOffset(1, resp.Status).To(gomega.Equal(status), "the answer is %d %s: %s", status, errType, resp)
	if !slices.Contains(errorTypes, resp.Get("error.type").String()) && !t.check.Has(Core) {
		// No error type of the envelope to compare: the envelope check's defect, not this check's.
		t.blockedBy(t.Target.envelopeCause(resp))
	}
	t.ExpectWithOffset(1, resp.Get("error.type").String()).To(gomega.Equal(errType), "the error's type is %s: %s", errType, resp)
}

// Control calls the fake's control API (fake-only checks). The body is JSON-encoded.
func (t *T) Control(method, path string, body any) *Response {
	if !t.Target.IsFake {
		t.skip(PrefixDisabled + "the target has no control API")
	}
	return t.OK(Request{Area: Core, Method: method, Path: path, Body: body, As: NoCred, Header: http.Header{"vendor-version": {""}}})
}

// secret is the value credential c is sent with (without "Bearer "), for a check that sends it in
// another header; the check ends as unsupported when it is not set.
func (t *T) secret(c Cred) string {
	if line := t.Target.missingCredential(&Request{As: c}); line != "" {
		t.skip(PrefixNotConfigured + line)
	}
	_, v := t.Target.Client.secret(c, false)
	return strings.TrimPrefix(v, "Bearer ")
}

// Context is the check's context: done when the suite stops the check (a timeout, an interrupt).
func (t *T) Context() context.Context { return t.ctx }

// SuiteErrorf ends the check as the suite's own error (not the target's failure): the suite
// could not do what the check needs, such as wait for time to pass.
func (t *T) SuiteErrorf(format string, args ...any) {
	t.fail(PrefixSuiteError + fmt.Sprintf(format, args...))
}

// Failf ends the check as failed with the message.
func (t *T) Failf(format string, args ...any) {
	t.fail(fmt.Sprintf(format, args...))
}

// Unsupported ends the check: the target answered validly that it does not do this.
func (t *T) Unsupported(format string, args ...any) {
	t.skip(PrefixUnsupported + fmt.Sprintf(format, args...))
}

// UnsupportedIfAbsent ends the check as unsupported when resp is the API saying that the route does
// not exist: 404 with its not_found_error envelope, or 405 (a known route, another method) with
// its envelope, each with a request-id (gaps §1). A 404 or 405 that is not the API's own answer
// (an HTML page, a gateway's or another server's error) fails the check instead: it says nothing
// about what the deployment offers, and must never read as "the deployment lacks this". Any
// other status returns, for the check to go on.
func (t *T) UnsupportedIfAbsent(resp *Response, format string, args ...any) {
	if resp.Status != http.StatusNotFound && resp.Status != http.StatusMethodNotAllowed {
		return
	}
	why := resp.notAPIError()
	if why == "" && resp.Status == http.StatusNotFound && resp.Get("error.type").String() != "not_found_error" {
		why = "its error type is not not_found_error"
	}
	if why != "" {
		t.Failf("%s %s answered %s, which is not the API's own answer that the route does not exist (%s): a proxy or another server answered; the API answers 404 not_found_error with the error envelope and a request-id\n%s",
			resp.req.Method, resp.req.Path, resp.kind(), why, exchangeLine(resp))
	}
	t.Unsupported(format, args...)
}

// Disabled ends the check: it cannot run with this configuration.
func (t *T) Disabled(format string, args ...any) {
	t.skip(PrefixDisabled + fmt.Sprintf(format, args...))
}

// NeedsSecondOrganization disables a tenancy check whose second organization's credential,
// variable, is not set: one wording for every such check.
func (t *T) NeedsSecondOrganization(variable string) {
	t.Disabled("needs %s, a credential of a second organization", variable)
}

// Need declares how many items of existing data the check inspects, and how many its title needs:
// one for a statement about "every" item, two for an order, and so on. With fewer than need, the
// check ends as unsupported, naming what it needed, so that a deployment without the data never
// passes a check that inspected nothing. Call it once the items are counted, before the
// check's verdict rests on them.
//
// The harness holds every check to it: a check that created nothing (sent only GET requests),
// read a list, and would pass without having called Need ends as a suite error (see finish).
func (t *T) Need(what string, have, need int) {
	t.needed = true
	if have < need {
		t.Unsupported("needs at least %d %s to check this; the target has %d", need, what, have)
	}
}

// NoItemsNeeded declares that the check reads a list only for what the answer says of itself
// (its headers, its status, how it validates a parameter), never for its items, so an empty list
// serves it as well as a full one.
func (t *T) NoItemsNeeded() { t.needed = true }

// noteKind records whether resp answered a write (the check made data of its own) or is a list
// (the check reads data it did not make).
func (t *T) noteKind(resp *Response) {
	if resp.req.Method != "" && resp.req.Method != http.MethodGet {
		t.wrote = true
		return
	}
	if resp.Status/100 == 2 && (resp.Get("data").IsArray() || resp.Get("has_more").Exists()) {
		t.readList = true
	}
}

// finish ends a check whose Run returned. A check over existing data only (no write, a list
// read) that never said what it needed would pass against a target with nothing to inspect: that
// is a bug of the check, reported as the suite's own error. Fake-only checks read the fake's own
// fixtures, which the suite knows.
func (t *T) finish(c Check) {
	if !t.wrote && t.readList && !t.needed && !c.Has(FakeOnly) {
		t.fail(PrefixSuiteError + c.ID + " read only existing data but did not declare what it needed (T.Need), " +
			"so it would pass against a target with nothing to inspect")
	}
}

// Cleanup registers f to run after the check, whatever its outcome. Register it right after the
// create it undoes; f should treat "already gone" (404) as success.
func (t *T) Cleanup(what string, f func() error) {
	t.cleanups = append(t.cleanups, cleanup{what, f})
}

// Delete is a cleanup helper: it sends r and accepts 2xx or 404 (already gone). It never sends r
// without the credential r needs: that cleanup fails, saying which variable is not set.
func (t *T) Delete(r Request) func() error {
	return func() error {
		if line := t.Target.missingCredential(&r); line != "" {
			return unsent(line)
		}
		resp, err := t.Target.Client.Do(context.Background(), &r)
		if err != nil {
			return err
		}
		if resp.Status/100 != 2 && resp.Status != http.StatusNotFound {
			return fmt.Errorf("%s", resp)
		}
		return nil
	}
}

func (t *T) runCleanups() {
	// The check's context may be done (ginkgo cancels a spec's context when it ends); cleanups
	// must still reach the target.
	t.ctx = context.Background()
	for i := len(t.cleanups) - 1; i >= 0; i-- {
		c := t.cleanups[i]
		if err := c.f(); err != nil {
			t.CleanupFailures = append(t.CleanupFailures, fmt.Sprintf("cleanup %q failed: %v", c.what, err))
		}
	}
	t.cleanups = nil
}

// gate returns why a check may not run against this target, or "".
func gate(c Check, tg *Target) string {
	switch {
	case c.Has(FakeOnly) && !tg.IsFake:
		return PrefixDisabled + "needs the fake's control API"
	case c.Has(Destructive) && !tg.Config.Destructive && !tg.IsFake:
		return PrefixDisabled + "destructive; set CONFORMANCE_DESTRUCTIVE=1 to run it"
	case c.Has(Slow) && !tg.Config.Slow && tg.WaitFunc == nil:
		return PrefixDisabled + "waits minutes of real time; set CONFORMANCE_SLOW=1 to run it"
	}
	for l, v := range VersionLabels {
		if c.Has(l) && tg.Config.APIVersion != v {
			return PrefixDisabled + fmt.Sprintf("runs only at API version %s; the suite sends %s (CONFORMANCE_API_VERSION=%s selects it)", v, tg.Config.APIVersion, v)
		}
	}
	return ""
}

// Outcome is how one check ended when run with RunCheck.
type Outcome struct {
	Failures        []string // gomega failures and suite errors
	Skipped         string   // the unsupported or disabled message, if it stopped that way
	CleanupFailures []string
}

// Passed reports whether the check passed.
func (o Outcome) Passed() bool { return len(o.Failures) == 0 && o.Skipped == "" }

type stop struct{}

// RunCheck runs one check against a target outside ginkgo and reports how it ended. The suite
// itself wires checks to ginkgo instead (see RunSuite); this is for testing checks.
func RunCheck(ctx context.Context, tg *Target, c Check) (o Outcome) {
	if msg := gate(c, tg); msg != "" {
		return Outcome{Skipped: msg}
	}
	t := &T{Target: tg, ctx: ctx, check: c}
	t.skip = func(msg string) { o.Skipped = msg; panic(stop{}) }
	t.fail = t.symptomOf(func(msg string) { o.Failures = append(o.Failures, msg); panic(stop{}) })
	t.Gomega = gomega.NewGomega(func(msg string, _ ...int) { t.fail(failureText(c, msg, t.recent)) })
	defer func() {
		t.runCleanups()
		o.CleanupFailures = t.CleanupFailures
		if p := recover(); p != nil {
			if _, ok := p.(stop); !ok {
				o.Failures = append(o.Failures, PrefixSuiteError+fmt.Sprint(p))
			}
		}
	}()
	c.Run(t)
	t.finish(c)
	if msg, _ := tg.envelopeVerdict(c); msg != "" {
		t.fail(msg)
	}
	return o
}

// described makes a failure name what was expected of the target in words. An assertion with a
// description reads "description\nExpected ..."; one without it is bare matcher output
// ("Expected <string>: not to be empty"), which says nothing of the API, so the harness puts the
// statement of the check before it.
func described(c Check, msg string) string {
	if strings.HasPrefix(msg, "Expected") {
		return "expected of the target: " + c.Title + "\n" + inAPITerms(msg)
	}
	return inAPITerms(msg)
}

// gomegaType is the Go type gomega writes before each value it shows ("<int>: ",
// "<[]gjson.Result | len:1, cap:1>: "): words of the suite's code, not of the API.
var gomegaType = regexp.MustCompile(`(?m)^([ \t]*)<[^>\n]*>: ?`)

// inAPITerms rewrites gomega's "Expected / <type>: value / to equal / <type>: value" block of a
// failure message as what came back and what was expected, each value as the API wrote it (JSON
// values by formatJSON), without Go's types. A message without such a block is left as it is.
func inAPITerms(msg string) string {
	var before, block string
	switch {
	case strings.HasPrefix(msg, "Expected\n"):
		block = msg[len("Expected\n"):]
	case strings.Contains(msg, "\nExpected\n"):
		i := strings.Index(msg, "\nExpected\n")
		before, block = msg[:i+1], msg[i+len("\nExpected\n"):]
	default:
		return msg
	}
	lines := strings.Split(gomegaType.ReplaceAllString(block, "$1"), "\n")
	out := []string{"came back:"}
	for i, l := range lines {
		if l != "" && l[0] != ' ' && l[0] != '\t' {
			// The matcher's words ("to equal", "not to be empty"): what was expected.
			l = "expected " + l
			if i+1 < len(lines) && strings.HasPrefix(lines[i+1], " ") {
				l += ":"
			}
		}
		out = append(out, l)
	}
	return before + strings.Join(out, "\n")
}

// formatJSON shows the target's JSON values (gjson results) in failure messages as the JSON the
// target answered, "(absent)" for a member it left out, and the empty string as "": gomega would
// print a gjson.Result as its Go struct ({Type: 5, Raw: ...}) and "" as nothing at all.
func formatJSON(v any) (string, bool) {
	text := func(r gjson.Result) string {
		if !r.Exists() {
			return "(absent)"
		}
		return r.Raw
	}
	switch x := v.(type) {
	case gjson.Result:
		return truncate([]byte(text(x)), maxShownJSON), true
	case []gjson.Result:
		parts := make([]string, len(x))
		for i, r := range x {
			parts[i] = text(r)
		}
		return truncate([]byte("["+strings.Join(parts, ", ")+"]"), maxShownJSON), true
	case string:
		if x == "" {
			return `""`, true
		}
	}
	return "", false
}

// maxShownJSON bounds a JSON value shown in a failure message; the report shows the whole answer.
const maxShownJSON = 2000

func init() { format.RegisterCustomFormatter(formatJSON) }

// Category names how a check ended (an outcome of run.go), from its skip or failure message.
func Category(msg string, failed bool) string {
	switch {
	case strings.HasPrefix(msg, PrefixUnsupported):
		return Unsupported
	case strings.HasPrefix(msg, PrefixNotConfigured):
		return NotConfigured
	case strings.HasPrefix(msg, PrefixBlocked):
		return Blocked
	case strings.HasPrefix(msg, PrefixDisabled):
		return Disabled
	case strings.Contains(msg, PrefixSuiteError):
		return Error
	case failed:
		return Failed
	}
	return Passed
}
