package messages

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
	"unsafe"

	"github.com/platformkit/platformkit/fake/internal/areas/ratelimit"

	"github.com/platformkit/platformkit/fake/internal/areas/models"

	"github.com/platformkit/platformkit/fake/internal/core"
)

// Messages (spec 2.9, 4.4, gaps §4). The area keeps no state of its own: a response is a pure
// function of the request, the scenario fixtures and the stubs a test registered
// (messages_stubs.go), which is what makes it reproducible.

// request is a Messages request as it passes the pipeline: the typed body, and what the stages
// attach to it.
type request struct {
	*MessageRequest
	// tape is what the tape matches the request by (tape.go).
	tape tapeRequest
	// layout is the request laid out by the one walk of its blocks: its input-token count and
	// the cache's positions, breakpoints and, when the request may use the cache, keys.
	layout *cacheLayout
	// scenario is the scenario the Fake-Scenario header names; nil without the header.
	scenario *scenario
	// thread is the request's message thread (messages_threads.go); nil without one.
	thread *threadTurn
}

// createMessage answers POST /v1/messages in named stages, each taking and returning typed
// values; nothing changes before admit, and a request refused by a stage leaves everything as it
// was:
//
//	parse  every rule that can refuse the request, in one stage (parseMessage)
//	plan   the prompt cache's lookups: the input side of usage (planCache)
//	admit  the rate limits, when enforced (admit)
//	choose the reply: a named scenario, a stub, the tape, a library scenario or the model (choose)
//	answer build the message, or the tape's answer (answer)
//	commit the cache's writes, the thread's conversation, the journal's stub (commit)
//	charge the output tokens, and the rate-limit headers (admission.chargeOutput)
func createMessage(s *core.Server, c *core.Call) (any, error) {
	req, err := parseMessage(s, c, true)
	if err != nil {
		return nil, err
	}
	defer req.thread.done() // a continue is in flight until it is answered
	plan := planCache(s, c, req.MessageRequest, req.layout)
	// Rate limits (when enforced) admit the request here, and only here, before anything answers
	// it, so that a 429 uses up no stub, ID, bucket or cache entry.
	adm, err := ratelimit.Admit(s, c, req.Model, plan.inputUsage(), false)
	if err != nil {
		return nil, err
	}
	ch, err := choose(s, c, req, req.tape)
	if err != nil {
		return nil, err // as a refusal of the answer stage: the admission is kept
	}
	ans, err := answerRequest(s, c, req, plan, ch)
	if err != nil {
		if ch.tape != nil {
			adm.ChargeOutput(0) // the tape's refusal is its answer: the headers, nothing charged
		}
		return nil, err
	}
	commit(s, c, req, plan, ch, ans)
	// The whole answer is known before a stream starts: its output is charged, and the headers
	// written, before the first byte. A taped answer's output is not charged.
	adm.ChargeOutput(ans.output())
	return ans.v, nil
}

// countTokens answers POST /v1/messages/count_tokens: parse, admit (its own token_count group,
// apart from Messages'), choose (the tape or the counter) and answer. It never caches: the
// count is the parse stage's, every input token.
func countTokens(s *core.Server, c *core.Call) (any, error) {
	req, err := parseMessage(s, c, false)
	if err != nil {
		return nil, err
	}
	adm, err := ratelimit.Admit(s, c, req.Model, ratelimit.InputUsage{}, true)
	if err != nil {
		return nil, err
	}
	adm.ChargeOutput(0)
	if ch, _ := choose(s, c, nil, req.tape); ch.tape != nil { // without a request, no error
		v, _, err := answerFromTape(s, c, ch.tape, req.MessageRequest, req.layout.total, nil, false)
		return v, err
	}
	n := req.layout.total
	// context_management reports the count before any context edit; the fake applies none.
	var cm any
	if req.hasContextManagement() {
		cm = map[string]int{"original_input_tokens": n}
	}
	return map[string]any{"input_tokens": n, "context_management": cm}, nil
}

// choice is the reply the choose stage picked: a canned reply, the tape, or neither (the
// scripted model, or the token counter).
type choice struct {
	reply *Reply    // a named scenario, a stub or a library scenario
	stub  string    // the stub's id, for the journal
	tape  *tapePick // the tape answers
}

