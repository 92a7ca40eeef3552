package kit

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"

	"github.com/platformkit/platformkit/fake"
)

// Defects of the cross-cutting rules (credentials, versions, betas, request IDs, errors), for
// the checks every interface registers (InterfaceChecksFor) and the core checks. They apply to
// every API route, not the control API: run alone, a check meets the defect on the route it reads.

// APIRoute accepts every request to the API (not the fake's control API).
func APIRoute(r *http.Request) bool { return !strings.HasPrefix(r.URL.Path, "/_fake/") }

// defaultCredentials are the credentials the fake accepts out of the box, each as the header it
// is sent in: a target with a credential defect serves a request as if it carried one of them.
var defaultCredentials = []http.Header{
	{"X-Api-Key": {fake.DefaultAPIKey}}, {"X-Api-Key": {fake.DefaultAdminKey}},
	{"X-Api-Key": {fake.DefaultComplianceKey}}, {"X-Api-Key": {fake.DefaultEnvironmentKey}},
	{"Authorization": {"Bearer " + fake.DefaultBearerToken}}, {"Authorization": {"Bearer " + fake.DefaultComplianceKey}},
}

// ServesRefused is the bug of a target that serves a request it should refuse with status
// (401 for a missing or unknown credential, 403 for one of another interface) when refused
// accepts it: as if the request carried the first default credential the route takes.
func ServesRefused(status int, refused func(r *http.Request) bool) func(http.Handler) http.Handler {
	return func(h http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if !APIRoute(r) || !refused(r) {
				h.ServeHTTP(w, r)
				return
			}
			body := ReadBody(r)
			first := Replay(h, r, body, nil)
			if first.Code != status {
				CopyAnswer(w, first)
				return
			}
			for _, cred := range defaultCredentials {
				if rec := Replay(h, r, body, cred); rec.Code/100 == 2 {
					CopyAnswer(w, rec)
					return
				}
			}
			CopyAnswer(w, first)
		})
	}
}

// Replay serves r (with body) to h, its credential headers replaced by cred when cred is not nil.
func Replay(h http.Handler, r *http.Request, body []byte, cred http.Header) *httptest.ResponseRecorder {
	req := r.Clone(r.Context())
	req.Body = readerOf(body)
	if cred != nil {
		req.Header.Del("X-Api-Key")
		req.Header.Del("Authorization")
		for k, v := range cred {
			req.Header[k] = v
		}
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return rec
}

func CopyAnswer(w http.ResponseWriter, rec *httptest.ResponseRecorder) {
	for k, vs := range rec.Header() {
		w.Header()[k] = vs
	}
	w.WriteHeader(rec.Code)
	w.Write(rec.Body.Bytes())
}

// Refuses is the bug of a target that refuses what it should serve: requests match accepts are
// answered status with the API's own error envelope (request-id header and body agreeing).
func Refuses(match func(*http.Request) bool, status int, errType, message string) func(http.Handler) http.Handler {
	return func(h http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if !match(r) {
				h.ServeHTTP(w, r)
				return
			}
			body, _ := json.Marshal(map[string]any{"type": "error", "error": map[string]any{"type": errType, "message": message}, "request_id": "req_refused"})
			w.Header().Set("Content-Type", "application/json")
			w.Header().Set("request-id", "req_refused")
			w.WriteHeader(status)
			w.Write(body)
		})
	}
}

// InRequestHeaders is the bug of a target that reads the headers of requests match accepts
// wrongly: edit changes them before the target reads them.
func InRequestHeaders(match func(*http.Request) bool, edit func(h http.Header)) func(http.Handler) http.Handler {
	return func(h http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if match(r) {
				edit(r.Header)
			}
			h.ServeHTTP(w, r)
		})
	}
}

// InQuery is the bug of a target that reads the query of requests match accepts wrongly.
func InQuery(match func(*http.Request) bool, edit func(q url.Values)) func(http.Handler) http.Handler {
	return func(h http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if match(r) {
				q := r.URL.Query()
				edit(q)
				r.URL.RawQuery = q.Encode()
			}
			h.ServeHTTP(w, r)
		})
	}
}

