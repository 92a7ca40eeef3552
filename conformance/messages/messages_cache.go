package messages

import (
	"net/http"
	"strings"

	. "github.com/onsi/gomega"

	"github.com/platformkit/platformkit/conformance/kit"
)

// Prompt caching (EXTENSIONS.md, "Prompt caching"). The reference documents cache_control's
// shape only; the behaviour checked here is the platform's documented and observed one, hence
// the extension label. The checks hold on a deployment too: the prompt is long enough for the
// largest model minimum (4,096 tokens) under any tokenizer that gives an English word at least
// one token.

func init() { kit.Register(cacheChecks()...) }

// cacheWords is a prompt of about 6,000 words of varied English text, deterministic, so that two
// runs of the suite send the same prefix.
func cacheWords() string {
	vocab := strings.Fields(`harbor lantern meadow orchard signal window bridge river stone cloud leaf garden
		quiet steady careful honest useful bright early late round open close simple clear even small
		first last next every order list time field value code text search page document result tool`)
	var sb strings.Builder
	sb.WriteString("Reference notes for the conformance suite's prompt-cache check. ")
	x := uint32(2026)
	for i := range 6000 {
		x = x*1664525 + 1013904223
		sb.WriteString(vocab[int(x>>16)%len(vocab)])
		if i%12 == 11 {
			sb.WriteString(". ")
		} else {
			sb.WriteByte(' ')
		}
	}
	return sb.String()
}

func cacheChecks() []kit.Check {
	return []kit.Check{
		{ID: "messages/cache-read-on-repeat", Clause: "4.4", Labels: []kit.Label{kit.Messages, kit.Extension},
			Title: "a second identical request with a breakpoint past the model's minimum reports a cache read",
			Bug:   &kit.Bug{Says: "prompt caching is not simulated: the cache fields stay 0", Want: "reads the cached prefix", Break: kit.InOKAnswers(msgCreate, msgNoCache)},
			Run: func(t *kit.T) {
				model, _ := PickModel(t)
				system := []any{map[string]any{"type": "text", "text": cacheWords(), "cache_control": map[string]any{"type": "ephemeral"}}}
				body := Body(model, "max_tokens", 16, "system", system)
				count := t.OK(kit.Request{Area: kit.Messages, Method: http.MethodPost, Path: "/v1/messages/count_tokens",
					Body: Body(model, "system", system, "max_tokens", nil), Schema: "messages/count_tokens"})
				total := count.Get("input_tokens").Int()
				t.Expect(total).To(BeNumerically(">=", 4096), "the prompt must pass every model's minimum: %s", count)
				t.OK(CreateRequest(body))
				second := t.OK(CreateRequest(body))
				// Only the read: how the total splits, and whether it equals count_tokens (an estimate
				// on the platform), is the fake's exactness, which its own tests hold it to.
				u := second.Get("usage")
				t.Expect(u.Get("cache_read_input_tokens").Int()).To(BeNumerically(">", 0), "the second identical request reads the cached prefix: %s", u)
			}},
		{ID: "messages/cache-breakpoint-limit", Clause: "4.4", Labels: []kit.Label{kit.Messages, kit.Extension},
			Title: "a request with five cache_control breakpoints is refused: at most four are allowed",
			Bug:   &kit.Bug{Says: "any number of cache_control breakpoints is accepted", Want: "five breakpoints are refused", Break: kit.InRequests(http.MethodPost, "/v1/messages", msgFourBreakpoints)},
			Run: func(t *kit.T) {
				model, _ := PickModel(t)
				var blocks []any
				for i := range 5 {
					blocks = append(blocks, map[string]any{"type": "text", "text": "Part " + string(rune('A'+i)) + ".", "cache_control": map[string]any{"type": "ephemeral"}})
				}
				four := Body(model, "messages", []any{UserTurn(blocks[:4])})
				t.OK(CreateRequest(four))
				resp := t.Do(CreateRequest(Body(model, "messages", []any{UserTurn(blocks)})))
				t.Expect(resp.Status).To(Equal(http.StatusBadRequest), "five breakpoints are refused: %s", resp)
				expectFieldError(t, resp, "")
				t.Expect(resp.Get("error.message").String()).To(ContainSubstring("A maximum of 4 blocks with cache_control may be provided. Found 5."), "%s", resp)
			}},
	}
}