// choose is the one owner of the reply's precedence, most explicit first:
//
//  1. the scenario the Fake-Scenario header names: the request itself asks for it;
//  2. the first registered stub whose rules match (a stub's reply is used up by it);
//  3. the tape, when the server records or replays (tape.go);
//  4. the first scenario of the library whose matching rule selects the request;
//  5. the scripted model.
//
// Stubs come before the rest because a test registers them for this very run. max_tokens 0
// pre-warms the cache: the scripted model answers it with no content, and no scenario or stub
// is used up by it (the tape still answers it). req is nil for the routes that have no canned
// replies (count_tokens, Completions): the tape or the fake's own answer.
//
// Its only error is the stubs' matching going over its allowance of work (stubs.take).
func choose(s *core.Server, c *core.Call, req *request, tr tapeRequest) (choice, error) {
	canned := req != nil && req.MaxTokens > 0
	if canned && req.scenario != nil {
		return choice{reply: &req.scenario.Response}, nil
	}
	if canned {
		r, id, err := StubsOf(s).Take(c, req.MessageRequest)
		if err != nil {
			return choice{}, err
		}
		if r != nil {
			return choice{reply: r, stub: id}, nil
		}
	}
	if pick := pickFromTape(s, c, tr); pick != nil {
		return choice{tape: pick}, nil
	}
	if canned {
		if sc := ScenariosSection.In(c.St.Fx.Sections).matching(req.MessageRequest); sc != nil {
			return choice{reply: &sc.Response}, nil
		}
	}
	return choice{}, nil
}

// answered is what the answer stage built: the value the handler returns, and the message to
// commit (nil when the answer is not a message the fake numbered: a forwarded or failed one).
type answered struct {
	v     any
	msg   *Message
	taped bool // the tape answered: its output is not charged, and no thread keeps it
}

// output is what the charge stage takes from the output-token buckets.
func (r answered) output() int {
	if r.taped || r.msg == nil {
		return 0
	}
	return r.msg.Usage.OutputTokens
}

// answer is the answer stage: the message built from the chosen reply (or the scripted
// model's), or the tape's answer.
func answerRequest(s *core.Server, c *core.Call, req *request, plan *CachePlan, ch choice) (answered, error) {
	if ch.tape != nil {
		v, msg, err := answerFromTape(s, c, ch.tape, req.MessageRequest, req.layout.total, plan, req.Stream)
		return answered{v: v, msg: msg, taped: true}, err
	}
	msg, err := answerWith(s, c.Meter(MaxGenSteps), req.MessageRequest, plan, ch.reply)
	if err != nil {
		return answered{}, err
	}
	if req.Stream {
		return answered{v: req.thread.hold(MessageStream(msg, c.HasBeta(BetaThinkingTokenCount))), msg: msg}, nil
	}
	return answered{v: MessageJSON{msg}, msg: msg}, nil
}

// commit is the commit stage: the cache plan's writes under the answer's id, the conversation
// the thread keeps, and the stub the journal names. A taped answer keeps no thread.
func commit(s *core.Server, c *core.Call, req *request, plan *CachePlan, ch choice, r answered) {
	if r.msg != nil {
		plan.Commit(r.msg.ID)
	}
	if !r.taped {
		commitThread(s, req.thread, req.MessageRequest, r.msg)
	}
	if ch.stub != "" {
		c.X.Stub = ch.stub
	}
}

// parseMessage is the parse stage of Messages (create) and count_tokens: it reads the body,
// decodes it once, and applies every rule that can refuse the request, in this order: the
// request schema (which names the field of any violation), the rules of the request's API
// version, the thread, the rules a schema cannot express, and, for create, those of max_tokens
// 0 and the model's maximum; then the one walk of the request's blocks that counts its input
// tokens and lays it out for the prompt cache (refusing misplaced cache_control), and, for
// create, the Fake-Scenario header. The typed request, the tape's key and the layout all come
// from the one decoded value.
func parseMessage(s *core.Server, c *core.Call, create bool) (*request, error) {
	data, v, err := c.DecodeBody()
	if err != nil {
		return nil, c.Version.SchemaError(err)
	}
	req := &request{MessageRequest: &MessageRequest{body: data}}
	req.Raw = v.(map[string]any) // the schema requires an object
	// What the request's API version refuses of a body the schema accepts (versions.go); a thread
	// continue is checked once expanded, as the whole conversation it stands for.
	continues := isContinue(req.Raw)
	if !continues {
		if err := c.Version.CheckMessageBody(req.Raw); err != nil {
			return nil, err
		}
	}
	// The tape matches the body as sent, before a thread continue expands it.
	req.tape = tapeRequestOf(s, c, data, req.Raw)
	if req.thread, err = expandThread(s, c, req.MessageRequest); err != nil {
		return nil, err
	}
	// A continue refused by a check below is no longer in flight.
	parsed := false
	defer func() {
		if !parsed {
			req.thread.release()
		}
	}()
	if continues {
		if err := c.Version.CheckMessageBody(req.Raw); err != nil {
			return nil, err
		}
	}
	if err := checkMessage(s, c, req, create); err != nil {
		return nil, err
	}
	parsed = true
	return req, nil
}

