package stubs

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/platformkit/platformkit/fake/internal/areas/messages/wire"

	"github.com/platformkit/platformkit/fake/internal/core"
)

// Stubs: scripted replies registered at run time (POST /_fake/messages/stubs, or AddStub). A test
// says what the next matching Create a Message requests are answered with: a given text, a
// given tool call, a refusal, then another reply after the tool result. A stub's replies are
// checked against the message schema when it is registered, so a stub can never make the fake
// answer something outside the API; when served, a reply flows through the same path as a
// scenario of the library (answerWith): the fake fills in id, type, role, model and usage, and a
// streamed request gets the same event grammar.
//
// Who answers a request, most explicit first, is decided in one place: choose (messages.go).

// Reply is the face's Reply (package fake), which documents it.
type Reply struct {
	// Content holds the blocks as their JSON objects, e.g.
	// {"type": "tool_use", "id": "toolu_1", "name": "get_weather", "input": {...}}.
	Content []map[string]any `json:"content"`
	// StopReason defaults to "tool_use" when Content holds a tool_use block, else "end_turn".
	StopReason string `json:"stop_reason,omitempty"`
	// StopSequence is the stop sequence that ended the reply; only with StopReason "stop_sequence".
	StopSequence *string `json:"stop_sequence"`
	// StopDetails is the refusal record; only with StopReason "refusal".
	StopDetails *wire.StopDetails `json:"stop_details"`
}

// StubMatch is the face's StubMatch (package fake), which documents it.
type StubMatch struct {
	Model string `json:"model,omitempty"` // the request's model, exactly
	// UserTextContains is a substring of the text of the last turn, when that turn is the user's
	// (its text blocks concatenated, as scenario rules read it). A turn of tool results only has
	// no text: match the follow-up of a tool call by ToolName or by order instead.
	UserTextContains string `json:"user_text_contains,omitempty"`
	ToolName         string `json:"tool_name,omitempty"` // a tool of this name is in the request's tools
}

// StubInput is what the rules of every stub read of one request, worked out once for all of them:
// the text of its last user turn, whether each user_text_contains given is in it (exactly, and,
// only if a near miss needs it, ignoring case: the text lowered at most once), and the meter the
// scans are charged to (maxStubSteps: each scan of the text a step per stepBytes read, each stub
// tried a step, each tool name compared a step). A rule that many stubs share is looked for once.
type StubInput struct {
	req     *wire.MessageRequest
	Text    string
	HasText bool
	lower   string
	lowered bool
	found   map[string]bool // by user_text_contains: whether the text holds it
	folded  map[string]bool // the same, both lowered
	Work    *core.Meter
}

// MaxStubSteps bounds the work of matching one request against the stubs, near miss included:
// about 128 MiB of text scanned (1,000 stubs, each with its own user_text_contains, against a
// last turn of 128 KiB), a few tenths of a second.
const MaxStubSteps = 2_000_000

func newStubInput(req *wire.MessageRequest, work *core.Meter) *StubInput {
	in := &StubInput{req: req, Work: work}
	in.Text, in.HasText = req.LastUserText()
	return in
}

func (in *StubInput) lowerText() string {
	if !in.lowered {
		in.lower, in.lowered = strings.ToLower(in.Text), true
	}
	return in.lower
}

// Contains reports whether the text holds sub; false (with the meter stopped) when the scan is
// over the allowance.
func (in *StubInput) Contains(sub string) bool {
	if !in.Work.Charge(len(sub) / core.StepBytes) { // the lookup hashes sub
		return false
	}
	found, seen := in.found[sub]
	if !seen {
		if !in.Work.ChargeBytes(len(in.Text) + len(sub)) {
			return false
		}
		if in.found == nil {
			in.found = map[string]bool{}
		}
		found = strings.Contains(in.Text, sub)
		in.found[sub] = found
	}
	return found
}

