package kit

import (
	"cmp"
	"fmt"
	"net/http"
	pathpkg "path"
	"regexp"
	"slices"
	"sort"
	"strings"

	"github.com/platformkit/platformkit/schemas"
)

// A cause is one precondition of many checks that the target does not meet: a route it does not
// serve, a model list of another shape, answers outside a schema. A check that meets a known
// cause ends as blocked by it (PrefixBlocked), not failed, and the reports lead with the causes,
// each with the checks it blocked, so that one defect reads as one line and not as a cascade.
// The check whose statement the cause breaks, its holder, fails on it instead.
type cause struct {
	line   string // what the target does, in one line
	holder string // the ID of the check whose statement it breaks; "" when none (a route not served)
	// fields are the names of the fields a schema deviation is about: a failure that names none
	// of them is not its symptom (symptomOf).
	fields []string
}

// PrefixBlocked begins the message of a check that did not run its statement because a
// precondition failed; the rest is the cause's line.
const PrefixBlocked = "blocked: "

// addCause records a cause under key, once: the first found stays, and is never changed after
// (checks that run side by side read it).
func (tg *Target) addCause(key, line, holder string, fields ...string) *cause {
	c, _ := tg.causes.LoadOrStore(key, &cause{line: line, holder: holder, fields: fields})
	return c.(*cause)
}

func (tg *Target) causeOf(key string) *cause {
	if c, ok := tg.causes.Load(key); ok {
		return c.(*cause)
	}
	return nil
}

func routeCause(method, path string) string { return "route " + method + " " + path }

// routeOf is a request's route as a cause names it: its method (GET when the request leaves it
// unset, as the client sends it) and path without the query.
func routeOf(r *Request) string {
	path, _, _ := strings.Cut(r.Path, "?")
	return routeCause(cmp.Or(r.Method, http.MethodGet), path)
}

// itemRoute is how a cause names the route of one item of a collection: GET /v1/models/{model_id}.
func itemRoute(collection string) string {
	return collection + "/{" + strings.TrimSuffix(pathpkg.Base(collection), "s") + "_id}"
}

// notServed is the cause of a request's route not being served: its own; for a GET of one item
// of a collection (GET /v1/models/{id}), the item route's, or the collection's: a deployment that
// does not list models does not serve one by ID either, and what its 404 says is not the API's.
func (tg *Target) notServed(r *Request) *cause {
	if c := tg.causeOf(routeOf(r)); c != nil {
		return c
	}
	path, _, _ := strings.Cut(r.Path, "?")
	if parent, _ := pathpkg.Split(path); cmp.Or(r.Method, http.MethodGet) == http.MethodGet && parent != "/v1/" {
		collection := strings.TrimSuffix(parent, "/")
		if c := tg.causeOf(routeCause(http.MethodGet, itemRoute(collection))); c != nil {
			return c
		}
		return tg.causeOf(routeCause(http.MethodGet, collection))
	}
	return nil
}

var index = regexp.MustCompile(`\.[0-9]+(\.|$)`)

// schemaCause is the key of a schema deviation: the schema, where (array indexes folded, so that
// every model of a list missing one field is one cause) and what.
func schemaCause(schema string, err error) string {
	var se *schemas.Error
	if e, ok := err.(*schemas.Error); ok {
		se = e
		return "schema " + schema + " " + index.ReplaceAllString(se.Path, ".N$1") + " " + se.Keyword + " " + se.Message
	}
	return "schema " + schema + " " + err.Error()
}