// checkMessage applies the rules of a decoded, expanded request that the schema cannot express,
// and lays it out (parseMessage).
func checkMessage(s *core.Server, c *core.Call, req *request, create bool) error {
	// The schema lets messages be empty for a thread continue, which now holds the whole
	// conversation; any other request needs one.
	msgs, _ := req.Raw["messages"].([]any)
	if len(msgs) == 0 {
		return core.InvalidField("messages", "minimum 1 items required, but found 0 items")
	}
	// The schema bounds the messages sent; a thread continue's whole conversation is bounded the
	// same, with the schema's words.
	if len(msgs) > MaxMessages {
		return core.InvalidField("messages", "maximum %d items required, but found %d items", MaxMessages, len(msgs)).Because(core.ReasonOutOfRange)
	}
	if err := req.ReadFields(); err != nil {
		return err
	}
	req.Messages = make([]InputMessage, 0, len(msgs))
	for _, m := range msgs {
		m := m.(map[string]any)
		im := InputMessage{Role: m["role"].(string)}
		if text, ok := m["content"].(string); ok {
			im.Blocks = []Block{{"type": "text", "text": text}}
		} else {
			content := m["content"].([]any)
			im.Blocks = make([]Block, 0, len(content))
			for _, b := range content {
				im.Blocks = append(im.Blocks, b.(map[string]any))
			}
		}
		req.Messages = append(req.Messages, im)
	}
	if err := checkUserID(req.Raw); err != nil {
		return err
	}
	if err := checkBase64Sources(req.MessageRequest); err != nil {
		return err
	}
	if err := checkMessageOptions(req.MessageRequest); err != nil {
		return err
	}
	if bp, _ := req.Raw["billing_policy"].(map[string]any); bp["bill_to"] == "user_profile" {
		// "self" bills the key's organization, as without the field; a user profile's customer
		// must have linked an organization that allows it, and the fake has no such link.
		return core.InvalidField("billing_policy.bill_to", "\"user_profile\": no user profile of this request has linked an organization that allows it to be billed; send \"self\" or omit billing_policy").Because(core.ReasonInvalidValue)
	}
	if err := checkStrictSchemas(c, req.MessageRequest); err != nil {
		return err
	}
	if err := checkToolChoice(req.MessageRequest); err != nil {
		return err
	}
	if create {
		if err := checkPrewarm(req.MessageRequest); err != nil {
			return err
		}
		if err := checkMaxTokens(c.St.Fx, req.MessageRequest); err != nil {
			return err
		}
	}
	// The one walk of the blocks: the input-token count and the cache layout. count_tokens
	// checks the cache_control markers as Messages does, but never caches, so it needs no keys.
	var err error
	if req.layout, err = layoutRequest(s, c, req.MessageRequest, create); err != nil {
		return err
	}
	// An unknown Fake-Scenario is the request's own error, whatever else it asks (max_tokens 0
	// included): refused before it takes anything.
	if !create {
		return nil
	}
	if name := c.DeclaredHeader(HeaderScenario); name != "" {
		if req.scenario, err = ScenariosSection.In(c.St.Fx.Sections).named(name); err != nil {
			return err
		}
	}
	return nil
}

