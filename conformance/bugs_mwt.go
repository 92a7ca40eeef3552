package conformance

import (
	"net/http"
	"regexp"
	"strings"
)

// Defects of the memory, work and tunnels areas, for the bug declarations of their checks.

// mwtInterfaceBugs declares the bugs of the interface checks (InterfaceChecks) of an area whose
// read endpoint is under prefix: each is a deployment that gets exactly that rule of spec 5, 7
// or 9 wrong on the area's routes, and right everywhere else.
func mwtInterfaceBugs(area Label, prefix string, checks []Check) []Check {
	re := regexp.MustCompile("^" + regexp.QuoteMeta(prefix))
	routes := func(r *http.Request) bool { return re.MatchString(r.URL.Path) }
	noCred := func(r *http.Request) bool {
		return routes(r) && r.Header.Get("X-Api-Key") == "" && r.Header.Get("Authorization") == ""
	}
	withCred := func(r *http.Request) bool { return routes(r) && !noCred(r) }
	bearerOnly := func(r *http.Request) bool {
		return routes(r) && r.Header.Get("X-Api-Key") == "" && strings.HasPrefix(r.Header.Get("Authorization"), "Bearer ")
	}
	bugs := map[string]*Bug{
		"credential-accepted": {Says: "the interface's own credential is refused with 401", Want: "401",
			Break: answersStatus(routes, http.StatusOK, http.StatusUnauthorized)},
		"missing-credential-401": {Says: "a request without a credential is answered 403, as if it carried another interface's", Want: "403",
			Break: answersStatus(noCred, http.StatusUnauthorized, http.StatusForbidden)},
		"unknown-credential-401": {Says: "an unknown credential is answered 403 instead of 401", Want: "403",
			Break: answersStatus(withCred, http.StatusUnauthorized, http.StatusForbidden)},
		"other-kind-credential-403": {Says: "another interface's valid credential is answered 401, as if unknown", Want: "401",
			Break: answersStatus(withCred, http.StatusForbidden, http.StatusUnauthorized)},
		"request-id-header": {Says: "error answers lack the request-id header", Want: "request-id",
			Break: inAnswers(routes, func(_ *http.Request, status int, h http.Header, body []byte) []byte {
				if status >= 400 {
					h.Del("request-id")
				}
				return body
			})},
		"unknown-query-ignored": {Says: "an unknown query parameter such as beta=true is refused with 400", Want: "400",
			Break: mwtRefuses(func(r *http.Request) bool { return routes(r) && r.URL.Query().Has("beta") }, "beta: unknown query parameter")},
		"beta-header-forms": {Says: "a vendor-beta header of more than one value is refused with 400", Want: "400",
			Break: mwtRefuses(func(r *http.Request) bool {
				return routes(r) && (len(r.Header.Values("vendor-beta")) > 1 || strings.Contains(r.Header.Get("vendor-beta"), ","))
			}, "vendor-beta: one beta value expected")},
		"version-header-required": {Says: "a request without vendor-version is served at a default version", Want: "400",
			Break: func(h http.Handler) http.Handler {
				return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
					if routes(r) && r.Header.Get("vendor-version") == "" && r.Header.Get("anthropic-version") == "" {
						r.Header.Set("anthropic-version", "2023-06-01")
					}
					h.ServeHTTP(w, r)
				})
			}},
		"bearer-key-accepted": {Says: "the key sent as Authorization: Bearer is refused with 401", Want: "401",
			Break: answersStatus(bearerOnly, http.StatusOK, http.StatusUnauthorized)},
		"both-headers-x-api-key-decides": {Says: "with both headers, Authorization: Bearer decides and X-Api-Key is ignored", Want: "401",
			Break: func(h http.Handler) http.Handler {
				return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
					if routes(r) && r.Header.Get("X-Api-Key") != "" && r.Header.Get("Authorization") != "" {
						r.Header.Del("X-Api-Key")
					}
					h.ServeHTTP(w, r)
				})
			}},
		"bearer-other-kind-403": {Says: "another interface's key sent as Authorization: Bearer is answered 401, as if unknown", Want: "401",
			Break: answersStatus(bearerOnly, http.StatusForbidden, http.StatusUnauthorized)},
	}
	id := string(area) + "/interface-"
	for i := range checks {
		if b, ok := bugs[strings.TrimPrefix(checks[i].ID, id)]; ok {
			checks[i].Bug = b
		}
	}
	return checks
}

// mwtRefuses is the bug of a target that refuses requests match accepts with 400 naming what.
func mwtRefuses(match func(*http.Request) bool, what string) func(http.Handler) http.Handler {
	return func(h http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if !match(r) {
				h.ServeHTTP(w, r)
				return
			}
			w.Header().Set("Content-Type", "application/json")
			w.Header().Set("request-id", "req_mwt_refused")
			w.WriteHeader(http.StatusBadRequest)
			w.Write([]byte(`{"type":"error","error":{"type":"invalid_request_error","message":"` + what + `"},"request_id":"req_mwt_refused"}`))
		})
	}
}
