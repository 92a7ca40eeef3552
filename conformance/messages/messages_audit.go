package messages

import (
	"encoding/json"
	"net/http"

	. "github.com/onsi/gomega"

	"github.com/platformkit/platformkit/fake"

	"github.com/platformkit/platformkit/conformance/kit"
)

// Statements of EXTENSIONS.md and the API version fact sheets that no check held: a defect of a
// deployment there passed the suite.

func init() { kit.Register(auditChecks()...) }

// assistantDocument is a conversation whose assistant turn holds a document directly: taken at
// 2023-06-01, refused at 2026-10-21 naming messages.1.content.0.
func assistantDocument() []any {
	return []any{UserTurn("Read it."), map[string]any{"role": "assistant", "content": []any{map[string]any{"type": "document",
		"source": map[string]any{"type": "text", "media_type": "text/plain", "data": "The sky is blue."}, "title": "Sky"}}}, UserTurn("Sum it up.")}
}

func auditChecks() []kit.Check {
	return []kit.Check{
		{ID: "messages/thread-needs-beta", Clause: "4.4", Labels: []kit.Label{kit.Messages, kit.Extension},
			Title: "a thread field without the message-threads-2026-08-12 beta is refused 400 naming thread",
			Bug: &kit.Bug{Says: "a thread is taken without its beta", Want: "refused 400 naming thread", Break: kit.InRequestHeaders(msgCreate, func(h http.Header) {
				h.Add("Vendor-Beta", threadsBeta)
			})},
			Run: func(t *kit.T) {
				model, _ := PickModel(t)
				threadOK(t, Body(model, "thread", threadCreate())) // the target does threads
				resp := t.Do(CreateRequest(Body(model, "thread", threadCreate())))
				t.Expect(resp.Status).To(Equal(http.StatusBadRequest), "a thread without its beta is refused 400 naming thread: %s", resp)
				t.Expect(resp.Get("error.message").String()).To(HavePrefix("thread:"), "the refusal names thread")
			}},
		{ID: "messages/v2026-thread-continue-whole-rules", Clause: "4.4", Labels: []kit.Label{kit.Messages, kit.Extension, kit.V20261021},
			Title: "at API version 2026-10-21, a continue of a thread created at 2023-06-01 with a document directly in an assistant turn is refused 400 naming messages.1.content.0: a continue meets the rules of its whole conversation at its own version",
			Bug: &kit.Bug{Says: "a continue is held to its version's rules on its new messages only", Want: "the kept assistant turn holding a document", Break: func(h http.Handler) http.Handler {
				return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
					if body := kit.PeekBody(r); r.URL.Path == "/v1/messages" && body != nil {
						if th, _ := body["thread"].(map[string]any); th["type"] == "continue" {
							r.Header.Del("Anthropic-Version")
							r.Header.Set("Vendor-Version", fake.APIVersion)
						}
					}
					h.ServeHTTP(w, r)
				})
			}},
			Run: func(t *kit.T) {
				model, _ := PickModel(t)
				create := threadReq(Body(model, "messages", assistantDocument(), "thread", threadCreate()))
				create.Header.Set("vendor-version", fake.APIVersion)
				created := t.Do(create)
				if created.Status == http.StatusBadRequest && created.Get("error.details.error_code").String() == "thread_unsupported_request" {
					t.Unsupported("the target does not take message threads: %s", created)
				}
				t.Expect(created.Status).To(Equal(http.StatusOK), "at 2023-06-01 a thread with a document in an assistant turn is created: %s", created)
				resp := t.Do(threadReq(Body(model, "messages", []any{UserTurn("And now?")}, "thread", threadContinue(created.Get("id").String()))))
				t.Expect(resp.Status).To(Equal(http.StatusBadRequest), "its continue at 2026-10-21 is refused 400, the kept assistant turn holding a document: %s", resp)
				t.Expect(resp.Get("error.message").String()).To(HavePrefix("messages.1.content.0"), "the refusal names the document's path in the whole conversation")
			}},
		{ID: "messages/thread-fingerprint-by-value", Clause: "4.4", Labels: []kit.Label{kit.Messages, kit.Extension},
			Title: "a continue whose thinking is the create's as a JSON value, written with its keys in another order, is answered: fingerprints compare values, not text",
			Bug:   &kit.Bug{Says: "fingerprints compare the JSON text", Want: "compare values", Break: threadTextFingerprint("thinking")},
			Run: func(t *kit.T) {
				model, _ := PickModel(t)
				created := threadOK(t, Body(model, "max_tokens", 2048, "thinking", json.RawMessage(`{"type":"enabled","budget_tokens":1024}`), "thread", threadCreate()))
				same := json.RawMessage(`{"budget_tokens":1024,"type":"enabled"}`)
				resp := t.Do(threadReq(Body(model, "max_tokens", 2048, "messages", []any{UserTurn("Go on.")}, "thinking", same, "thread", threadContinue(created.Get("id").String()))))
				t.Expect(resp.Status).To(Equal(http.StatusOK), "thinking %s is the create's value, so the continue is answered (fingerprints compare values): %s", same, resp)
			}},
		{ID: "messages/v2026-complete-sampling-accepted", Clause: "9", Labels: []kit.Label{kit.Messages, kit.Extension, kit.V20261021},
			Title: "at API version 2026-10-21, POST /v1/complete with temperature, top_p and top_k is answered 200, as at 2023-06-01: the sampling removals are Messages' alone",
			Bug: &kit.Bug{Says: "Completions refuses temperature at 2026-10-21", Want: "answered 200",
				Break: kit.Refuses(func(r *http.Request) bool {
					body := kit.PeekBody(r)
					return msgComplete(r) && body != nil && body["temperature"] != nil && r.Header.Get("Vendor-Version") == fake.APIVersion20261021
				}, http.StatusBadRequest, "invalid_request_error", "temperature: Extra inputs are not permitted")},
			Run: func(t *kit.T) {
				model, _ := PickModel(t)
				for _, f := range []struct {
					name  string
					value any
				}{{"temperature", 0.5}, {"top_p", 0.9}, {"top_k", 5}} {
					resp := t.Do(kit.Request{Area: kit.Messages, Method: http.MethodPost, Path: "/v1/complete", Schema: "messages/completion",
						Body: map[string]any{"model": model, "max_tokens_to_sample": 8, "prompt": "\n\nHuman: Hello\n\nAssistant:", f.name: f.value}})
					kit.Served(t, resp, "POST /v1/complete")
					t.Expect(resp.Status).To(Equal(http.StatusOK), "a completion with %s is answered 200 at 2026-10-21: %s", f.name, resp)
				}
			}},
	}
}