// extensionFields are, for the schemas whose answers most checks read, the fields that only
// decisions of EXTENSIONS.md require: the reference shows a message without them (2.9: usage and
// what follows stop_reason are "not shown") and a model without them (2.10). A deviation there
// fails no check of a reference clause.
var extensionFields = map[string][]string{
	"messages/message": {"id", "type", "stop_sequence", "usage", "container", "diagnostics", "context_management"},
	"models/model":     {"lifecycle", "line", "deprecated_at", "retires_at", "allowed_fallback_models", "capabilities.server_tools", "capabilities.compaction", "capabilities.thinking.types.disabled", "capabilities.thinking.types.between_tools"},
	// A stream's events carry the same message (message_start) and its usage (message_delta);
	// a block's start (the event grammar is gaps §4's) shows the block being begun, and the
	// maker's own streams begin a text block as {"type": "text", "text": ""}.
	"messages/stream_event": {"message.id", "message.type", "message.stop_sequence", "message.usage", "message.container", "message.diagnostics", "message.context_management", "usage", "delta.stop_sequence", "delta.container", "context_management", "content_block.citations"},
	"models/model_list":     {"data.N.lifecycle", "data.N.line", "data.N.deprecated_at", "data.N.retires_at", "data.N.allowed_fallback_models", "data.N.capabilities.server_tools", "data.N.capabilities.compaction", "data.N.capabilities.thinking.types.disabled", "data.N.capabilities.thinking.types.between_tools"},
}

// schemaHolders name, for those schemas, the checks whose statements are the reference's shape
// and those whose statements are the extension fields: only they fail on a deviation of the
// shape; the first of each is the one a cause names.
var schemaHolders = map[string][2][]string{
	"messages/message":  {{"messages/create-response-shape", "messages/text-citations-null@citations"}, {"messages/create-response-fields", "messages/sdk-response-fields"}},
	"models/model_list": {{"models/list-shape", "models/release-time-is-a-timestamp@created_at"}, {"models/list-extension-fields", "models/lifecycle-fields", "models/lifecycle-agrees"}},
	"models/model":      {{"models/get-each-listed", "models/get-alias", "models/list-shape", "models/release-time-is-a-timestamp@created_at"}, {"models/list-extension-fields", "models/lifecycle-fields", "models/lifecycle-agrees"}},
}

var missing = regexp.MustCompile(`'([^']*)'`)

// extensionDeviation reports whether err, a deviation from schema, is in fields only extensions
// require: every property it names missing, or the place it is at, is one of extensionFields.
func extensionDeviation(schema string, err error) bool {
	se, ok := err.(*schemas.Error)
	fields := extensionFields[schema]
	if !ok || len(fields) == 0 {
		return false
	}
	path := index.ReplaceAllString(se.Path, ".N$1")
	isExt := func(p string) bool {
		return slices.ContainsFunc(fields, func(f string) bool { return p == f || strings.HasPrefix(p, f+".") })
	}
	if se.Keyword == "required" {
		names := missing.FindAllStringSubmatch(se.Message, -1)
		for _, n := range names {
			if !isExt(strings.TrimPrefix(path+"."+n[1], ".")) {
				return false
			}
		}
		return len(names) > 0
	}
	return isExt(path)
}

// ExtensionOnly reports whether err, a deviation of an answer from schema that the check met
// outside Do (a stream's event), is in fields only EXTENSIONS.md requires while the check's
// statement is a reference clause's: then it is not the check's failure (schemaDeviation says
// the same of the bodies Do checks).
func (t *T) ExtensionOnly(schema string, err error) bool {
	return !t.check.Has(Extension) && extensionDeviation(schema, err)
}

// ExtensionPrecondition is a precondition the check needs that only a decision of EXTENSIONS.md
// states, found not to hold (line says how, key names it once for the run): a check of a
// reference clause ends blocked by it, as a cause that holder holds; an extension check, the
// holder among them, goes on, to fail on it.
func (t *T) ExtensionPrecondition(key, line, holder string) {
	if t.check.Has(Extension) || t.check.ID == holder {
		return
	}
	t.blockedBy(t.Target.addCause("extension "+key, line, holder))
}

// blockedBy ends the check as blocked by c.
func (t *T) blockedBy(c *cause) {
	t.skip(PrefixBlocked + c.line)
}

