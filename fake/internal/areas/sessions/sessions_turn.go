package sessions

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/platformkit/platformkit/fake/internal/areas/messages/stubs"
	"github.com/platformkit/platformkit/fake/internal/core"
)

// A turn of the agent is a Messages request, answered by the one Messages pipeline
// (messages.AnswerTurn): the request is built from the session (the agent's model, system,
// tools and MCP servers, the session's events as the conversation, in the session's message
// thread: sessions_turn_thread.go), and whatever answers a POST /v1/messages
// answers it, most explicit first: a Fake-Scenario header on the send, a stub, the tape, a
// library scenario, and in the scripted model's place the agent's own script
// (sessions_agent.go). Its usage, its cache reads and writes and its rate limits are the
// pipeline's; an error it gets (a rate limit, an injected fault, a request the pipeline
// refuses) ends the turn with session.error. The answer becomes the session's events:
//
//   - text blocks: an agent.message (consecutive text blocks make one);
//   - thinking blocks: an agent.thinking;
//   - a tool_use of one of the agent's custom tools: an agent.custom_tool_use, which waits for
//     a user.custom_tool_result;
//   - any other tool_use (the agent toolset's bash, read, ...): an agent.tool_use whose
//     evaluated_permission follows the tool's policy (always_ask asks, and waits for a
//     user.tool_confirmation; always_allow and auto allow), which waits for a user.tool_result;
//   - a call the server made within the answer (server_tool_use, mcp_tool_use) and its result:
//     an agent.tool_use or agent.mcp_tool_use that waits for nothing, and an agent.tool_result
//     or agent.mcp_tool_result (sessions_turn_tools.go).
//
// The request's span is span.model_request_start, the answer's events, span.model_request_end
// with the answer's usage (model_usage); then session.status_idle: requires_action naming the
// calls awaited, refusal (with stop_details) when the model refused, else end_turn.

// turnMaxTokens is the max_tokens of an agent's model request.
const turnMaxTokens = 4096

// toolsetSchemas are the input schemas of the agent toolset's sandbox tools, as the model
// request declares them (the web tools are server tools: sessions_turn_tools.go).
var toolsetSchemas = map[string]map[string]any{
	"bash":  objectSchema(nil, "command", "string", "restart", "boolean", "timeout_ms", "integer"),
	"read":  objectSchema([]any{"file_path"}, "file_path", "string", "view_range", "array"),
	"write": objectSchema([]any{"file_path", "content"}, "file_path", "string", "content", "string"),
	"edit":  objectSchema([]any{"file_path", "old_string", "new_string"}, "file_path", "string", "old_string", "string", "new_string", "string", "replace_all", "boolean"),
	"glob":  objectSchema([]any{"pattern"}, "pattern", "string", "path", "string"),
	"grep":  objectSchema([]any{"pattern"}, "pattern", "string", "path", "string"),
}

func objectSchema(required []any, props ...string) map[string]any {
	p := map[string]any{}
	for i := 0; i+1 < len(props); i += 2 {
		p[props[i]] = map[string]any{"type": props[i+1]}
	}
	s := map[string]any{"type": "object", "properties": p}
	if required != nil {
		s["required"] = required
	}
	return s
}

// TurnWindow bounds the conversation of a model request, and so the work of a turn: it starts
// at the earliest user.message among the session's last TurnWindow events (at the last
// user.message when that is further back), as an agent's harness compacts its context.
const TurnWindow = 100

