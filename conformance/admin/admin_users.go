package admin

import (
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"

	. "github.com/onsi/gomega"

	"github.com/platformkit/platformkit/conformance/kit"
)

var userChecks = []kit.Check{
	{ID: "admin/user-list", Clause: "4.6", Labels: []kit.Label{kit.Admin},
		Title: "the user list holds the organization's users, each readable by ID as listed",
		Bug: &kit.Bug{Says: "the user list shows every user with role billing", Want: "reads as it is listed",
			Break: kit.SetsField(kit.On(http.MethodGet, admUsers), "data.*.role", "billing")},
		Run: func(t *kit.T) {
			users := allUsers(t)
			t.Need("users", len(users), 1)
			for _, u := range users[:min(len(users), 25)] {
				got := t.OK(Req(http.MethodGet, "/v1/organizations/users/"+url.PathEscape(u.Get("id").String()), "admin/user", nil))
				t.Expect(got.JSON().Raw).To(MatchJSON(u.Raw), "user %s reads as it is listed", u.Get("id"))
			}
		}},
	{ID: "admin/user-list-default-limit", Clause: "8", Labels: []kit.Label{kit.Admin},
		Title: "without limit, a user page holds at most 20 users",
		Bug: &kit.Bug{Says: "without limit, a user page holds one user, not min(users, 20)", Want: "min(",
			Break: kit.InRouteQuery(http.MethodGet, admUsers, func(q url.Values) {
				if !q.Has("limit") {
					q.Set("limit", "1")
				}
			})},
		Run: func(t *kit.T) {
			all := len(allUsers(t))
			t.Need("users", all, 1)
			resp := t.OK(Req(http.MethodGet, "/v1/organizations/users", "admin/user_list", nil))
			t.Expect(resp.Get("data.#").Int()).To(BeNumerically("==", min(all, 20)), "a page without limit holds min(%d users, 20): %s", all, resp)
			t.Expect(resp.Get("has_more").Bool()).To(Equal(all > 20), "has_more says whether users are left after the first 20: %s", resp)
		}},
	{ID: "admin/user-list-pages", Clause: "2.1", Labels: []kit.Label{kit.Admin},
		Title: "paging users forwards with after_id at every page size returns each exactly once, in order",
		Bug: &kit.Bug{Says: "a page of two users after the first page leaves out its first user", Want: "page size 2",
			Break: admPagesOfTwoSkip(admUsers, "after_id")},
		Run: func(t *kit.T) {
			all := kit.IDsOf(allUsers(t))
			t.Need("users", len(all), 2)
			for _, size := range []int{1, 2, 3} {
				t.Expect(kit.IDsOf(WalkCursor(t, "/v1/organizations/users", "admin/user_list", nil, size))).To(Equal(all), "page size %d", size)
			}
		}},
	{ID: "admin/user-list-limit-range", Clause: "8", Labels: []kit.Label{kit.Admin},
		Title: "the user list takes limit from 1 to 1000 and refuses values outside",
		Bug: &kit.Bug{Says: "the user list ignores a limit outside 1 to 1000", Want: "GET /v1/organizations/users -> 200",
			Break: kit.IgnoresInvalidQuery(http.MethodGet, admUsers, "limit")},
		Run: func(t *kit.T) {
			t.NoItemsNeeded()
			for _, ok := range []string{"1", "1000"} {
				t.OK(kit.Request{Area: kit.Admin, Path: "/v1/organizations/users", Query: url.Values{"limit": {ok}}, Schema: "admin/user_list"})
			}
			for _, bad := range []string{"0", "1001"} {
				expectRefused(t, t.Do(kit.Request{Area: kit.Admin, Path: "/v1/organizations/users", Query: url.Values{"limit": {bad}}}), "invalid_request_error")
			}
		}},
	{ID: "admin/user-email-filter", Clause: "4.6", Labels: []kit.Label{kit.Admin},
		Title: "the email filter selects the user with that address",
		Bug: &kit.Bug{Says: "the user list ignores the email filter", Want: "selects that user alone",
			Break: kit.IgnoresQuery(kit.On(http.MethodGet, admUsers), "email")},
		Run: func(t *kit.T) {
			users := allUsers(t)
			t.Need("users", len(users), 2)
			u := users[len(users)/2]
			resp := t.OK(kit.Request{Area: kit.Admin, Path: "/v1/organizations/users", Query: url.Values{"email": {u.Get("email").String()}}, Schema: "admin/user_list"})
			t.Expect(kit.IDsOf(resp.Get("data").Array())).To(Equal([]string{u.Get("id").String()}), "email=%s selects that user alone: %s", u.Get("email"), resp)
		}},
	{ID: "admin/user-email-filter-exact-ignoring-case", Clause: "gaps §6", Labels: []kit.Label{kit.Admin, kit.Extension},
		Title: "the email filter matches the exact address ignoring case, and never a part of it",
		Bug: &kit.Bug{Says: "the email filter compares addresses with their case", Want: "email=",
			Break: kit.InRouteQuery(http.MethodGet, admUsers, func(q url.Values) {
				if e := q.Get("email"); admHasUpper(e) {
					q.Set("email", "x"+e)
				}
			})},
		Run: func(t *kit.T) {
			users := allUsers(t)
			t.Need("users", len(users), 1)
			u := users[0]
			email := u.Get("email").String()
			for _, variant := range []string{strings.ToUpper(email), strings.ToLower(email)} {
				resp := t.OK(kit.Request{Area: kit.Admin, Path: "/v1/organizations/users", Query: url.Values{"email": {variant}}, Schema: "admin/user_list"})
				t.Expect(kit.IDsOf(resp.Get("data").Array())).To(Equal([]string{u.Get("id").String()}), "email=%s", variant)
			}
			local, _, _ := strings.Cut(email, "@")
			for _, part := range []string{local, email[1:]} {
				resp := t.OK(kit.Request{Area: kit.Admin, Path: "/v1/organizations/users", Query: url.Values{"email": {part}}, Schema: "admin/user_list"})
				t.Expect(resp.Get("data.#").Int()).To(BeZero(), "email=%s", part)
			}
		}},
	{ID: "admin/user-update-role", Clause: "4.6", Labels: []kit.Label{kit.Admin, kit.Destructive},
		Title: "updating a user's role to another role of 4.6 answers and keeps the new role",
		Bug: &kit.Bug{Says: "a user update answers 200 but keeps the old role", Want: "keeps the new role",
			Break: admKeepsRole},
		Run: func(t *kit.T) {
			u, ok := removableUser(t)
			if !ok {
				t.Unsupported("no non-admin user shares a role with another user")
			}
			id, old := u.Get("id").String(), u.Get("role").String()
			path := "/v1/organizations/users/" + url.PathEscape(id)
			next := grantable[(slices.Index(grantable, old)+1)%len(grantable)]
			t.Cleanup("restore role of "+id, t.Delete(Req(http.MethodPost, path, "", map[string]string{"role": old})))
			resp := t.OK(Req(http.MethodPost, path, "admin/user", map[string]string{"role": next}))
			t.Expect(resp.Get("role").String()).To(Equal(next))
			t.Expect(t.OK(Req(http.MethodGet, path, "admin/user", nil)).Get("role").String()).To(Equal(next))
		}},
	{ID: "admin/user-update-role-admin-refused", Clause: "4.6", Labels: []kit.Label{kit.Admin, kit.Destructive},
		Title: "updating a user's role to admin, or a role outside 4.6, is refused and changes nothing",
		Bug: &kit.Bug{Says: "updating a user's role to owner is accepted, as role user", Want: "-> 200",
			Break: kit.InRouteRequests(http.MethodPost, admUser, func(_ *http.Request, b map[string]any) {
				if b["role"] == "owner" {
					b["role"] = "user"
				}
			})},
		Run: func(t *kit.T) {
			u, ok := removableUser(t)
			if !ok {
				t.Unsupported("no non-admin user shares a role with another user")
			}
			path := "/v1/organizations/users/" + url.PathEscape(u.Get("id").String())
			t.Cleanup("restore role of "+u.Get("id").String(), t.Delete(Req(http.MethodPost, path, "", map[string]string{"role": u.Get("role").String()})))
			for _, role := range []string{"admin", "owner"} {
				expectRefused(t, t.Do(Req(http.MethodPost, path, "", map[string]string{"role": role})), "invalid_request_error")
			}
			t.Expect(t.OK(Req(http.MethodGet, path, "admin/user", nil)).JSON().Raw).To(MatchJSON(u.Raw))
		}},
	{ID: "admin/user-admin-protected-403", Clause: "gaps §6", Labels: []kit.Label{kit.Admin, kit.Extension, kit.Destructive},
		Title: "changing or removing a user whose role is admin is refused with 403 permission_error",
		Bug: &kit.Bug{Says: "removing a user whose role is admin is confirmed as user_deleted", Want: "the answer is 403",
			Break: admStatusOK(admUser, http.StatusForbidden, "user_deleted")},
		Run: func(t *kit.T) {
			u, ok := adminUser(t)
			if !ok {
				t.Unsupported("the organization lists no admin")
			}
			path := "/v1/organizations/users/" + url.PathEscape(u.Get("id").String())
			t.ExpectError(t.Do(Req(http.MethodPost, path, "", map[string]string{"role": "developer"})), http.StatusForbidden, "permission_error")
			t.ExpectError(t.Do(Req(http.MethodDelete, path, "", nil)), http.StatusForbidden, "permission_error")
			t.Expect(t.OK(Req(http.MethodGet, path, "admin/user", nil)).JSON().Raw).To(MatchJSON(u.Raw))
		}},
	{ID: "admin/user-remove", Clause: "4.6", Labels: []kit.Label{kit.Admin, kit.Destructive},
		Title: "removing a user answers {id, type: user_deleted}; the user then leaves the list",
		Bug: &kit.Bug{Says: "removing a user answers type user", Want: "user_deleted",
			Break: kit.SetsField(kit.On(http.MethodDelete, admUser), "type", "user")},
		Run: func(t *kit.T) {
			u, ok := removableUser(t)
			if !ok {
				t.Unsupported("no non-admin user shares a role with another user")
			}
			id := u.Get("id").String()
			resp := t.OK(Req(http.MethodDelete, "/v1/organizations/users/"+url.PathEscape(id), "admin/user_deleted", nil))
			t.Expect(resp.JSON().Raw).To(MatchJSON(fmt.Sprintf(`{"id":%q,"type":"user_deleted"}`, id)))
			t.Expect(kit.IDsOf(allUsers(t))).NotTo(ContainElement(id))
			t.ExpectError(t.Do(Req(http.MethodGet, "/v1/organizations/users/"+url.PathEscape(id), "", nil)), http.StatusNotFound, "not_found_error")
		}},
	{ID: "admin/user-other-organization-404", Clause: "4.6", Labels: []kit.Label{kit.Admin, kit.Extension},
		Title: "another organization's user is not listed and answers 404 on read, update and remove",
		Bug: &kit.Bug{Says: "the second organization's users are the first's", Want: "not to contain",
			Break: kit.AsFirstOrg(`^/v1/organizations/users`)},
		Run: func(t *kit.T) {
			needOrg2(t)
			r := Req(http.MethodGet, "/v1/organizations/users", "admin/user_list", nil)
			r.Org2 = true
			other := t.OK(r).Get("data").Array()
			if len(other) == 0 {
				t.Unsupported("the second organization lists no users")
			}
			id := other[0].Get("id").String()
			path := "/v1/organizations/users/" + url.PathEscape(id)
			t.Expect(kit.IDsOf(allUsers(t))).NotTo(ContainElement(id))
			t.ExpectError(t.Do(Req(http.MethodGet, path, "", nil)), http.StatusNotFound, "not_found_error")
			t.ExpectError(t.Do(Req(http.MethodPost, path, "", map[string]string{"role": "user"})), http.StatusNotFound, "not_found_error")
			t.ExpectError(t.Do(Req(http.MethodDelete, path, "", nil)), http.StatusNotFound, "not_found_error")
			back := Req(http.MethodGet, path, "admin/user", nil)
			back.Org2 = true
			t.Expect(t.OK(back).JSON().Raw).To(MatchJSON(other[0].Raw))
		}},
}