// RewritesPath is the bug of a target that serves requests whose path matches from as if they
// were sent to the path to makes of it.
func RewritesPath(from *regexp.Regexp, to string) func(http.Handler) http.Handler {
	return func(h http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if from.MatchString(r.URL.Path) {
				r.URL.Path = from.ReplaceAllString(r.URL.Path, to)
				r.URL.RawPath = ""
			}
			h.ServeHTTP(w, r)
		})
	}
}

func hasCredential(r *http.Request) bool {
	return r.Header.Get("X-Api-Key") != "" || r.Header.Get("Authorization") != ""
}

// The bugs of the interface checks, by the suffix of their IDs.
var interfaceBugs = map[string]*Bug{
	"credential-accepted": {Says: "the interface's own credential is refused with 401",
		Break: InRequestHeaders(APIRoute, func(h http.Header) { h.Del("X-Api-Key"); h.Del("Authorization") })},
	"missing-credential-401": {Says: "a request without a credential is served", Want: "401",
		Break: ServesRefused(http.StatusUnauthorized, func(r *http.Request) bool { return !hasCredential(r) })},
	"unknown-credential-401": {Says: "an unknown credential is accepted", Want: "401",
		Break: ServesRefused(http.StatusUnauthorized, hasCredential)},
	"other-kind-credential-403": {Says: "a credential of another interface is accepted", Want: "403",
		Break: ServesRefused(http.StatusForbidden, hasCredential)},
	"request-id-header": {Says: "error answers lack the request-id header", Want: "request-id",
		Break: InAnswers(APIRoute, func(_ *http.Request, status int, h http.Header, body []byte) []byte {
			if status >= 400 {
				h.Del("request-id")
			}
			return body
		})},
	"unknown-query-ignored": {Says: "an unknown query parameter is refused with 400",
		Break: Refuses(func(r *http.Request) bool { return APIRoute(r) && r.URL.Query().Has("beta") },
			http.StatusBadRequest, "invalid_request_error", "beta: unknown query parameter")},
	"beta-header-forms": {Says: "a comma-separated vendor-beta list is refused with 400",
		Break: Refuses(func(r *http.Request) bool { return APIRoute(r) && strings.Contains(r.Header.Get("vendor-beta"), ",") },
			http.StatusBadRequest, "invalid_request_error", "vendor-beta: unknown beta")},
	"bearer-key-accepted": {Says: "a key sent as Authorization: Bearer is not read", Want: "200",
		Break: InRequestHeaders(func(r *http.Request) bool { return APIRoute(r) && r.Header.Get("X-Api-Key") == "" }, func(h http.Header) {
			if a := h.Get("Authorization"); strings.HasPrefix(a, "Bearer ") && !strings.HasSuffix(a, fake.DefaultBearerToken) {
				h.Del("Authorization")
			}
		})},
	"both-headers-x-api-key-decides": {Says: "with both headers, Authorization decides",
		Break: InRequestHeaders(APIRoute, func(h http.Header) {
			if h.Get("Authorization") != "" {
				h.Del("X-Api-Key")
			}
		})},
	"bearer-other-kind-403": {Says: "the 403 for a bearer credential of another interface names Authorization, not X-Api-Key", Want: "X-Api-Key",
		Break: InAnswers(APIRoute, func(r *http.Request, status int, _ http.Header, body []byte) []byte {
			if status != http.StatusForbidden || r.Header.Get("Authorization") == "" {
				return body
			}
			return []byte(strings.ReplaceAll(string(body), "X-Api-Key", "Authorization"))
		})},
	"version-header-required": {Says: "a request without a version header is served at 2023-06-01",
		Break: InRequestHeaders(APIRoute, func(h http.Header) {
			if h.Get("vendor-version") == "" && h.Get("anthropic-version") == "" {
				h.Set("anthropic-version", fake.APIVersion)
			}
		})},
}

func ReadBody(r *http.Request) []byte {
	b, _ := io.ReadAll(r.Body)
	return b
}

func readerOf(b []byte) io.ReadCloser { return io.NopCloser(bytes.NewReader(b)) }