// ContainsFolded is contains ignoring case, for a sub that contains already looked for. Where
// neither the text nor sub has an upper-case letter, it is what contains found, and the text is
// not scanned again.
func (in *StubInput) ContainsFolded(sub string) bool {
	found, seen := in.folded[sub]
	if !seen {
		if !in.lowered && !in.Work.ChargeBytes(2*len(in.Text)) { // lowered, then compared
			return false
		}
		lower, lsub := in.lowerText(), strings.ToLower(sub)
		if lower == in.Text && lsub == sub {
			return in.found[sub]
		}
		if !in.Work.ChargeBytes(len(in.Text) + 2*len(sub)) {
			return false
		}
		if in.folded == nil {
			in.folded = map[string]bool{}
		}
		found = strings.Contains(lower, lsub)
		in.folded[sub] = found
	}
	return found
}

// matches reports whether every rule of m holds for the request; false too once the matching is
// over its allowance (the caller looks at the meter).
func (m *StubMatch) matches(in *StubInput) bool {
	return len(m.misses(in, 1, false)) == 0 && !in.Work.Stopped()
}

// misses are the clauses of m that the request does not satisfy; it stops once it holds limit of
// them. With explain, each is a line that says what the clause wanted and what the request had
// (with "(case-sensitive)" when it would have held ignoring case); without, matching needs only
// their number, and nothing is formatted.
func (m *StubMatch) misses(in *StubInput, limit int, explain bool) []string {
	req := in.req
	var out []string
	miss := func(line func() string) bool {
		if explain {
			out = append(out, line())
		} else {
			out = append(out, "")
		}
		return len(out) >= limit
	}
	if m.Model != "" && m.Model != req.Model {
		if miss(func() string {
			return fmt.Sprintf("model %s is not the request's %s%s", quoteStub(m.Model), quoteStub(req.Model), caseOnly(strings.EqualFold(m.Model, req.Model)))
		}) {
			return out
		}
	}
	if m.UserTextContains != "" {
		switch {
		case !in.HasText:
			if miss(func() string {
				return fmt.Sprintf("user_text_contains %s: the last turn is not the user's text", quoteStub(m.UserTextContains))
			}) {
				return out
			}
		case !in.Contains(m.UserTextContains):
			if miss(func() string {
				folded := in.ContainsFolded(m.UserTextContains)
				return fmt.Sprintf("user_text_contains %s not in %s%s", quoteStub(m.UserTextContains), quoteStub(in.Text), caseOnly(folded))
			}) {
				return out
			}
		}
	}
	if m.ToolName != "" && in.Work.Charge(len(req.Tools)) && !slices.ContainsFunc(req.Tools, func(t wire.ToolDef) bool { return t.Name == m.ToolName }) {
		miss(func() string {
			names := make([]string, 0, min(len(req.Tools), nearMissTools))
			folded := false
			for i, t := range req.Tools {
				folded = folded || strings.EqualFold(t.Name, m.ToolName)
				if i < nearMissTools {
					names = append(names, quoteStub(t.Name))
				}
			}
			had := ": the request has no tools"
			if len(names) > 0 {
				had = " not among the request's tools " + strings.Join(names, ", ")
				if len(req.Tools) > nearMissTools {
					had += fmt.Sprintf(" and %d more", len(req.Tools)-nearMissTools)
				}
			}
			return fmt.Sprintf("tool_name %s%s%s", quoteStub(m.ToolName), had, caseOnly(folded))
		})
	}
	return out
}

// Bounds of a near-miss line: the request's text is quoted up to nearMissText bytes, its tools up
// to nearMissTools names, so that the header and the journal entry stay short whatever was sent.
const (
	nearMissText  = 80
	nearMissTools = 5
)

// quoteStub quotes s as Go does, in ASCII (a header value carries it), cut to nearMissText bytes.
func quoteStub(s string) string { return core.Quoted(s, nearMissText) }