// ReadFields sets the typed fields from the decoded body as encoding/json would decode them from
// it (fieldReader), in the order it would meet them (keys sorted, depth first), so that a value
// the schema leaves open is refused as it was when the fields were decoded from a re-encoding of
// the body. The messages are taken apart by checkMessage.
func (req *MessageRequest) ReadFields() error {
	var r fieldReader
	top := req.Raw
	req.Container = r.raw(top, "container")
	req.ContextManagement = r.raw(top, "context_management")
	req.InferenceGeo = r.str(top, "inference_geo", "inference_geo")
	req.MaxTokens = r.int(top, "max_tokens", "max_tokens")
	req.Model = r.str(top, "model", "model")
	if oc, ok := r.value(top, "output_config", "output_config", typeObject).(map[string]any); ok {
		req.OutputConfig = &struct {
			Format *outputFormat `json:"format"`
		}{r.format(oc, "format", "output_config.format")}
	}
	req.OutputFormat = r.format(top, "output_format", "output_format")
	req.Speed = r.str(top, "speed", "speed")
	if ss, ok := r.value(top, "stop_sequences", "stop_sequences", typeArray).([]any); ok {
		req.StopSequences = make([]string, len(ss))
		for i, x := range ss {
			req.StopSequences[i], _ = r.check(x, "stop_sequences", typeString).(string)
		}
	}
	req.Stream = r.bool(top, "stream", "stream")
	if th, ok := r.value(top, "thinking", "thinking", typeObject).(map[string]any); ok {
		req.Thinking = &struct {
			Type         string `json:"type"`
			BudgetTokens int    `json:"budget_tokens"`
			Display      string `json:"display"`
		}{}
		req.Thinking.BudgetTokens = r.int(th, "budget_tokens", "thinking.budget_tokens")
		req.Thinking.Display = r.str(th, "display", "thinking.display")
		req.Thinking.Type = r.str(th, "type", "thinking.type")
	}
	if tc, ok := r.value(top, "tool_choice", "tool_choice", typeObject).(map[string]any); ok {
		req.ToolChoice = &struct {
			Type string `json:"type"`
			Name string `json:"name"`
		}{Name: r.str(tc, "name", "tool_choice.name")}
		req.ToolChoice.Type = r.str(tc, "type", "tool_choice.type")
	}
	if ts, ok := r.value(top, "tools", "tools", typeArray).([]any); ok {
		req.Tools = make([]toolDef, len(ts))
		for i, x := range ts {
			const path = "tools" // encoding/json's field paths name no index
			t, _ := r.check(x, path, typeObject).(map[string]any)
			tool := &req.Tools[i]
			tool.InputSchema, _ = floats(r.value(t, "input_schema", path+".input_schema", typeObject)).(map[string]any)
			tool.Name = r.str(t, "name", path+".name")
			tool.Strict = r.bool(t, "strict", path+".strict")
			tool.Type = r.str(t, "type", path+".type")
		}
	}
	return r.err
}

// fieldReader reads typed fields from a decoded JSON object as encoding/json decodes them into a
// struct: a key matches a field under Unicode case folding (of several, the last in key order
// wins), null leaves a field empty, a JSON schema keeps its numbers as float64, and a value of
// another type, or an integer no int holds (1e3, 1.0, past the range), is the first error,
// naming its field.
type fieldReader struct {
	err   error
	plain []unsafe.Pointer // the maps read so far whose keys no other name folds to (member)
}

var (
	typeString = reflect.TypeFor[string]()
	typeBool   = reflect.TypeFor[bool]()
	typeInt    = reflect.TypeFor[int]()
	typeObject = reflect.TypeFor[map[string]any]()
	typeArray  = reflect.TypeFor[[]any]()
)

// jsonTypeOf names the JSON type of each Go type fieldReader reads, as check names what it got.
var jsonTypeOf = map[reflect.Type]string{typeString: "string", typeBool: "bool", typeInt: "number", typeObject: "object", typeArray: "array"}

// foldedMember is the value of the key of m that encoding/json would decode into the field named
// name: the last, in key order, of the keys equal to name under Unicode case folding. A key
// that folds to name is never shorter than it.
func foldedMember(m map[string]any, name string) any {
	v, ok := m[name]
	best := name
	for k, x := range m {
		if len(k) >= len(name) && k != name && (!ok || k > best) && strings.EqualFold(k, name) {
			v, best, ok = x, k, true
		}
	}
	return v
}

