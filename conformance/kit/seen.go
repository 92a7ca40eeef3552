package kit

import (
	"fmt"
	"net/http"
	"regexp"
	"strings"

	"github.com/tidwall/gjson"
)

// Statements that hold of every response, whichever check sent the request: the harness checks
// them on each answer in T.Do, so a deviation seen anywhere in the run is caught.
//
//   - Every request-id is unique across the run (gaps §1: it identifies one request). The record
//     is the target's, so a second run against the same server starts afresh. A namespace of the
//     fake is a world of its own that numbers its requests from the start, as a new server does,
//     so request-ids are unique within each namespace.
//   - A message that stopped with stop_reason refusal carries its refusal record in
//     stop_details (spec 2.9), whether answered whole or streamed (the message_delta event).
//   - A 429 or 529 answer carries retry-after, a whole number of seconds (gaps §1): the one
//     retry rule a deployment shows only when it is busy, so it is checked wherever it shows.

// noteRequestID records the request-id of resp and returns a description of the violation when
// an earlier answer of this run carried the same one.
func (tg *Target) noteRequestID(resp *Response) string {
	id := resp.Header.Get("request-id")
	if id == "" {
		return ""
	}
	this := resp.req.Method + " " + resp.req.Path
	if prev, dup := tg.requestIDs.LoadOrStore(namespaceOf(resp.req)+" "+id, this); dup {
		return fmt.Sprintf("request-id %s was already given to an earlier answer (%s); every request-id identifies one request (gaps §1)", id, prev)
	}
	return ""
}

// namespaceOf returns the fake's namespace a request is sent to ("" for the default world): the
// name in a /ns/<name>/ path prefix, or else in the Fake-Namespace header.
func namespaceOf(r *Request) string {
	if rest, ok := strings.CutPrefix(r.Path, "/ns/"); ok {
		name, _, _ := strings.Cut(rest, "/")
		return name
	}
	return r.Header.Get("Fake-Namespace")
}

// RefusalWithoutDetails returns a description of the violation when body, a message or a stream
// of message events, stopped with a refusal whose stop_details is not a refusal record.
func RefusalWithoutDetails(contentType string, body []byte) string {
	check := func(where string, m gjson.Result) string {
		if m.Get("stop_reason").String() != "refusal" {
			return ""
		}
		if d := m.Get("stop_details"); d.Get("type").String() != "refusal" {
			return fmt.Sprintf("%s has stop_reason refusal but stop_details %s; a refusal carries its refusal record {type: refusal, category, explanation} (spec 2.9)", where, orNone(d.Raw))
		}
		return ""
	}
	if strings.HasPrefix(contentType, "text/event-stream") {
		evs, _ := ReadEventStream(body)
		for _, ev := range evs {
			if ev.Name == "message_delta" {
				if msg := check("the message_delta event", gjson.ParseBytes(ev.Data).Get("delta")); msg != "" {
					return msg
				}
			}
		}
		return ""
	}
	if m := gjson.ParseBytes(body); m.Get("type").String() == "message" {
		return check("the message", m)
	}
	return ""
}

// RetryAfterMissing returns a description of the violation when a 429 or 529 answer does not
// carry retry-after as a whole number of seconds.
func RetryAfterMissing(status int, h http.Header) string {
	if status != http.StatusTooManyRequests && status != 529 {
		return ""
	}
	if v := h.Get("retry-after"); !wholeSeconds.MatchString(v) {
		return fmt.Sprintf("a %d answer carries retry-after %q; it must say in whole seconds when to retry (gaps §1)", status, v)
	}
	return ""
}

var wholeSeconds = regexp.MustCompile(`^[0-9]+$`)

func orNone(raw string) string {
	if raw == "" {
		return "(absent)"
	}
	return raw
}

// checkEveryResponse applies the statements above to resp, ending the check on a violation.
func (t *T) checkEveryResponse(resp *Response) {
	if msg := t.Target.noteRequestID(resp); msg != "" {
		t.fail(msg + "\n" + resp.String())
	}
	if msg := RetryAfterMissing(resp.Status, resp.Header); msg != "" {
		t.fail(msg + "\n" + resp.String())
	}
	if resp.Status/100 == 2 {
		if msg := RefusalWithoutDetails(resp.Header.Get("Content-Type"), resp.Body); msg != "" {
			t.fail(msg + "\n" + resp.String())
		}
	}
}