// caseOnly is the note of a clause that would have held but for case.
func caseOnly(folded bool) string {
	if folded {
		return " (case-sensitive)"
	}
	return ""
}

// HeaderStubNearMiss is the response header of a Create a Message request that no stub answered
// while one nearly did: the stub's ID and the one clause of its match that did not hold, e.g.
// stub_2: user_text_contains "Hello" not in "hello there" (case-sensitive). The journal entry's
// stub_near_miss holds the same line.
const HeaderStubNearMiss = "Fake-Stub-Near-Miss"

// nearMiss names, when no stub matched req, the stub that nearly did: of the stubs all of whose
// clauses but one held, one whose clause failed only for case first, else the first registered.
// It is "" when none did. It reads each stub's clauses as matching did, from what matching found
// (each user_text_contains is looked for in the text once, whatever the pass), and formats a
// line only for the stubs that nearly matched, the request's text lowered at most once: its
// work is charged to the same allowance as matching's. When that runs out, it is "".
func (l *stubs) nearMiss(in *StubInput) string {
	best := ""
	for _, st := range l.list {
		if len(st.Match.misses(in, 2, false)) != 1 {
			if in.Work.Stopped() {
				return ""
			}
			continue
		}
		m := st.Match.misses(in, 1, true)
		if in.Work.Stopped() {
			return ""
		}
		line := st.ID + ": " + m[0]
		if strings.HasSuffix(m[0], caseOnly(true)) {
			return line
		}
		if best == "" {
			best = line
		}
	}
	return best
}

// Stub is the face's Stub (package fake), which documents it.
type Stub struct {
	ID      string    `json:"id"` // set by AddStub: "stub_" and a counter of the control API's
	Match   StubMatch `json:"match"`
	Replies []Reply   `json:"replies"`
	Times   int       `json:"times"`   // passes through the sequence; 0 means 1 (and stays 0 with Forever)
	Forever bool      `json:"forever"` // serve the sequence over and over; Times must be 0
	Served  int       `json:"served"`  // replies served so far; the next one is Replies[Served%len(Replies)]
	size    int       // the memory the stub keeps (stubSize), charged to the bounds while it is held
}

// MaxStubs bounds the stubs a server holds at once, so that a runaway test cannot grow it
// without bound; one stub may hold many replies.
const MaxStubs = 1000

// The bounds of the memory stubs keep: the decoded replies (heldSize), which a body of many small
// blocks makes some 20 times its JSON. stubMaxBytes bounds a server's (or namespace's) stubs,
// stubsBytes those of a server and all its namespaces together (a byteBudget). A registration
// past either is refused, naming the bound, and nothing is dropped: stubs are what a test said
// its requests are answered with, and dropping one would change answers silently.
const (
	StubMaxBytes = 16 << 20
	StubsBytes   = 256 << 20
	stubBase     = 256 // a stub's own cost, beyond its replies and match
)

// stubRequest is what registers a stub: the body of POST /_fake/messages/stubs.
type stubRequest struct {
	Match   *StubMatch `json:"match,omitempty"`
	Replies []Reply    `json:"replies"`
	Times   int        `json:"times,omitempty"`
	Forever bool       `json:"forever,omitempty"`
}

type stubs struct {
	mu     sync.Mutex
	list   []*Stub
	Bytes  int              // what the stubs of list keep (stubSize)
	budget *core.ByteBudget // shared with the server's namespaces: stubsBytes; nil once a namespace is dropped
}

// stubSize is the memory a stub keeps: its replies as decoded, its match and its own fields.
func stubSize(st *Stub) int {
	n := stubBase + len(st.Match.Model) + len(st.Match.UserTextContains) + len(st.Match.ToolName) + 64*cap(st.Replies)
	for _, r := range st.Replies {
		n += core.HeldSize(r.Content)
		if r.StopSequence != nil {
			n += len(*r.StopSequence)
		}
		if d := r.StopDetails; d != nil {
			n += 64 + len(d.Type)
			for _, p := range []*string{d.Category, d.Explanation} {
				if p != nil {
					n += 16 + len(*p)
				}
			}
		}
	}
	return n
}

