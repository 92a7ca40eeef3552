package admin

import (
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"sync/atomic"
	"time"

	. "github.com/onsi/gomega"
	"github.com/tidwall/gjson"

	"github.com/platformkit/platformkit/conformance/kit"
	"github.com/platformkit/platformkit/schemas"
)

// Administration (spec 2.11, 2.12, 3.2, 4.6, 8; gaps §6). Against a deployment these checks
// create their own invites and workspaces and remove them afterwards (workspaces cannot be
// deleted, so they are archived); pre-existing users are changed only by destructive checks.

// grantable are the roles an invite or a user update may give (spec 4.6).
var grantable = []string{"user", "developer", "billing", "assistant_code_user"}

const inviteLifetime = 21 * 24 * time.Hour

var emailSeq atomic.Int64

// freshEmail returns an address no member or invite of the target has: unique per run and per
// call, at a reserved domain so that a deployment's invitation mail goes nowhere.
func freshEmail(tag string) string {
	return fmt.Sprintf("conformance-%s-%d-%d@example.com", tag, time.Now().UnixNano(), emailSeq.Add(1))
}

// Req is a request of the administration interface.
func Req(method, path, schema string, body any) kit.Request {
	return kit.Request{Area: kit.Admin, Method: method, Path: path, Schema: schema, Body: body}
}

// undoCreate registers the removal of an invite or workspace the check created. Workspaces
// cannot be deleted, so they are archived.
func undoCreate(t *kit.T, kind, id string) {
	if kind == "invites" {
		t.Cleanup("delete invite "+id, t.Delete(Req(http.MethodDelete, "/v1/organizations/invites/"+id, "", nil)))
		return
	}
	t.Cleanup("archive workspace "+id, t.Delete(Req(http.MethodPost, "/v1/organizations/workspaces/"+id+"/archive", "", nil)))
}

// tryCreate sends a create of kind ("invites" or "workspaces") that the check expects to be
// refused; should the target accept it anyway, what it created is removed afterwards.
func tryCreate(t *kit.T, kind string, body any) *kit.Response {
	resp := t.Do(Req(http.MethodPost, "/v1/organizations/"+kind, "", body))
	if resp.Status == http.StatusOK {
		undoCreate(t, kind, resp.Get("id").String())
	}
	return resp
}

// CreateInvite invites a fresh address with role and registers its deletion.
func CreateInvite(t *kit.T, tag, role string) gjson.Result {
	resp := t.OK(Req(http.MethodPost, "/v1/organizations/invites", "admin/invite", map[string]string{"email": freshEmail(tag), "role": role}))
	undoCreate(t, "invites", resp.Get("id").String())
	return resp.JSON()
}

// CreateWorkspace creates a workspace from body and registers its archiving.
func CreateWorkspace(t *kit.T, body map[string]any) gjson.Result {
	resp := t.OK(Req(http.MethodPost, "/v1/organizations/workspaces", "admin/workspace", body))
	undoCreate(t, "workspaces", resp.Get("id").String())
	return resp.JSON()
}

// expectRefused requires an error envelope of the type with a client-error status: the
// specification says which requests are refused, gaps §1 fixes the status (checked apart).
func expectRefused(t *kit.T, resp *kit.Response, errType string) {
	t.ExpectWithOffset(1, resp.Status/100).To(Equal(4), "%s", resp)
	t.ExpectWithOffset(1, resp.Get("type").String()).To(Equal("error"), "%s", resp)
	t.ExpectWithOffset(1, resp.Get("error.type").String()).To(Equal(errType), "%s", resp)
}

// WalkCursor pages through an administration cursor list forwards with the page size.
func WalkCursor(t *kit.T, path, schema string, query url.Values, limit int) []gjson.Result {
	return t.WalkCursor(kit.Request{Area: kit.Admin, Path: path, Query: query, Schema: schema}, "data", limit)
}

// allUsers lists every user of the organization.
func allUsers(t *kit.T) []gjson.Result {
	return WalkCursor(t, "/v1/organizations/users", "admin/user_list", nil, 1000)
}

