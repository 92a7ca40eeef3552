package tape

import (
	"bytes"
	"encoding/json"
	"sort"
	"strings"
	"time"

	"github.com/platformkit/platformkit/fake/internal/areas/messages/scenarios"

	"github.com/platformkit/platformkit/fake/internal/areas/messages/cache"

	"github.com/platformkit/platformkit/fake/internal/areas/messages/stubs"

	"github.com/platformkit/platformkit/fake/internal/areas/messages/wire"

	"github.com/platformkit/platformkit/fake/internal/core"
)

// Replaying: answering a request from the recording that matches it, under the fake's own ids
// and usage, at the recorded pace or faster.

// TapeRequest is what the tape matches a request by: its body as sent and the key of the body
// the handler decoded. taped is false on a route the tape does not serve, or without a tape.
type TapeRequest struct {
	taped  bool
	data   []byte
	key    string
	keyErr error
}

// TapeRequestOf is the tape's view of a request whose body decoded to v; the key is worked out
// only when the tape serves the route.
func TapeRequestOf(s *core.Server, c *core.Call, data []byte, v any) TapeRequest {
	if !TapeOption.Of(&s.Cfg).taped(c.Route) {
		return TapeRequest{}
	}
	r := c.Request
	tr := TapeRequest{taped: true, data: data}
	tr.key, tr.keyErr = requestKeyOf(r.Method, r.URL.Path, r.URL.RawQuery, v)
	return tr
}

// TapePick is the tape's answer to a request, as the choose stage picked it: a recording to
// replay, or the upstream to forward to (recording, or a miss with -on-miss upstream).
type TapePick struct {
	rec     *Recording
	forward []byte // the body to forward, when forwarding
	miss    error  // a miss that -on-miss error answers
}

// tapePick says whether the tape answers the request, and how: nil when the fake is to answer
// as it does without one.
func PickFromTape(s *core.Server, c *core.Call, tr TapeRequest) *TapePick {
	t := TapeOption.Of(&s.Cfg)
	if !tr.taped {
		return nil
	}
	r := c.Request
	if t.cfg.Record != "" {
		return &TapePick{forward: tr.data}
	}
	if tr.keyErr != nil {
		return nil // the fake's own validation answers it
	}
	rec := t.lookup(s.NsName, tr.key)
	if rec == nil {
		switch t.cfg.OnMiss {
		case OnMissError:
			probe := &Recording{Request: recordedRequest{Method: r.Method, Path: r.URL.Path, Body: tr.data}, key: tr.key}
			return &TapePick{miss: core.NewError(core.ErrNotFound, "no recording matches %s %s: replaying from %s, it would be %s; record it with -record and -upstream, or replay with -on-miss model",
				r.Method, core.Excerpt(r.URL.Path, core.MaxExcerpt), t.cfg.Replay, t.fileFor(t.cfg.Replay, s.NsName, probe))}
		case OnMissUpstream:
			return &TapePick{forward: tr.data}
		}
		return nil
	}
	return &TapePick{rec: rec}
}

// AnswerFromTape answers as the tape picked: forwarded, or replayed; msg is the replayed
// message the fake numbered, for the commit stage (nil otherwise).
func AnswerFromTape(s *core.Server, c *core.Call, pick *TapePick, req *wire.MessageRequest, inputTokens int, plan *cache.CachePlan, stream bool) (any, *wire.Message, error) {
	switch {
	case pick.miss != nil:
		return nil, nil, pick.miss
	case pick.rec == nil:
		v, err := forward(s, c, pick.forward)
		return v, nil, err
	}
	return replay(s, c, pick.rec, req, inputTokens, plan, stream)
}

// fromTape answers a request without a body (the models routes) from the tape: ok is false when
// the fake is to answer as it does without one.
func fromTape(s *core.Server, c *core.Call) (any, bool, error) {
	pick := PickFromTape(s, c, TapeRequestOf(s, c, nil, nil))
	if pick == nil {
		return nil, false, nil
	}
	v, _, err := AnswerFromTape(s, c, pick, nil, 0, nil, false)
	return v, true, err
}

