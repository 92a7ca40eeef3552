package messages

import (
	"net/http"
	"strings"

	. "github.com/onsi/gomega"

	"github.com/platformkit/platformkit/fake"

	"github.com/platformkit/platformkit/conformance/kit"
)

// The version and thread rules that had no check of their own: an unknown version, the header
// that decides when both spellings are sent, a continue that changes what a thread keeps, and a
// thread combined with what threads do not support (EXTENSIONS.md, "API versions" and "Message
// threads").

func init() { kit.Register(messageRuleChecks()...) }

func messageRuleChecks() []kit.Check {
	return []kit.Check{
		{ID: "messages/version-unknown-refused", Clause: "9", Labels: []kit.Label{kit.Messages, kit.Extension},
			Title: "a version the target does not serve is refused 400 invalid_request_error naming the header it came in, vendor-version or anthropic-version",
			Bug: &kit.Bug{Says: "an unknown version is answered as the oldest", Want: "400", Break: func(h http.Handler) http.Handler {
				return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
					for _, name := range []string{"Vendor-Version", "Anthropic-Version"} {
						if v := r.Header.Get(name); v != "" && !strings.HasPrefix(v, "2023-06-01") && !strings.HasPrefix(v, fake.APIVersion20261021) {
							r.Header.Set(name, fake.APIVersion)
						}
					}
					h.ServeHTTP(w, r)
				})
			}},
			Run: func(t *kit.T) {
				model, _ := PickModel(t)
				for _, name := range []string{"vendor-version", "anthropic-version"} {
					r := CreateRequest(Body(model))
					r.Header, r.ReferenceHeaders = http.Header{"vendor-version": {""}, name: {"1999-01-01"}}, true
					resp := t.Do(r)
					t.ExpectError(resp, http.StatusBadRequest, "invalid_request_error")
					t.Expect(resp.Get("error.message").String()).To(HavePrefix(name+":"), "the refusal names the header the version came in: %s", resp)
				}
			}},
		{ID: "messages/version-vendor-header-decides", Clause: "9", Labels: []kit.Label{kit.Messages, kit.Extension},
			Title: "with both vendor-version and anthropic-version, vendor-version decides: temperature is refused under vendor-version 2026-10-21 beside anthropic-version 2023-06-01, and taken the other way round",
			Bug: &kit.Bug{Says: "anthropic-version decides when both are sent", Want: "400", Break: func(h http.Handler) http.Handler {
				return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
					if a := r.Header.Get("Anthropic-Version"); a != "" && r.Header.Get("Vendor-Version") != "" {
						r.Header.Set("Vendor-Version", a)
					}
					h.ServeHTTP(w, r)
				})
			}},
			Run: func(t *kit.T) {
				model, _ := PickModel(t)
				send := func(vendor, anthropic string) *kit.Response {
					r := CreateRequest(Body(model, "temperature", 0.5))
					r.Header, r.ReferenceHeaders = http.Header{"vendor-version": {vendor}, "anthropic-version": {anthropic}}, true
					return t.Do(r)
				}
				probe := CreateRequest(Body(model))
				probe.Header = http.Header{"vendor-version": {fake.APIVersion20261021}}
				if resp := t.Do(probe); resp.Status != http.StatusOK {
					t.Unsupported("the target does not serve version %s: %s", fake.APIVersion20261021, resp)
				}
				refused := send(fake.APIVersion20261021, fake.APIVersion)
				expectFieldError(t, refused, "temperature")
				taken := send(fake.APIVersion, fake.APIVersion20261021)
				t.Expect(taken.Status).To(Equal(http.StatusOK), "vendor-version 2023-06-01 decides: temperature is taken: %s", taken)
			}},
		{ID: "messages/thread-fingerprint-mismatch", Clause: "4.4", Labels: []kit.Label{kit.Messages, kit.Extension},
			Title: "a continue that changes thinking from the thread's create is refused 400 with error_code thread_fingerprint_mismatch",
			Bug: &kit.Bug{Says: "a continue may change thinking", Want: "thread_fingerprint_mismatch", Break: kit.InRequests(http.MethodPost, "/v1/messages", func(b map[string]any) {
				if th, _ := b["thread"].(map[string]any); th["type"] == "continue" {
					delete(b, "thinking")
				}
			})},
			Run: func(t *kit.T) {
				model, _ := PickModel(t)
				created := threadOK(t, Body(model, "thread", threadCreate()))
				resp := t.Do(threadReq(Body(model, "max_tokens", 2048, "messages", []any{UserTurn("And now think first.")},
					"thinking", map[string]any{"type": "enabled", "budget_tokens": 1024}, "thread", threadContinue(created.Get("id").String()))))
				expectThreadError(t, resp, http.StatusBadRequest, "invalid_request_error", "thread_fingerprint_mismatch")
			}},
		{ID: "messages/thread-unsupported-request", Clause: "4.4", Labels: []kit.Label{kit.Messages, kit.Extension},
			Title: "a thread with fallbacks is refused 400 with error_code thread_unsupported_request and error.details.unsupported naming fallbacks",
			Bug: &kit.Bug{Says: "a thread takes fallbacks", Want: "thread_unsupported_request", Break: kit.InRequests(http.MethodPost, "/v1/messages", func(b map[string]any) {
				if b["thread"] != nil {
					delete(b, "fallbacks")
				}
			})},
			Run: func(t *kit.T) {
				model, _ := PickModel(t)
				threadOK(t, Body(model, "thread", threadCreate())) // the target does threads
				resp := t.Do(threadReq(Body(model, "fallbacks", "default", "thread", threadCreate())))
				expectThreadError(t, resp, http.StatusBadRequest, "invalid_request_error", "thread_unsupported_request")
				var names []string
				for _, u := range resp.Get("error.details.unsupported").Array() {
					names = append(names, u.String())
				}
				t.Expect(names).To(ContainElement("fallbacks"), "error.details.unsupported names fallbacks: %s", resp)
			}},
	}
}