// removableUser returns a non-admin user whose role another listed user also holds, so that
// changing or removing it leaves every role represented; ok is false when there is none.
func removableUser(t *kit.T) (u gjson.Result, ok bool) {
	users := allUsers(t)
	count := map[string]int{}
	for _, u := range users {
		count[u.Get("role").String()]++
	}
	for i := len(users) - 1; i >= 0; i-- {
		if r := users[i].Get("role").String(); r != "admin" && count[r] > 1 {
			return users[i], true
		}
	}
	return gjson.Result{}, false
}

// adminUser returns a user whose role is admin; ok is false when the list has none.
func adminUser(t *kit.T) (gjson.Result, bool) {
	for _, u := range allUsers(t) {
		if u.Get("role").String() == "admin" {
			return u, true
		}
	}
	return gjson.Result{}, false
}

// needOrg2 disables a tenancy check when no second organization is configured.
func needOrg2(t *kit.T) {
	if t.Config().AdminKey2 == "" {
		t.NeedsSecondOrganization("CONFORMANCE_ADMIN_API_KEY_2")
	}
}

// OrgRateLimits returns every organization rate-limit entry (one page: limit omitted).
func OrgRateLimits(t *kit.T) []gjson.Result {
	return t.OK(Req(http.MethodGet, "/v1/organizations/rate_limits", "admin/rate_limit_list", nil)).Get("data").Array()
}

// walkTokens pages through an administration page-token list and returns every entry's JSON.
func walkTokens(t *kit.T, path, schema string, limit int) []string {
	var raw []string
	for _, e := range t.WalkPages(kit.Request{Area: kit.Admin, Path: path, Schema: schema}, limit) {
		raw = append(raw, e.Raw)
	}
	return raw
}

func init() {
	kit.Register(kit.InterfaceChecks(kit.Admin, "/v1/organizations/me", "admin/organization")...)
	kit.Register(organizationChecks...)
	kit.Register(inviteChecks...)
	kit.Register(userChecks...)
	kit.Register(workspaceChecks...)
	kit.Register(rateLimitChecks...)
}

