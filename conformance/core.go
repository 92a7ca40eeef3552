package conformance

import (
	"net/http"
	"regexp"
	"slices"
	"strings"

	. "github.com/onsi/gomega"
	"github.com/tidwall/gjson"

	"github.com/platformkit/platformkit/fake"
)

// InterfaceChecks are the checks of spec 5, 7 and 9 that hold for every interface. Each area
// registers them for one of its read endpoints (an authenticated GET that answers 200).
func InterfaceChecks(area Label, path, schema string) []Check {
	return InterfaceChecksFor(area, func(*T) Request { return Request{Area: area, Path: path, Schema: schema} })
}

// InterfaceChecksFor is InterfaceChecks for an area without a read endpoint: ok returns any
// request that answers 200 and changes nothing (a POST that only computes, such as
// count_tokens). It is called within each check, so the request may depend on the target (a
// model it lists, say).
func InterfaceChecksFor(area Label, ok func(t *T) Request) []Check {
	id := string(area) + "/interface-"
	wrong := map[Label]Cred{Admin: APIKey, Compliance: APIKey, Tunnels: ComplianceKey}[area]
	if wrong == 0 {
		wrong = AdminKey
	}
	checks := []Check{
		{ID: id + "credential-accepted", Clause: "5", Labels: []Label{area},
			Title: "the interface's own credential is accepted",
			Run:   func(t *T) { t.OK(ok(t)) }},
		{ID: id + "missing-credential-401", Clause: "5", Labels: []Label{area, Extension},
			Title: "a request without a credential is refused with 401 authentication_error",
			Run: func(t *T) {
				r := ok(t)
				r.As = NoCred
				t.ExpectError(t.Do(r), http.StatusUnauthorized, "authentication_error")
			}},
		{ID: id + "unknown-credential-401", Clause: "5", Labels: []Label{area, Extension},
			Title: "an unknown credential is refused with 401 authentication_error",
			Run: func(t *T) {
				r := ok(t)
				cred := areaCred[area]
				h, _ := t.Target.Client.secret(cred, false)
				value := "not-a-real-credential"
				if h == "Authorization" {
					value = "Bearer " + value
				}
				r.Header = http.Header{h: {value}}
				t.ExpectError(t.Do(r), http.StatusUnauthorized, "authentication_error")
			}},
		{ID: id + "other-kind-credential-403", Clause: "5", Labels: []Label{area, Extension},
			Title: "a valid credential of another interface is refused with 403 permission_error",
			Run: func(t *T) {
				r := ok(t)
				r.As = wrong
				t.ExpectError(t.Do(r), http.StatusForbidden, "permission_error")
			}},
		{ID: id + "request-id-header", Clause: "gaps §1", Labels: []Label{area, Extension},
			Title: "every response carries a request-id header, and an error body's request_id equals it",
			Run: func(t *T) {
				good := t.OK(ok(t))
				t.Expect(good.Header.Get("request-id")).NotTo(BeEmpty(), "a 200 answer carries a request-id header: %s", good)
				t.Expect(good.Header.Get("Content-Type")).To(HavePrefix("application/json"), "a 200 answer is JSON: %s", good)
				r := ok(t)
				r.As = NoCred
				bad := t.Do(r)
				t.Expect(bad.Header.Get("request-id")).NotTo(BeEmpty(), "an error answer carries a request-id header: %s", bad)
				t.Expect(bad.Get("request_id").String()).To(Equal(bad.Header.Get("request-id")), "an error body's request_id equals its request-id header: %s", bad)
				t.Expect(bad.Header.Get("Content-Type")).To(HavePrefix("application/json"), "an error answer is JSON: %s", bad)
			}},
		{ID: id + "unknown-query-ignored", Clause: "gaps §2", Labels: []Label{area, Extension},
			Title: "unknown query parameters such as beta=true are ignored",
			Run: func(t *T) {
				r := ok(t)
				r.Query = map[string][]string{"beta": {"true"}, "x-unknown-param": {"1"}}
				t.OK(r)
			}},
		{ID: id + "beta-header-forms", Clause: "9", Labels: []Label{area},
			Title: "vendor-beta is accepted as a comma-separated list and as repeated header lines",
			Run: func(t *T) {
				betas := []string{"managed-agents-2026-04-01", "some-future-beta-2030-01-01"}
				if area == Tunnels {
					betas = append(betas, "mcp-tunnels-2026-05-19")
				}
				r := ok(t)
				r.Header = http.Header{"vendor-beta": {betas[0] + ", " + betas[1] + "," + betas[len(betas)-1]}}
				t.OK(r)
				r.Header = http.Header{"vendor-beta": betas}
				t.OK(r)
			}},
	}
	if areaCred[area] == APIKey || areaCred[area] == AdminKey {
		checks = append(checks, bearerKeyChecks(area, id, wrong, ok)...)
	}
	// These checks read their endpoint for its headers and status alone.
	for i := range checks {
		run := checks[i].Run
		checks[i].Run = func(t *T) { t.NoItemsNeeded(); run(t) }
	}
	if area != Compliance {
		checks = append(checks, Check{ID: id + "version-header-required", Clause: "9", Labels: []Label{area, Extension},
			Title: "a request without vendor-version is refused with 400 naming the header",
			Run: func(t *T) {
				r := ok(t)
				r.Header = http.Header{"vendor-version": {""}}
				resp := t.Do(r)
				t.ExpectError(resp, http.StatusBadRequest, "invalid_request_error")
				// The platform's wording names the SDKs' spelling; the reference's is accepted too.
				t.Expect(resp.Get("error.message").String()).To(MatchRegexp(`^(vendor|anthropic)-version: header is required`))
			}})
	}
	for i := range checks {
		checks[i].Bug = interfaceBugs[strings.TrimPrefix(checks[i].ID, id)]
	}
	return checks
}

