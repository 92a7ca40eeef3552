package sessions

import (
	"bytes"
	"encoding/json"
	"errors"

	"github.com/platformkit/platformkit/fake/internal/areas/messages"
	"github.com/platformkit/platformkit/fake/internal/areas/messages/stubs"
	"github.com/platformkit/platformkit/fake/internal/core"
)

// The agent's turns are one message thread (package threads, beta message-threads-2026-08-12),
// as the official SDK helpers run a tool loop: the session's first turn creates a thread with
// the whole conversation, and each later turn continues from the previous answer's id, sending
// only the messages since. The threads package expands a continue into the whole request before
// any stage sees it, so a turn is answered (stubs, scenarios, the cache, rate limits, usage)
// exactly as the whole conversation sent again would be; for that to hold, the conversation the
// session builds (conversation) renders each answer as the thread keeps it, its content as
// answered. The turn sends the whole conversation with thread.type "create" when:
//
//   - no thread is kept (the first turn; the last answer came from the tape, which keeps none);
//   - the request's other fields changed (the session's agent was updated: model, system, tools);
//   - the window of the conversation moved (TurnWindow): it no longer starts where the thread's;
//   - a continue was answered thread_not_found (the thread expired on the virtual clock, 5
//     minutes after its last answer, or was evicted): the turn sends the whole conversation
//     again, as the SDK helpers recover. Both requests are in the journal.
//
// A failed turn keeps nothing, and the next continues from the same answer.

// turnThread is the thread the agent's next turn may continue.
type turnThread struct {
	latest string // the answer to continue from; "" when no thread is kept
	start  int    // the sequence number of the event the thread's conversation starts at
	kept   int    // the messages the thread keeps, its last answer included
	head   string // the request's fields but messages and thread, as the create sent them
}

// ask makes the turn's model request, continuing the session's thread when it can, and returns
// the answer with its content as the thread keeps it. The answer's Call is the last request it
// made (nil when it made none), also on an error.
func (ss *session) ask(s *core.Server, c *core.Call, script *stubs.Reply) (messages.TurnAnswer, []any, error) {
	head := ss.requestHead()
	key, err := json.Marshal(head) // keys sorted: the same fields, the same bytes
	if err != nil {
		return messages.TurnAnswer{}, nil, err
	}
	msgs, start := ss.conversation()
	th := ss.thread
	if th.latest != "" && th.start == start && th.head == string(key) && len(msgs) > th.kept {
		cont := map[string]any{"messages": msgs[th.kept:], "thread": map[string]any{"type": "continue", "previous_message_id": th.latest}}
		for k, v := range head {
			if k != "system" && k != "tools" { // the thread keeps the create's
				cont[k] = v
			}
		}
		ans, err := ss.request(s, c, cont, script)
		var ae *core.APIError
		if err == nil || !errors.As(err, &ae) || ae.Code() != messages.ThreadNotFound {
			return ss.answered(ans, start, len(msgs), string(key), err)
		}
	}
	head["messages"], head["thread"] = msgs, map[string]any{"type": "create"}
	ans, err := ss.request(s, c, head, script)
	return ss.answered(ans, start, len(msgs), string(key), err)
}

// request answers one model request of the turn by the Messages pipeline.
func (ss *session) request(s *core.Server, c *core.Call, req map[string]any, script *stubs.Reply) (messages.TurnAnswer, error) {
	body, err := json.Marshal(req)
	if err != nil {
		return messages.TurnAnswer{}, err
	}
	var betas []string
	if req["mcp_servers"] != nil {
		betas = append(betas, BetaMCPClient)
	}
	return messages.AnswerTurn(s, c, body, script, ss.rec.ID, betas...)
}

// answered notes the thread an answer leaves, and returns the answer with its content as the
// thread keeps it (threads.CommitThread): its blocks encoded and decoded again.
func (ss *session) answered(ans messages.TurnAnswer, start, sent int, head string, err error) (messages.TurnAnswer, []any, error) {
	if err != nil {
		return ans, nil, err
	}
	ss.thread = turnThread{}
	if ans.Kept {
		ss.thread = turnThread{latest: ans.Msg.ID, start: start, kept: sent + 1, head: head}
	}
	content, err := json.Marshal(ans.Msg.Content)
	if err != nil {
		return ans, nil, err
	}
	var reply []any
	d := json.NewDecoder(bytes.NewReader(content))
	d.UseNumber()
	if err := d.Decode(&reply); err != nil {
		return ans, nil, err
	}
	return ans, reply, nil
}

// undoTurns is what a batch of events refused calls to forget the turns its events made: the
// answers kept for the events the session forgets, their journal notes, and the thread, which
// the session starts again (the thread's latest answer is one it forgets).
func (ss *session) undoTurns() func(forgotten []stored) {
	th, mark := ss.thread, ss.mark()
	return func(forgotten []stored) {
		if ss.thread != th {
			ss.thread = turnThread{}
		}
		for _, e := range forgotten {
			id, _ := e.ev["id"].(string)
			delete(ss.replies, id)
			delete(ss.callIDs, id)
		}
		ss.unnote(mark)
	}
}

// requestHead is the turn's request but its messages: the agent's model, system, tools and MCP
// servers (sessions_turn_tools.go).
func (ss *session) requestHead() map[string]any {
	req := map[string]any{"model": ss.model.Model["id"], "max_tokens": turnMaxTokens}
	if sys := ss.model.System; sys != nil && *sys != "" {
		req["system"] = *sys
	}
	if tools := modelTools(ss.model); len(tools) > 0 {
		req["tools"] = tools
	}
	if servers := mcpServers(ss.model); len(servers) > 0 {
		req["mcp_servers"] = servers
	}
	return req
}

// keep holds the content of the answer whose span.model_request_end is end, which the
// conversation renders in the place of the events it became.
func (ss *session) keep(a *Store, end string, reply []any) error {
	if err := a.charge(ss, len(end)+core.HeldSize(reply)); err != nil {
		return err
	}
	if ss.replies == nil {
		ss.replies = map[string][]any{}
	}
	ss.replies[end] = reply
	return nil
}

// callMade notes the ID the answer gave the call whose event is event: the conversation names
// the call by it, as the answer did.
func (ss *session) callMade(a *Store, event string, block map[string]any) error {
	id, _ := block["id"].(string)
	if id == "" {
		return nil
	}
	if err := a.charge(ss, len(event)+len(id)); err != nil {
		return err
	}
	if ss.callIDs == nil {
		ss.callIDs = map[string]string{}
	}
	ss.callIDs[event] = id
	return nil
}

// modelID is the ID the conversation names the call of event by.
func (ss *session) modelID(event string) string {
	if id, ok := ss.callIDs[event]; ok {
		return id
	}
	return event
}