// forget takes what the stubs of list keep out of the bounds; the caller holds mu and empties
// list or takes them out of it.
func (l *stubs) forget(bytes int) {
	l.Bytes -= bytes
	if l.budget != nil {
		l.budget.Add(-bytes)
	}
}

// AddStubValue is Server.AddStub of the face (package fake).
func AddStubValue(s *core.Server, st Stub) (Stub, error) {
	data, err := json.Marshal(stubRequest{Match: &st.Match, Replies: st.Replies, Times: st.Times, Forever: st.Forever})
	if err != nil {
		return Stub{}, core.Invalid("the stub cannot be encoded as JSON: %v", err)
	}
	return addStub(s, data)
}

// addStub checks a stub request body and registers it. Checking the JSON, rather than Go
// values, gives both ways in the same rules and the same field paths.
func addStub(s *core.Server, data []byte) (Stub, error) {
	st, err := parseStub(data)
	if err != nil {
		return Stub{}, err
	}
	st.size = stubSize(st)
	l := StubsOf(s)
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.list) >= MaxStubs {
		return Stub{}, core.Invalid("at most %d stubs can be registered at once; clear them with DELETE /_fake/messages/stubs", MaxStubs)
	}
	if l.Bytes+st.size > StubMaxBytes {
		return Stub{}, core.InvalidField("replies", "the stub would keep %s in memory once decoded, and the stubs of this server (or namespace) may keep at most %s together (they keep %s); send fewer or smaller blocks, or clear the stubs with DELETE /_fake/messages/stubs",
			Mebibytes(st.size), Mebibytes(StubMaxBytes), Mebibytes(l.Bytes)).Because(core.ReasonOutOfRange)
	}
	if l.budget != nil && !l.budget.Reserve(st.size) {
		return Stub{}, core.InvalidField("replies", "the stub would keep %s in memory once decoded, and the stubs of every namespace of this server may keep at most %s together; clear stubs that are no longer needed (DELETE /_fake/messages/stubs, here or in other namespaces) or drop idle namespaces (DELETE /_fake/namespaces)",
			Mebibytes(st.size), Mebibytes(int(l.budget.Limit))).Because(core.ReasonOutOfRange)
	}
	l.Bytes += st.size
	st.ID = s.CtlIDs.Next("stub_") // the control counters: a stub never shifts the API's IDs
	l.list = append(l.list, st)
	return *st, nil
}

// filledByServer are the message fields a reply may not give, and why.
var filledByServer = []struct{ field, why string }{
	{"id", "is given by the server when the reply is served, from its message counter"},
	{"model", "is the model of the request the reply answers; to answer one model only, use match.model"},
	{"usage", "is counted when the reply is served: the request's input tokens as count_tokens counts them (split into cache reads, cache writes and input_tokens), output_tokens from the content"},
}