var organizationChecks = []kit.Check{
	{ID: "admin/organization-me", Clause: "4.6", Labels: []kit.Label{kit.Admin},
		Title: "GET /v1/organizations/me answers the key's organization with type organization",
		Bug: &kit.Bug{Says: "the organization reads with type workspace", Want: "organization",
			Break: kit.SetsField(kit.On(http.MethodGet, admMe), "type", "workspace")},
		Run: func(t *kit.T) {
			resp := t.OK(Req(http.MethodGet, "/v1/organizations/me", "admin/organization", nil))
			t.Expect(resp.Get("type").String()).To(Equal("organization"))
			t.Expect(resp.Get("id").String()).NotTo(BeEmpty())
			t.Expect(resp.Get("name").String()).NotTo(BeEmpty())
		}},
	{ID: "admin/organization-id-uuid", Clause: "gaps §6", Labels: []kit.Label{kit.Admin, kit.Extension},
		Title: "the organization id is a UUID string",
		Bug: &kit.Bug{Says: "the organization id is a prefixed ID, not a UUID", Want: "UUID",
			Break: kit.InOKAnswers(kit.On(http.MethodGet, admMe), func(_ *http.Request, m map[string]any) { m["id"] = "org_" + kit.Str(m, "id") })},
		Run: func(t *kit.T) {
			id := t.OK(Req(http.MethodGet, "/v1/organizations/me", "admin/organization", nil)).Get("id").String()
			t.Expect(id).To(MatchRegexp(`^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$`))
		}},
	{ID: "admin/organization-me-per-key", Clause: "4.6", Labels: []kit.Label{kit.Admin},
		Title: "each organization's admin key reads its own organization",
		Bug: &kit.Bug{Says: "every admin key reads the first organization", Want: "expected not to equal",
			Break: kit.AsFirstOrg(admMe)},
		Run: func(t *kit.T) {
			needOrg2(t)
			one := t.OK(Req(http.MethodGet, "/v1/organizations/me", "admin/organization", nil))
			r := Req(http.MethodGet, "/v1/organizations/me", "admin/organization", nil)
			r.Org2 = true
			two := t.OK(r)
			t.Expect(two.Get("id").String()).NotTo(Equal(one.Get("id").String()))
		}},
	{ID: "admin/only-admin-key", Clause: "5", Labels: []kit.Label{kit.Admin, kit.Extension},
		Title: "every administration endpoint refuses an API key with 403 permission_error",
		Bug: &kit.Bug{Says: "the rate-limit list serves an API key as if it were the admin key", Want: "403",
			Break: kit.InRequestHeaders(kit.On(http.MethodGet, RateLimitsRoute), func(h http.Header) {
				if h.Get("X-Api-Key") == kit.FakeAPIKey {
					h.Set("X-Api-Key", kit.FakeAdminKey)
				}
			})},
		Run: func(t *kit.T) {
			for _, p := range []string{"/v1/organizations/me", "/v1/organizations/invites", "/v1/organizations/users",
				"/v1/organizations/workspaces", "/v1/organizations/rate_limits"} {
				r := Req(http.MethodGet, p, "", nil)
				r.As = kit.APIKey
				t.ExpectError(t.Do(r), http.StatusForbidden, "permission_error")
			}
			r := Req(http.MethodPost, "/v1/organizations/invites", "", map[string]string{"email": freshEmail("apikey"), "role": "user"})
			r.As = kit.APIKey
			t.ExpectError(t.Do(r), http.StatusForbidden, "permission_error")
		}},
	{ID: "admin/bad-input-400-names-field", Clause: "gaps §1", Labels: []kit.Label{kit.Admin, kit.Extension},
		Title: "invalid administration requests are answered 400 invalid_request_error naming the field",
		Bug: &kit.Bug{Says: "a refused invite's error message does not name the field", Want: "role",
			Break: kit.ErrorMessageOnly(kit.On(http.MethodPost, InvitesRoute), "invalid invite")},
		Run: func(t *kit.T) {
			w := CreateWorkspace(t, map[string]any{"name": "conformance bad input"})
			wp := "/v1/organizations/workspaces/" + w.Get("id").String()
			u, haveUser := removableUser(t)
			cases := []struct {
				method, path string
				body         any
				field        string
			}{
				{http.MethodPost, "/v1/organizations/invites", map[string]string{"email": freshEmail("bad"), "role": "admin"}, "role"},
				{http.MethodPost, "/v1/organizations/invites", map[string]string{"email": freshEmail("bad"), "role": "owner"}, "role"},
				{http.MethodPost, "/v1/organizations/invites", map[string]string{"email": "not an address", "role": "user"}, "email"},
				{http.MethodPost, "/v1/organizations/invites", map[string]string{"role": "user"}, "email"},
				{http.MethodPost, "/v1/organizations/workspaces", map[string]any{}, "name"},
				{http.MethodPost, "/v1/organizations/workspaces", map[string]any{"name": "x", "tags": map[string]string{"vendor-team": "a"}}, "vendor-team"},
				{http.MethodPost, "/v1/organizations/workspaces", map[string]any{"name": "x", "data_residency": map[string]any{"allowed_inference_geos": []string{"global"}, "default_inference_geo": "us"}}, "default_inference_geo"},
				{http.MethodPost, wp, map[string]any{"data_residency": map[string]any{"workspace_geo": "geo-that-differs"}}, "workspace_geo"},
				{http.MethodGet, "/v1/organizations/invites?limit=0", nil, "limit"},
				{http.MethodGet, "/v1/organizations/users?limit=1001", nil, "limit"},
				{http.MethodGet, "/v1/organizations/rate_limits?group_type=not-a-group", nil, "group_type"},
			}
			if haveUser {
				cases = append(cases, struct {
					method, path string
					body         any
					field        string
				}{http.MethodPost, "/v1/organizations/users/" + u.Get("id").String(), map[string]string{"role": "admin"}, "role"})
			}
			for _, c := range cases {
				resp := t.Do(Req(c.method, c.path, "", c.body))
				t.ExpectError(resp, http.StatusBadRequest, "invalid_request_error")
				t.Expect(resp.Get("error.message").String()).To(ContainSubstring(c.field), "%s %s", c.method, c.path)
			}
		}},
}