// schemaDeviation decides what a 2xx answer outside its schema does to the running check: a
// deviation in extension fields alone fails no reference-clause check; the holder of the shape
// fails; any other check is blocked by the deviation as a cause, named once.
func (t *T) schemaDeviation(resp *Response, schema string, err error) {
	ext := extensionDeviation(schema, err)
	if ext && !t.check.Has(Extension) {
		return
	}
	holders, held := schemaHolders[schema]
	which := 0
	if ext {
		which = 1
	}
	if !held || holds(holders[which], t.check.ID, err) || t.check.ID == "" {
		t.pending = nil // the check's own statement, not another's symptom
		t.fail(fmt.Sprintf("response does not match schema %s: %v\n%s", schema, err, exchangeLine(resp)))
		return
	}
	where := "reference 2.9"
	switch {
	case strings.HasPrefix(schema, "models/"):
		where = "reference 2.10"
	}
	if ext {
		where = "EXTENSIONS.md"
	}
	// The check goes on: its own statement may hold whatever the deviation; if it fails, the
	// failure is the deviation's symptom (symptomOf).
	c := t.Target.addCause(schemaCause(schema, err),
		fmt.Sprintf("%s %s answers outside its shape (%s): %v", resp.req.Method, strings.SplitN(resp.req.Path, "?", 2)[0], where, err), holders[which][0], deviationFields(err)...)
	if !slices.Contains(t.pending, c) {
		t.pending = append(t.pending, c)
	}
}

// deviationFields are the names a schema deviation is about: the properties it says are missing,
// or the last name of the place it is at.
func deviationFields(err error) []string {
	se, ok := err.(*schemas.Error)
	if !ok {
		return []string{}
	}
	var out []string
	if se.Keyword == "required" {
		for _, m := range missing.FindAllStringSubmatch(se.Message, -1) {
			out = append(out, m[1])
		}
		return out
	}
	parts := strings.Split(index.ReplaceAllString(se.Path, "$1"), ".")
	return append(out, parts[len(parts)-1])
}

// holds reports whether check is one of holders for the deviation err: a holder written
// "id@field" holds only deviations at that field (a check of created_at alone is not the
// statement of a missing capabilities).
func holds(holders []string, check string, err error) bool {
	for _, h := range holders {
		id, field, narrow := strings.Cut(h, "@")
		if id == check && (!narrow || strings.Contains(err.Error(), field)) {
			return true
		}
	}
	return false
}

// symptomOf wraps a check's fail: a failure after the check met a cause another check holds,
// which names a field the cause is about, is the cause's symptom, and ends the check blocked by
// it; any other failure is the check's own, and a suite error stays the suite's.
func (t *T) symptomOf(fail func(string)) func(string) {
	return func(msg string) {
		for _, c := range t.pending {
			if !strings.Contains(msg, PrefixSuiteError) && slices.ContainsFunc(c.fields, func(f string) bool { return strings.Contains(msg, f) }) {
				t.blockedBy(c)
			}
		}
		fail(msg)
	}
}

// Causes are the lines of the causes found so far, sorted, each once (one cause may stand under
// several keys: the routes of one collection not served).
func (tg *Target) Causes() []string {
	var out []string
	tg.causes.Range(func(_, v any) bool {
		out = append(out, v.(*cause).line)
		return true
	})
	sort.Strings(out)
	return slices.Compact(out)
}

// causeGroups are the blocked checks grouped by their cause, the cause that blocked most first.
func (r *Run) causeGroups() []disabledGroup {
	why := map[string][]string{}
	for _, res := range r.with(Blocked) {
		why[res.Message] = append(why[res.Message], res.ID)
	}
	out := make([]disabledGroup, 0, len(why))
	for k, ids := range why {
		out = append(out, disabledGroup{k, ids})
	}
	sort.Slice(out, func(i, j int) bool {
		if len(out[i].IDs) != len(out[j].IDs) {
			return len(out[i].IDs) > len(out[j].IDs)
		}
		return out[i].Reason < out[j].Reason
	})
	return out
}

// listIDs lists at most n IDs, each quoted by q, and how many more there are.
func listIDs(ids []string, q string, n int) string {
	shown := make([]string, 0, min(len(ids), n)+1)
	for _, id := range ids[:min(len(ids), n)] {
		shown = append(shown, q+id+q)
	}
	if len(ids) > n {
		shown = append(shown, fmt.Sprintf("and %d more", len(ids)-n))
	}
	return strings.Join(shown, ", ")
}

// Serves reports whether the run may send method path: false when it is known not to be served,
// or to refuse the API key (a cause), so that a check whose statement is not about the route
// leaves that part out rather than end blocked.
func (tg *Target) Serves(method, path string) bool {
	return tg.causeOf(routeCause(method, path)) == nil && tg.causeOf("refused "+method+" "+path) == nil
}