// member is foldedMember(m, name), without its walk of m's keys for every field when no key of m
// has an upper-case or non-ASCII letter: then only name itself folds to name (the request schema
// refuses unknown fields, so that is every request but a careless one). m's keys are looked at
// once per request.
func (r *fieldReader) member(m map[string]any, name string) any {
	p := reflect.ValueOf(m).UnsafePointer()
	if slices.Contains(r.plain, p) {
		return m[name]
	}
	for k := range m {
		for i := range len(k) {
			if c := k[i]; c >= utf8.RuneSelf || 'A' <= c && c <= 'Z' {
				return foldedMember(m, name)
			}
		}
	}
	r.plain = append(r.plain, p)
	return m[name]
}

// value is m's member name if it has the JSON type t stands for; nil when absent, null or of
// another type (then the reader's error, if it has none yet).
func (r *fieldReader) value(m map[string]any, name, path string, t reflect.Type) any {
	return r.check(r.member(m, name), path, t)
}

// check is v if it has the JSON type t stands for, else nil (and the reader's error). null is
// nil without an error.
func (r *fieldReader) check(v any, path string, t reflect.Type) any {
	var got string
	switch v := v.(type) {
	case nil:
		return nil
	case string:
		got = "string"
	case bool:
		got = "bool"
	case json.Number:
		got = "number"
		if t == typeInt {
			if i, err := v.Int64(); err != nil || int64(int(i)) != i {
				got = "number " + v.String()
				break
			}
			return v
		}
	case map[string]any:
		got = "object"
	case []any:
		got = "array"
	}
	if got == jsonTypeOf[t] {
		return v
	}
	if r.err == nil {
		r.err = core.DecodeError(&json.UnmarshalTypeError{Value: got, Type: t, Field: path})
	}
	return nil
}

func (r *fieldReader) str(m map[string]any, name, path string) string {
	s, _ := r.value(m, name, path, typeString).(string)
	return s
}

func (r *fieldReader) bool(m map[string]any, name, path string) bool {
	b, _ := r.value(m, name, path, typeBool).(bool)
	return b
}

func (r *fieldReader) int(m map[string]any, name, path string) int {
	n, _ := r.value(m, name, path, typeInt).(json.Number)
	i, _ := n.Int64()
	return int(i)
}

// raw is the JSON of m's member name, as a json.RawMessage field decodes it ("null" for null);
// nil without.
func (r *fieldReader) raw(m map[string]any, name string) json.RawMessage {
	v := r.member(m, name)
	if v == nil {
		if _, ok := m[name]; !ok {
			return nil // absent (a folded key holding null is as rare as harmless)
		}
	}
	data, _ := json.Marshal(v)
	return data
}

// format is the structured-output format m holds under name (output_config.format or
// output_format): nil for null or absent.
func (r *fieldReader) format(m map[string]any, name, path string) *outputFormat {
	f, ok := r.value(m, name, path, typeObject).(map[string]any)
	if !ok {
		return nil
	}
	schema, _ := floats(r.value(f, "schema", path+".schema", typeObject)).(map[string]any)
	return &outputFormat{Schema: schema}
}

// floats is a copy of the decoded value v with its numbers as float64, as encoding/json decodes
// a JSON schema into a map: the request schema checked that every number fits one.
func floats(v any) any {
	switch v := v.(type) {
	case json.Number:
		f, _ := strconv.ParseFloat(string(v), 64)
		return f
	case map[string]any:
		out := make(map[string]any, len(v))
		for k, x := range v {
			out[k] = floats(x)
		}
		return out
	case []any:
		out := make([]any, len(v))
		for i, x := range v {
			out[i] = floats(x)
		}
		return out
	}
	return v
}

// checkPrewarm refuses what cannot go with max_tokens 0, which only fills the prompt cache
// (conformance/EXTENSIONS.md, "Prompt caching"): streaming, enabled thinking, a structured
// output format and a tool_choice that forces a tool call.
func checkPrewarm(req *MessageRequest) error {
	if req.MaxTokens != 0 {
		return nil
	}
	const why = "cannot be used with max_tokens: 0, which only pre-warms the prompt cache"
	switch {
	case req.Stream:
		return core.InvalidField("stream", "true %s", why)
	case req.Thinking != nil && req.Thinking.Type == "enabled":
		return core.InvalidField("thinking.type", "\"enabled\" %s", why)
	case req.OutputConfig != nil && req.OutputConfig.Format != nil:
		return core.InvalidField("output_config.format", "%s", why)
	case req.OutputFormat != nil:
		return core.InvalidField("output_format", "%s", why)
	case req.ToolChoice != nil && (req.ToolChoice.Type == "any" || req.ToolChoice.Type == "tool"):
		return core.InvalidField("tool_choice.type", "%s %s", core.Quoted(req.ToolChoice.Type, core.MaxExcerpt), why)
	}
	return nil
}

