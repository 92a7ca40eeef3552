// Package core holds the conformance checks of the API as a whole, whatever the interface: an
// unknown route or method, an unsupported version, Retry-After on 429 and 529, and the fake's
// control API (health, journal, namespaces, clock). The checks every interface repeats for one
// of its own routes are kit.InterfaceChecks. Its checks register with the framework (package
// kit) from init; the public face, package conformance, imports it.
package core

import (
	"encoding/json"
	"fmt"
	"net/http"
	"regexp"
	"slices"
	"strings"

	. "github.com/onsi/gomega"
	"github.com/tidwall/gjson"

	"github.com/platformkit/platformkit/fake"

	"github.com/platformkit/platformkit/conformance/kit"
)

func init() {
	kit.Register(
		kit.Check{ID: "core/unknown-route-404", Clause: "gaps §1", Labels: []kit.Label{kit.Core, kit.Extension},
			Title: "an unknown route is answered 404 not_found_error with the envelope",
			Run: func(t *kit.T) {
				t.ExpectError(t.Do(kit.Request{Area: kit.Models, Path: "/v1/no-such-route"}), http.StatusNotFound, "not_found_error")
			},
			Bug: &kit.Bug{Says: "an unknown route is answered by a plain-text 404, not the API's envelope",
				Break: kit.InAnswers(kit.On(http.MethodGet, "^/v1/no-such-route$"), func(_ *http.Request, _ int, h http.Header, _ []byte) []byte {
					h.Set("Content-Type", "text/plain; charset=utf-8")
					return []byte("404 page not found")
				})}},
		kit.Check{ID: "core/wrong-method-405", Clause: "gaps §1", Labels: []kit.Label{kit.Core, kit.Extension},
			Title: "a known route called with a wrong method is answered 405 with the envelope",
			Run: func(t *kit.T) {
				t.ExpectError(t.Do(kit.Request{Area: kit.Models, Method: http.MethodDelete, Path: "/v1/models"}), http.StatusMethodNotAllowed, "invalid_request_error")
			},
			Bug: &kit.Bug{Says: "a known route called with a wrong method is answered 404", Want: "405",
				Break: kit.AnswersStatus(kit.On(http.MethodDelete, "^/v1/models$"), http.StatusMethodNotAllowed, http.StatusNotFound)}},
		kit.Check{ID: "core/unsupported-version-400", Clause: "9", Labels: []kit.Label{kit.Core, kit.Extension},
			Title: "a vendor-version the target does not serve is refused with 400 naming the header",
			Run: func(t *kit.T) {
				resp := t.Do(kit.Request{Area: kit.Models, Path: "/v1/models", Header: http.Header{"vendor-version": {"1999-01-01"}}})
				t.ExpectError(resp, http.StatusBadRequest, "invalid_request_error")
				// Under the header the run sends: anthropic-version on a deployment that reads it.
				t.Expect(resp.Get("error.message").String()).To(ContainSubstring(t.Config().VersionHeader + `: "1999-01-01" is not a`))
			},
			Bug: &kit.Bug{Says: "a version the target does not serve is answered as 2023-06-01", Want: "400",
				Break: kit.InRequestHeaders(kit.APIRoute, func(h http.Header) {
					if v := h.Get("vendor-version"); v != "" && !slices.Contains(fake.APIVersions(), v) {
						h.Set("vendor-version", fake.APIVersion)
					}
				})}},
		kit.Check{ID: "core/later-version-refused", Clause: "9", Labels: []kit.Label{kit.Core, kit.Extension},
			Title: "a vendor-version later than the newest the API has is refused 400 naming the header, on the models list and on Messages",
			Run: func(t *kit.T) {
				later := "2099-01-01"
				for _, r := range []kit.Request{
					{Area: kit.Models, Path: "/v1/models"},
					{Area: kit.Messages, Method: http.MethodPost, Path: "/v1/messages", Body: map[string]any{"model": "any", "max_tokens": 1, "messages": []any{map[string]any{"role": "user", "content": "Hi"}}}},
				} {
					r.Header = http.Header{"vendor-version": {later}}
					resp := t.Do(r)
					t.Expect(resp.Status).To(Equal(http.StatusBadRequest), "vendor-version %s, later than the newest version, is refused 400 on %s %s", later, r.Method, r.Path)
					t.Expect(resp.Get("error.message").String()).To(MatchRegexp(`(vendor|anthropic)-version: "`+regexp.QuoteMeta(later)+`" is not a`), "the refusal names the header it was sent in and echoes the value")
				}
			},
			Bug: &kit.Bug{Says: "a version later than the newest is answered as the newest", Want: "later than the newest",
				Break: kit.InRequestHeaders(kit.APIRoute, func(h http.Header) {
					newest := slices.Max(fake.APIVersions())
					if v := h.Get("vendor-version"); v > newest {
						h.Set("vendor-version", newest)
					}
				})}},
		kit.Check{ID: "core/error-quotes-bounded", Clause: "gaps §1", Labels: []kit.Label{kit.Core, kit.Extension},
			Title: "an error message quotes at most 128 bytes of a value the request sent: an unknown model ID of 300 bytes is answered 404 quoting an excerpt of it",
			Run: func(t *kit.T) {
				id := strings.Repeat("conformance-", 25)
				resp := t.Do(kit.Request{Area: kit.Models, Path: "/v1/models/" + id})
				t.ExpectError(resp, http.StatusNotFound, "not_found_error")
				msg := resp.Get("error.message").String()
				t.Expect(msg).To(ContainSubstring(id[:64]), "the message quotes the start of the ID it did not find")
				t.Expect(msg).NotTo(ContainSubstring(id[:129]), "the message quotes at most 128 bytes of the 300-byte ID, not all of it")
			},
			Bug: &kit.Bug{Says: "an error quotes the whole value it was sent", Want: "at most 128 bytes",
				Break: kit.InAnswers(kit.On(http.MethodGet, "^/v1/models/."), func(r *http.Request, status int, _ http.Header, body []byte) []byte {
					if status != http.StatusNotFound {
						return body
					}
					var m map[string]any
					if json.Unmarshal(body, &m) != nil {
						return body
					}
					if e, ok := m["error"].(map[string]any); ok {
						e["message"] = fmt.Sprintf("model %q was not found", strings.TrimPrefix(r.URL.Path, "/v1/models/"))
					}
					out, _ := json.Marshal(m)
					return out
				})}},
		kit.Check{ID: "core/control-health", Clause: kit.ClauseFake, Labels: []kit.Label{kit.Core, kit.FakeOnly},
			Title: "GET /_fake/health answers {\"status\":\"ok\"}",
			Run: func(t *kit.T) {
				t.Expect(t.Control(http.MethodGet, "/_fake/health", nil).Get("status").String()).To(Equal("ok"))
			},
			NoBug: "the suite knows the fake by this answer: a target whose health says otherwise is taken for a deployment, and every fake-only check, this one included, is disabled against it (TestFakeTargetIsAnnouncedAndReset)"},
		kit.Check{ID: "core/retry-after-on-429-and-529", Clause: "gaps §1", Labels: []kit.Label{kit.Core, kit.Extension, kit.FakeOnly},
			Title: "429 and 529 answers carry retry-after in seconds and retry-after-ms (through an injected fault)",
			Run: func(t *kit.T) {
				t.Cleanup("clear faults", t.Delete(kit.Request{Area: kit.Core, Method: http.MethodDelete, Path: "/_fake/faults", As: kit.NoCred}))
				for status, errType := range map[int]string{429: "rate_limit_error", 529: "overloaded_error"} {
					t.Control(http.MethodPost, "/_fake/faults", map[string]any{"path": "/v1/models/assistant-opus-4-7", "status": status, "retry_after": 3})
					resp := t.Do(kit.Request{Area: kit.Models, Path: "/v1/models/assistant-opus-4-7"})
					t.ExpectError(resp, status, errType)
					t.Expect(resp.Header.Get("retry-after")).To(Equal("3"))
					t.Expect(resp.Header.Get("retry-after-ms")).To(Equal("3000"))
				}
			},
			Bug: &kit.Bug{Says: "retry-after-ms is missing from 429 and 529 answers", Want: "3000",
				Break: kit.DropsHeader(func(*http.Request) bool { return true }, "retry-after-ms")}},
		kit.Check{ID: "core/journal-records-requests", Clause: kit.ClauseFake, Labels: []kit.Label{kit.Core, kit.FakeOnly},
			Title: "the journal records each API request with its answer, the key's ID and the header that carried it, never the credential",
			Run: func(t *kit.T) {
				resp := t.Do(kit.Request{Area: kit.Models, Path: "/v1/models", Query: map[string][]string{"limit": {"0"}}})
				id := resp.Header.Get("request-id")
				var entry gjson.Result
				for _, e := range t.Control(http.MethodGet, "/_fake/journal", nil).Get("data").Array() {
					if e.Get("request_id").String() == id {
						entry = e
					}
				}
				t.Expect(entry.Exists()).To(BeTrue(), "request %s is not in the journal", id)
				t.Expect(entry.Get("status").Int()).To(BeNumerically("==", 400))
				t.Expect(entry.Get("valid").Bool()).To(BeFalse())
				t.Expect(entry.Get("credential_id").String()).NotTo(BeEmpty())
				t.Expect(entry.Get("credential_header").String()).To(Equal("x-api-key"))
				t.Expect(entry.Get("headers").Raw).NotTo(ContainSubstring(t.Config().APIKey))
			},
			Bug: &kit.Bug{Says: "the journal records the API key itself", Want: fake.DefaultAPIKey,
				Break: kit.InOKAnswers(kit.On(http.MethodGet, "^/_fake/journal$"), func(_ *http.Request, m map[string]any) {
					kit.AtPath(m, []string{"data", "*", "headers"}, func(e map[string]any, k string) {
						if h, ok := e[k].(map[string]any); ok {
							h["x-api-key"] = fake.DefaultAPIKey
						}
					})
				})}},
		kit.Check{ID: "core/namespaces-isolated", Clause: kit.ClauseFake, Labels: []kit.Label{kit.Core, kit.FakeOnly},
			Title: "a namespace, by path prefix or header, is a new world of its own: its clock and journal never reach the default server's",
			Run: func(t *kit.T) {
				const name = "conformance-namespaces-isolated"
				drop := t.Delete(kit.Request{Area: kit.Core, Method: http.MethodDelete, Path: "/_fake/namespaces/" + name, As: kit.NoCred})
				t.Expect(drop()).To(Succeed()) // a leftover of an earlier run would not be new
				t.Cleanup("delete namespace "+name, drop)
				before := t.Control(http.MethodGet, "/_fake/clock", nil).Get("now").String()
				moved := t.Control(http.MethodPost, "/ns/"+name+"/_fake/clock/advance", map[string]any{"seconds": 3600})
				t.Expect(moved.Get("now").String()).To(Equal("2026-01-01T01:00:00Z"))
				t.Expect(t.Control(http.MethodGet, "/_fake/clock", nil).Get("now").String()).To(Equal(before))

				// Each namespace counts request IDs from the start, so the journals are told apart
				// by a query parameter (ignored by the API, recorded by the journal).
				marker := "marker=" + name
				t.OK(kit.Request{Area: kit.Models, Path: "/v1/models?" + marker, Header: http.Header{"Fake-Namespace": {name}}, Schema: "models/model_list"})
				inNS := t.Control(http.MethodGet, "/ns/"+name+"/_fake/journal", nil).Get("data.#.query").String()
				t.Expect(inNS).To(Equal(`["` + marker + `"]`))
				for _, e := range t.Control(http.MethodGet, "/_fake/journal", nil).Get("data").Array() {
					t.Expect(e.Get("query").String()).NotTo(Equal(marker), "a namespace's request is in the default journal")
				}
				list := t.OK(kit.Request{Area: kit.Core, Path: "/_fake/namespaces", As: kit.NoCred, Header: http.Header{"vendor-version": {""}}, Schema: "control/namespace_list"})
				t.Expect(list.Get(`data.#(name=="` + name + `").requests`).Int()).To(BeNumerically("==", 3))
			},
			Bug: &kit.Bug{Says: "a namespace's clock is the default server's clock",
				Break: kit.RewritesPath(regexp.MustCompile(`^/ns/[^/]+(/_fake/clock.*)$`), "$1")}},
		kit.Check{ID: "core/control-clock", Clause: kit.ClauseFake, Labels: []kit.Label{kit.Core, kit.FakeOnly},
			Title: "the virtual clock reads and advances by the given seconds",
			Run: func(t *kit.T) {
				before := t.Control(http.MethodGet, "/_fake/clock", nil).Get("now").Time()
				after := t.Control(http.MethodPost, "/_fake/clock/advance", map[string]any{"seconds": 90}).Get("now").Time()
				t.Expect(after.Sub(before).Seconds()).To(BeNumerically("==", 90))
				t.Expect(t.Control(http.MethodGet, "/_fake/clock", nil).Get("now").Time()).To(Equal(after))
			},
			Bug: &kit.Bug{Says: "advancing the clock by N seconds moves it by 2N", Want: "90",
				Break: kit.InRequests(http.MethodPost, "/_fake/clock/advance", func(b map[string]any) {
					if s, ok := b["seconds"].(float64); ok {
						b["seconds"] = 2 * s
					}
				})}},
	)
}
