package conformance

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"testing"

	"github.com/tidwall/gjson"

	"github.com/platformkit/platformkit/fake"

	"github.com/platformkit/platformkit/conformance/kit"
)

// TestSDKRouteChecksFailAgainstBrokenTargets: each check of sdk.go, run alone, fails against a
// fake with exactly the bug its title names, passes against the fake, and is unsupported
// against a target without the route.
func TestSDKRouteChecksFailAgainstBrokenTargets(t *testing.T) {
	workItem := regexp.MustCompile(`^/v1/environments/[^/]+/work/[^/]+$`)
	wsRateLimits := regexp.MustCompile(`^/v1/organizations/workspaces/[^/]+/rate_limits$`)
	orgTunnel := regexp.MustCompile(`^/v1/organizations/tunnels/[^/]+$`)
	for _, tc := range []struct {
		id     string
		broken func(good, other *fake.Server) http.Handler
		absent *regexp.Regexp // the route a target without it does not serve
	}{
		{"work/update-merges-metadata", func(good, _ *fake.Server) http.Handler {
			// Replaces metadata with the patch instead of merging it: every key the patch does
			// not name is deleted.
			return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if r.Method == http.MethodPost && workItem.MatchString(r.URL.Path) {
					var patch struct{ Metadata map[string]any }
					if json.NewDecoder(r.Body).Decode(&patch) != nil {
						http.Error(w, "bad body", http.StatusBadRequest)
						return
					}
					get := httptest.NewRequest(http.MethodGet, r.URL.Path, nil)
					get.Header = r.Header.Clone()
					rec := httptest.NewRecorder()
					good.ServeHTTP(rec, get)
					for k := range gjson.GetBytes(rec.Body.Bytes(), "metadata").Map() {
						if _, named := patch.Metadata[k]; !named {
							patch.Metadata[k] = nil
						}
					}
					body, _ := json.Marshal(map[string]any{"metadata": patch.Metadata})
					r = r.Clone(r.Context())
					r.Body, r.ContentLength = io.NopCloser(bytes.NewReader(body)), int64(len(body))
				}
				good.ServeHTTP(w, r)
			})
		}, workItem},
		{"admin/workspace-rate-limit-update", func(good, other *fake.Server) http.Handler {
			// The update answers, but the workspace's list does not show it: it comes from a
			// server the update never reached.
			return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if r.Method == http.MethodGet && wsRateLimits.MatchString(r.URL.Path) {
					r2 := r.Clone(r.Context())
					r2.URL.Path = "/v1/organizations/workspaces/wrkspc_01AcmeProduction00000001/rate_limits"
					other.ServeHTTP(w, r2)
					return
				}
				good.ServeHTTP(w, r)
			})
		}, regexp.MustCompile(`^/v1/organizations/workspaces/[^/]+/rate_limits/[^/]+$`)},
		{"tunnels/v1-tunnels-same-state", func(good, other *fake.Server) http.Handler {
			// /v1/organizations/tunnels/{id} is served from another state than /v1/tunnels.
			return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if r.Method == http.MethodGet && orgTunnel.MatchString(r.URL.Path) {
					other.ServeHTTP(w, r)
					return
				}
				good.ServeHTTP(w, r)
			})
		}, regexp.MustCompile(`^/v1/tunnels`)},
	} {
		check := checkByID(t, tc.id)
		if o := kit.RunCheck(context.Background(), openAt(t, tc.broken(fake.New(), fake.New())), check); o.Passed() || len(o.Failures) == 0 {
			t.Errorf("%s passed against a target with its bug: %+v", tc.id, o)
		}
		if o := kit.RunCheck(context.Background(), openAt(t, fake.New()), check); !o.Passed() {
			t.Errorf("%s fails against the fake: %v", tc.id, o.Failures)
		}
		good := fake.New()
		without := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if tc.absent.MatchString(r.URL.Path) && r.Method == http.MethodPost {
				w.Header().Set("Content-Type", "application/json")
				w.Header().Set("request-id", "req_x")
				w.WriteHeader(http.StatusNotFound)
				w.Write([]byte(`{"type":"error","error":{"type":"not_found_error","message":"no such route"},"request_id":"req_x"}`))
				return
			}
			good.ServeHTTP(w, r)
		})
		if o := kit.RunCheck(context.Background(), openAt(t, without), check); o.Skipped == "" || o.Passed() || len(o.Failures) > 0 {
			t.Errorf("%s against a target without the route: %+v, want unsupported", tc.id, o)
		}
	}
}
