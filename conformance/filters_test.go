package conformance

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/platformkit/platformkit/fake"

	"github.com/platformkit/platformkit/conformance/kit"
)

// ignoring serves h, but removes the query parameters named from every request whose path
// contains path: a target that ignores those filters.
func ignoring(h http.Handler, path string, params ...string) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.Contains(r.URL.Path, path) {
			q := r.URL.Query()
			for _, p := range params {
				q.Del(p)
				q.Del(p + "[]")
			}
			r.URL.RawQuery = q.Encode()
		}
		h.ServeHTTP(w, r)
	})
}

// TestFilterChecksFailWhenAFilterIsIgnored: for each filter, a target that ignores it (the fake,
// with the parameter removed and the control API hidden, as a deployment) fails the check that
// drops unmatched items, while the same check passes against the fake itself.
func TestFilterChecksFailWhenAFilterIsIgnored(t *testing.T) {
	cases := []struct {
		check, path string
		params      []string
	}{
		{"compliance/chats-filters-drop-unmatched", "/v1/compliance/apps/chats", []string{"organization_ids"}},
		{"compliance/chats-filters-drop-unmatched", "/v1/compliance/apps/chats", []string{"project_ids"}},
		{"compliance/projects-filters-drop-unmatched", "/v1/compliance/apps/projects", []string{"user_ids"}},
		{"compliance/projects-filters-drop-unmatched", "/v1/compliance/apps/projects", []string{"organization_ids"}},
		{"compliance/projects-created-at-drops-all", "/v1/compliance/apps/projects", []string{"created_at[gt]"}},
		{"memory/store-list-created-at-drops", "/v1/memory_stores", []string{"created_at[lte]"}},
		{"memory/store-list-include-archived-own", "/v1/memory_stores", []string{"include_archived"}},
		{"memory/version-filters-drop-unmatched", "/memory_versions", []string{"api_key_id"}},
		{"memory/version-filters-drop-unmatched", "/memory_versions", []string{"memory_id"}},
		{"work/environment-list-include-archived", "/v1/environments", []string{"include_archived"}},
		{"admin/workspace-rate-limits-group-type-filter", "/rate_limits", []string{"group_type"}},
		// Filters whose checks were there before the negative cases: they catch an ignored filter too.
		{"compliance/chats-created-at-filter", "/v1/compliance/apps/chats", []string{"created_at[gt]"}},
		{"compliance/chats-updated-at-filter", "/v1/compliance/apps/chats", []string{"updated_at[lte]"}},
		{"compliance/messages-created-at-filter", "/messages", []string{"created_at[lt]"}},
		{"admin/user-email-filter", "/v1/organizations/users", []string{"email"}},
		{"admin/workspace-list", "/v1/organizations/workspaces", []string{"include_archived"}},
		{"admin/rate-limits-group-type-filter", "/v1/organizations/rate_limits", []string{"group_type"}},
		{"admin/rate-limits-model-filter", "/v1/organizations/rate_limits", []string{"model"}},
		{"memory/version-filters", "/memory_versions", []string{"operation"}},
		{"memory/version-filters", "/memory_versions", []string{"session_id"}},
		{"memory/memory-list-prefix-depth", "/memories", []string{"path_prefix"}},
		{"tunnels/list-workspace-filter", "/v1/organizations/tunnels", []string{"workspace_id"}},
		{"tunnels/certificate-archive", "/certificates", []string{"include_archived"}},
	}
	for _, tc := range cases {
		t.Run(tc.check+"/"+strings.Join(tc.params, ","), func(t *testing.T) {
			t.Parallel()
			c := checkByID(t, tc.check)
			broken := openAt(t, hideControl(ignoring(fake.New(), tc.path, tc.params...)))
			if o := kit.RunCheck(context.Background(), broken, c); o.Passed() || len(o.Failures) == 0 {
				t.Errorf("passed against a target that ignores %v: %+v", tc.params, o)
			} else {
				t.Logf("caught: %.300s", o.Failures[0])
			}
			if o := kit.RunCheck(context.Background(), openAt(t, hideControl(fake.New())), c); !o.Passed() {
				t.Errorf("fails against the fake as a deployment: %+v", o)
			}
		})
	}
}