// replay answers from a recording. What the fake numbers follows its own rules, so a replay is
// as deterministic as any answer of the fake: the request-id, the message or completion id, and
// usage (the input tokens count_tokens counts, split by the request's cache plan, which the
// commit stage then writes; output tokens from the content); so does count_tokens, whose
// recording only tells the request was expected.
func replay(s *core.Server, c *core.Call, rec *Recording, req *wire.MessageRequest, inputTokens int, plan *cache.CachePlan, stream bool) (any, *wire.Message, error) {
	resp := rec.Response
	for k, v := range resp.Headers {
		if !strings.EqualFold(k, "request-id") && !strings.EqualFold(k, "content-type") {
			c.Header(k, v)
		}
	}
	if resp.Status >= 400 {
		return recordedError{resp.Status, resp.Body}, nil, nil
	}
	speed := TapeOption.Of(&s.Cfg).cfg.Speed
	switch rec.Kind().Name {
	case "count_tokens":
		return map[string]int{"input_tokens": inputTokens}, nil, nil
	case "models", "model":
		return json.RawMessage(resp.Body), nil, nil
	case "complete":
		id := s.IDs.Next("compl_")
		switch {
		case stream && resp.Events != nil:
			return replayedStream(c, rec, speed, func(name string, data json.RawMessage) json.RawMessage {
				if name == "completion" {
					return setFields(data, map[string]any{"id": id})
				}
				return data
			}), nil, nil
		case rec.comp == nil: // a stream that failed
			return nil, nil, failedStream(rec)
		}
		comp := *rec.comp
		comp.ID = id
		if stream {
			return wire.CompletionStream(comp), nil, nil
		}
		return comp, nil, nil
	}
	if rec.Msg == nil { // a stream that failed: its events as recorded, under the fake's id
		if !stream {
			return nil, nil, failedStream(rec)
		}
		id := s.IDs.Next("msg_")
		return replayedStream(c, rec, speed, func(name string, data json.RawMessage) json.RawMessage {
			if name == "message_start" {
				var d struct{ Message json.RawMessage }
				_ = json.Unmarshal(data, &d)
				return setFields(data, map[string]any{"message": setFields(d.Message, map[string]any{"id": id})})
			}
			return data
		}), nil, nil
	}
	msg := *rec.Msg
	msg.Content = stubs.CloneBlocks(msg.Content)
	msg.ID = s.IDs.Next("msg_")
	scenarios.SetUsage(&msg, req, plan)
	switch {
	case stream && resp.Events != nil:
		return replayedStream(c, rec, speed, func(name string, data json.RawMessage) json.RawMessage {
			switch name {
			case "message_start":
				start := msg.Usage
				start.OutputTokens = 0
				var d struct{ Message json.RawMessage }
				_ = json.Unmarshal(data, &d)
				return setFields(data, map[string]any{"message": setFields(d.Message, map[string]any{"id": msg.ID, "usage": start})})
			case "message_delta":
				return setFields(data, map[string]any{"usage": msg.Usage})
			}
			return data
		}), &msg, nil
	case stream:
		return wire.MessageStream(&msg, c.HasBeta(wire.BetaThinkingTokenCount)), &msg, nil
	}
	return wire.MessageJSON{Message: &msg}, &msg, nil
}

// failedStream is the error a recorded stream ended with, for a request that does not stream:
// the envelope with the status of its type.
func failedStream(rec *Recording) error {
	evs := rec.Response.Events
	var d struct {
		Error struct{ Type, Message string }
	}
	_ = json.Unmarshal(evs[len(evs)-1].Data, &d)
	if _, known := core.StatusOf[d.Error.Type]; !known {
		d.Error.Type = core.ErrAPI
	}
	return core.NewError(d.Error.Type, "%s", d.Error.Message)
}

// recordedError answers a recorded error: its status and envelope, with the request_id of this
// answer.
type recordedError struct {
	status int
	body   json.RawMessage
}

func (e recordedError) Respond(c *core.Call) {
	var env map[string]any
	_ = json.Unmarshal(e.body, &env)
	env["request_id"] = c.X.RequestID[0]
	c.Srv.WriteJSON(c.Context, e.status, "error", env)
}

// replayedStream serves a recorded stream with its event boundaries, each event's data changed
// by rewrite (the fake's ids and usage), and an error event's request_id this answer's. At speed
// s > 0 an event leaves at its recorded offset divided by s, counted from the first; a client
// that goes away ends the wait.
func replayedStream(c *core.Call, rec *Recording, speed float64, rewrite func(name string, data json.RawMessage) json.RawMessage) wire.SseStream {
	ctx := c.Request.Context()
	evs := rec.Response.Events
	return wire.SseStream{Paced: speed > 0, Events: func(yield func(wire.SseEvent) bool) {
		start := time.Now()
		for _, ev := range evs {
			if speed > 0 {
				due := time.Duration((ev.OffsetMS - evs[0].OffsetMS) / speed * float64(time.Millisecond))
				timer := time.NewTimer(due - time.Since(start))
				select {
				case <-ctx.Done():
					timer.Stop()
					return
				case <-timer.C:
				}
			}
			data := rewrite(ev.Event, ev.Data)
			if ev.Event == "error" {
				data = setFields(data, map[string]any{"request_id": c.X.RequestID[0]})
			}
			if !yield(wire.SseEvent{Name: ev.Event, Data: data}) {
				return
			}
		}
	}}
}

// setFields returns the JSON object obj with the values of the keys in set replaced (or added at
// the end), every other key kept in its place and its bytes: a replayed event differs from its
// recording only where the fake's rules say.
func setFields(obj json.RawMessage, set map[string]any) json.RawMessage {
	d := json.NewDecoder(bytes.NewReader(obj))
	if t, err := d.Token(); err != nil || t != json.Delim('{') {
		return obj
	}
	var b bytes.Buffer
	b.WriteByte('{')
	field := func(key string, v json.RawMessage) {
		if b.Len() > 1 {
			b.WriteByte(',')
		}
		k, _ := json.Marshal(key)
		b.Write(k)
		b.WriteByte(':')
		b.Write(v)
	}
	done := map[string]bool{}
	for d.More() {
		t, err := d.Token()
		key, _ := t.(string)
		var v json.RawMessage
		if err != nil || d.Decode(&v) != nil {
			return obj
		}
		if nv, ok := set[key]; ok {
			v, _ = json.Marshal(nv)
			done[key] = true
		}
		field(key, v)
	}
	keys := make([]string, 0, len(set))
	for k := range set {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if !done[k] {
			v, _ := json.Marshal(set[k])
			field(k, v)
		}
	}
	b.WriteByte('}')
	return b.Bytes()
}