// parseStub reads a stub request body, with its defaults applied. It refuses a stub that the
// fake could not serve as a valid message: the body must match messages/stub_request (each
// reply a partial message whose every field is checked), and the stop fields must agree with
// each other and with the content, as in a real answer.
func parseStub(data []byte) (*Stub, error) {
	if len(bytes.TrimSpace(data)) == 0 {
		data = []byte("{}")
	}
	var raw struct {
		Replies []map[string]json.RawMessage `json:"replies"`
	}
	if json.Unmarshal(data, &raw) == nil { // a malformed body is reported by the schema check
		for i, r := range raw.Replies {
			for _, f := range filledByServer {
				if _, given := r[f.field]; given {
					return nil, core.InvalidField(fmt.Sprintf("replies.%d.%s", i, f.field), "%s; leave it out", f.why)
				}
			}
		}
	}
	if err := core.ValidateBody("messages/stub_request", data); err != nil {
		return nil, err
	}
	var req stubRequest
	d := json.NewDecoder(bytes.NewReader(data))
	d.UseNumber() // tool input is served as given, to the last digit
	if err := d.Decode(&req); err != nil {
		return nil, core.DecodeError(err) // in the API's terms, not encoding/json's
	}
	st := &Stub{Replies: req.Replies, Times: req.Times, Forever: req.Forever}
	if req.Match != nil {
		st.Match = *req.Match
	}
	switch {
	case st.Forever && st.Times != 0:
		return nil, core.InvalidField("times", "forever serves the sequence until the stubs are cleared; give times or forever, not both")
	case !st.Forever && st.Times == 0:
		st.Times = 1
	}
	for i := range st.Replies {
		r := &st.Replies[i]
		if r.StopReason == "" {
			r.StopReason = defaultStopReason(r.Content)
		}
		if err := CheckStop(r, fmt.Sprintf("replies.%d.", i)); err != nil {
			return nil, err
		}
	}
	return st, nil
}

// CheckStop holds the stop fields to what a real answer pairs them with (spec 2.9): a
// stop_sequence only when one stopped the reply, stop_details only on a refusal, and a
// tool_use stop only with a tool call to make. The error names the field under path.
func CheckStop(r *Reply, path string) error {
	switch reason := r.StopReason; {
	case reason == "stop_sequence" && r.StopSequence == nil:
		return core.InvalidField(path+"stop_sequence", `field required with stop_reason "stop_sequence": the sequence that stopped the reply`)
	case reason != "stop_sequence" && r.StopSequence != nil:
		return core.InvalidField(path+"stop_sequence", `must be null unless stop_reason is "stop_sequence" (stop_reason is %q)`, reason)
	case reason != "refusal" && r.StopDetails != nil:
		return core.InvalidField(path+"stop_details", `must be null unless stop_reason is "refusal" (stop_reason is %q)`, reason)
	case reason == "tool_use" && !hasToolUse(r.Content):
		return core.InvalidField(path+"stop_reason", `"tool_use" needs a tool_use block in content: the call the client is to make`)
	}
	return nil
}

func hasToolUse(content []map[string]any) bool {
	return slices.ContainsFunc(content, func(b map[string]any) bool { return b["type"] == "tool_use" })
}

func defaultStopReason(content []map[string]any) string {
	if hasToolUse(content) {
		return "tool_use"
	}
	return "end_turn"
}

// Take uses up the next reply of the first stub that matches the request, and returns it with the
// stub's ID; nil when no stub matches, and then the stub that nearly matched, if one did, is named
// in the answer's HeaderStubNearMiss and the journal (nearMiss). Replies are never changed once
// registered, so the one returned is safe to read after the lock is released, even if its stub
// is gone.
//
// The matching, near miss included, is charged to the request's meter (maxStubSteps); over it,
// or once the client went, it stops, and the error is a 400 naming the last turn's content
// (meter.refusal); no stub is used up.
func (l *stubs) Take(c *core.Call, req *wire.MessageRequest) (*Reply, string, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	in := newStubInput(req, c.Meter(MaxStubSteps))
	for i, st := range l.list {
		if !in.Work.Charge(1) || !st.Match.matches(in) {
			if in.Work.Stopped() {
				return nil, "", in.Work.Refusal(fmt.Sprintf("messages.%d.content", len(req.Messages)-1), "matching it against the %d stubs takes more than %d steps (a stub one, and one per %d bytes of the text scanned); register fewer stubs or send a shorter turn", len(l.list), MaxStubSteps, core.StepBytes)
			}
			continue
		}
		r := &st.Replies[st.Served%len(st.Replies)]
		st.Served++
		if !st.Forever && st.Served == st.Times*len(st.Replies) {
			l.list = slices.Delete(l.list, i, i+1)
			l.forget(st.size)
		}
		return r, st.ID, nil
	}
	if line := l.nearMiss(in); line != "" {
		c.X.StubNearMiss = line
		c.Header(HeaderStubNearMiss, line)
	}
	return nil, "", nil
}