var inviteChecks = []kit.Check{
	{ID: "admin/invite-create", Clause: "3.2", Labels: []kit.Label{kit.Admin},
		Title: "creating an invite with a valid email and role answers a pending invite with its expiry time",
		Bug: &kit.Bug{Says: "a new invite reads accepted", Want: "pending",
			Break: kit.SetsField(kit.On(http.MethodPost, InvitesRoute), "status", "accepted")},
		Run: func(t *kit.T) {
			in := CreateInvite(t, "create", "developer")
			t.Expect(in.Get("id").String()).To(HavePrefix("invite_"))
			t.Expect(in.Get("type").String()).To(Equal("invite"))
			t.Expect(in.Get("status").String()).To(Equal("pending"))
			t.Expect(in.Get("role").String()).To(Equal("developer"))
			t.Expect(in.Get("email").String()).To(HavePrefix("conformance-create-"))
			t.Expect(in.Get("expires_at").Time().After(in.Get("invited_at").Time())).To(BeTrue(), "expires_at after invited_at")
		}},
	{ID: "admin/invite-each-role", Clause: "4.6", Labels: []kit.Label{kit.Admin},
		Title: "an invite may give each of the roles user, developer, billing and assistant_code_user",
		Bug: &kit.Bug{Says: "an invite for role billing is created with role user", Want: "billing",
			Break: kit.InRouteRequests(http.MethodPost, InvitesRoute, func(_ *http.Request, b map[string]any) {
				if b["role"] == "billing" {
					b["role"] = "user"
				}
			})},
		Run: func(t *kit.T) {
			for _, role := range grantable {
				// A deployment of the maker's dialect answers claude_code_user for assistant_code_user.
				t.Expect(schemas.InReferenceWords(CreateInvite(t, "role", role).Get("role").String())).To(Equal(role))
			}
		}},
	{ID: "admin/invite-role-admin-refused", Clause: "4.6", Labels: []kit.Label{kit.Admin},
		Title: "an invite with role admin, or a role outside 4.6, is refused and creates nothing",
		Bug: &kit.Bug{Says: "an invite with role owner is accepted, as role user", Want: "POST /v1/organizations/invites -> 200",
			Break: kit.InRouteRequests(http.MethodPost, InvitesRoute, func(_ *http.Request, b map[string]any) {
				if b["role"] == "owner" {
					b["role"] = "user"
				}
			})},
		Run: func(t *kit.T) {
			for _, role := range []string{"admin", "owner", ""} {
				email := freshEmail("admin")
				expectRefused(t, tryCreate(t, "invites", map[string]string{"email": email, "role": role}), "invalid_request_error")
				for _, in := range WalkCursor(t, "/v1/organizations/invites", "admin/invite_list", nil, 1000) {
					t.Expect(in.Get("email").String()).NotTo(Equal(email))
				}
			}
		}},
	{ID: "admin/invite-invalid-email-refused", Clause: "3.2", Labels: []kit.Label{kit.Admin},
		Title: "an invite whose email is not an address is refused",
		Bug: &kit.Bug{Says: "an invite whose email has no @ is accepted", Want: "POST /v1/organizations/invites -> 200",
			Break: admInviteEmail(func(e string) string {
				if e == "no-at-sign" {
					return admFresh(e)
				}
				return e
			})},
		Run: func(t *kit.T) {
			for _, email := range []string{"", "no-at-sign", "Display Name <x@example.com>", "x@"} {
				expectRefused(t, tryCreate(t, "invites", map[string]string{"email": email, "role": "user"}), "invalid_request_error")
			}
		}},
	{ID: "admin/invite-duplicate-refused", Clause: "3.2", Labels: []kit.Label{kit.Admin, kit.Extension},
		Title: "an invite for a member's address, or one with a pending invite, is refused with 400 (addresses compared ignoring case)",
		Bug: &kit.Bug{Says: "addresses are compared with their case: an upper-cased duplicate is accepted", Want: "the answer is 400",
			Break: admInviteEmail(func(e string) string {
				if admHasUpper(e) {
					return admFresh(e)
				}
				return e
			})},
		Run: func(t *kit.T) {
			in := CreateInvite(t, "dup", "user")
			users := allUsers(t)
			t.Expect(users).NotTo(BeEmpty())
			for _, email := range []string{strings.ToUpper(in.Get("email").String()), strings.ToUpper(users[0].Get("email").String())} {
				resp := tryCreate(t, "invites", map[string]string{"email": email, "role": "user"})
				t.ExpectError(resp, http.StatusBadRequest, "invalid_request_error")
				t.Expect(resp.Get("error.message").String()).To(ContainSubstring("email"))
			}
		}},
	{ID: "admin/invite-get", Clause: "4.6", Labels: []kit.Label{kit.Admin},
		Title: "an invite reads by its ID as it was created",
		Bug: &kit.Bug{Says: "an invite reads by ID with role user, whatever role it gives", Want: "billing",
			Break: kit.SetsField(kit.On(http.MethodGet, admInvite), "role", "user")},
		Run: func(t *kit.T) {
			in := CreateInvite(t, "get", "billing")
			got := t.OK(Req(http.MethodGet, "/v1/organizations/invites/"+in.Get("id").String(), "admin/invite", nil))
			t.Expect(got.JSON().Raw).To(MatchJSON(in.Raw))
		}},
	{ID: "admin/invite-list", Clause: "4.6", Labels: []kit.Label{kit.Admin},
		Title: "the invite list holds a new invite, as it reads by ID",
		Bug: &kit.Bug{Says: "the invite list shows every invite with role billing", Want: "billing",
			Break: kit.SetsField(kit.On(http.MethodGet, InvitesRoute), "data.*.role", "billing")},
		Run: func(t *kit.T) {
			in := CreateInvite(t, "list", "user")
			var found []gjson.Result
			for _, it := range WalkCursor(t, "/v1/organizations/invites", "admin/invite_list", nil, 1000) {
				if it.Get("id").String() == in.Get("id").String() {
					found = append(found, it)
				}
			}
			t.Expect(found).To(HaveLen(1))
			t.Expect(found[0].Raw).To(MatchJSON(in.Raw))
		}},
	{ID: "admin/invite-list-default-limit", Clause: "8", Labels: []kit.Label{kit.Admin},
		Title: "without limit, an invite page holds at most 20 invites",
		Bug: &kit.Bug{Says: "without limit, the invite list answers every invite in one page", Want: "at most 20",
			Break: kit.InRouteQuery(http.MethodGet, InvitesRoute, func(q url.Values) {
				if !q.Has("limit") {
					q.Set("limit", "1000")
				}
			})},
		Run: func(t *kit.T) {
			have := len(WalkCursor(t, "/v1/organizations/invites", "admin/invite_list", nil, 1000))
			for ; have < 21; have++ {
				CreateInvite(t, "page", "user")
			}
			resp := t.OK(Req(http.MethodGet, "/v1/organizations/invites", "admin/invite_list", nil))
			t.Expect(resp.Get("data.#").Int()).To(BeNumerically("==", 20))
			t.Expect(resp.Get("has_more").Bool()).To(BeTrue())
		}},
	{ID: "admin/invite-list-pages", Clause: "2.1", Labels: []kit.Label{kit.Admin},
		Title: "paging invites forwards with after_id and back with before_id returns each exactly once, in order",
		Bug: &kit.Bug{Says: "the invite list ignores before_id", Want: "back with before_id",
			Break: kit.IgnoresQuery(kit.On(http.MethodGet, InvitesRoute), "before_id")},
		Run: func(t *kit.T) {
			for i := 0; i < 3; i++ {
				CreateInvite(t, "walk", "user")
			}
			all := kit.IDsOf(WalkCursor(t, "/v1/organizations/invites", "admin/invite_list", nil, 1000))
			for _, size := range []int{1, 2, 3} {
				t.Expect(kit.IDsOf(WalkCursor(t, "/v1/organizations/invites", "admin/invite_list", nil, size))).To(Equal(all), "page size %d", size)
			}
			last := all[len(all)-1]
			back := t.OK(kit.Request{Area: kit.Admin, Path: "/v1/organizations/invites", Query: url.Values{"before_id": {last}, "limit": {"2"}}, Schema: "admin/invite_list"})
			t.Expect(kit.IDsOf(back.Get("data").Array())).To(Equal(all[len(all)-3 : len(all)-1]))
		}},
	{ID: "admin/invite-list-limit-range", Clause: "8", Labels: []kit.Label{kit.Admin},
		Title: "the invite list takes limit from 1 to 1000 and refuses values outside",
		Bug: &kit.Bug{Says: "the invite list ignores a limit outside 1 to 1000", Want: "GET /v1/organizations/invites -> 200",
			Break: kit.IgnoresInvalidQuery(http.MethodGet, InvitesRoute, "limit")},
		Run: func(t *kit.T) {
			t.NoItemsNeeded()
			for _, ok := range []string{"1", "1000"} {
				t.OK(kit.Request{Area: kit.Admin, Path: "/v1/organizations/invites", Query: url.Values{"limit": {ok}}, Schema: "admin/invite_list"})
			}
			for _, bad := range []string{"0", "1001"} {
				expectRefused(t, t.Do(kit.Request{Area: kit.Admin, Path: "/v1/organizations/invites", Query: url.Values{"limit": {bad}}}), "invalid_request_error")
			}
		}},
	{ID: "admin/invite-list-empty-page", Clause: "gaps §3", Labels: []kit.Label{kit.Admin, kit.Extension},
		Title: "an empty invite page has first_id and last_id null and has_more false",
		Bug: &kit.Bug{Says: "an empty invite page says has_more true", Want: "has_more",
			Break: kit.InOKAnswers(kit.On(http.MethodGet, InvitesRoute), func(_ *http.Request, m map[string]any) {
				if d, _ := m["data"].([]any); len(d) == 0 {
					m["has_more"] = true
				}
			})},
		Run: func(t *kit.T) {
			last := CreateInvite(t, "empty", "user").Get("id").String()
			all := kit.IDsOf(WalkCursor(t, "/v1/organizations/invites", "admin/invite_list", nil, 1000))
			if all[len(all)-1] != last {
				t.Unsupported("the invite list is not ordered oldest first, so the newest invite is not its last")
			}
			resp := t.OK(kit.Request{Area: kit.Admin, Path: "/v1/organizations/invites", Query: url.Values{"after_id": {last}}, Schema: "admin/invite_list"})
			t.Expect(resp.JSON().Raw).To(MatchJSON(`{"data":[],"first_id":null,"has_more":false,"last_id":null}`))
		}},
	{ID: "admin/invite-delete", Clause: "4.6", Labels: []kit.Label{kit.Admin},
		Title: "deleting an invite answers {id, type: invite_deleted}",
		Bug: &kit.Bug{Says: "deleting an invite answers type invite", Want: "invite_deleted",
			Break: kit.SetsField(kit.On(http.MethodDelete, admInvite), "type", "invite")},
		Run: func(t *kit.T) {
			id := CreateInvite(t, "delete", "user").Get("id").String()
			resp := t.OK(Req(http.MethodDelete, "/v1/organizations/invites/"+id, "admin/invite_deleted", nil))
			t.Expect(resp.JSON().Raw).To(MatchJSON(fmt.Sprintf(`{"id":%q,"type":"invite_deleted"}`, id)))
		}},
	{ID: "admin/invite-deleted-leaves-list", Clause: "gaps §6", Labels: []kit.Label{kit.Admin, kit.Extension},
		Title: "a deleted invite leaves the invite list; read by ID it is gone or has status deleted",
		Bug: &kit.Bug{Says: "a deleted invite still reads by ID as pending", Want: "status deleted",
			Break: kit.DeletedStillReadable(admInvite)},
		Run: func(t *kit.T) {
			id := CreateInvite(t, "gone", "user").Get("id").String()
			t.OK(Req(http.MethodDelete, "/v1/organizations/invites/"+id, "admin/invite_deleted", nil))
			t.Expect(kit.IDsOf(WalkCursor(t, "/v1/organizations/invites", "admin/invite_list", nil, 1000))).NotTo(ContainElement(id))
			resp := t.Do(Req(http.MethodGet, "/v1/organizations/invites/"+id, "admin/invite", nil))
			if resp.Status != http.StatusNotFound {
				t.Expect(resp.Status).To(Equal(http.StatusOK), "%s", resp)
				t.Expect(resp.Get("status").String()).To(Equal("deleted"))
			}
		}},
	{ID: "admin/invite-list-statuses", Clause: "gaps §6", Labels: []kit.Label{kit.Admin, kit.Extension},
		Title: "the invite list holds pending, accepted and expired invites, never deleted ones",
		Bug: &kit.Bug{Says: "pending invites are left out of the list", Want: "pending",
			Break: kit.InOKAnswers(kit.On(http.MethodGet, InvitesRoute), func(_ *http.Request, m map[string]any) {
				kept := []any{}
				kit.EachDataItem(m, func(in map[string]any) {
					if in["status"] != "pending" {
						kept = append(kept, in)
					}
				})
				m["data"] = kept
			})},
		Run: func(t *kit.T) {
			pending := CreateInvite(t, "status", "user").Get("id").String()
			statuses := map[string]int{}
			for _, in := range WalkCursor(t, "/v1/organizations/invites", "admin/invite_list", nil, 1000) {
				st := in.Get("status").String()
				t.Expect(st).To(BeElementOf("pending", "accepted", "expired"), "a listed invite is pending, accepted or expired: %s", in.Raw)
				if in.Get("id").String() == pending {
					t.Expect(st).To(Equal("pending"), "the invite just sent is listed as pending: %s", in.Raw)
				}
				statuses[st]++
				if in.Get("id").String() == pending {
					statuses["sent"]++
				}
			}
			t.Expect(statuses["sent"]).To(Equal(1), "the invite just sent (%s) is listed once, as pending", pending)
			// Accepted and expired invites cannot be made through the API: they are checked where
			// the deployment has them.
			t.Need("accepted invites", statuses["accepted"], 1)
			t.Need("expired invites", statuses["expired"], 1)
		}},
	{ID: "admin/invite-expiry-21-days", Clause: "gaps §6", Labels: []kit.Label{kit.Admin, kit.Extension},
		Title: "an invite expires 21 days after invited_at",
		Bug: &kit.Bug{Says: "an invite expires 20 days after it was sent", Want: "21 days",
			Break: kit.InOKAnswers(kit.On(http.MethodPost, InvitesRoute), admShift("expires_at", -24*time.Hour))},
		Run: func(t *kit.T) {
			in := CreateInvite(t, "expiry", "user")
			t.Expect(in.Get("expires_at").Time().Sub(in.Get("invited_at").Time())).To(Equal(inviteLifetime))
		}},
	{ID: "admin/invite-expires-on-clock", Clause: "gaps §6", Labels: []kit.Label{kit.Admin, kit.Extension, kit.FakeOnly},
		Title: "a pending invite reads expired, in the list too, once 21 days have passed, and can no longer be deleted",
		Bug: &kit.Bug{Says: "an invite never expires: it reads pending after 21 days", Want: "expired",
			Break: kit.InOKAnswers(kit.On(http.MethodGet, admInvite), func(_ *http.Request, m map[string]any) {
				if m["status"] == "expired" {
					m["status"] = "pending"
				}
			})},
		Run: func(t *kit.T) {
			// No cleanup: the invite expires here, and an expired invite cannot be deleted.
			in := t.OK(Req(http.MethodPost, "/v1/organizations/invites", "admin/invite", map[string]string{"email": freshEmail("clock"), "role": "user"}))
			id := in.Get("id").String()
			now := t.Control(http.MethodGet, "/_fake/clock", nil).Get("now").Time()
			left := in.Get("expires_at").Time().Sub(now)
			t.Control(http.MethodPost, "/_fake/clock/advance", map[string]any{"seconds": left.Seconds() - 1})
			t.Expect(t.OK(Req(http.MethodGet, "/v1/organizations/invites/"+id, "admin/invite", nil)).Get("status").String()).To(Equal("pending"))
			t.Control(http.MethodPost, "/_fake/clock/advance", map[string]any{"seconds": 1})
			t.Expect(t.OK(Req(http.MethodGet, "/v1/organizations/invites/"+id, "admin/invite", nil)).Get("status").String()).To(Equal("expired"))
			var listed []string
			for _, it := range WalkCursor(t, "/v1/organizations/invites", "admin/invite_list", nil, 1000) {
				if it.Get("id").String() == id {
					listed = append(listed, it.Get("status").String())
				}
			}
			t.Expect(listed).To(Equal([]string{"expired"}))
			t.ExpectError(t.Do(Req(http.MethodDelete, "/v1/organizations/invites/"+id, "", nil)), http.StatusBadRequest, "invalid_request_error")
		}},
	{ID: "admin/invite-delete-only-pending", Clause: "gaps §6", Labels: []kit.Label{kit.Admin, kit.Extension, kit.Destructive},
		Title: "deleting an accepted or expired invite is refused with 400",
		Bug: &kit.Bug{Says: "deleting an accepted or expired invite is confirmed as invite_deleted", Want: "the answer is 400",
			Break: admStatusOK(admInvite, http.StatusBadRequest, "invite_deleted")},
		Run: func(t *kit.T) {
			for _, in := range WalkCursor(t, "/v1/organizations/invites", "admin/invite_list", nil, 1000) {
				if st := in.Get("status").String(); st == "accepted" || st == "expired" {
					t.ExpectError(t.Do(Req(http.MethodDelete, "/v1/organizations/invites/"+in.Get("id").String(), "", nil)), http.StatusBadRequest, "invalid_request_error")
					got := t.OK(Req(http.MethodGet, "/v1/organizations/invites/"+in.Get("id").String(), "admin/invite", nil))
					t.Expect(got.Get("status").String()).To(Equal(st))
					return
				}
			}
			t.Unsupported("the organization has no accepted or expired invite")
		}},
	{ID: "admin/invite-unknown-404", Clause: "gaps §1", Labels: []kit.Label{kit.Admin, kit.Extension},
		Title: "an unknown invite ID is answered 404 not_found_error on read and delete",
		Bug: &kit.Bug{Says: "an unknown invite ID is answered 400", Want: "404 not_found_error",
			Break: kit.RouteAnswersStatus(http.MethodGet, admInvite, http.StatusNotFound, http.StatusBadRequest)},
		Run: func(t *kit.T) {
			for _, m := range []string{http.MethodGet, http.MethodDelete} {
				t.ExpectError(t.Do(Req(m, "/v1/organizations/invites/invite_conformance_no_such", "", nil)), http.StatusNotFound, "not_found_error")
			}
		}},
	{ID: "admin/invite-other-organization-404", Clause: "4.6", Labels: []kit.Label{kit.Admin, kit.Extension},
		Title: "another organization's invite is not listed and answers 404 on read and delete",
		Bug: &kit.Bug{Says: "the second organization's invites are the first's", Want: "the answer is 404",
			Break: kit.AsFirstOrg(`^/v1/organizations/invites`)},
		Run: func(t *kit.T) {
			needOrg2(t)
			r := Req(http.MethodPost, "/v1/organizations/invites", "admin/invite", map[string]string{"email": freshEmail("org2"), "role": "user"})
			r.Org2 = true
			id := t.OK(r).Get("id").String()
			cleanup := Req(http.MethodDelete, "/v1/organizations/invites/"+id, "", nil)
			cleanup.Org2 = true
			t.Cleanup("delete invite "+id, t.Delete(cleanup))
			for _, m := range []string{http.MethodGet, http.MethodDelete} {
				t.ExpectError(t.Do(Req(m, "/v1/organizations/invites/"+id, "", nil)), http.StatusNotFound, "not_found_error")
			}
			t.Expect(kit.IDsOf(WalkCursor(t, "/v1/organizations/invites", "admin/invite_list", nil, 1000))).NotTo(ContainElement(id))
			check := Req(http.MethodGet, "/v1/organizations/invites/"+id, "admin/invite", nil)
			check.Org2 = true
			t.Expect(t.OK(check).Get("status").String()).To(Equal("pending"), "the other organization's invite was not deleted")
		}},
}
