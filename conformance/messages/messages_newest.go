package messages

import (
	"fmt"
	"maps"
	"net/http"
	"strings"

	. "github.com/onsi/gomega"
	"github.com/tidwall/gjson"

	"github.com/platformkit/platformkit/conformance/kit"
)

// The behaviours that landed last (EXTENSIONS.md, "API versions" and "Message threads"; the
// newest answers' shapes), each held where a deployment shows it over the API: what a thread
// continue may change, a thread's sliding expiry, billing_policy, a text block's citations, a
// stop sequence and max_tokens in what a deployment answers.

func init() { kit.Register(newestChecks()...) }

// unsupportedNames are the names of error.details.unsupported.
func unsupportedNames(resp *kit.Response) []string {
	var names []string
	for _, u := range resp.Get("error.details.unsupported").Array() {
		names = append(names, u.String())
	}
	return names
}

func newestChecks() []kit.Check {
	return []kit.Check{
		{ID: "messages/version-header-required", Clause: "9", Labels: []kit.Label{kit.Messages, kit.Extension},
			Title: "POST /v1/messages without a version header is refused 400 invalid_request_error saying the header is required",
			Bug: &kit.Bug{Says: "a message without a version header is answered as 2023-06-01", Want: "without a version header",
				Break: kit.InRequestHeaders(msgCreate, func(h http.Header) {
					if h.Get("vendor-version") == "" && h.Get("anthropic-version") == "" {
						h.Set("vendor-version", "2023-06-01")
					}
				})},
			Run: func(t *kit.T) {
				model, _ := PickModel(t)
				r := CreateRequest(Body(model))
				r.Header = http.Header{"vendor-version": {""}}
				resp := t.Do(r)
				t.Expect(resp.Status).To(Equal(http.StatusBadRequest), "POST /v1/messages without a version header is refused 400")
				t.Expect(resp.Get("error.type").String()).To(Equal("invalid_request_error"), "the refusal is an invalid_request_error")
				t.Expect(resp.Get("error.message").String()).To(ContainSubstring("header is required"), "the refusal says the version header is required")
			}},
		{ID: "messages/thread-fingerprint-model", Clause: "4.4", Labels: []kit.Label{kit.Messages, kit.Extension},
			Title: "a continue that names another model than the thread's create is refused 400 with error_code thread_fingerprint_mismatch, its message naming model",
			Bug:   &kit.Bug{Says: "a continue may change the model", Want: "thread_fingerprint_mismatch", Break: threadKeepsField("model")},
			Run: func(t *kit.T) {
				models := t.OK(kit.Request{Area: kit.Models, Path: "/v1/models", Query: map[string][]string{"limit": {"2"}}, Schema: "models/model_list"}).Get("data.#.id").Array()
				t.Need("models", len(models), 2)
				created := threadOK(t, Body(models[0].String(), "thread", threadCreate()))
				resp := t.Do(threadReq(Body(models[1].String(), "messages", []any{UserTurn("Go on.")}, "thread", threadContinue(created.Get("id").String()))))
				expectThreadError(t, resp, http.StatusBadRequest, "invalid_request_error", "thread_fingerprint_mismatch")
				t.Expect(resp.Get("error.message").String()).To(ContainSubstring("model"), "the refusal names model, the field that differs: %s", resp.Get("error.message"))
			}},
		{ID: "messages/thread-fingerprint-mcp-servers", Clause: "4.4", Labels: []kit.Label{kit.Messages, kit.Extension},
			Title: "a continue that adds mcp_servers the thread's create did not have is refused 400 with error_code thread_fingerprint_mismatch, its message naming mcp_servers",
			Bug:   &kit.Bug{Says: "a continue may change mcp_servers", Want: "thread_fingerprint_mismatch", Break: threadKeepsField("mcp_servers")},
			Run: func(t *kit.T) {
				model, _ := PickModel(t)
				created := threadOK(t, Body(model, "thread", threadCreate()))
				servers := []any{map[string]any{"type": "url", "name": "docs", "url": "https://mcp.example.com/sse"}}
				resp := t.Do(threadReq(Body(model, "messages", []any{UserTurn("Go on.")}, "mcp_servers", servers, "thread", threadContinue(created.Get("id").String()))))
				expectThreadError(t, resp, http.StatusBadRequest, "invalid_request_error", "thread_fingerprint_mismatch")
				t.Expect(resp.Get("error.message").String()).To(ContainSubstring("mcp_servers"), "the refusal names mcp_servers, the field that differs: %s", resp.Get("error.message"))
			}},
		{ID: "messages/thread-continue-unsupported", Clause: "4.4", Labels: []kit.Label{kit.Messages, kit.Extension},
			Title: "a continue carrying context_management, or max_tokens 0, is refused 400 with error_code thread_unsupported_request, error.details.unsupported naming context_management for the first",
			Bug: &kit.Bug{Says: "a continue takes context_management, ignoring it", Want: "thread_unsupported_request", Break: kit.InRequests(http.MethodPost, "/v1/messages", func(b map[string]any) {
				if th, _ := b["thread"].(map[string]any); th["type"] == "continue" {
					delete(b, "context_management")
				}
			})},
			Run: func(t *kit.T) {
				model, _ := PickModel(t)
				id := threadOK(t, Body(model, "thread", threadCreate())).Get("id").String()
				cm := map[string]any{"edits": []any{map[string]any{"type": "clear_tool_uses_20250919"}}}
				resp := t.Do(threadReq(Body(model, "messages", []any{UserTurn("Go on.")}, "context_management", cm, "thread", threadContinue(id))))
				expectThreadError(t, resp, http.StatusBadRequest, "invalid_request_error", "thread_unsupported_request")
				t.Expect(unsupportedNames(resp)).To(ContainElement("context_management"), "error.details.unsupported names context_management: %s", resp.Get("error"))
				// Refused, so the reply is still the thread's to continue.
				resp = t.Do(threadReq(Body(model, "max_tokens", 0, "messages", []any{UserTurn("Go on.")}, "thread", threadContinue(id))))
				expectThreadError(t, resp, http.StatusBadRequest, "invalid_request_error", "thread_unsupported_request")
			}},
		{ID: "messages/thread-expiry-slides", Clause: "4.4", Labels: []kit.Label{kit.Messages, kit.Extension, kit.FakeOnly},
			Title: "a thread's 5 minutes restart at each answered turn: continued 4:00 after its create and again 8:00 after it (4:00 after the last turn), gone 5:00 after its last turn",
			Bug:   &kit.Bug{Says: "a thread expires 5 minutes after its create, however often it is continued", Want: "4:00 after the last turn", Break: threadFixedExpiry},
			Run: func(t *kit.T) {
				wait := func(s int) { t.Control(http.MethodPost, "/_fake/clock/advance", map[string]any{"seconds": s}) }
				slidingExpiry(t, wait, 240)
			}},
		{ID: "messages/thread-expiry-slides-wall-clock", Clause: "4.4", Labels: []kit.Label{kit.Messages, kit.Extension, kit.Slow},
			Title: "on the wall clock, a thread continued 3:00 after its create is continued again 6:00 after it (3:00 after the last turn): its 5 minutes restart at each answered turn",
			Bug:   &kit.Bug{Says: "a thread expires 5 minutes after its create, however often it is continued", Want: "3:00 after the last turn", Break: threadFixedExpiry},
			Run: func(t *kit.T) {
				slidingExpiry(t, func(s int) { t.Wait(s) }, 180)
			}},
		{ID: "messages/thread-other-key-404", Clause: "4.4", Labels: []kit.Label{kit.Messages, kit.Extension},
			Title: "a continue with another organization's key is answered 404 thread_not_found, as a reply no thread holds, and leaves the thread its owner's to continue",
			Bug:   &kit.Bug{Says: "any key may continue any thread", Want: "thread_not_found", Break: threadAnyKey},
			Run: func(t *kit.T) {
				if t.Config().APIKey2 == "" {
					t.NeedsSecondOrganization("CONFORMANCE_API_KEY_2")
				}
				model, _ := PickModel(t)
				id := threadOK(t, Body(model, "thread", threadCreate())).Get("id").String()
				theirs := threadReq(Body(model, "messages", []any{UserTurn("Go on.")}, "thread", threadContinue(id)))
				theirs.Org2 = true
				expectThreadError(t, t.Do(theirs), http.StatusNotFound, "not_found_error", "thread_not_found")
				threadOK(t, Body(model, "messages", []any{UserTurn("Go on.")}, "thread", threadContinue(id)))
			}},
		{ID: "messages/billing-policy", Clause: "9", Labels: []kit.Label{kit.Messages, kit.Extension},
			Title: "billing_policy with bill_to self is answered on Messages and count_tokens, and bill_to user_profile, with no profile linked, is refused 400 naming billing_policy.bill_to",
			Bug: &kit.Bug{Says: "billing_policy is ignored", Want: "billing_policy.bill_to", Break: kit.Both(kit.IgnoresField(http.MethodPost, "/v1/messages", "billing_policy"),
				kit.IgnoresField(http.MethodPost, "/v1/messages/count_tokens", "billing_policy"))},
			Run: func(t *kit.T) {
				model, _ := PickModel(t)
				count := func(body map[string]any) kit.Request {
					delete(body, "max_tokens")
					return kit.Request{Area: kit.Messages, Method: http.MethodPost, Path: "/v1/messages/count_tokens", Body: body, Schema: "messages/count_tokens"}
				}
				self := map[string]any{"type": "billing_policy", "bill_to": "self"}
				t.OK(CreateRequest(Body(model, "billing_policy", self)))
				t.OK(count(Body(model, "billing_policy", self)))
				profile := map[string]any{"type": "billing_policy", "bill_to": "user_profile"}
				for _, r := range []kit.Request{CreateRequest(Body(model, "billing_policy", profile)), count(Body(model, "billing_policy", profile))} {
					resp := t.Do(r)
					t.Expect(resp.Status).To(Equal(http.StatusBadRequest), "bill_to user_profile, with no profile linked, is refused 400 naming billing_policy.bill_to: %s", resp)
					t.Expect(resp.Get("error.message").String()).To(HavePrefix("billing_policy.bill_to:"), "the refusal names billing_policy.bill_to")
				}
			}},
		{ID: "messages/text-citations-null", Clause: "gaps §4b", Labels: []kit.Label{kit.Messages, kit.Extension},
			Title: "every text block of an answer to a request with nothing to cite carries citations: null",
			Bug:   &kit.Bug{Says: "text blocks leave citations out when they cite nothing", Want: "citations", Break: kit.DropsField(msgCreate, "content.*.citations")},
			Run: func(t *kit.T) {
				model, _ := PickModel(t)
				resp := t.OK(CreateRequest(Body(model)))
				texts := 0
				for _, b := range resp.Get("content").Array() {
					if b.Get("type").String() == "text" {
						texts++
						// The request holds no document or search result, so there is nothing to cite.
						t.Expect(b.Get("citations").Exists()).To(BeTrue(), "a text block carries citations, null when it cites nothing: %s", b.Raw)
						t.Expect(b.Get("citations").Type).To(Equal(gjson.Null), "a text block of an answer with nothing to cite has citations null, not %s", b.Get("citations").Raw)
					}
				}
				t.Need("text blocks in the answer", texts, 1)
			}},
		{ID: "messages/stop-sequence-when-reproducible", Clause: "2.9", Labels: []kit.Label{kit.Messages},
			Title: "when a request is answered with the same text twice, the same request with a stop sequence from the middle of that text stops with stop_reason stop_sequence, naming it",
			Bug: &kit.Bug{Says: "a reply cut at a stop sequence says end_turn and no stop_sequence", Want: "stop_reason stop_sequence", Break: kit.InOKAnswers(msgCreate, func(_ *http.Request, m map[string]any) {
				if m["stop_reason"] == "stop_sequence" {
					m["stop_reason"], m["stop_sequence"] = "end_turn", nil
				}
			})},
			Run: func(t *kit.T) {
				model, _ := PickModel(t)
				body := Body(model, "messages", []any{UserTurn("Count from one to twenty in words, separated by spaces.")})
				first := strings.Join(textOf(t.OK(CreateRequest(body))), "")
				if again := strings.Join(textOf(t.OK(CreateRequest(body))), ""); again != first {
					t.Unsupported("the target answered the same request with different text twice, so no stop sequence is sure to be met")
				}
				words := strings.Fields(first)
				if len(words) < 3 {
					t.Unsupported("the reply is too short to pick a stop sequence from: %q", first)
				}
				stop := words[len(words)/2]
				resp := t.OK(CreateRequest(with(maps.Clone(body), []any{"stop_sequences", []any{stop}})))
				t.Expect(resp.Get("stop_reason").String()).To(Equal("stop_sequence"),
					"the text %q answered twice holds %q, so the reply stops there with stop_reason stop_sequence", first, stop)
				t.Expect(resp.Get("stop_sequence").String()).To(Equal(stop), "stop_sequence names the sequence met")
			}},
		{ID: "messages/stream-max-tokens-respected", Clause: "4.4", Labels: []kit.Label{kit.Messages},
			Title: "a streamed reply cut by max_tokens ends with stop_reason max_tokens, and its output_tokens stay within max_tokens",
			Bug: &kit.Bug{Says: "a streamed reply cut by max_tokens says end_turn", Want: "stops with max_tokens", Break: inStreams(streamedAnswers, func(evs []streamedEvent) []streamedEvent {
				for _, e := range evs {
					if d, _ := e.Data["delta"].(map[string]any); e.Name == "message_delta" && d["stop_reason"] == "max_tokens" {
						d["stop_reason"] = "end_turn"
					}
				}
				return evs
			})},
			Run: func(t *kit.T) {
				model, _ := PickModel(t)
				for _, max := range []int{1, 3} {
					msg := kit.MustMarshal(streamMessage(t, CreateRequest(Body(model, "max_tokens", max, "stream", true, "messages", []any{UserTurn("Write a long story about a harbor.")}))).Message)
					t.Expect(gjson.GetBytes(msg, "stop_reason").String()).To(Equal("max_tokens"), "a streamed reply cut by max_tokens %d stops with max_tokens", max)
					t.Expect(gjson.GetBytes(msg, "usage.output_tokens").Int()).To(BeNumerically("<=", max), "max_tokens %d bounds usage.output_tokens", max)
				}
			}},
	}
}

