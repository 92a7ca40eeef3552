package kit

import (
	"fmt"
	"net/http"
	"sort"
	"strings"

	"github.com/platformkit/platformkit/schemas"
)

// The error envelope (reference 7: {type: error, error: {type, message}, request_id}) is one
// statement about every error answer, whichever check met it. Each area's envelope check
// (InterfaceChecks: <area>/interface-error-envelope) holds it on every error answer of the run to
// a request of its area: a defect is reported there, once, with the first answer that showed it,
// and never fails the check that met it, whose own statement (a 400 naming a field, say) may
// hold.

type envelopeDefect struct {
	area  Label
	err   error
	first *Response
}

// envelopeCheckID is the ID of area's envelope check.
func envelopeCheckID(area Label) string { return string(area) + "/interface-error-envelope" }

// noteEnvelope records how the error answer resp deviates from the envelope, if it does.
func (tg *Target) noteEnvelope(resp *Response) {
	err := schemas.Validate("error", resp.Body, schemas.Lenient)
	if err == nil {
		return
	}
	area := resp.req.Area
	tg.envelopes.LoadOrStore(string(area)+" "+schemaCause("error", err), &envelopeDefect{area: area, err: err, first: resp})
}

// envelopeVerdict is, when c is an envelope check, the failure it ends with given the error
// answers met so far (one line per defect, with the first answer that showed it), and that
// answer; "" when c is another check or no answer deviated.
func (tg *Target) envelopeVerdict(c Check) (string, *Response) {
	var area Label
	for _, a := range Areas {
		if c.Has(a) && c.ID == envelopeCheckID(a) {
			area = a
		}
	}
	if area == "" {
		return "", nil
	}
	var lines []string
	var first *Response
	tg.envelopes.Range(func(_, v any) bool {
		d := v.(*envelopeDefect)
		if d.area == area {
			lines = append(lines, fmt.Sprintf("- %v; first in %s %s -> %d %s", d.err, d.first.req.Method, d.first.req.Path, d.first.Status, truncate(d.first.Body, 300)))
			if first == nil {
				first = d.first
			}
		}
		return true
	})
	if len(lines) == 0 {
		return "", nil
	}
	sort.Strings(lines)
	return fmt.Sprintf("error answers to %s requests are not the error envelope {type: error, error: {type, message}, request_id} (reference 7):\n%s",
		area, strings.Join(lines, "\n")), first
}

// envelopeCheck is area's envelope check: it provokes an error of its own (the request without a
// credential, where the deployment refuses it) and judges every error answer the run met so far; the run judges it once more at
// the end (Run.Add), over every error answer of the run.
func envelopeCheck(area Label, ok func(t *T) Request) Check {
	return Check{ID: envelopeCheckID(area), Clause: "7", Labels: []Label{area},
		Title: "every error answer is the error envelope {type: error, error: {type, message}, request_id}",
		NoBug: "proven by TestBrokenDeploymentsOneCause's errors without request_id",
		Run: func(t *T) {
			t.NoItemsNeeded()
			r := ok(t)
			r.As, r.Header = NoCred, http.Header{"X-Api-Key": {""}, "Authorization": {""}}
			// A deployment that answers it is the credential checks' failure (5), not this
			// statement's: the check then judges the error answers there are.
			t.Do(r)
		}}
}

// errorTypes are the error types of the envelope: reference 7's and those EXTENSIONS.md adds.
var errorTypes = []string{"invalid_request_error", "authentication_error", "billing_error", "permission_error", "not_found_error",
	"request_too_large", "rate_limit_error", "timeout_error", "api_error", "overloaded_error", "memory_precondition_failed_error", "memory_path_conflict_error"}

// envelopeCause is the cause of a check that expected an error type and met an error answer
// without one of the envelope's: its area's envelope check holds the defect.
func (tg *Target) envelopeCause(resp *Response) *cause {
	area := resp.req.Area
	return tg.addCause("envelope "+string(area), fmt.Sprintf("error answers to %s requests carry no error type of the envelope (reference 7), so a check cannot tell which error it is; first %s %s -> %s: %s",
		area, resp.req.Method, strings.SplitN(resp.req.Path, "?", 2)[0], resp.kind(), bounded(resp.Body, 200)), envelopeCheckID(area))
}