// conversation is the session's events from the window's start (TurnWindow) as Messages
// turns, and the sequence number of the event it starts at. Each model request the agent made
// is its answer's content as answered (turnThread.reply), in the place of the events it became;
// a call's ID is the answer's tool_use ID (the event's own when no answer is kept for it). A
// call denied, or left unanswered by an interrupt, is answered by an error result saying so.
// Blocks the Messages API does not take (redacted) are left out, and turns of one role are
// merged. Only the last block has a cache_control breakpoint.
func (ss *session) conversation() ([]any, int) {
	var msgs []any
	add := func(role string, blocks ...any) {
		if len(blocks) == 0 {
			return
		}
		if n := len(msgs); n > 0 && mapOf(msgs[n-1])["role"] == role {
			m := mapOf(msgs[n-1])
			m["content"] = append(listOf(m["content"]), blocks...)
			return
		}
		msgs = append(msgs, map[string]any{"role": role, "content": slices.Clip(blocks)})
	}
	open := []string{} // calls without a result yet
	answer := func(id string, content []any, isError bool) {
		id = ss.modelID(id)
		open = slices.DeleteFunc(open, func(x string) bool { return x == id })
		r := map[string]any{"type": "tool_result", "tool_use_id": id, "is_error": isError}
		if len(content) > 0 {
			r["content"] = content
		}
		add("user", r)
	}
	n := len(ss.events) + len(ss.held)
	at := func(i int) Event {
		if i < len(ss.events) {
			return ss.events[i].ev
		}
		return ss.held[i-len(ss.events)].ev
	}
	start := 0
	for i, found := n-1, false; i >= 0 && (n-i <= TurnWindow || !found); i-- {
		if at(i)["type"] == "user.message" {
			start, found = i, true
		}
	}
	var spoken []any // the blocks of the agent's events since the model request's start
	for i := start; i < n; i++ {
		ev := at(i)
		switch ev["type"] {
		case "user.message", "system.message":
			add("user", modelBlocks(ev["content"])...)
		case "agent.message":
			spoken = append(spoken, modelBlocks(ev["content"])...)
		case "agent.tool_use", "agent.custom_tool_use":
			id := ss.modelID(ev["id"].(string))
			spoken = append(spoken, map[string]any{"type": "tool_use", "id": id, "name": ev["name"], "input": ev["input"]})
			open = append(open, id)
		case "agent.tool_result": // a call the server ran within the answer, which holds its result
			id := ss.modelID(fmt.Sprint(ev["tool_use_id"]))
			open = slices.DeleteFunc(open, func(x string) bool { return x == id })
		case "span.model_request_end":
			if reply, ok := ss.replies[ev["id"].(string)]; ok {
				add("assistant", slices.Clone(reply)...)
			} else {
				add("assistant", spoken...)
			}
			spoken = nil
		case "user.tool_result":
			id, _ := ev["tool_use_id"].(string)
			answer(id, modelBlocks(ev["content"]), ev["is_error"] == true)
		case "user.custom_tool_result":
			id, _ := ev["custom_tool_use_id"].(string)
			answer(id, modelBlocks(ev["content"]), ev["is_error"] == true)
		case "user.tool_confirmation":
			if ev["result"] == "deny" {
				id, _ := ev["tool_use_id"].(string)
				answer(id, []any{textBlock(denied(ev))}, true)
			}
		case "user.interrupt":
			for _, id := range slices.Clone(open) {
				answer(id, []any{textBlock("The call was interrupted.")}, true)
			}
		}
	}
	if n := len(msgs); n > 0 {
		// The prompt cache's breakpoint on the last block, as an agent's harness sets it; on a
		// copy, since an answer's blocks are kept.
		content := listOf(mapOf(msgs[n-1])["content"])
		if last := mapOf(content[len(content)-1]); last != nil {
			last = maps.Clone(last)
			last["cache_control"] = map[string]any{"type": "ephemeral"}
			content[len(content)-1] = last
		}
	}
	return msgs, start
}

// modelBlocks are the blocks of an event's content that a Messages turn takes: text (not
// empty), image, document and search_result, copied.
func modelBlocks(content any) []any {
	var out []any
	for _, x := range listOf(content) {
		b := mapOf(x)
		switch b["type"] {
		case "text":
			if t, _ := b["text"].(string); t == "" {
				continue
			}
		case "image", "document", "search_result":
		default:
			continue
		}
		c := make(map[string]any, len(b))
		for k, v := range b {
			c[k] = v
		}
		out = append(out, c)
	}
	return out
}

func textBlock(text string) map[string]any { return map[string]any{"type": "text", "text": text} }

// denied is what the agent says of a call denied by a user.tool_confirmation.
func denied(ev Event) string {
	msg, _ := ev["deny_message"].(string)
	return strings.TrimSuffix("The call was denied: "+msg, ": ")
}

