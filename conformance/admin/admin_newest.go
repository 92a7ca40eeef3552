package admin

import (
	"net/http"
	"net/url"
	"strings"

	. "github.com/onsi/gomega"

	"github.com/platformkit/platformkit/conformance/kit"
)

// The workspace and user routes the SDK majors of API version 2026-10-21 added (EXTENSIONS.md,
// "API versions"): user_profile_id, inference_data_privacy behind its beta, the list's ids
// filter, user sign-out; and an update that leaves tags out.

// Beta values of these routes.
const (
	efsBeta     = "efs-2026-10-01"
	signOutBeta = "admin-user-sign-out-2026-10-08"
)

const workspacesRoute = "^/v1/organizations/workspaces$"

func init() {
	kit.Register(
		kit.Check{ID: "admin/workspace-user-profile-id", Clause: "9", Labels: []kit.Label{kit.Admin, kit.Extension},
			Title: "a workspace created with user_profile_id answers it, reads it back, and an update changes it",
			Bug:   &kit.Bug{Says: "user_profile_id is dropped on create", Want: "user_profile_id", Break: kit.InRouteRequests(http.MethodPost, workspacesRoute, func(_ *http.Request, b map[string]any) { delete(b, "user_profile_id") })},
			Run: func(t *kit.T) {
				ws := CreateWorkspace(t, map[string]any{"name": "conformance user profile", "user_profile_id": "uprof_conformance_1"})
				t.Expect(ws.Get("user_profile_id").String()).To(Equal("uprof_conformance_1"), "the create answers the user_profile_id it was given: %s", ws.Raw)
				path := "/v1/organizations/workspaces/" + ws.Get("id").String()
				got := t.OK(Req(http.MethodGet, path, "admin/workspace", nil))
				t.Expect(got.Get("user_profile_id").String()).To(Equal("uprof_conformance_1"), "the workspace reads back the user_profile_id it was created with")
				t.OK(Req(http.MethodPost, path, "admin/workspace", map[string]any{"user_profile_id": "uprof_conformance_2"}))
				got = t.OK(Req(http.MethodGet, path, "admin/workspace", nil))
				t.Expect(got.Get("user_profile_id").String()).To(Equal("uprof_conformance_2"), "an update's user_profile_id reads back")
			}},
		kit.Check{ID: "admin/workspace-inference-data-privacy-beta", Clause: "9", Labels: []kit.Label{kit.Admin, kit.Extension},
			Title: "inference_data_privacy is refused 400 naming it without the efs-2026-10-01 beta; with it a workspace answers what it set and the defaults for the rest, and only requests with the beta see it",
			Bug: &kit.Bug{Says: "inference_data_privacy sent without its beta is ignored, not refused", Want: "without its beta",
				Break: kit.InRouteRequests(http.MethodPost, workspacesRoute, func(r *http.Request, b map[string]any) {
					if !sendsBeta(r, efsBeta) {
						delete(b, "inference_data_privacy")
					}
				})},
			Run: func(t *kit.T) {
				privacy := map[string]any{"human_review": map[string]any{"type": "disabled"}}
				refused := tryCreate(t, "workspaces", map[string]any{"name": "conformance privacy", "inference_data_privacy": privacy})
				t.Expect(refused.Status).To(Equal(http.StatusBadRequest), "inference_data_privacy without its beta is refused 400: %s", refused)
				t.Expect(refused.Get("error.message").String()).To(ContainSubstring("inference_data_privacy"), "the refusal names inference_data_privacy")
				beta := http.Header{"vendor-beta": {efsBeta}}
				create := Req(http.MethodPost, "/v1/organizations/workspaces", "admin/workspace", map[string]any{"name": "conformance privacy", "inference_data_privacy": privacy})
				create.Header = beta
				ws := t.OK(create)
				undoCreate(t, "workspaces", ws.Get("id").String())
				t.Expect(ws.Get("inference_data_privacy.human_review.type").String()).To(Equal("disabled"), "the create answers what it set: %s", ws.Get("inference_data_privacy"))
				t.Expect(ws.Get("inference_data_privacy.transcripts_storage.type").String()).To(Equal("internal"), "a member not set answers its default: %s", ws.Get("inference_data_privacy"))
				get := Req(http.MethodGet, "/v1/organizations/workspaces/"+ws.Get("id").String(), "admin/workspace", nil)
				t.Expect(t.OK(get).Get("inference_data_privacy").Exists()).To(BeFalse(), "a request without the beta does not see inference_data_privacy")
				get.Header = beta
				t.Expect(t.OK(get).Get("inference_data_privacy.human_review.type").String()).To(Equal("disabled"), "a request with the beta reads it back")
			}},
		kit.Check{ID: "admin/workspace-list-ids", Clause: "9", Labels: []kit.Label{kit.Admin, kit.Extension},
			Title: "the workspace list's ids filter (ids[]=) keeps exactly the named workspaces, leaving an unknown ID out",
			Bug:   &kit.Bug{Says: "the workspace list ignores ids", Want: "exactly the named", Break: kit.IgnoresQuery(kit.On(http.MethodGet, workspacesRoute), "ids[]")},
			Run: func(t *kit.T) {
				a := CreateWorkspace(t, map[string]any{"name": "conformance ids a"}).Get("id").String()
				CreateWorkspace(t, map[string]any{"name": "conformance ids b"})
				list := t.OK(kit.Request{Area: kit.Admin, Path: "/v1/organizations/workspaces", Schema: "admin/workspace_list",
					Query: url.Values{"ids[]": {a, "wrkspc_01ConformanceNoSuch0000"}, "limit": {"100"}}})
				t.Expect(kit.IDsOf(list.Get("data").Array())).To(Equal([]string{a}), "ids[]=%s keeps exactly the named workspace", a)
			}},
		kit.Check{ID: "admin/workspace-update-keeps-tags", Clause: "4.6", Labels: []kit.Label{kit.Admin},
			Title: "a workspace update that leaves tags out leaves the tags as they were",
			Bug: &kit.Bug{Says: "an update without tags clears them", Want: "as they were",
				Break: kit.InRouteRequests(http.MethodPost, "^/v1/organizations/workspaces/[^/]+$", func(_ *http.Request, b map[string]any) {
					if _, ok := b["tags"]; !ok {
						b["tags"] = map[string]any{}
					}
				})},
			Run: func(t *kit.T) {
				ws := CreateWorkspace(t, map[string]any{"name": "conformance tags kept", "tags": map[string]any{"team": "conformance"}})
				path := "/v1/organizations/workspaces/" + ws.Get("id").String()
				t.OK(Req(http.MethodPost, path, "admin/workspace", map[string]any{"name": "conformance tags kept 2"}))
				got := t.OK(Req(http.MethodGet, path, "admin/workspace", nil))
				t.Expect(got.Get("tags").Raw).To(MatchJSON(`{"team":"conformance"}`), "an update without tags leaves them as they were")
			}},
		kit.Check{ID: "admin/user-sign-out-unknown-404", Clause: "9", Labels: []kit.Label{kit.Admin, kit.Extension},
			Title: "POST /v1/organizations/users/{user_id}/sign_out (beta admin-user-sign-out-2026-10-08) of an unknown user is answered 404 not_found_error, and without the beta it is refused 400 naming vendor-beta",
			Bug:   &kit.Bug{Says: "signing out an unknown user is answered 200", Want: "admin/user", Break: kit.AnswersStatus(kit.On(http.MethodPost, "/sign_out$"), http.StatusNotFound, http.StatusOK)},
			Run: func(t *kit.T) {
				r := Req(http.MethodPost, "/v1/organizations/users/user_01ConformanceNoSuchUser00/sign_out", "admin/user", nil)
				r.Header = http.Header{"vendor-beta": {signOutBeta}}
				resp := t.Do(r)
				t.ExpectError(resp, http.StatusNotFound, "not_found_error")
				r.Header = nil
				bare := t.Do(r)
				t.Expect(bare.Status).To(Equal(http.StatusBadRequest), "a sign-out without its beta value is refused 400: %s", bare)
				t.Expect(bare.Get("error.message").String()).To(ContainSubstring("vendor-beta"), "the refusal names vendor-beta")
			}},
		kit.Check{ID: "admin/user-sign-out", Clause: "9", Labels: []kit.Label{kit.Admin, kit.Extension, kit.Destructive},
			Title: "signing out a member who is not the primary owner (beta admin-user-sign-out-2026-10-08) answers that member",
			Bug:   &kit.Bug{Says: "sign-out answers another member", Want: "answers that member", Break: kit.SetsField(kit.On(http.MethodPost, "/sign_out$"), "id", "user_01SomeoneElse0000000000")},
			Run: func(t *kit.T) {
				u, ok := removableUser(t)
				if !ok {
					t.Unsupported("needs a member who is neither an admin nor the only one of their role")
				}
				r := Req(http.MethodPost, "/v1/organizations/users/"+u.Get("id").String()+"/sign_out", "admin/user", nil)
				r.Header = http.Header{"vendor-beta": {signOutBeta}}
				resp := t.OK(r)
				t.Expect(resp.Get("id").String()).To(Equal(u.Get("id").String()), "the sign-out answers that member")
			}},
	)
}

// sendsBeta reports whether r names the beta value in vendor-beta or anthropic-beta.
func sendsBeta(r *http.Request, beta string) bool {
	for _, name := range []string{"Vendor-Beta", "Anthropic-Beta"} {
		for _, v := range r.Header.Values(name) {
			for _, b := range strings.Split(v, ",") {
				if strings.TrimSpace(b) == beta {
					return true
				}
			}
		}
	}
	return false
}