// checkMessageOptions refuses clear_at and a per-message output_config, which the newest SDKs
// send: they permit them only on messages of role "system", and the Platform API has no system
// role (its instructions are the top-level system parameter). The schema has checked their
// values first, so a client learns both what it may send and why it may not send it here.
func checkMessageOptions(req *MessageRequest) error {
	for i, m := range req.Raw["messages"].([]any) {
		for _, k := range []string{"clear_at", "output_config"} {
			if _, ok := m.(map[string]any)[k]; ok {
				return core.InvalidField(fmt.Sprintf("messages.%d.%s", i, k), "is only permitted on messages of role \"system\", and there is no system role: send instructions in the top-level system parameter")
			}
		}
	}
	return nil
}

// checkMaxTokens applies the limits of max_tokens that depend on other fields: the model's own
// maximum (spec 4.4, 8) and the thinking budget, which must leave room for an answer (gaps §4).
func checkMaxTokens(fx *core.Fixtures, req *MessageRequest) error {
	if m := models.Find(fx, req.Model); m != nil && req.MaxTokens > m.MaxTokens {
		return core.InvalidField("max_tokens", "%d is above the maximum of %d output tokens of model %s", req.MaxTokens, m.MaxTokens, req.Model)
	}
	if t := req.Thinking; t != nil && t.Type == "enabled" && t.BudgetTokens >= req.MaxTokens {
		return core.InvalidField("thinking.budget_tokens", "must be less than max_tokens (%d), got %d", req.MaxTokens, t.BudgetTokens)
	}
	return nil
}

// checkToolChoice requires the tool a tool_choice forces to exist among the custom tools: the
// scripted model can only call tools it has an input schema for.
func checkToolChoice(req *MessageRequest) error {
	if req.ToolChoice == nil {
		return nil
	}
	var names []string
	for _, t := range req.Tools {
		if t.custom() {
			names = append(names, t.Name)
		}
	}
	switch req.ToolChoice.Type {
	case "any":
		if len(names) == 0 {
			return core.InvalidField("tool_choice.type", "\"any\" needs at least one custom tool in tools")
		}
	case "tool":
		if !slices.Contains(names, req.ToolChoice.Name) {
			return core.InvalidField("tool_choice.name", "no custom tool named %s in tools (custom tools: %s)", core.Quoted(req.ToolChoice.Name, core.MaxExcerpt), orNone(names))
		}
	}
	return nil
}

// checkBase64Sources refuses base64 image and PDF data that does not decode: the schema can
// only say that it is a string.
func checkBase64Sources(req *MessageRequest) error {
	return req.visitBlocks(func(at blockAt, b Block) error {
		src, _ := b["source"].(map[string]any)
		if src == nil || src["type"] != "base64" {
			return nil
		}
		if _, err := base64.StdEncoding.DecodeString(src["data"].(string)); err != nil {
			return core.InvalidField(at.String()+".source.data", "must be standard base64 (RFC 4648 with padding): %v", err)
		}
		return nil
	})
}

var (
	emailLike = regexp.MustCompile(`[^@\s]+@[^@\s]+\.[^@\s]+`)
	// An international number (+ and 7 to 15 digits) or a North American one written with
	// separators; plain digit strings are left alone, as numeric IDs are common and opaque.
	phoneLike = regexp.MustCompile(`^\s*(?:\+\d(?:[\s().-]*\d){6,14}|\(?\d{3}\)?[\s.-]\d{3}[\s.-]\d{4})\s*$`)
)

// checkUserID refuses a metadata.user_id that carries an email address or a phone number: it
// must be an opaque identifier (spec 4.4). Names cannot be told from identifiers, so they pass.
func checkUserID(body map[string]any) error {
	md, _ := body["metadata"].(map[string]any)
	id, _ := md["user_id"].(string)
	switch {
	case emailLike.MatchString(id):
		return core.InvalidField("metadata.user_id", "must be an opaque identifier such as a UUID or a hash; it looks like an email address")
	case phoneLike.MatchString(id):
		return core.InvalidField("metadata.user_id", "must be an opaque identifier such as a UUID or a hash; it looks like a phone number")
	}
	return nil
}
