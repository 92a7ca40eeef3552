package fake

import (
	"bytes"
	"encoding/json"
	"errors"
	"regexp"
	"slices"
	"strings"
)

// Legacy Text Completions (spec 2.8, 4.4; gaps §5), answered by the same scripted model.

// humanTurn is the built-in stop sequence: the model never speaks for the human (spec 4.4).
const humanTurn = "\n\nHuman:"

// completion is the response of spec 2.8, and each event of its stream.
type completion struct {
	Type       string  `json:"type"`
	ID         string  `json:"id"`
	Completion string  `json:"completion"`
	Model      string  `json:"model"`
	StopReason *string `json:"stop_reason"`
}

type completeRequest struct {
	Model             string   `json:"model"`
	Prompt            string   `json:"prompt"`
	MaxTokensToSample int      `json:"max_tokens_to_sample"`
	StopSequences     []string `json:"stop_sequences"`
	Stream            bool     `json:"stream"`
}

var turnMarker = regexp.MustCompile(`\n\n(Human|Assistant):`)

// checkPrompt applies the prompt format of spec 4.4 and gaps §5: alternating turns introduced by
// two line breaks and "Human:" or "Assistant:", from a human turn to a final, empty assistant turn.
func checkPrompt(p string) error {
	if !strings.HasPrefix(p, humanTurn) {
		return invalidField("prompt", "must start with %q (two line breaks, then \"Human:\")", humanTurn)
	}
	if !strings.HasSuffix(p, "\n\nAssistant:") {
		return invalidField("prompt", "must end with %q, the turn the model completes", "\n\nAssistant:")
	}
	want := "Human"
	for _, m := range turnMarker.FindAllStringSubmatch(p, -1) {
		if m[1] != want {
			return invalidField("prompt", "turns must alternate between Human and Assistant; found two %s turns in a row", m[1])
		}
		want = map[string]string{"Human": "Assistant", "Assistant": "Human"}[want]
	}
	return nil
}

func (s *Server) complete(c *call) (any, error) {
	data, err := c.body()
	if err != nil {
		return nil, err
	}
	if err := validateBody(c.bodySchema(), data); err != nil {
		return nil, err
	}
	var req completeRequest
	var raw map[string]any
	d := json.NewDecoder(bytes.NewReader(data))
	d.UseNumber()
	if err := errors.Join(json.Unmarshal(data, &req), d.Decode(&raw)); err != nil {
		return nil, decodeError(err)
	}
	if err := checkUserID(raw); err != nil {
		return nil, err
	}
	if err := checkPrompt(req.Prompt); err != nil {
		return nil, err
	}
	// Completions count against their model's group as Messages do: the prompt's tokens in,
	// the completion's out.
	var adm *admission
	if s.limits.on.Load() {
		if adm, err = s.admit(c, req.Model, inputUsage{Input: countTokens(req.Prompt)}, false); err != nil {
			return nil, err
		}
	}
	if v, ok, err := s.fromTape(c, nil, req.Stream); ok {
		adm.chargeOutput(0)
		return v, err
	}
	limit := req.MaxTokensToSample
	if m := c.st.fx.model(req.Model); m != nil {
		limit = min(limit, m.MaxTokens)
	}
	// The scripted model answers and then, as a model would, goes on with the next human turn,
	// which the built-in stop sequence cuts off.
	r, _ := seedOf(raw)
	text := strings.Join(r.words(8+r.intn(40), " "), "") + humanTurn + strings.Join(r.words(6, " "), "")
	_, cut := firstStop(text, append(req.StopSequences, humanTurn))
	reason := "stop_sequence"
	toks := tokens(text[:cut])
	if len(toks) > limit {
		toks, reason = toks[:limit], "max_tokens"
	}
	out := completion{Type: "completion", ID: s.ids.next("compl_"), Completion: strings.Join(toks, ""), Model: req.Model, StopReason: &reason}
	adm.chargeOutput(len(toks))
	if req.Stream {
		return completionStream(out), nil
	}
	return out, nil
}

// completionStream is the event sequence of gaps §5: the text in `completion` events, a ping,
// and a last event with an empty piece that carries the stop reason.
func completionStream(full completion) sseStream {
	piece := func(text string, reason *string) sseEvent {
		ev := full
		ev.Completion, ev.StopReason = text, reason
		return sseEvent{"completion", ev}
	}
	var events []sseEvent
	for _, t := range chunkTokens(full.Completion) {
		events = append(events, piece(t, nil))
	}
	events = append(events, piece("", full.StopReason))
	events = append(events[:1], append([]sseEvent{{"ping", map[string]string{"type": "ping"}}}, events[1:]...)...)
	return sseStream{events: slices.Values(events)}
}