// bearerKeyChecks are the checks of gaps §2 for an interface that reads X-Api-Key: it also takes
// the same key as "Authorization: Bearer <key>" (as official SDKs send it), and X-Api-Key
// decides when a request carries both.
func bearerKeyChecks(area Label, id string, wrong Cred, ok func(t *T) Request) []Check {
	// asBearer moves the credential r would send in X-Api-Key into Authorization.
	asBearer := func(t *T, r Request, c Cred) Request {
		key := t.secret(c)
		r.As = NoCred
		r.Header = http.Header{"Authorization": {"Bearer " + key}}
		return r
	}
	return []Check{
		{ID: id + "bearer-key-accepted", Clause: "gaps §2", Labels: []Label{area, Extension},
			Title: "the interface's key is also accepted as Authorization: Bearer <key>",
			Run:   func(t *T) { t.OK(asBearer(t, ok(t), areaCred[area])) }},
		{ID: id + "both-headers-x-api-key-decides", Clause: "gaps §2", Labels: []Label{area, Extension},
			Title: "with both X-Api-Key and Authorization: Bearer, X-Api-Key decides: a wrong bearer token beside a right key is ignored, a wrong key beside a right bearer token is 401",
			Run: func(t *T) {
				r := ok(t)
				r.Header = http.Header{"Authorization": {"Bearer not-a-real-credential"}}
				t.OK(r)
				r = asBearer(t, ok(t), areaCred[area])
				r.Header.Set("X-Api-Key", "not-a-real-credential")
				t.ExpectError(t.Do(r), http.StatusUnauthorized, "authentication_error")
			}},
		{ID: id + "bearer-other-kind-403", Clause: "gaps §2", Labels: []Label{area, Extension},
			Title: "a valid credential of another interface sent as Authorization: Bearer is refused with 403 permission_error naming X-Api-Key",
			Run: func(t *T) {
				resp := t.Do(asBearer(t, ok(t), wrong))
				t.ExpectError(resp, http.StatusForbidden, "permission_error")
				t.Expect(resp.Get("error.message").String()).To(ContainSubstring("X-Api-Key"))
			}},
	}
}