// modelTurn makes the agent's model request, with script answering in the scripted model's
// place, and turns its answer into the session's events (above). The caller has moved the
// session to running and holds the store's lock; an error is a bound of the session's events.
func (ss *session) modelTurn(s *core.Server, c *core.Call, a *Store, now time.Time, script *stubs.Reply) error {
	emit := func(e Event) error { return ss.emit(s, a, now, e) }
	// The turn's events, from its span on, are its model request's in the journal.
	var asked *core.Call
	defer func(from int) { ss.noteTurn(from, asked) }(ss.mark())
	start := Event{"type": "span.model_request_start"}
	if err := emit(start); err != nil {
		return err
	}
	ans, reply, err := ss.ask(s, c, script)
	msg, asked := ans.Msg, ans.Call
	if err != nil {
		return ss.failed(s, c, a, now, start, err)
	}
	ss.turn.calls = nil
	served := map[string]string{} // the server's calls in the answer: their events by block ID
	var text []any
	flush := func() error {
		if len(text) == 0 {
			return nil
		}
		e := Event{"type": "agent.message", "content": text}
		text = nil
		return emit(e)
	}
	for _, b := range msg.Content {
		switch b["type"] {
		case "text":
			if t, _ := b["text"].(string); t != "" {
				text = append(text, textBlock(t))
			}
			continue
		case "thinking", "redacted_thinking":
			if err := flush(); err != nil {
				return err
			}
			if err := emit(Event{"type": "agent.thinking"}); err != nil {
				return err
			}
		case "tool_use":
			if err := flush(); err != nil {
				return err
			}
			call, waiting := ss.call(b)
			if err := emit(call); err != nil {
				return err
			}
			if err := ss.callMade(a, call["id"].(string), b); err != nil {
				return err
			}
			ss.turn.calls = append(ss.turn.calls, pending{id: call["id"].(string), waiting: waiting})
		case "server_tool_use", "web_search_tool_result", "web_fetch_tool_result", "mcp_tool_use", "mcp_tool_result":
			if err := flush(); err != nil {
				return err
			}
			if err := ss.serverTool(a, b, served, emit); err != nil {
				return err
			}
		}
	}
	if err := flush(); err != nil {
		return err
	}
	u := msg.Usage
	ss.rec.Usage.InputTokens += u.InputTokens
	ss.rec.Usage.OutputTokens += u.OutputTokens
	ss.rec.Usage.CacheReadInputTokens += u.CacheReadInputTokens
	ss.rec.Usage.CacheCreation.Ephemeral5m += u.CacheCreation.Ephemeral5m
	ss.rec.Usage.CacheCreation.Ephemeral1h += u.CacheCreation.Ephemeral1h
	end := Event{"type": "span.model_request_end", "model_request_start_id": start["id"], "is_error": false,
		"model_usage": Event{"input_tokens": u.InputTokens, "output_tokens": u.OutputTokens,
			"cache_creation_input_tokens": u.CacheCreationInputTokens, "cache_read_input_tokens": u.CacheReadInputTokens, "speed": cmpOr(u.Speed, "standard")}}
	if err := emit(end); err != nil {
		return err
	}
	if err := ss.keep(a, end["id"].(string), reply); err != nil {
		return err
	}
	switch {
	case len(ss.turn.calls) > 0:
		return ss.idle(s, a, now, Event{"type": "requires_action", "event_ids": ss.turn.awaited()})
	case msg.StopReason != nil && *msg.StopReason == "refusal":
		ss.turn = turn{}
		ss.rec.Status = StatusIdle
		details := Event{"type": "refusal", "category": nil, "explanation": nil}
		if d := msg.StopDetails; d != nil {
			details["category"], details["explanation"] = d.Category, d.Explanation
		}
		return emit(Event{"type": "session.status_idle", "stop_reason": Event{"type": "refusal"}, "stop_details": details})
	}
	ss.turn = turn{}
	return ss.idle(s, a, now, Event{"type": "end_turn"})
}

// call is the event of a tool_use block of the answer, and what it waits for.
func (ss *session) call(b map[string]any) (Event, string) {
	name, _ := b["name"].(string)
	input := mapOf(b["input"])
	if input == nil {
		input = Event{}
	}
	if slices.Contains(ss.model.CustomTools(), name) {
		return Event{"type": "agent.custom_tool_use", "name": name, "input": input}, waitCustom
	}
	_, policy := ss.model.ToolPolicy(name)
	perm, eval, waiting := "allow", Event{"type": "always_allow"}, waitResult
	switch policy {
	case "always_ask":
		perm, eval["type"], waiting = "ask", policy, waitConfirmation
	case "auto":
		eval["type"], eval["evaluated_permission"] = policy, Event{"type": "allow"}
	}
	return Event{"type": "agent.tool_use", "name": name, "input": input, "evaluated_permission": perm, "evaluation": eval}, waiting
}

// failed ends a turn whose model request got err: the span ends in error, a session.error
// names the kind (model_rate_limited_error, model_overloaded_error, billing_error or
// model_request_failed_error) with the request's message, and the session is idle with
// retries_exhausted (the fake does not retry).
func (ss *session) failed(s *core.Server, c *core.Call, a *Store, now time.Time, start Event, err error) error {
	ae, _ := core.ErrorBody(err, "")
	kind := "model_request_failed_error"
	switch ae.Typ {
	case core.ErrRateLimit:
		kind = "model_rate_limited_error"
	case core.ErrOverloaded:
		kind = "model_overloaded_error"
	case "billing_error":
		kind = "billing_error"
	}
	zero := Event{"input_tokens": 0, "output_tokens": 0, "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0}
	if e := ss.emit(s, a, now, Event{"type": "span.model_request_end", "model_request_start_id": start["id"], "is_error": true, "model_usage": zero}); e != nil {
		return e
	}
	if e := ss.emit(s, a, now, Event{"type": "session.error", "error": Event{"type": kind,
		"message": fmt.Sprintf("the model request failed: %s: %s", ae.Typ, ae.Message), "retry_status": Event{"type": "exhausted"}}}); e != nil {
		return e
	}
	ss.turn = turn{}
	return ss.idle(s, a, now, Event{"type": "retries_exhausted"})
}

func cmpOr(s, def string) string {
	if s == "" {
		return def
	}
	return s
}