// StubList is Server.Stubs of the face (package fake).
func StubList(s *core.Server) []Stub {
	l := StubsOf(s)
	l.mu.Lock()
	defer l.mu.Unlock()
	out := make([]Stub, len(l.list))
	for i, st := range l.list {
		out[i] = *st
		out[i].Replies = make([]Reply, len(st.Replies))
		for j, r := range st.Replies {
			r.Content = CloneBlocks(r.Content)
			out[i].Replies[j] = r
		}
	}
	return out
}

// CloneBlocks deep-copies content blocks, which hold only decoded JSON.
func CloneBlocks(content []map[string]any) []map[string]any {
	var clone func(any) any
	clone = func(v any) any {
		switch v := v.(type) {
		case map[string]any:
			m := make(map[string]any, len(v))
			for k, x := range v {
				m[k] = clone(x)
			}
			return m
		case []any:
			s := make([]any, len(v))
			for i, x := range v {
				s[i] = clone(x)
			}
			return s
		}
		return v
	}
	out := make([]map[string]any, len(content))
	for i, b := range content {
		out[i] = clone(b).(map[string]any)
	}
	return out
}

// DropStubs is Server.ClearStubs of the face (package fake).
func DropStubs(s *core.Server) int {
	l := StubsOf(s)
	l.mu.Lock()
	defer l.mu.Unlock()
	n := len(l.list)
	l.list = nil
	l.forget(l.Bytes)
	return n
}

// reset removes every stub (Server.Reset restarts their numbering with the control counters).
func (l *stubs) reset() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.list = nil
	l.forget(l.Bytes)
}

// release takes a dropped namespace's stubs out of the shared budget for good: a registration
// still in flight there is bounded by the namespace's own bound only, and counts nowhere else.
func (l *stubs) release() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.list = nil
	l.forget(l.Bytes)
	l.budget = nil
}

// Mebibytes writes a byte count for an error message: "19.5 MiB".
func Mebibytes(n int) string { return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20)) }

func registerStub(s *core.Server, c *core.Call) (any, error) {
	data, err := c.Body()
	if err != nil {
		return nil, err
	}
	return addStub(s, data)
}

func listStubs(s *core.Server, c *core.Call) (any, error) {
	return struct {
		Data []Stub `json:"data"`
	}{StubList(s)}, nil
}

func clearStubs(s *core.Server, c *core.Call) (any, error) {
	return core.ClearedBody{Cleared: DropStubs(s)}, nil
}

// Area is the stubs a test registered: the test's configuration, not the world, so a
// snapshot leaves them out and Reset clears them.
var Area = &core.Area{
	Routes: func() []*core.Route {
		return []*core.Route{
			core.Line(core.Post, "/_fake/messages/stubs", nil, core.In{Body: "messages/stub_request"}, "messages/stub", registerStub),
			core.Line(core.Get, "/_fake/messages/stubs", nil, core.In{}, "messages/stub_list", listStubs),
			core.Line(core.Del, "/_fake/messages/stubs", nil, core.In{}, "control/cleared", clearStubs),
		}
	},
	Reset: func(s *core.Server) { StubsOf(s).reset() },
	Drop:  func(s *core.Server) { StubsOf(s).release() },
}

var (
	stubSlot    = core.NewSlot(&core.ServerSlots, func(s *core.Server) *stubs { return &stubs{budget: s.Cfg.Budget(StubsBudget)} })
	StubsBudget = core.NewBudget(StubsBytes)
)

// StubsOf is the stubs of s.
func StubsOf(s *core.Server) *stubs { return stubSlot.In(s.Areas) }
