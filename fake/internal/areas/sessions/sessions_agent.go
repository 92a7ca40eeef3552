package sessions

import (
	"strings"
	"time"
	"unicode/utf8"

	"github.com/platformkit/platformkit/fake/internal/core"
)

// The deterministic agent behind every session. Its script, which depends only on the session's
// agent, environment and events:
//
//  1. On a user.message the session runs (session.status_running) and makes a model request
//     (span.model_request_start).
//  2. If the environment is self-hosted and the agent's toolset enables bash, the agent calls
//     bash (agent.tool_use) with the command after "$ " when the message's first text starts
//     with "$ ", otherwise "pwd". Its evaluated_permission follows the tool's policy: always_ask
//     asks, always_allow and auto allow. Otherwise, if the message's text names one of the
//     agent's custom tools, the agent calls the first it names (agent.custom_tool_use, input {}).
//     The request ends (span.model_request_end) and the session waits: session.status_idle with
//     stop_reason requires_action naming the call.
//  3. An ask waits for user.tool_confirmation: allow then waits for the tool's result (which the
//     environment's worker posts), deny ends the turn with a message saying so.
//  4. With the result (user.tool_result, user.custom_tool_result) the agent makes a second model
//     request and answers "The tool returned: <its text>" ("The tool failed: ..." when is_error).
//  5. Without a tool call it answers "You said: <the text>".
//  6. Each answer is an agent.message, then span.model_request_end and session.status_idle with
//     stop_reason end_turn.
//
// user.interrupt ends a turn that waits (session.status_idle, end_turn). Token counts are a
// quarter of the characters of what a request reads and writes, at least 1.

// turn is what the agent waits for.
type turn struct {
	waiting string // "", waitResult, waitCustom or waitConfirmation
	callID  string // the agent.tool_use or agent.custom_tool_use awaited
	text    string // the user's message
}

const (
	waitResult       = "user.tool_result"
	waitCustom       = "user.custom_tool_result"
	waitConfirmation = "user.tool_confirmation"
)

// check refuses a client event that does not fit the session's turn, naming its field.
func (ss *session) check(ev Event, at string) error {
	typ, _ := ev["type"].(string)
	t := ss.turn
	switch typ {
	case "user.message":
		if t.waiting != "" {
			return core.InvalidField(at+".type", "session %s waits for a %s to the call %s; answer it (or send user.interrupt) before a new message", ss.rec.ID, t.waiting, t.callID)
		}
	case waitResult, waitConfirmation:
		id, _ := ev["tool_use_id"].(string)
		if t.waiting != typ || t.callID != id {
			return core.InvalidField(at+".tool_use_id", "no agent.tool_use of session %s awaits a %s with the ID %s", ss.rec.ID, typ, core.Quoted(id, core.MaxExcerpt))
		}
		if typ == waitConfirmation && ev["result"] == "allow" && ev["deny_message"] != nil {
			return core.InvalidField(at+".deny_message", "is given only with result deny")
		}
	case waitCustom:
		id, _ := ev["custom_tool_use_id"].(string)
		if t.waiting != typ || t.callID != id {
			return core.InvalidField(at+".custom_tool_use_id", "no agent.custom_tool_use of session %s awaits a result with the ID %s", ss.rec.ID, core.Quoted(id, core.MaxExcerpt))
		}
	}
	return nil
}

