package kit

import (
	"net/http"
	"strings"

	. "github.com/onsi/gomega"
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
	// Every check but the first reads its endpoint for its headers and status alone, so only the
	// first holds the answer to its schema: a deviation of the body is not the others' to report.
	bare := func(t *T) Request {
		r := ok(t)
		r.Schema = ""
		return r
	}
	checks := []Check{
		{ID: id + "credential-accepted", Clause: "5", Labels: []Label{area},
			Title: "the interface's own credential is accepted",
			Run:   func(t *T) { t.OK(ok(t)) }},
		{ID: id + "missing-credential-401", Clause: "5", Labels: []Label{area, Extension},
			Title: "a request without a credential is refused with 401 authentication_error",
			Run: func(t *T) {
				r := bare(t)
				r.As = NoCred
				t.ExpectError(t.Do(r), http.StatusUnauthorized, "authentication_error")
			}},
		{ID: id + "unknown-credential-401", Clause: "5", Labels: []Label{area, Extension},
			Title: "an unknown credential is refused with 401 authentication_error",
			Run: func(t *T) {
				r := bare(t)
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
				r := bare(t)
				r.As = wrong
				t.ExpectError(t.Do(r), http.StatusForbidden, "permission_error")
			}},
		{ID: id + "request-id-header", Clause: "gaps §1", Labels: []Label{area, Extension},
			Title: "every response carries a request-id header, and an error body's request_id equals it",
			Run: func(t *T) {
				good := t.OK(bare(t))
				t.Expect(good.Header.Get("request-id")).NotTo(BeEmpty(), "a 200 answer carries a request-id header: %s", good)
				t.Expect(good.Header.Get("Content-Type")).To(HavePrefix("application/json"), "a 200 answer is JSON: %s", good)
				r := bare(t)
				r.As = NoCred
				bad := t.Do(r)
				t.Expect(bad.Header.Get("request-id")).NotTo(BeEmpty(), "an error answer carries a request-id header: %s", bad)
				t.Expect(bad.Get("request_id").String()).To(Equal(bad.Header.Get("request-id")), "an error body's request_id equals its request-id header: %s", bad)
				t.Expect(bad.Header.Get("Content-Type")).To(HavePrefix("application/json"), "an error answer is JSON: %s", bad)
			}},
		{ID: id + "unknown-query-ignored", Clause: "gaps §2", Labels: []Label{area, Extension},
			Title: "unknown query parameters such as beta=true are ignored",
			Run: func(t *T) {
				r := bare(t)
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
				r := bare(t)
				r.Header = http.Header{"vendor-beta": {betas[0] + ", " + betas[1] + "," + betas[len(betas)-1]}}
				t.OK(r)
				r.Header = http.Header{"vendor-beta": betas}
				t.OK(r)
			}},
	}
	if areaCred[area] == APIKey || areaCred[area] == AdminKey {
		checks = append(checks, bearerKeyChecks(area, id, wrong, bare)...)
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
				r := bare(t)
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
	return append(checks, envelopeCheck(area, bare))
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