// slidingExpiry creates a thread, lets step seconds pass (wait), continues it, lets step pass
// again (2*step after the create, more than 5 minutes; step after the last turn) and continues
// again; then, where the clock is the suite's (fake-only), 5:00 after that turn it is gone.
func slidingExpiry(t *kit.T, wait func(seconds int), step int) {
	model, _ := PickModel(t)
	at := func(s int) string { return fmt.Sprintf("%d:%02d", s/60, s%60) }
	id := threadOK(t, Body(model, "thread", threadCreate())).Get("id").String()
	wait(step)
	id = threadOK(t, Body(model, "messages", []any{UserTurn("Still there?")}, "thread", threadContinue(id))).Get("id").String()
	wait(step)
	resp := t.Do(threadReq(Body(model, "messages", []any{UserTurn("And now?")}, "thread", threadContinue(id))))
	t.Expect(resp.Status).To(Equal(http.StatusOK), "the thread is continued %s after its create, %s after the last turn: its 5 minutes restart at each turn; came back %s", at(2*step), at(step), resp)
	if !t.Target.IsFake {
		return
	}
	wait(300)
	gone := t.Do(threadReq(Body(model, "messages", []any{UserTurn("Gone?")}, "thread", threadContinue(resp.Get("id").String()))))
	expectThreadError(t, gone, http.StatusNotFound, "not_found_error", "thread_not_found")
}