// answer is the agent's part after a client event was stored (the script above).
func (ss *session) answer(s *core.Server, a *Store, ev Event, now time.Time) error {
	emit := func(e Event) (Event, error) { return e, ss.emit(s, a, now, e) }
	switch ev["type"] {
	case "user.message":
		text := firstText(ev["content"])
		ss.turn = turn{text: text}
		if err := ss.running(s, a, now); err != nil {
			return err
		}
		start, err := emit(Event{"type": "span.model_request_start"})
		if err != nil {
			return err
		}
		var call Event
		if on, policy := ss.model.ToolPolicy("bash"); on && ss.selfHosted {
			cmd := "pwd"
			if rest, ok := strings.CutPrefix(text, "$ "); ok {
				cmd = rest
			}
			perm, eval := "allow", Event{"type": policy}
			switch policy {
			case "always_ask":
				perm = "ask"
			case "auto":
				eval["evaluated_permission"] = Event{"type": "allow"}
			}
			call = Event{"type": "agent.tool_use", "name": "bash", "input": Event{"command": cmd}, "evaluated_permission": perm, "evaluation": eval}
			ss.turn.waiting = waitResult
			if perm == "ask" {
				ss.turn.waiting = waitConfirmation
			}
		} else if name := namedTool(text, ss.model.CustomTools()); name != "" {
			call = Event{"type": "agent.custom_tool_use", "name": name, "input": Event{}}
			ss.turn.waiting = waitCustom
		}
		if call == nil {
			return ss.finish(s, a, now, start, "You said: "+text)
		}
		if _, err := emit(call); err != nil {
			return err
		}
		ss.turn.callID = call["id"].(string)
		ss.rec.Usage.InputTokens += tokens(text)
		ss.rec.Usage.OutputTokens += tokens(call["type"].(string))
		if _, err := emit(spanEnd(start, text, call["type"].(string))); err != nil {
			return err
		}
		return ss.idle(s, a, now, Event{"type": "requires_action", "event_ids": []any{ss.turn.callID}})
	case waitConfirmation:
		if err := ss.running(s, a, now); err != nil {
			return err
		}
		if ev["result"] == "deny" {
			start, err := emit(Event{"type": "span.model_request_start"})
			if err != nil {
				return err
			}
			msg, _ := ev["deny_message"].(string)
			return ss.finish(s, a, now, start, strings.TrimSuffix("The call was denied: "+msg, ": "))
		}
		ss.turn.waiting = waitResult
		return ss.idle(s, a, now, Event{"type": "requires_action", "event_ids": []any{ss.turn.callID}})
	case waitResult, waitCustom:
		if err := ss.running(s, a, now); err != nil {
			return err
		}
		start, err := emit(Event{"type": "span.model_request_start"})
		if err != nil {
			return err
		}
		verb := "returned"
		if ev["is_error"] == true {
			verb = "failed"
		}
		return ss.finish(s, a, now, start, "The tool "+verb+": "+firstText(ev["content"]))
	case "user.interrupt":
		if ss.turn.waiting != "" || ss.rec.Status == StatusRunning {
			ss.turn = turn{}
			return ss.idle(s, a, now, Event{"type": "end_turn"})
		}
	}
	return nil
}

// running moves the session to running.
func (ss *session) running(s *core.Server, a *Store, now time.Time) error {
	ss.rec.Status = StatusRunning
	return ss.emit(s, a, now, Event{"type": "session.status_running"})
}

// idle moves the session to idle with the stop reason.
func (ss *session) idle(s *core.Server, a *Store, now time.Time, reason Event) error {
	ss.rec.Status = StatusIdle
	return ss.emit(s, a, now, Event{"type": "session.status_idle", "stop_reason": reason, "stop_details": nil})
}

// finish answers text and ends the turn.
func (ss *session) finish(s *core.Server, a *Store, now time.Time, start Event, text string) error {
	if err := ss.emit(s, a, now, Event{"type": "agent.message", "content": []any{Event{"type": "text", "text": text}}}); err != nil {
		return err
	}
	end := spanEnd(start, ss.turn.text, text)
	ss.rec.Usage.InputTokens += tokens(ss.turn.text)
	ss.rec.Usage.OutputTokens += tokens(text)
	if err := ss.emit(s, a, now, end); err != nil {
		return err
	}
	ss.turn = turn{}
	return ss.idle(s, a, now, Event{"type": "end_turn"})
}

func spanEnd(start Event, read, wrote string) Event {
	return Event{"type": "span.model_request_end", "model_request_start_id": start["id"], "is_error": false,
		"model_usage": Event{"input_tokens": tokens(read), "output_tokens": tokens(wrote), "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0}}
}

func tokens(s string) int { return max(1, utf8.RuneCountInString(s)/4) }

// firstText is the text of the first text block of content.
func firstText(content any) string {
	for _, x := range listOf(content) {
		if b := mapOf(x); b["type"] == "text" {
			t, _ := b["text"].(string)
			return t
		}
	}
	return ""
}

// namedTool is the first of names that text mentions, "" if none.
func namedTool(text string, names []string) string {
	best, at := "", -1
	for _, n := range names {
		if i := strings.Index(text, n); i >= 0 && (at < 0 || i < at) {
			best, at = n, i
		}
	}
	return best
}
