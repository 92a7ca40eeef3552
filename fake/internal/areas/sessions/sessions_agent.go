package sessions

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/platformkit/platformkit/fake/internal/areas/messages/stubs"
	"github.com/platformkit/platformkit/fake/internal/core"
)

// The agent behind every session. Each of its turns is a Messages request answered by the one
// Messages pipeline (sessions_turn.go): a stub, a scenario or the tape answers it where one is
// chosen, as for POST /v1/messages. Where none is, the agent's own script answers, in the
// scripted model's place. The script depends only on the session's agent, environment and
// events:
//
//  1. On a user.message the session runs (session.status_running) and makes a model request
//     (span.model_request_start).
//  2. If the environment is self-hosted and the agent's toolset enables bash, the agent calls
//     bash (agent.tool_use) with the command after "$ " when the message's first text starts
//     with "$ ", otherwise "pwd". Otherwise, if the message's text names one of the agent's
//     custom tools, the agent calls the first it names (agent.custom_tool_use, input {}).
//  3. With the results of its calls (user.tool_result, user.custom_tool_result), the agent
//     makes another model request and answers "The tool returned: <the last result's text>"
//     ("The tool failed: ..." when is_error); a call denied (user.tool_confirmation deny)
//     answers "The call was denied: <deny_message>".
//  4. Without a tool call it answers "You said: <the text>".
//
// Whoever answers, a call waits: an ask for its user.tool_confirmation (allow then waits for
// the result, which the environment's worker posts; deny answers the call itself), any other
// call for its result. While calls wait the session is idle with requires_action naming them;
// resolving fewer than all re-emits session.status_idle with the remainder; once all are
// resolved the agent makes its next model request. user.interrupt ends a turn that waits
// (session.status_idle, end_turn).

// turn is what the agent waits for.
type turn struct {
	calls []pending // the calls awaited, in the order made
	text  string    // the user's message
}

// pending is a call the agent waits for.
type pending struct {
	id      string // the agent.tool_use or agent.custom_tool_use
	waiting string // waitResult, waitCustom or waitConfirmation
}

const (
	waitResult       = "user.tool_result"
	waitCustom       = "user.custom_tool_result"
	waitConfirmation = "user.tool_confirmation"
)

// awaited are the IDs of the calls awaited.
func (t *turn) awaited() []any {
	out := make([]any, len(t.calls))
	for i, p := range t.calls {
		out[i] = p.id
	}
	return out
}

// find is the index of the call id awaiting typ, -1 if none.
func (t *turn) find(id, typ string) int {
	return slices.IndexFunc(t.calls, func(p pending) bool { return p.id == id && p.waiting == typ })
}

// check refuses a client event that does not fit the session's turn, naming its field.
func (ss *session) check(ev Event, at string) error {
	typ, _ := ev["type"].(string)
	t := &ss.turn
	switch typ {
	case "user.message":
		if len(t.calls) > 0 {
			return core.InvalidField(at+".type", "session %s waits for a %s to the call %s; answer it (or send user.interrupt) before a new message", ss.rec.ID, t.calls[0].waiting, t.calls[0].id)
		}
	case waitResult, waitConfirmation:
		id, _ := ev["tool_use_id"].(string)
		if t.find(id, typ) < 0 {
			return core.InvalidField(at+".tool_use_id", "no agent.tool_use of session %s awaits a %s with the ID %s", ss.rec.ID, typ, core.Quoted(id, core.MaxExcerpt))
		}
		if typ == waitConfirmation && ev["result"] == "allow" && ev["deny_message"] != nil {
			return core.InvalidField(at+".deny_message", "is given only with result deny")
		}
	case waitCustom:
		id, _ := ev["custom_tool_use_id"].(string)
		if t.find(id, typ) < 0 {
			return core.InvalidField(at+".custom_tool_use_id", "no agent.custom_tool_use of session %s awaits a result with the ID %s", ss.rec.ID, core.Quoted(id, core.MaxExcerpt))
		}
	}
	return nil
}

// answer is the agent's part after a client event was stored (the script above).
func (ss *session) answer(s *core.Server, c *core.Call, a *Store, ev Event, now time.Time) error {
	t := &ss.turn
	t.calls = slices.Clone(t.calls) // a refused batch restores the turn it began with (send)
	switch typ, _ := ev["type"].(string); typ {
	case "user.message":
		text := firstText(ev["content"])
		ss.turn = turn{text: text}
		if err := ss.running(s, a, now); err != nil {
			return err
		}
		return ss.modelTurn(s, c, a, now, ss.opening(text))
	case waitConfirmation:
		if err := ss.running(s, a, now); err != nil {
			return err
		}
		i := t.find(ev["tool_use_id"].(string), typ)
		if ev["result"] != "deny" {
			t.calls[i].waiting = waitResult
			return ss.idle(s, a, now, Event{"type": "requires_action", "event_ids": t.awaited()})
		}
		t.calls = slices.Delete(t.calls, i, i+1)
		if len(t.calls) > 0 {
			return ss.idle(s, a, now, Event{"type": "requires_action", "event_ids": t.awaited()})
		}
		return ss.modelTurn(s, c, a, now, textReply(denied(ev)))
	case waitResult, waitCustom:
		key := "tool_use_id"
		if typ == waitCustom {
			key = "custom_tool_use_id"
		}
		i := t.find(ev[key].(string), typ)
		t.calls = slices.Delete(t.calls, i, i+1)
		if len(t.calls) > 0 {
			return ss.idle(s, a, now, Event{"type": "requires_action", "event_ids": t.awaited()})
		}
		if err := ss.running(s, a, now); err != nil {
			return err
		}
		verb := "returned"
		if ev["is_error"] == true {
			verb = "failed"
		}
		return ss.modelTurn(s, c, a, now, textReply("The tool "+verb+": "+firstText(ev["content"])))
	case "user.interrupt":
		if len(t.calls) > 0 || ss.rec.Status == StatusRunning {
			ss.turn = turn{}
			return ss.idle(s, a, now, Event{"type": "end_turn"})
		}
	}
	return nil
}

// opening is the script's answer to a user message (steps 2 and 4).
func (ss *session) opening(text string) *stubs.Reply {
	id := fmt.Sprintf("toolu_%s_%d", strings.TrimPrefix(ss.rec.ID, "sesn_"), len(ss.events)+len(ss.held))
	if on, _ := ss.model.ToolPolicy("bash"); on && ss.selfHosted {
		cmd := "pwd"
		if rest, ok := strings.CutPrefix(text, "$ "); ok {
			cmd = rest
		}
		return &stubs.Reply{Content: []map[string]any{{"type": "tool_use", "id": id, "name": "bash", "input": map[string]any{"command": cmd}}}, StopReason: "tool_use"}
	}
	if name := namedTool(text, ss.model.CustomTools()); name != "" {
		return &stubs.Reply{Content: []map[string]any{{"type": "tool_use", "id": id, "name": name, "input": map[string]any{}}}, StopReason: "tool_use"}
	}
	return textReply("You said: " + text)
}

func textReply(text string) *stubs.Reply {
	return &stubs.Reply{Content: []map[string]any{{"type": "text", "text": text}}, StopReason: "end_turn"}
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