func init() {
	Register(
		Check{ID: "core/unknown-route-404", Clause: "gaps §1", Labels: []Label{Core, Extension},
			Title: "an unknown route is answered 404 not_found_error with the envelope",
			Run: func(t *T) {
				t.ExpectError(t.Do(Request{Area: Models, Path: "/v1/no-such-route"}), http.StatusNotFound, "not_found_error")
			},
			Bug: &Bug{Says: "an unknown route is answered by a plain-text 404, not the API's envelope",
				Break: inAnswers(on(http.MethodGet, "^/v1/no-such-route$"), func(_ *http.Request, _ int, h http.Header, _ []byte) []byte {
					h.Set("Content-Type", "text/plain; charset=utf-8")
					return []byte("404 page not found")
				})}},
		Check{ID: "core/wrong-method-405", Clause: "gaps §1", Labels: []Label{Core, Extension},
			Title: "a known route called with a wrong method is answered 405 with the envelope",
			Run: func(t *T) {
				t.ExpectError(t.Do(Request{Area: Models, Method: http.MethodDelete, Path: "/v1/models"}), http.StatusMethodNotAllowed, "invalid_request_error")
			},
			Bug: &Bug{Says: "a known route called with a wrong method is answered 404", Want: "405",
				Break: answersStatus(on(http.MethodDelete, "^/v1/models$"), http.StatusMethodNotAllowed, http.StatusNotFound)}},
		Check{ID: "core/unsupported-version-400", Clause: "9", Labels: []Label{Core, Extension},
			Title: "a vendor-version the target does not serve is refused with 400 naming the header",
			Run: func(t *T) {
				resp := t.Do(Request{Area: Models, Path: "/v1/models", Header: http.Header{"vendor-version": {"1999-01-01"}}})
				t.ExpectError(resp, http.StatusBadRequest, "invalid_request_error")
				t.Expect(resp.Get("error.message").String()).To(ContainSubstring(`vendor-version: "1999-01-01" is not a`))
			},
			Bug: &Bug{Says: "a version the target does not serve is answered as 2023-06-01", Want: "400",
				Break: inRequestHeaders(apiRoute, func(h http.Header) {
					if v := h.Get("vendor-version"); v != "" && !slices.Contains(fake.APIVersions(), v) {
						h.Set("vendor-version", fake.APIVersion)
					}
				})}},
		Check{ID: "core/control-health", Clause: ClauseFake, Labels: []Label{Core, FakeOnly},
			Title: "GET /_fake/health answers {\"status\":\"ok\"}",
			Run: func(t *T) {
				t.Expect(t.Control(http.MethodGet, "/_fake/health", nil).Get("status").String()).To(Equal("ok"))
			},
			NoBug: "the suite knows the fake by this answer: a target whose health says otherwise is taken for a deployment, and every fake-only check, this one included, is disabled against it (TestFakeTargetIsAnnouncedAndReset)"},
		Check{ID: "core/retry-after-on-429-and-529", Clause: "gaps §1", Labels: []Label{Core, Extension, FakeOnly},
			Title: "429 and 529 answers carry retry-after in seconds and retry-after-ms (through an injected fault)",
			Run: func(t *T) {
				t.Cleanup("clear faults", t.Delete(Request{Area: Core, Method: http.MethodDelete, Path: "/_fake/faults", As: NoCred}))
				for status, errType := range map[int]string{429: "rate_limit_error", 529: "overloaded_error"} {
					t.Control(http.MethodPost, "/_fake/faults", map[string]any{"path": "/v1/models/assistant-opus-4-7", "status": status, "retry_after": 3})
					resp := t.Do(Request{Area: Models, Path: "/v1/models/assistant-opus-4-7"})
					t.ExpectError(resp, status, errType)
					t.Expect(resp.Header.Get("retry-after")).To(Equal("3"))
					t.Expect(resp.Header.Get("retry-after-ms")).To(Equal("3000"))
				}
			},
			Bug: &Bug{Says: "retry-after-ms is missing from 429 and 529 answers", Want: "3000",
				Break: dropsHeader(func(*http.Request) bool { return true }, "retry-after-ms")}},
		Check{ID: "core/journal-records-requests", Clause: ClauseFake, Labels: []Label{Core, FakeOnly},
			Title: "the journal records each API request with its answer, the key's ID and the header that carried it, never the credential",
			Run: func(t *T) {
				resp := t.Do(Request{Area: Models, Path: "/v1/models", Query: map[string][]string{"limit": {"0"}}})
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
			Bug: &Bug{Says: "the journal records the API key itself", Want: fake.DefaultAPIKey,
				Break: inOKAnswers(on(http.MethodGet, "^/_fake/journal$"), func(_ *http.Request, m map[string]any) {
					atPath(m, []string{"data", "*", "headers"}, func(e map[string]any, k string) {
						if h, ok := e[k].(map[string]any); ok {
							h["x-api-key"] = fake.DefaultAPIKey
						}
					})
				})}},
		Check{ID: "core/namespaces-isolated", Clause: ClauseFake, Labels: []Label{Core, FakeOnly},
			Title: "a namespace, by path prefix or header, is a new world of its own: its clock and journal never reach the default server's",
			Run: func(t *T) {
				const name = "conformance-namespaces-isolated"
				drop := t.Delete(Request{Area: Core, Method: http.MethodDelete, Path: "/_fake/namespaces/" + name, As: NoCred})
				t.Expect(drop()).To(Succeed()) // a leftover of an earlier run would not be new
				t.Cleanup("delete namespace "+name, drop)
				before := t.Control(http.MethodGet, "/_fake/clock", nil).Get("now").String()
				moved := t.Control(http.MethodPost, "/ns/"+name+"/_fake/clock/advance", map[string]any{"seconds": 3600})
				t.Expect(moved.Get("now").String()).To(Equal("2026-01-01T01:00:00Z"))
				t.Expect(t.Control(http.MethodGet, "/_fake/clock", nil).Get("now").String()).To(Equal(before))

				// Each namespace counts request IDs from the start, so the journals are told apart
				// by a query parameter (ignored by the API, recorded by the journal).
				marker := "marker=" + name
				t.OK(Request{Area: Models, Path: "/v1/models?" + marker, Header: http.Header{"Fake-Namespace": {name}}, Schema: "models/model_list"})
				inNS := t.Control(http.MethodGet, "/ns/"+name+"/_fake/journal", nil).Get("data.#.query").String()
				t.Expect(inNS).To(Equal(`["` + marker + `"]`))
				for _, e := range t.Control(http.MethodGet, "/_fake/journal", nil).Get("data").Array() {
					t.Expect(e.Get("query").String()).NotTo(Equal(marker), "a namespace's request is in the default journal")
				}
				list := t.OK(Request{Area: Core, Path: "/_fake/namespaces", As: NoCred, Header: http.Header{"vendor-version": {""}}, Schema: "control/namespace_list"})
				t.Expect(list.Get(`data.#(name=="` + name + `").requests`).Int()).To(BeNumerically("==", 3))
			},
			Bug: &Bug{Says: "a namespace's clock is the default server's clock",
				Break: rewritesPath(regexp.MustCompile(`^/ns/[^/]+(/_fake/clock.*)$`), "$1")}},
		Check{ID: "core/control-clock", Clause: ClauseFake, Labels: []Label{Core, FakeOnly},
			Title: "the virtual clock reads and advances by the given seconds",
			Run: func(t *T) {
				before := t.Control(http.MethodGet, "/_fake/clock", nil).Get("now").Time()
				after := t.Control(http.MethodPost, "/_fake/clock/advance", map[string]any{"seconds": 90}).Get("now").Time()
				t.Expect(after.Sub(before).Seconds()).To(BeNumerically("==", 90))
				t.Expect(t.Control(http.MethodGet, "/_fake/clock", nil).Get("now").Time()).To(Equal(after))
			},
			Bug: &Bug{Says: "advancing the clock by N seconds moves it by 2N", Want: "90",
				Break: inRequests(http.MethodPost, "/_fake/clock/advance", func(b map[string]any) {
					if s, ok := b["seconds"].(float64); ok {
						b["seconds"] = 2 * s
					}
				})}},
	)
}
