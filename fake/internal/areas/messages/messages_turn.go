package messages

import (
	"encoding/json"

	"github.com/platformkit/platformkit/fake/internal/areas/messages/stubs"
	"github.com/platformkit/platformkit/fake/internal/areas/messages/tape"
	"github.com/platformkit/platformkit/fake/internal/areas/messages/threads"
	"github.com/platformkit/platformkit/fake/internal/areas/messages/wire"
	"github.com/platformkit/platformkit/fake/internal/core"
)

// AnswerTurn answers body, the model request of one turn of a session's agent (package
// sessions), by the one pipeline: as POST /v1/messages answers it sent alone with c's
// credential, API version, beta values and headers (Answer), so that a Fake-Scenario header, a
// stub, the tape, a library scenario, the prompt cache, the rate limits and an injected fault
// (one that matches POST /v1/messages and answers an error status or drops the connection) act
// on it as on any request. One stage differs: where the scripted model would answer (nothing
// else chose a reply), script, the agent's own script, answers. The request selects the message
// threads' beta (threads.BetaMessageThreads), so that body may create or continue a thread, and
// the beta values betas. The
// request is journaled as a request of its own, marked with sessionID (core.Call.Journal). It
// returns the answer (TurnAnswer), or the error the request got with the request (TurnAnswer's
// Call). The caller never asks for a stream.
func AnswerTurn(s *core.Server, c *core.Call, body []byte, script *stubs.Reply, sessionID string, betas ...string) (TurnAnswer, error) {
	sub := c.Sub(createLine, body)
	for _, b := range append([]string{threads.BetaMessageThreads}, betas...) {
		sub.AddBeta(b)
	}
	msg, kept, err := answerTurn(s, sub, script)
	sub.Journal(err, core.SubMark{SessionID: sessionID})
	return TurnAnswer{Msg: msg, Kept: kept && sub.X.Thread != nil, Call: sub}, err
}

// ThreadNotFound is the error.details.error_code of a continue whose thread is gone (expired or
// evicted), from which a turn recovers by sending the whole conversation again.
const ThreadNotFound = threads.ThreadNotFound

// TurnAnswer is the answer to a turn's model request (AnswerTurn).
type TurnAnswer struct {
	Msg *wire.Message
	// Kept is whether the request's thread keeps Msg (a thread was named and the tape did not
	// answer): the next turn may continue from Msg.ID.
	Kept bool
	// Call is the request, journaled: the session events its turn appends are noted on it
	// (core.Call.NoteSessionEvents).
	Call *core.Call
}

func answerTurn(s *core.Server, sub *core.Call, script *stubs.Reply) (*wire.Message, bool, error) {
	if err := sub.Fault(); err != nil {
		return nil, false, err
	}
	ans, err := create(s, sub, script)
	if err != nil {
		return nil, false, err
	}
	if ans.msg != nil {
		return ans.msg, !ans.taped, nil
	}
	// A forwarded answer (the tape records): drained and recorded, its body read as a message.
	status, b, forwarded, err := tape.Drain(sub, ans.v)
	if err != nil {
		return nil, false, err
	}
	if !forwarded { // a replayed recording: its body
		if b, err = json.Marshal(ans.v); err != nil {
			return nil, false, err
		}
	}
	if status >= 400 {
		var e struct {
			Error struct {
				Type    string `json:"type"`
				Message string `json:"message"`
			} `json:"error"`
		}
		_ = json.Unmarshal(b, &e)
		typ := e.Error.Type
		if _, known := core.StatusOf[typ]; !known {
			typ = core.ErrAPI
		}
		return nil, false, core.NewError(typ, "the upstream answered %d: %s", status, e.Error.Message).WithStatus(status)
	}
	var msg wire.Message
	if err := json.Unmarshal(b, &msg); err != nil {
		return nil, false, core.NewError(core.ErrAPI, "the upstream's answer is not a message: %v", err)
	}
	return &msg, false, nil
}
