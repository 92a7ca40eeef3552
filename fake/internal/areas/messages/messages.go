package messages

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"regexp"
	"slices"

	"github.com/platformkit/platformkit/fake/internal/areas/messages/tape"

	"github.com/platformkit/platformkit/fake/internal/areas/messages/scenarios"

	"github.com/platformkit/platformkit/fake/internal/areas/messages/threads"

	"github.com/platformkit/platformkit/fake/internal/areas/messages/cache"

	"github.com/platformkit/platformkit/fake/internal/areas/messages/stubs"

	"github.com/platformkit/platformkit/fake/internal/areas/messages/model"

	"github.com/platformkit/platformkit/fake/internal/areas/messages/wire"

	"github.com/platformkit/platformkit/fake/internal/areas/files"

	"github.com/platformkit/platformkit/fake/internal/areas/ratelimit"

	"github.com/platformkit/platformkit/fake/internal/areas/models"

	"github.com/platformkit/platformkit/fake/internal/core"
)

// Messages (spec 2.9, 4.4, gaps §4). The area keeps no state of its own: a response is a pure
// function of the request, the scenario fixtures and the stubs a test registered
// (package stubs), which is what makes it reproducible.

// request is a Messages request as it passes the pipeline: the typed body, and what the stages
// attach to it.
type request struct {
	wire.MessageRequest
	// tape is what the tape matches the request by (tape.go).
	tape tape.TapeRequest
	// layout is the request laid out by the one walk of its blocks: its input-token count and
	// the cache's positions, breakpoints and, when the request may use the cache, keys.
	layout *cache.CacheLayout
	// scenario is the scenario the Fake-Scenario header names; nil without the header.
	scenario *scenarios.LibScenario
	// thread is the request's message thread (package threads); nil without one.
	thread *threads.ThreadTurn
	// files are the files its blocks name by file_id, resolved by the parse stage; nil for none.
	files cache.Files
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
//	commit the output files of code execution, the cache's writes, the thread's conversation,
//	       the journal's stub (commit)
//	charge the output tokens, and the rate-limit headers (admission.chargeOutput)
func createMessage(s *core.Server, c *core.Call) (any, error) {
	ans, err := create(s, c, nil)
	return ans.v, err
}

// create is createMessage's stages; script, when not nil, answers in the scripted model's place
// (AnswerTurn). It returns what the answer stage built.
func create(s *core.Server, c *core.Call, script *stubs.Reply) (answered, error) {
	req, err := parseMessage(s, c, true)
	if err != nil {
		return answered{}, err
	}
	defer req.thread.Done() // a continue is in flight until it is answered
	plan := cache.PlanCache(s, c, &req.MessageRequest, req.layout)
	// Rate limits (when enforced) admit the request here, and only here, before anything answers
	// it, so that a 429 uses up no stub, ID, bucket or cache entry.
	adm, err := ratelimit.Admit(s, c, req.Model, plan.InputUsage(), false)
	if err != nil {
		return answered{}, err
	}
	ch, err := choose(s, c, req, req.tape)
	if err != nil {
		return answered{}, err // as a refusal of the answer stage: the admission is kept
	}
	if ch == (choice{}) && script != nil && req.MaxTokens > 0 {
		ch.reply = script // the scripted model's place
	}
	ans, err := answerRequest(s, c, req, plan, ch)
	if err != nil {
		if ch.tape != nil {
			adm.ChargeOutput(0) // the tape's refusal is its answer: the headers, nothing charged
		}
		return answered{}, err
	}
	commit(s, c, req, plan, ch, ans)
	// The whole answer is known before a stream starts: its output is charged, and the headers
	// written, before the first byte. A taped answer's output is not charged.
	adm.ChargeOutput(ans.output())
	return ans, nil
}

// Answer answers body, one request of a message batch, as POST /v1/messages answers it sent
// alone with c's credential, API version, beta values and headers (Fake-Scenario included): the
// same stages as createMessage, on a call whose body is body (core.Call.Sub). It appends the
// message's JSON to dst, as the route would answer it, or returns the error the request would
// get alone. The caller refuses a streamed request first: the answer is never a stream. The
// request goes in the journal as the POST /v1/messages it is, marked with mark
// (core.Call.Journal).
func Answer(s *core.Server, c *core.Call, body, dst []byte, mark *core.JournalBatch) ([]byte, error) {
	sub := c.Sub(createLine, body)
	v, err := createMessage(s, sub)
	sub.Journal(err, core.SubMark{Batch: mark})
	if err != nil {
		return dst, err
	}
	if a, ok := v.(core.JSONAppender); ok {
		return a.AppendJSON(dst)
	}
	// A taped answer: the recording's body, as the route would write it.
	b, err := json.Marshal(v)
	return append(dst, b...), err
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
		v, _, err := tape.AnswerFromTape(s, c, ch.tape, &req.MessageRequest, req.layout.Total, nil, false)
		return v, err
	}
	n := req.layout.Total
	// context_management reports the count before any context edit; the fake applies none.
	var cm any
	if req.HasContextManagement() {
		cm = map[string]int{"original_input_tokens": n}
	}
	return map[string]any{"input_tokens": n, "context_management": cm}, nil
}

