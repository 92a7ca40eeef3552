package messages

import (
	"encoding/json"
	"reflect"
	"regexp"
	"strings"

	"github.com/platformkit/platformkit/fake/internal/areas/messages/tape"

	"github.com/platformkit/platformkit/fake/internal/areas/messages/model"

	"github.com/platformkit/platformkit/fake/internal/areas/messages/wire"

	"github.com/platformkit/platformkit/fake/internal/areas/ratelimit"

	"github.com/platformkit/platformkit/fake/internal/areas/models"

	"github.com/platformkit/platformkit/fake/internal/core"
)

// Legacy Text Completions (spec 2.8, 4.4; gaps §5), answered by the same scripted model.

// humanTurn is the built-in stop sequence: the model never speaks for the human (spec 4.4).
const humanTurn = "\n\nHuman:"

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
		return core.InvalidField("prompt", "must start with %q (two line breaks, then \"Human:\")", humanTurn)
	}
	if !strings.HasSuffix(p, "\n\nAssistant:") {
		return core.InvalidField("prompt", "must end with %q, the turn the model completes", "\n\nAssistant:")
	}
	want := "Human"
	for _, m := range turnMarker.FindAllStringSubmatch(p, -1) {
		if m[1] != want {
			return core.InvalidField("prompt", "turns must alternate between Human and Assistant; found two %s turns in a row", m[1])
		}
		want = map[string]string{"Human": "Assistant", "Assistant": "Human"}[want]
	}
	return nil
}

// complete answers POST /v1/complete in the stages of Messages that apply to it: parse, admit
// (the model's group, as Messages: the prompt's tokens in, the completion's out), choose (the
// tape or the scripted model), answer and charge.
func complete(s *core.Server, c *core.Call) (any, error) {
	req, raw, tr, err := parseCompletion(s, c)
	if err != nil {
		return nil, err
	}
	adm, err := ratelimit.Admit(s, c, req.Model, ratelimit.InputUsage{Input: model.TextTokens(req.Prompt)}, false)
	if err != nil {
		return nil, err
	}
	if ch, _ := choose(s, c, nil, tr); ch.tape != nil { // without a request, no error
		v, _, err := tape.AnswerFromTape(s, c, ch.tape, nil, 0, nil, req.Stream)
		adm.ChargeOutput(0)
		return v, err
	}
	limit := req.MaxTokensToSample
	if m := models.Find(c.St.Fx, req.Model); m != nil {
		limit = min(limit, m.MaxTokens)
	}
	// The scripted model answers and then, as a model would, goes on with the next human turn,
	// which the built-in stop sequence cuts off.
	r, _ := model.SeedOf(raw)
	text := r.Text(8+r.Intn(40), " ") + humanTurn + r.Text(6, " ")
	_, cut := model.FirstStop(text, append(req.StopSequences, humanTurn))
	reason := "stop_sequence"
	toks := model.Tokens(text[:cut])
	if len(toks) > limit {
		toks, reason = toks[:limit], "max_tokens"
	}
	out := wire.Completion{Type: "completion", ID: s.IDs.Next("compl_"), Completion: strings.Join(toks, ""), Model: req.Model, StopReason: &reason}
	adm.ChargeOutput(len(toks))
	if req.Stream {
		return wire.CompletionStream(out), nil
	}
	return out, nil
}

// parseCompletion is the parse stage of Completions: the body decoded once and checked against
// the request schema, the typed request and the tape's key derived from that value, then the
// rules a schema cannot express.
func parseCompletion(s *core.Server, c *core.Call) (*completeRequest, map[string]any, tape.TapeRequest, error) {
	data, v, err := c.DecodeBody()
	if err != nil {
		return nil, nil, tape.TapeRequest{}, err
	}
	raw := v.(map[string]any) // the schema requires an object of these types
	req := &completeRequest{}
	req.Model, _ = raw["model"].(string)
	req.Prompt, _ = raw["prompt"].(string)
	if n, ok := raw["max_tokens_to_sample"].(json.Number); ok {
		i, err := n.Int64()
		if err != nil || int64(int(i)) != i { // 1.0, 1e2 or past an int: as encoding/json refuses it
			return nil, nil, tape.TapeRequest{}, core.DecodeError(&json.UnmarshalTypeError{Value: "number " + n.String(), Type: reflect.TypeFor[int](), Field: "max_tokens_to_sample"})
		}
		req.MaxTokensToSample = int(i)
	}
	if ss, ok := raw["stop_sequences"].([]any); ok {
		req.StopSequences = make([]string, len(ss))
		for i, x := range ss {
			req.StopSequences[i], _ = x.(string)
		}
	}
	req.Stream, _ = raw["stream"].(bool)
	if err := checkUserID(raw); err != nil {
		return nil, nil, tape.TapeRequest{}, err
	}
	if err := checkPrompt(req.Prompt); err != nil {
		return nil, nil, tape.TapeRequest{}, err
	}
	return req, raw, tape.TapeRequestOf(s, c, data, raw), nil
}