// choice is the reply the choose stage picked: a canned reply, the tape, or neither (the
// scripted model, or the token counter).
type choice struct {
	reply   *stubs.Reply   // a named scenario, a stub or a library scenario
	stub    string         // the stub's id, for the journal
	tape    *tape.TapePick // the tape answers
	library bool           // reply is a scenario of the library: its output files are the fake's to make
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
func choose(s *core.Server, c *core.Call, req *request, tr tape.TapeRequest) (choice, error) {
	canned := req != nil && req.MaxTokens > 0
	if canned && req.scenario != nil {
		return choice{reply: &req.scenario.Response, library: true}, nil
	}
	if canned {
		r, id, err := stubs.StubsOf(s).Take(c, &req.MessageRequest)
		if err != nil {
			return choice{}, err
		}
		if r != nil {
			return choice{reply: r, stub: id}, nil
		}
	}
	if pick := tape.PickFromTape(s, c, tr); pick != nil {
		return choice{tape: pick}, nil
	}
	if canned {
		if sc := scenarios.ScenariosSection.In(c.St.Fx.Sections).Matching(&req.MessageRequest); sc != nil {
			return choice{reply: &sc.Response, library: true}, nil
		}
	}
	return choice{}, nil
}

// answered is what the answer stage built: the value the handler returns, and the message to
// commit (nil when the answer is not a message the fake numbered: a forwarded or failed one).
type answered struct {
	v     any
	msg   *wire.Message
	taped bool // the tape answered: its output is not charged, and no thread keeps it
	// outputs are the code execution tool's output files the answer names, stored at commit
	// (messages_outputs.go); a taped answer has none: its file_ids are the recording's.
	outputs []output
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
func answerRequest(s *core.Server, c *core.Call, req *request, plan *cache.CachePlan, ch choice) (answered, error) {
	if ch.tape != nil {
		v, msg, err := tape.AnswerFromTape(s, c, ch.tape, &req.MessageRequest, req.layout.Total, plan, req.Stream)
		return answered{v: v, msg: msg, taped: true}, err
	}
	msg, err := scenarios.AnswerWith(s, c.Meter(model.MaxGenSteps), &req.MessageRequest, plan, ch.reply)
	if err != nil {
		return answered{}, err
	}
	outs := readyOutputs(req, msg, ch.library)
	if req.Stream {
		return answered{v: req.thread.Hold(wire.MessageStream(msg, c.HasBeta(wire.BetaThinkingTokenCount))), msg: msg, outputs: outs}, nil
	}
	return answered{v: wire.MessageJSON{Message: msg}, msg: msg, outputs: outs}, nil
}

// commit is the commit stage: the answer's output files (stored first, so that what the thread
// keeps names them), the cache plan's writes under the answer's id, the conversation the thread
// keeps, and the stub the journal names. A taped answer keeps no thread.
func commit(s *core.Server, c *core.Call, req *request, plan *cache.CachePlan, ch choice, r answered) {
	if len(r.outputs) > 0 {
		storeOutputs(s, c, req, r.msg, r.outputs)
	}
	if r.msg != nil {
		plan.Commit(r.msg.ID)
	}
	if !r.taped {
		threads.CommitThread(s, req.thread, &req.MessageRequest, r.msg)
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
	req := &request{MessageRequest: wire.MessageRequest{Body: data}}
	req.Raw = v.(map[string]any) // the schema requires an object
	// What the request's API version refuses of a body the schema accepts (versions.go); a thread
	// continue is checked once expanded, as the whole conversation it stands for.
	continues := threads.IsContinue(req.Raw)
	if !continues {
		if err := c.Version.CheckMessageBody(req.Raw); err != nil {
			return nil, err
		}
	}
	// The tape matches the body as sent, before a thread continue expands it.
	req.tape = tape.TapeRequestOf(s, c, data, req.Raw)
	if req.thread, err = threads.ExpandThread(s, c, &req.MessageRequest); err != nil {
		return nil, err
	}
	// A continue refused by a check below is no longer in flight.
	parsed := false
	defer func() {
		if !parsed {
			req.thread.Release()
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
	if len(msgs) > wire.MaxMessages {
		return core.InvalidField("messages", "maximum %d items required, but found %d items", wire.MaxMessages, len(msgs)).Because(core.ReasonOutOfRange)
	}
	if err := req.ReadFields(); err != nil {
		return err
	}
	req.Messages = make([]wire.InputMessage, 0, len(msgs))
	for _, m := range msgs {
		m := m.(map[string]any)
		im := wire.InputMessage{Role: m["role"].(string)}
		if text, ok := m["content"].(string); ok {
			im.Blocks = []wire.Block{{"type": "text", "text": text}}
		} else {
			content := m["content"].([]any)
			im.Blocks = make([]wire.Block, 0, len(content))
			for _, b := range content {
				im.Blocks = append(im.Blocks, b.(map[string]any))
			}
		}
		req.Messages = append(req.Messages, im)
	}
	if err := checkUserID(req.Raw); err != nil {
		return err
	}
	if err := checkBase64Sources(&req.MessageRequest); err != nil {
		return err
	}
	if err := checkMessageOptions(&req.MessageRequest); err != nil {
		return err
	}
	if bp, _ := req.Raw["billing_policy"].(map[string]any); bp["bill_to"] == "user_profile" {
		// "self" bills the key's organization, as without the field; a user profile's customer
		// must have linked an organization that allows it, and the fake has no such link.
		return core.InvalidField("billing_policy.bill_to", "\"user_profile\": no user profile of this request has linked an organization that allows it to be billed; send \"self\" or omit billing_policy").Because(core.ReasonInvalidValue)
	}
	if err := wire.CheckStrictSchemas(c, &req.MessageRequest); err != nil {
		return err
	}
	if err := checkToolChoice(&req.MessageRequest); err != nil {
		return err
	}
	if create {
		if err := checkPrewarm(&req.MessageRequest); err != nil {
			return err
		}
		if err := checkMaxTokens(c.St.Fx, &req.MessageRequest); err != nil {
			return err
		}
	}
	// The files the blocks name, each looked up once: the layout counts and keys their content.
	var err error
	if req.files, err = resolveFiles(s, c, req); err != nil {
		return err
	}
	// The one walk of the blocks: the input-token count and the cache layout. count_tokens
	// checks the cache_control markers as Messages does, but never caches, so it needs no keys.
	if req.layout, err = cache.LayoutRequest(s, c, &req.MessageRequest, req.files, create); err != nil {
		return err
	}
	// An unknown Fake-Scenario is the request's own error, whatever else it asks (max_tokens 0
	// included): refused before it takes anything.
	if !create {
		return nil
	}
	if name := c.DeclaredHeader(scenarios.HeaderScenario); name != "" {
		if req.scenario, err = scenarios.ScenariosSection.In(c.St.Fx.Sections).Named(name); err != nil {
			return err
		}
	}
	return nil
}

// checkPrewarm refuses what cannot go with max_tokens 0, which only fills the prompt cache
// (conformance/EXTENSIONS.md, "Prompt caching"): streaming, enabled thinking, a structured
// output format and a tool_choice that forces a tool call.
func checkPrewarm(req *wire.MessageRequest) error {
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
func checkMessageOptions(req *wire.MessageRequest) error {
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
func checkMaxTokens(fx *core.Fixtures, req *wire.MessageRequest) error {
	if m := models.Find(fx, req.Model); m != nil && req.MaxTokens > m.MaxTokens {
		return core.InvalidField("max_tokens", "%d is above the maximum of %d output tokens of model %s", req.MaxTokens, m.MaxTokens, core.Quoted(req.Model, core.MaxExcerpt))
	}
	if t := req.Thinking; t != nil && t.Type == "enabled" && t.BudgetTokens >= req.MaxTokens {
		return core.InvalidField("thinking.budget_tokens", "must be less than max_tokens (%d), got %d", req.MaxTokens, t.BudgetTokens)
	}
	return nil
}

// checkToolChoice requires the tool a tool_choice forces to exist among the custom tools: the
// scripted model can only call tools it has an input schema for.
func checkToolChoice(req *wire.MessageRequest) error {
	if req.ToolChoice == nil {
		return nil
	}
	var names []string
	for _, t := range req.Tools {
		if t.Custom() {
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
			return core.InvalidField("tool_choice.name", "no custom tool named %s in tools (custom tools: %s)", core.Quoted(req.ToolChoice.Name, core.MaxExcerpt), wire.OrNone(names))
		}
	}
	return nil
}

// checkBase64Sources refuses base64 image and PDF data that does not decode: the schema can
// only say that it is a string.
func checkBase64Sources(req *wire.MessageRequest) error {
	return req.VisitBlocks(func(at wire.BlockAt, b wire.Block) error {
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

// resolveFiles looks up every file the request's blocks name by file_id (a document's or an
// image's source {type: file}, a container_upload block) as the request's key sees it, and
// refuses the request, naming the file_id's path, for a file that is unknown, deleted, another
// organization's or workspace's (404), expired (404 file_expired), or of a type the block does
// not take (400): the files area's own errors (files.LookupSource). A thread continue is
// checked as the whole conversation it expanded to.
func resolveFiles(s *core.Server, c *core.Call, req *request) (cache.Files, error) {
	// Only a body that may name a file is walked; a continue's earlier turns are not in its body.
	if req.thread == nil && !bytes.Contains(req.Body, []byte("file_id")) && !bytes.Contains(req.Body, []byte(`\u`)) {
		return nil, nil
	}
	var fs cache.Files
	err := req.VisitFileRefs(func(r wire.FileRef) error {
		f, err := files.LookupSource(s, c.St, c.Cred, files.Block(r.Kind), r.Path(), r.ID)
		if err != nil {
			return err
		}
		if fs == nil {
			fs = cache.Files{}
		}
		fs[r.ID] = f
		return nil
	})
	return fs, err
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
