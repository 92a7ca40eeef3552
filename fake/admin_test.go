package fake

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/fstest"
	"time"

	"github.com/platformkit/platformkit/fake/internal/areas/admin"

	"github.com/platformkit/platformkit/fake/internal/core"

	"github.com/tidwall/gjson"
)

// adminClient calls the administration interface of a test server as one organization.
type adminClient struct {
	t   testing.TB
	ts  *TestServer
	key string
}

func newAdmin(t testing.TB) adminClient {
	return adminClient{t: t, ts: NewTestServer(t), key: "test-admin-key"}
}

// benchAdmin is newAdmin without the per-response schema check, so that benchmarks measure the
// fake rather than the validator.
func benchAdmin(b *testing.B) adminClient {
	s := New()
	ts := &TestServer{Server: httptest.NewServer(s), Fake: s}
	b.Cleanup(ts.Close)
	return adminClient{t: b, ts: ts, key: "test-admin-key"}
}

// as returns a client of the same server with another credential.
func (a adminClient) as(key string) adminClient { a.key = key; return a }

// do sends a request; body is JSON-encoded unless it is a string (sent as is) or nil.
func (a adminClient) do(method, path string, body any) (int, gjson.Result) {
	a.t.Helper()
	status, _, data, err := roundTrip(context.Background(), a.ts, method, path, body, "X-Api-Key", a.key, "vendor-version", core.APIVersion)
	if err != nil {
		a.t.Fatal(err)
	}
	return status, gjson.ParseBytes(bytes.TrimSpace(data))
}

// ok sends a request that must answer 200.
func (a adminClient) ok(method, path string, body any) gjson.Result {
	a.t.Helper()
	status, got := a.do(method, path, body)
	if status != http.StatusOK {
		a.t.Fatalf("%s %s = %d %s, want 200", method, path, status, got.Raw)
	}
	return got
}

// fails sends a request that must fail with the status and error type, and a message that
// contains want (the field it names).
func (a adminClient) fails(method, path string, body any, status int, errType, want string) {
	a.t.Helper()
	got, res := a.do(method, path, body)
	if got != status || res.Get("error.type").String() != errType || !strings.Contains(res.Get("error.message").String(), want) {
		a.t.Fatalf("%s %s %v = %d %s, want %d %s mentioning %q", method, path, body, got, res.Raw, status, errType, want)
	}
}

const (
	acmeAda      = "user_01AcmeAdaAdmin000000000001"
	acmeAlan     = "user_01AcmeAlanUser00000000001"
	acmeResearch = "wrkspc_01AcmeResearch0000000001"
	acmeLegacy   = "wrkspc_01AcmeLegacy00000000001"
	globexOps    = "wrkspc_01GlobexOps000000000001"
)

func TestOrganizationMe(t *testing.T) {
	a := newAdmin(t)
	got := a.ok(core.Get, "/v1/organizations/me", nil)
	if got.Raw != `{"id":"3f1c2a9e-5b7d-4e21-9c3a-1d2e3f4a5b6c","name":"Acme Corporation","type":"organization"}` {
		t.Fatalf("organization = %s", got.Raw)
	}
	if id := a.as("test-admin-key-2").ok(core.Get, "/v1/organizations/me", nil).Get("id").String(); id != "9a8b7c6d-1e2f-4a3b-8c4d-5e6f7a8b9c0d" {
		t.Fatalf("second organization id = %s", id)
	}
}

func TestAdminOnlyAcceptsAdminKey(t *testing.T) {
	a := newAdmin(t)
	for _, path := range []string{"/v1/organizations/me", "/v1/organizations/users", "/v1/organizations/rate_limits"} {
		a.as("test-api-key").fails(core.Get, path, nil, http.StatusForbidden, core.ErrPermission, "admin API key")
		a.as("").fails(core.Get, path, nil, http.StatusUnauthorized, core.ErrAuthentication, "X-Api-Key")
	}
}

func TestInviteCreate(t *testing.T) {
	a := newAdmin(t)
	got := a.ok(core.Post, "/v1/organizations/invites", map[string]string{"email": "new.person@acme.example", "role": "developer"})
	want := `{"id":"invite_010000000000000000000001","accepted_at":null,"email":"new.person@acme.example","expires_at":"2026-01-22T00:00:00Z","invited_at":"2026-01-01T00:00:00Z","rbac_group_ids":[],"role":"developer","status":"pending","type":"invite"}`
	if got.Raw != want {
		t.Fatalf("invite = %s, want %s", got.Raw, want)
	}
	// rbac_group_ids (the SDKs' field): [] is accepted; a group is refused, since the fixture
	// organizations have none; a wrong type is refused by the schema.
	a.ok(core.Post, "/v1/organizations/invites", map[string]any{"email": "grouped@acme.example", "role": "user", "rbac_group_ids": []string{}})
	a.fails(core.Post, "/v1/organizations/invites", map[string]any{"email": "g2@acme.example", "role": "user", "rbac_group_ids": []string{"rbacgrp_1"}},
		http.StatusBadRequest, core.ErrInvalidRequest, "rbac_group_ids.0")
	a.fails(core.Post, "/v1/organizations/invites", map[string]any{"email": "g3@acme.example", "role": "user", "rbac_group_ids": "rbacgrp_1"},
		http.StatusBadRequest, core.ErrInvalidRequest, "rbac_group_ids")
	if got := a.ok(core.Get, "/v1/organizations/invites/invite_01AcmeAcceptedNoether0001", nil); got.Get("accepted_at").String() != got.Get("invited_at").String() {
		t.Fatalf("accepted fixture invite: accepted_at %q, want its invited_at %q", got.Get("accepted_at"), got.Get("invited_at"))
	}
	if again := a.ok(core.Get, "/v1/organizations/invites/"+got.Get("id").String(), nil); again.Raw != want {
		t.Fatalf("get = %s, want %s", again.Raw, want)
	}
	// Every role of 2.11 but admin may be given (spec 4.6).
	for _, role := range []string{"user", "developer", "billing", "assistant_code_user"} {
		a.ok(core.Post, "/v1/organizations/invites", map[string]string{"email": role + "@new.example", "role": role})
	}
}

func TestInviteCreateRejects(t *testing.T) {
	a := newAdmin(t)
	before := a.ok(core.Get, "/v1/organizations/invites?limit=1000", nil).Raw
	for _, tc := range []struct {
		body any
		want string
	}{
		{map[string]string{"email": "x@acme.example", "role": "admin"}, "role"},
		{map[string]string{"email": "x@acme.example", "role": "owner"}, "role"},
		{map[string]string{"email": "x@acme.example"}, "role: field required"},
		{map[string]string{"role": "user"}, "email: field required"},
		{map[string]any{"email": 7, "role": "user"}, "email"},
		{map[string]string{"email": "x@acme.example", "role": "user", "name": "X"}, "name: unknown field"},
		{map[string]string{"email": "not-an-address", "role": "user"}, "email"},
		{map[string]string{"email": "X <x@acme.example>", "role": "user"}, "email"},
		{map[string]string{"email": " x@acme.example", "role": "user"}, "email"},
		{map[string]string{"email": "", "role": "user"}, "email"},
		// Already a member (case-insensitive), or already invited and pending.
		{map[string]string{"email": "ADA@acme.example", "role": "user"}, "already a member"},
		{map[string]string{"email": "margaret.hamilton@ACME.example", "role": "user"}, "already a member"},
		{map[string]string{"email": "Katherine@acme.example", "role": "user"}, "pending invite"},
		{`[]`, "expected object"},
		{`{"email":`, "not valid JSON"},
	} {
		a.fails(core.Post, "/v1/organizations/invites", tc.body, http.StatusBadRequest, core.ErrInvalidRequest, tc.want)
	}
	if after := a.ok(core.Get, "/v1/organizations/invites?limit=1000", nil).Raw; after != before {
		t.Fatalf("a rejected create changed the list:\n%s\n%s", before, after)
	}
}

func TestInviteForExpiredDeletedOrAcceptedAddress(t *testing.T) {
	a := newAdmin(t)
	// Fixture invites: don@ expired, john.backus@ deleted, emmy@ accepted (but not a member).
	for _, email := range []string{"don@acme.example", "john.backus@acme.example", "emmy@acme.example"} {
		a.ok(core.Post, "/v1/organizations/invites", map[string]string{"email": email, "role": "user"})
	}
	// Another organization's members and invites do not count.
	a.ok(core.Post, "/v1/organizations/invites", map[string]string{"email": "marge@globex.example", "role": "user"})
	a.ok(core.Post, "/v1/organizations/invites", map[string]string{"email": "hank@globex.example", "role": "user"})
}

func TestInviteLifecycleOnVirtualClock(t *testing.T) {
	a := newAdmin(t)
	id := a.ok(core.Post, "/v1/organizations/invites", map[string]string{"email": "clock@acme.example", "role": "user"}).Get("id").String()
	path := "/v1/organizations/invites/" + id
	a.ts.Fake.AdvanceClock(admin.InviteLifetime - time.Second)
	if st := a.ok(core.Get, path, nil).Get("status").String(); st != "pending" {
		t.Fatalf("status one second before expiry = %s, want pending", st)
	}
	a.ts.Fake.AdvanceClock(time.Second)
	if st := a.ok(core.Get, path, nil).Get("status").String(); st != "expired" {
		t.Fatalf("status at expires_at = %s, want expired", st)
	}
	list := a.ok(core.Get, "/v1/organizations/invites?limit=1000", nil)
	if st := list.Get(`data.#(id=="` + id + `").status`).String(); st != "expired" {
		t.Fatalf("listed status = %q, want expired", st)
	}
	a.fails(core.Del, path, nil, http.StatusBadRequest, core.ErrInvalidRequest, "only pending invites")
	// The address may be invited again once the invite expired.
	a.ok(core.Post, "/v1/organizations/invites", map[string]string{"email": "clock@acme.example", "role": "user"})
}

func TestInviteFixtureStatuses(t *testing.T) {
	a := newAdmin(t)
	list := a.ok(core.Get, "/v1/organizations/invites", nil)
	got := map[string]string{}
	for _, in := range list.Get("data").Array() {
		got[in.Get("id").String()] = in.Get("status").String()
	}
	want := map[string]string{
		"invite_01AcmeAcceptedNoether0001": "accepted", "invite_01AcmeExpiredKnuth000001": "expired",
		"invite_01AcmePendingHamming0001": "pending", "invite_01AcmePendingJohnson0001": "pending",
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("listed statuses = %v, want %v (deleted invites leave the list)", got, want)
	}
	if st := a.ok(core.Get, "/v1/organizations/invites/invite_01AcmeDeletedBackus00001", nil).Get("status").String(); st != "deleted" {
		t.Fatalf("deleted invite reads %s", st)
	}
	a.fails(core.Del, "/v1/organizations/invites/invite_01AcmeAcceptedNoether0001", nil, http.StatusBadRequest, core.ErrInvalidRequest, "accepted")
}

func TestInviteDelete(t *testing.T) {
	a := newAdmin(t)
	id := a.ok(core.Post, "/v1/organizations/invites", map[string]string{"email": "gone@acme.example", "role": "billing"}).Get("id").String()
	want := `{"id":"` + id + `","type":"invite_deleted"}`
	if got := a.ok(core.Del, "/v1/organizations/invites/"+id, nil).Raw; got != want {
		t.Fatalf("delete = %s, want %s", got, want)
	}
	// A retry answers the same confirmation.
	if got := a.ok(core.Del, "/v1/organizations/invites/"+id, nil).Raw; got != want {
		t.Fatalf("second delete = %s, want %s", got, want)
	}
	if st := a.ok(core.Get, "/v1/organizations/invites/"+id, nil).Get("status").String(); st != "deleted" {
		t.Fatalf("status after delete = %s", st)
	}
	list := a.ok(core.Get, "/v1/organizations/invites?limit=1000", nil)
	if strings.Contains(list.Raw, id) {
		t.Fatalf("deleted invite still listed: %s", list.Raw)
	}
	// Its ID stays a valid cursor.
	a.ok(core.Get, "/v1/organizations/invites?after_id="+id, nil)
	// The address may be invited again.
	a.ok(core.Post, "/v1/organizations/invites", map[string]string{"email": "gone@acme.example", "role": "billing"})
}

func TestInviteTenancy(t *testing.T) {
	a := newAdmin(t)
	globex := a.as("test-admin-key-2")
	id := globex.ok(core.Post, "/v1/organizations/invites", map[string]string{"email": "bart@globex.example", "role": "user"}).Get("id").String()
	for _, inv := range []string{id, "invite_01GlobexPendingMarge00001"} {
		a.fails(core.Get, "/v1/organizations/invites/"+inv, nil, http.StatusNotFound, core.ErrNotFound, inv)
		a.fails(core.Del, "/v1/organizations/invites/"+inv, nil, http.StatusNotFound, core.ErrNotFound, inv)
		a.fails(core.Get, "/v1/organizations/invites?after_id="+inv, nil, http.StatusBadRequest, core.ErrInvalidRequest, "after_id")
	}
	if list := a.ok(core.Get, "/v1/organizations/invites?limit=1000", nil).Raw; strings.Contains(list, "globex") {
		t.Fatalf("Acme sees Globex invites: %s", list)
	}
	if got := idsOf(globex.ok(core.Get, "/v1/organizations/invites", nil).Get("data")); len(got) != 2 {
		t.Fatalf("Globex invites = %v", got)
	}
}

func TestInviteListPaging(t *testing.T) {
	a := newAdmin(t)
	for i := 0; i < 25; i++ { // all at the same instant: IDs break the tie
		a.ok(core.Post, "/v1/organizations/invites", map[string]string{"email": fmt.Sprintf("p%02d@new.example", i), "role": "user"})
	}
	all := idsOf(a.ok(core.Get, "/v1/organizations/invites?limit=1000", nil).Get("data"))
	if len(all) != 29 {
		t.Fatalf("listed %d invites, want 29", len(all))
	}
	first := a.ok(core.Get, "/v1/organizations/invites", nil)
	if n := len(first.Get("data").Array()); n != 20 || !first.Get("has_more").Bool() {
		t.Fatalf("default page: %d items, has_more %v; want 20, true", n, first.Get("has_more").Bool())
	}
	for _, size := range []int{1, 3, 7, 29} {
		var got []string
		after := ""
		for {
			q := fmt.Sprintf("/v1/organizations/invites?limit=%d", size)
			if after != "" {
				q += "&after_id=" + after
			}
			page := a.ok(core.Get, q, nil)
			got = append(got, idsOf(page.Get("data"))...)
			if !page.Get("has_more").Bool() {
				break
			}
			after = page.Get("last_id").String()
		}
		if fmt.Sprint(got) != fmt.Sprint(all) {
			t.Fatalf("limit %d walked %v, want %v", size, got, all)
		}
	}
	back := a.ok(core.Get, "/v1/organizations/invites?limit=2&before_id="+all[3], nil)
	if fmt.Sprint(idsOf(back.Get("data"))) != fmt.Sprint(all[1:3]) || !back.Get("has_more").Bool() {
		t.Fatalf("before_id page = %s", back.Raw)
	}
	empty := a.ok(core.Get, "/v1/organizations/invites?after_id="+all[len(all)-1], nil)
	if empty.Raw != `{"data":[],"first_id":null,"has_more":false,"last_id":null}` {
		t.Fatalf("empty page = %s", empty.Raw)
	}
	for _, bad := range []string{"0", "1001", "-1", "x"} {
		a.fails(core.Get, "/v1/organizations/invites?limit="+bad, nil, http.StatusBadRequest, core.ErrInvalidRequest, "limit")
	}
	a.fails(core.Get, "/v1/organizations/invites?after_id=invite_nope", nil, http.StatusBadRequest, core.ErrInvalidRequest, "after_id")
	a.ok(core.Get, "/v1/organizations/invites?limit=1", nil)
	a.ok(core.Get, "/v1/organizations/invites?limit=1000", nil)
}

func TestUserList(t *testing.T) {
	a := newAdmin(t)
	got := idsOf(a.ok(core.Get, "/v1/organizations/users", nil).Get("data"))
	want := []string{acmeAda, acmeAlan, "user_01AcmeGraceDeveloper00001", "user_01AcmeBarbaraBilling00001",
		"user_01AcmeKenCodeUser00000001", "user_01AcmeMargaretUser0000001", "user_01AcmeDennisDeveloper0001", "user_01AcmeFrancesUser000000001"}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("users = %v, want %v (oldest first, ID breaking ties)", got, want)
	}
	roles := map[string]int{}
	for _, u := range a.ok(core.Get, "/v1/organizations/users", nil).Get("data").Array() {
		roles[u.Get("role").String()]++
	}
	if len(roles) != 5 || roles["admin"] != 1 {
		t.Fatalf("fixture roles = %v, want all five with one admin", roles)
	}
	for _, q := range []string{"margaret.hamilton@acme.example", "MARGARET.HAMILTON@ACME.EXAMPLE", "Margaret.Hamilton@acme.example"} {
		if got := idsOf(a.ok(core.Get, "/v1/organizations/users?email="+url.QueryEscape(q), nil).Get("data")); fmt.Sprint(got) != "[user_01AcmeMargaretUser0000001]" {
			t.Fatalf("email=%s gives %v", q, got)
		}
	}
	for _, q := range []string{"margaret", "hamilton@acme.example", "hank@globex.example", ""} {
		if got := a.ok(core.Get, "/v1/organizations/users?email="+url.QueryEscape(q), nil); got.Raw != `{"data":[],"first_id":null,"has_more":false,"last_id":null}` {
			t.Fatalf("email=%q gives %s, want an empty page", q, got.Raw)
		}
	}
	page := a.ok(core.Get, "/v1/organizations/users?limit=2&after_id="+acmeAda, nil)
	if fmt.Sprint(idsOf(page.Get("data"))) != fmt.Sprint(want[1:3]) || !page.Get("has_more").Bool() {
		t.Fatalf("page after Ada = %s", page.Raw)
	}
	for _, bad := range []string{"0", "1001"} {
		a.fails(core.Get, "/v1/organizations/users?limit="+bad, nil, http.StatusBadRequest, core.ErrInvalidRequest, "limit")
	}
}

func TestUserGetAndTenancy(t *testing.T) {
	a := newAdmin(t)
	want := `{"id":"user_01AcmeAlanUser00000000001","added_at":"2024-02-03T10:15:00Z","email":"alan@acme.example","name":"Alan Turing","role":"user","type":"user"}`
	if got := a.ok(core.Get, "/v1/organizations/users/"+acmeAlan, nil).Raw; got != want {
		t.Fatalf("user = %s", got)
	}
	const homer = "user_01GlobexHomerUser00000001"
	a.fails(core.Get, "/v1/organizations/users/"+homer, nil, http.StatusNotFound, core.ErrNotFound, homer)
	a.fails(core.Post, "/v1/organizations/users/"+homer, map[string]string{"role": "developer"}, http.StatusNotFound, core.ErrNotFound, homer)
	a.fails(core.Del, "/v1/organizations/users/"+homer, nil, http.StatusNotFound, core.ErrNotFound, homer)
	if r := a.as("test-admin-key-2").ok(core.Get, "/v1/organizations/users/"+homer, nil).Get("role").String(); r != "user" {
		t.Fatalf("Homer's role changed to %s by another organization", r)
	}
}

func TestUserUpdate(t *testing.T) {
	a := newAdmin(t)
	path := "/v1/organizations/users/" + acmeAlan
	if r := a.ok(core.Post, path, map[string]string{"role": "developer"}).Get("role").String(); r != "developer" {
		t.Fatalf("role after update = %s", r)
	}
	if r := a.ok(core.Get, path, nil).Get("role").String(); r != "developer" {
		t.Fatalf("role read back = %s", r)
	}
	a.ok(core.Post, path, map[string]string{"role": "developer"}) // no change is fine
	a.fails(core.Post, path, map[string]string{"role": "admin"}, http.StatusBadRequest, core.ErrInvalidRequest, "role")
	a.fails(core.Post, path, map[string]string{}, http.StatusBadRequest, core.ErrInvalidRequest, "role: field required")
	a.fails(core.Post, path, map[string]string{"role": "user", "email": "x@y.z"}, http.StatusBadRequest, core.ErrInvalidRequest, "email: unknown field")
	a.fails(core.Post, "/v1/organizations/users/"+acmeAda, map[string]string{"role": "user"}, http.StatusForbidden, core.ErrPermission, "admin")
	if r := a.ok(core.Get, path, nil).Get("role").String(); r != "developer" {
		t.Fatalf("a rejected update changed the role to %s", r)
	}
	if r := a.ok(core.Get, "/v1/organizations/users/"+acmeAda, nil).Get("role").String(); r != "admin" {
		t.Fatalf("the admin's role is now %s", r)
	}
}

func TestUserRemove(t *testing.T) {
	a := newAdmin(t)
	path := "/v1/organizations/users/" + acmeAlan
	if got := a.ok(core.Del, path, nil).Raw; got != `{"id":"`+acmeAlan+`","type":"user_deleted"}` {
		t.Fatalf("remove = %s", got)
	}
	a.fails(core.Get, path, nil, http.StatusNotFound, core.ErrNotFound, acmeAlan)
	a.fails(core.Del, path, nil, http.StatusNotFound, core.ErrNotFound, acmeAlan)
	a.fails(core.Post, path, map[string]string{"role": "user"}, http.StatusNotFound, core.ErrNotFound, acmeAlan)
	list := a.ok(core.Get, "/v1/organizations/users?limit=1000", nil)
	if strings.Contains(list.Raw, acmeAlan) {
		t.Fatalf("removed user still listed")
	}
	// The removed user's ID stays a valid cursor, and their address may be invited again.
	if got := idsOf(a.ok(core.Get, "/v1/organizations/users?limit=1&after_id="+acmeAlan, nil).Get("data")); fmt.Sprint(got) != "[user_01AcmeGraceDeveloper00001]" {
		t.Fatalf("page after the removed user = %v", got)
	}
	a.ok(core.Post, "/v1/organizations/invites", map[string]string{"email": "alan@acme.example", "role": "user"})
	a.fails(core.Del, "/v1/organizations/users/"+acmeAda, nil, http.StatusForbidden, core.ErrPermission, "admin")
	a.ok(core.Get, "/v1/organizations/users/"+acmeAda, nil)
}

func TestWorkspaceCreateDefaults(t *testing.T) {
	a := newAdmin(t)
	got := a.ok(core.Post, "/v1/organizations/workspaces", map[string]string{"name": "Sandbox"})
	want := `{"id":"wrkspc_010000000000000000000001","archived_at":null,"compartment_id":"cmpt_f97244944d506b4fbbc626f3","created_at":"2026-01-01T00:00:00Z","data_residency":{"allowed_inference_geos":"unrestricted","default_inference_geo":"global","workspace_geo":"us"},"display_color":"#EF4444","external_key_id":null,"name":"Sandbox","tags":{},"type":"workspace","user_profile_id":null}`
	if got.Raw != want {
		t.Fatalf("workspace = %s\nwant        %s", got.Raw, want)
	}
	if again := a.ok(core.Get, "/v1/organizations/workspaces/"+got.Get("id").String(), nil).Raw; again != want {
		t.Fatalf("get = %s", again)
	}
	// Parts of data_residency take the defaults for the rest.
	got = a.ok(core.Post, "/v1/organizations/workspaces", map[string]any{"name": "US", "tags": map[string]string{"team": "x", "myvendor": "ok"},
		"data_residency": map[string]any{"workspace_geo": "us", "allowed_inference_geos": []string{"us", "global"}}})
	if dr := got.Get("data_residency").Raw; dr != `{"allowed_inference_geos":["us","global"],"default_inference_geo":"global","workspace_geo":"us"}` {
		t.Fatalf("data_residency = %s", dr)
	}
	if tags := got.Get("tags").Raw; tags != `{"myvendor":"ok","team":"x"}` {
		t.Fatalf("tags = %s", tags)
	}
	got = a.ok(core.Post, "/v1/organizations/workspaces", map[string]any{"name": "US only",
		"data_residency": map[string]any{"allowed_inference_geos": []string{"us"}, "default_inference_geo": "us"}})
	if dr := got.Get("data_residency").Raw; dr != `{"allowed_inference_geos":["us"],"default_inference_geo":"us","workspace_geo":"us"}` {
		t.Fatalf("data_residency = %s", dr)
	}
	a.ok(core.Post, "/v1/organizations/workspaces", map[string]any{"name": "Any", "data_residency": map[string]any{"allowed_inference_geos": "unrestricted", "default_inference_geo": "us"}})
}

func TestWorkspaceCreateRejects(t *testing.T) {
	a := newAdmin(t)
	before := a.ok(core.Get, "/v1/organizations/workspaces?include_archived=true&limit=1000", nil).Raw
	for _, tc := range []struct {
		body any
		want string
	}{
		{map[string]any{}, "name: field required"},
		{map[string]any{"name": ""}, "name"},
		{map[string]any{"name": "   "}, "name"},
		{map[string]any{"name": 5}, "name"},
		{map[string]any{"name": "x", "display_color": "white"}, "display_color"},
		{map[string]any{"name": "x", "display_color": "#FFF"}, "display_color"},
		{map[string]any{"name": "x", "external_key_id": ""}, "external_key_id"},
		{map[string]any{"name": "x", "external_key_id": 7}, "external_key_id"},
		{map[string]any{"name": "x", "compartment_id": "cmpt_1"}, "compartment_id: unknown field"},
		{map[string]any{"name": "x", "tags": map[string]string{"vendor": "a"}}, "tags.vendor"},
		{map[string]any{"name": "x", "tags": map[string]string{"ok": "1", "vendor-team": "a"}}, "tags.vendor-team"},
		{map[string]any{"name": "x", "tags": map[string]string{"VendorTeam": "a"}}, "tags.VendorTeam"},
		{map[string]any{"name": "x", "tags": map[string]any{"team": 1}}, "tags.team"},
		{map[string]any{"name": "x", "data_residency": map[string]any{"allowed_inference_geos": []string{"us"}}}, "data_residency.default_inference_geo"},
		{map[string]any{"name": "x", "data_residency": map[string]any{"allowed_inference_geos": []string{"global"}, "default_inference_geo": "us"}}, "data_residency.default_inference_geo"},
		{map[string]any{"name": "x", "data_residency": map[string]any{"allowed_inference_geos": []string{"eu"}}}, "data_residency.allowed_inference_geos.0"},
		{map[string]any{"name": "x", "data_residency": map[string]any{"workspace_geo": "eu"}}, "data_residency.workspace_geo"},
		{map[string]any{"name": "x", "data_residency": map[string]any{"default_inference_geo": "eu"}}, "data_residency.default_inference_geo"},
		{map[string]any{"name": "x", "data_residency": map[string]any{"allowed_inference_geos": []string{}}}, "data_residency.default_inference_geo"},
		{map[string]any{"name": "x", "data_residency": map[string]any{"allowed_inference_geos": "everywhere"}}, "data_residency.allowed_inference_geos"},
		{map[string]any{"name": "x", "data_residency": map[string]any{"allowed_inference_geos": []any{1}}}, "data_residency.allowed_inference_geos.0"},
		{map[string]any{"name": "x", "data_residency": map[string]any{"workspace_geo": ""}}, "data_residency.workspace_geo"},
		{map[string]any{"name": "x", "data_residency": map[string]any{"region": "eu"}}, "data_residency.region: unknown field"},
		{map[string]any{"name": "x", "data_residency": "eu"}, "data_residency"},
	} {
		a.fails(core.Post, "/v1/organizations/workspaces", tc.body, http.StatusBadRequest, core.ErrInvalidRequest, tc.want)
	}
	if after := a.ok(core.Get, "/v1/organizations/workspaces?include_archived=true&limit=1000", nil).Raw; after != before {
		t.Fatalf("a rejected create changed the list")
	}
}

func TestWorkspaceListArchiveAndLimit(t *testing.T) {
	a := newAdmin(t)
	if got := idsOf(a.ok(core.Get, "/v1/organizations/workspaces", nil).Get("data")); fmt.Sprint(got) != "[wrkspc_01AcmeResearch0000000001 wrkspc_01AcmeProduction00000001]" {
		t.Fatalf("active workspaces = %v", got)
	}
	if got := idsOf(a.ok(core.Get, "/v1/organizations/workspaces?include_archived=true", nil).Get("data")); len(got) != 3 || got[0] != acmeLegacy {
		t.Fatalf("all workspaces = %v", got)
	}
	a.fails(core.Get, "/v1/organizations/workspaces?include_archived=maybe", nil, http.StatusBadRequest, core.ErrInvalidRequest, "include_archived")
	a.fails(core.Get, "/v1/organizations/workspaces?limit=0", nil, http.StatusBadRequest, core.ErrInvalidRequest, "limit")
	var created []string
	for i := 0; i < admin.MaxActiveWorkspaces-2; i++ {
		created = append(created, a.ok(core.Post, "/v1/organizations/workspaces", map[string]string{"name": fmt.Sprint("w", i)}).Get("id").String())
	}
	a.fails(core.Post, "/v1/organizations/workspaces", map[string]string{"name": "one too many"}, http.StatusBadRequest, core.ErrInvalidRequest, "100 non-archived")
	// Another organization has its own allowance.
	a.as("test-admin-key-2").ok(core.Post, "/v1/organizations/workspaces", map[string]string{"name": "Globex extra"})
	archived := a.ok(core.Post, "/v1/organizations/workspaces/"+created[0]+"/archive", nil)
	if archived.Get("archived_at").String() != "2026-01-01T00:00:00Z" {
		t.Fatalf("archived = %s", archived.Raw)
	}
	a.ts.Fake.AdvanceClock(time.Hour)
	if again := a.ok(core.Post, "/v1/organizations/workspaces/"+created[0]+"/archive", nil); again.Raw != archived.Raw {
		t.Fatalf("archiving again = %s, want unchanged %s", again.Raw, archived.Raw)
	}
	a.ok(core.Post, "/v1/organizations/workspaces", map[string]string{"name": "fits again"})
	page := a.ok(core.Get, "/v1/organizations/workspaces?limit=1000", nil)
	if n := len(page.Get("data").Array()); n != admin.MaxActiveWorkspaces {
		t.Fatalf("listed %d active workspaces, want %d", n, admin.MaxActiveWorkspaces)
	}
	if strings.Contains(page.Raw, created[0]) {
		t.Fatalf("archived workspace listed without include_archived")
	}
	if got := a.ok(core.Get, "/v1/organizations/workspaces/"+created[0], nil).Get("archived_at").String(); got == "" {
		t.Fatalf("get of an archived workspace lost archived_at")
	}
}

// TestWorkspaceSDKFields: the official SDKs' display_color and external_key_id on create are
// stored as given; external_key_id is write-once on update.
func TestWorkspaceSDKFields(t *testing.T) {
	a := newAdmin(t)
	got := a.ok(core.Post, "/v1/organizations/workspaces", map[string]string{"name": "Keyed", "display_color": "#0a0B0c", "external_key_id": "extkey_1"})
	if c, k := got.Get("display_color").String(), got.Get("external_key_id").String(); c != "#0a0B0c" || k != "extkey_1" {
		t.Fatalf("created with display_color and external_key_id: got %q, %q", c, k)
	}
	path := "/v1/organizations/workspaces/" + acmeResearch
	if k := a.ok(core.Post, path, map[string]any{"external_key_id": "extkey_A"}).Get("external_key_id").String(); k != "extkey_A" {
		t.Fatalf("external_key_id after attach = %q", k)
	}
	a.ok(core.Post, path, map[string]any{"external_key_id": "extkey_A"})
	a.fails(core.Post, path, map[string]any{"external_key_id": "extkey_B", "name": "Renamed"}, http.StatusBadRequest, core.ErrInvalidRequest, "write-once")
	if got := a.ok(core.Get, path, nil); got.Get("external_key_id").String() != "extkey_A" || got.Get("name").String() == "Renamed" {
		t.Fatalf("a refused replace changed the workspace: %s", got.Raw)
	}
}

func TestWorkspaceUpdate(t *testing.T) {
	a := newAdmin(t)
	path := "/v1/organizations/workspaces/" + acmeResearch
	got := a.ok(core.Post, path, map[string]any{"name": "Research 2", "display_color": "#112233", "tags": map[string]string{"team": "ml"},
		"data_residency": map[string]any{"workspace_geo": "us", "allowed_inference_geos": []string{"us"}, "default_inference_geo": "us"}})
	want := `{"id":"wrkspc_01AcmeResearch0000000001","archived_at":null,"compartment_id":"cmpt_bbbbc28c285a243b7ab27458","created_at":"2024-04-10T12:00:00Z","data_residency":{"allowed_inference_geos":["us"],"default_inference_geo":"us","workspace_geo":"us"},"display_color":"#112233","external_key_id":null,"name":"Research 2","tags":{"team":"ml"},"type":"workspace","user_profile_id":null}`
	if got.Raw != want {
		t.Fatalf("updated = %s\nwant      %s", got.Raw, want)
	}
	if noop := a.ok(core.Post, path, map[string]any{}); noop.Raw != want {
		t.Fatalf("empty update = %s", noop.Raw)
	}
	for _, tc := range []struct {
		body any
		want string
	}{
		{map[string]any{"data_residency": map[string]any{"workspace_geo": "eu"}}, "data_residency.workspace_geo"},
		{map[string]any{"data_residency": map[string]any{"allowed_inference_geos": []string{"global"}}}, "data_residency.default_inference_geo"},
		{map[string]any{"display_color": "blue"}, "display_color"},
		{map[string]any{"tags": map[string]string{"vendor_x": "1"}}, "tags.vendor_x"},
		{map[string]any{"name": ""}, "name"},
		{map[string]any{"archived_at": nil}, "archived_at: unknown field"},
	} {
		a.fails(core.Post, path, tc.body, http.StatusBadRequest, core.ErrInvalidRequest, tc.want)
	}
	if after := a.ok(core.Get, path, nil).Raw; after != want {
		t.Fatalf("a rejected update changed the workspace: %s", after)
	}
	a.fails(core.Post, "/v1/organizations/workspaces/"+acmeLegacy, map[string]any{"name": "x"}, http.StatusBadRequest, core.ErrInvalidRequest, "archived")
}

func TestWorkspaceTenancy(t *testing.T) {
	a := newAdmin(t)
	for _, tc := range []struct{ method, suffix string }{{core.Get, ""}, {core.Post, ""}, {core.Post, "/archive"}, {core.Get, "/rate_limits"}} {
		a.fails(tc.method, "/v1/organizations/workspaces/"+globexOps+tc.suffix, nil, http.StatusNotFound, core.ErrNotFound, globexOps)
	}
	if got := a.as("test-admin-key-2").ok(core.Get, "/v1/organizations/workspaces/"+globexOps, nil).Get("archived_at").Type; got != gjson.Null {
		t.Fatalf("another organization archived Globex's workspace")
	}
	if list := a.ok(core.Get, "/v1/organizations/workspaces?include_archived=true", nil).Raw; strings.Contains(list, "Globex") {
		t.Fatalf("Acme lists Globex workspaces")
	}
}

// TestWorkspaceRateLimitUpdate: the SDKs' update sets and clears the overrides of the named
// limiter types of one group, keeps the others, answers the entry as the list shows it, and the
// list shows the change; include_inherited lists the organization's values marked by source.
func TestWorkspaceRateLimitUpdate(t *testing.T) {
	a := newAdmin(t)
	org := a.ok(core.Get, "/v1/organizations/rate_limits?group_type=batch", nil).Get("data.0")
	rl := org.Get("id").String()
	if rl != "rl_df1a5cdde2f9148a71081e26" || org.Get("group.id").String() != "rlg_ce05afd4574d9598035d9214" || org.Get("group.type").String() != "batch" {
		t.Fatalf("organization batch entry: %s", org.Raw)
	}
	// The group's ID is the same in every organization, the entry's is not.
	globex := a.as("test-admin-key-2").ok(core.Get, "/v1/organizations/rate_limits?group_type=batch", nil).Get("data.0")
	if globex.Get("group.id").String() != "rlg_ce05afd4574d9598035d9214" || globex.Get("id").String() == rl {
		t.Fatalf("Globex batch entry: %s", globex.Raw)
	}
	path := "/v1/organizations/workspaces/" + acmeResearch + "/rate_limits/" + rl
	got := a.ok(core.Post, path, map[string]any{"limits": []map[string]any{
		{"type": "batch_requests_in_queue", "value": nil}, {"type": "requests_per_minute", "value": 9000}, {"type": "tokens_per_day", "value": 5}}})
	want := `{"group":{"id":"rlg_ce05afd4574d9598035d9214","type":"batch"},"type":"workspace_rate_limit","group_type":"batch","limits":[{"org_limit":4000,"source":{"type":"workspace"},"type":"requests_per_minute","value":9000},{"org_limit":null,"source":{"type":"workspace"},"type":"tokens_per_day","value":5}],"models":null,"rate_limit_id":"rl_df1a5cdde2f9148a71081e26","workspace_id":"wrkspc_01AcmeResearch0000000001"}`
	if got.Raw != want {
		t.Fatalf("update = %s\nwant     %s", got.Raw, want)
	}
	if listed := a.ok(core.Get, "/v1/organizations/workspaces/"+acmeResearch+"/rate_limits?group_type=batch", nil).Get("data.0").Raw; listed != want {
		t.Fatalf("list after update = %s", listed)
	}
	inherited := a.ok(core.Get, "/v1/organizations/workspaces/"+acmeResearch+"/rate_limits?group_type=batch&include_inherited=true", nil).Get("data.0.limits").Raw
	if inherited != `[{"org_limit":500000,"source":{"type":"organization"},"type":"batch_requests_in_queue","value":500000},{"org_limit":4000,"source":{"type":"workspace"},"type":"requests_per_minute","value":9000},{"org_limit":null,"source":{"type":"workspace"},"type":"tokens_per_day","value":5}]` {
		t.Fatalf("include_inherited limits = %s", inherited)
	}
	if n := a.ok(core.Get, "/v1/organizations/workspaces/wrkspc_01AcmeProduction00000001/rate_limits?include_inherited=true", nil).Get("data.#").Int(); n != 8 {
		t.Fatalf("include_inherited on a workspace without overrides lists %d groups, want the organization's 8", n)
	}
	// Clearing every override leaves nothing to list without include_inherited.
	a.ok(core.Post, path, map[string]any{"limits": []map[string]any{{"type": "requests_per_minute", "value": nil}, {"type": "tokens_per_day", "value": nil}}})
	if n := a.ok(core.Get, "/v1/organizations/workspaces/"+acmeResearch+"/rate_limits?group_type=batch", nil).Get("data.#").Int(); n != 0 {
		t.Fatalf("after clearing, %d batch entries listed", n)
	}
	// Another server's overrides are untouched (state is per server).
	if n := newAdmin(t).ok(core.Get, "/v1/organizations/workspaces/"+acmeResearch+"/rate_limits?group_type=batch", nil).Get("data.#").Int(); n != 1 {
		t.Fatalf("a fresh server lists %d batch overrides, want the fixture's 1", n)
	}
	for _, tc := range []struct {
		body any
		want string
	}{
		{map[string]any{}, "limits"},
		{map[string]any{"limits": []any{}}, "limits"},
		{map[string]any{"limits": []map[string]any{{"type": "requests_per_minute"}}}, "limits.0.value"},
		{map[string]any{"limits": []map[string]any{{"type": "requests_per_minute", "value": -1}}}, "limits.0.value"},
		{map[string]any{"limits": []map[string]any{{"type": "requests_per_minute", "value": 1.5}}}, "limits.0.value"},
		{map[string]any{"limits": []map[string]any{{"type": "bogus_per_minute", "value": 1}}}, "limits.0.type"},
		{map[string]any{"limits": []map[string]any{{"type": "requests_per_minute", "value": 1}, {"type": "requests_per_minute", "value": 2}}}, "limits.1.type"},
		{map[string]any{"limits": []map[string]any{{"type": "requests_per_minute", "value": 1, "org_limit": 3}}}, "limits.0.org_limit: unknown field"},
	} {
		a.fails(core.Post, path, tc.body, http.StatusBadRequest, core.ErrInvalidRequest, tc.want)
	}
	body := map[string]any{"limits": []map[string]any{{"type": "requests_per_minute", "value": 1}}}
	a.fails(core.Post, "/v1/organizations/workspaces/"+acmeResearch+"/rate_limits/rl_nope", body, http.StatusNotFound, core.ErrNotFound, "rl_nope")
	a.fails(core.Post, "/v1/organizations/workspaces/"+acmeResearch+"/rate_limits/"+globex.Get("id").String(), body, http.StatusNotFound, core.ErrNotFound, "rate limit")
	a.fails(core.Post, "/v1/organizations/workspaces/wrkspc_nope/rate_limits/"+rl, body, http.StatusNotFound, core.ErrNotFound, "wrkspc_nope")
	a.fails(core.Post, "/v1/organizations/workspaces/"+acmeLegacy+"/rate_limits/"+rl, body, http.StatusBadRequest, core.ErrInvalidRequest, "archived")
}

func TestRateLimits(t *testing.T) {
	a := newAdmin(t)
	all := a.ok(core.Get, "/v1/organizations/rate_limits", nil)
	if n := len(all.Get("data").Array()); n != 8 || all.Get("next_page").Type != gjson.Null {
		t.Fatalf("without limit: %d entries, next_page %s; want 8 and null", n, all.Get("next_page").Raw)
	}
	seen := map[string]bool{}
	for _, e := range all.Get("data").Array() {
		seen[e.Get("group_type").String()] = true
		if (e.Get("group_type").String() == "model_group") != e.Get("models").IsArray() {
			t.Fatalf("models must be a list exactly for model_group: %s", e.Raw)
		}
	}
	if len(seen) != len(admin.GroupTypes) {
		t.Fatalf("group types in fixtures = %v", seen)
	}
	var walked []string
	page := ""
	for {
		q := "/v1/organizations/rate_limits?limit=3"
		if page != "" {
			q += "&page=" + url.QueryEscape(page)
		}
		p := a.ok(core.Get, q, nil)
		if len(p.Get("data").Array()) == 0 {
			t.Fatalf("empty page: %s", p.Raw)
		}
		for _, e := range p.Get("data").Array() {
			walked = append(walked, e.Raw)
		}
		if p.Get("next_page").Type == gjson.Null {
			break
		}
		page = p.Get("next_page").String()
	}
	var want []string
	for _, e := range all.Get("data").Array() {
		want = append(want, e.Raw)
	}
	if fmt.Sprint(walked) != fmt.Sprint(want) {
		t.Fatalf("paging by 3 gave %d entries, want the %d of one page", len(walked), len(want))
	}
	if got := a.ok(core.Get, "/v1/organizations/rate_limits?limit=8", nil).Get("next_page").Type; got != gjson.Null {
		t.Fatalf("a page holding the last entry has a next_page")
	}
	if got := a.ok(core.Get, "/v1/organizations/rate_limits?group_type=batch", nil).Get("data.#").Int(); got != 1 {
		t.Fatalf("group_type=batch gave %d entries", got)
	}
	if got := a.ok(core.Get, "/v1/organizations/rate_limits?group_type=model_group", nil).Get("data.#").Int(); got != 3 {
		t.Fatalf("group_type=model_group gave %d entries", got)
	}
	for _, m := range []string{"assistant-opus-4-5", "assistant-opus-4-5-20251101", "assistant-opus-4-1"} {
		got := a.ok(core.Get, "/v1/organizations/rate_limits?model="+m, nil)
		if got.Get("data.#").Int() != 1 || got.Get("data.0.models.0").String() != "assistant-opus-4-5-20251101" {
			t.Fatalf("model=%s gave %s", m, got.Raw)
		}
	}
	a.fails(core.Get, "/v1/organizations/rate_limits?model=assistant-no-such-model", nil, http.StatusNotFound, core.ErrNotFound, "assistant-no-such-model")
	a.fails(core.Get, "/v1/organizations/rate_limits?model=assistant-mythos-preview", nil, http.StatusNotFound, core.ErrNotFound, "assistant-mythos-preview")
	// Each organization sees its own limits only; Globex has none for opus.
	globex := a.as("test-admin-key-2").ok(core.Get, "/v1/organizations/rate_limits", nil)
	if globex.Get("data.#").Int() != 2 || globex.Get("data.0.limits.0.value").Int() != 50 {
		t.Fatalf("Globex rate limits = %s", globex.Raw)
	}
	a.as("test-admin-key-2").fails(core.Get, "/v1/organizations/rate_limits?model=assistant-opus-4-5", nil, http.StatusNotFound, core.ErrNotFound, "opus")
	a.fails(core.Get, "/v1/organizations/rate_limits?group_type=gpu", nil, http.StatusBadRequest, core.ErrInvalidRequest, "group_type")
	a.fails(core.Get, "/v1/organizations/rate_limits?limit=0", nil, http.StatusBadRequest, core.ErrInvalidRequest, "limit")
	a.fails(core.Get, "/v1/organizations/rate_limits?page=forged", nil, http.StatusBadRequest, core.ErrInvalidRequest, "page")
	first := a.ok(core.Get, "/v1/organizations/rate_limits?limit=1", nil).Get("next_page").String()
	// A token of one organization's list is refused by another's and by a workspace list.
	a.as("test-admin-key-2").fails(core.Get, "/v1/organizations/rate_limits?page="+url.QueryEscape(first), nil, http.StatusBadRequest, core.ErrInvalidRequest, "page")
	a.fails(core.Get, "/v1/organizations/workspaces/"+acmeResearch+"/rate_limits?page="+url.QueryEscape(first), nil, http.StatusBadRequest, core.ErrInvalidRequest, "page")
}

func TestWorkspaceRateLimits(t *testing.T) {
	a := newAdmin(t)
	got := a.ok(core.Get, "/v1/organizations/workspaces/"+acmeResearch+"/rate_limits", nil)
	want := `{"data":[{"group":{"id":"rlg_390a01bb8afc0cb8d1e0e518","display_name":"assistant-opus-4-5-20251101","type":"model_group"},"type":"workspace_rate_limit","group_type":"model_group","limits":[{"org_limit":4000,"source":{"type":"workspace"},"type":"requests_per_minute","value":1000},{"org_limit":null,"source":{"type":"workspace"},"type":"requests_per_day","value":100000}],"models":["assistant-opus-4-5-20251101","assistant-opus-4-5","assistant-opus-4-1-20250805","assistant-opus-4-1","assistant-opus-4-7","assistant-opus-4-6","assistant-opus-4-20250514"],"rate_limit_id":"rl_8225b91e6f4922e791df028a","workspace_id":"wrkspc_01AcmeResearch0000000001"},` +
		`{"group":{"id":"rlg_ce05afd4574d9598035d9214","type":"batch"},"type":"workspace_rate_limit","group_type":"batch","limits":[{"org_limit":500000,"source":{"type":"workspace"},"type":"batch_requests_in_queue","value":50000}],"models":null,"rate_limit_id":"rl_df1a5cdde2f9148a71081e26","workspace_id":"wrkspc_01AcmeResearch0000000001"}],"next_page":null}`
	if got.Raw != want {
		t.Fatalf("overrides = %s\nwant        %s", got.Raw, want)
	}
	p1 := a.ok(core.Get, "/v1/organizations/workspaces/"+acmeResearch+"/rate_limits?limit=1", nil)
	p2 := a.ok(core.Get, "/v1/organizations/workspaces/"+acmeResearch+"/rate_limits?limit=1&page="+url.QueryEscape(p1.Get("next_page").String()), nil)
	if p1.Get("data.0.group_type").String() != "model_group" || p2.Get("data.0.group_type").String() != "batch" || p2.Get("next_page").Type != gjson.Null {
		t.Fatalf("pages: %s then %s", p1.Raw, p2.Raw)
	}
	if got := a.ok(core.Get, "/v1/organizations/workspaces/"+acmeResearch+"/rate_limits?group_type=batch", nil).Get("data.#").Int(); got != 1 {
		t.Fatalf("group_type=batch gave %d", got)
	}
	for _, ws := range []string{"wrkspc_01AcmeProduction00000001", acmeLegacy} {
		if got := a.ok(core.Get, "/v1/organizations/workspaces/"+ws+"/rate_limits", nil).Raw; got != `{"data":[],"next_page":null}` {
			t.Fatalf("workspace without overrides: %s", got)
		}
	}
	a.fails(core.Get, "/v1/organizations/workspaces/wrkspc_nope/rate_limits", nil, http.StatusNotFound, core.ErrNotFound, "wrkspc_nope")
	a.fails(core.Get, "/v1/organizations/workspaces/"+acmeResearch+"/rate_limits?group_type=x", nil, http.StatusBadRequest, core.ErrInvalidRequest, "group_type")
}

// TestAdminDeterministic: the same requests against two new servers give the same bytes.
func TestAdminDeterministic(t *testing.T) {
	run := func() string {
		a := newAdmin(t)
		var out strings.Builder
		out.WriteString(a.ok(core.Post, "/v1/organizations/invites", map[string]string{"email": "d@new.example", "role": "user"}).Raw)
		out.WriteString(a.ok(core.Post, "/v1/organizations/workspaces", map[string]string{"name": "d"}).Raw)
		out.WriteString(a.ok(core.Get, "/v1/organizations/invites", nil).Raw)
		out.WriteString(a.ok(core.Get, "/v1/organizations/rate_limits?limit=2", nil).Raw)
		return out.String()
	}
	if first, second := run(), run(); first != second {
		t.Fatalf("responses differ:\n%s\n%s", first, second)
	}
}

func TestAdminReset(t *testing.T) {
	a := newAdmin(t)
	a.ok(core.Del, "/v1/organizations/users/"+acmeAlan, nil)
	a.ts.Fake.Reset()
	a.ok(core.Get, "/v1/organizations/users/"+acmeAlan, nil)
}

// TestAdminConcurrent creates, lists and deletes invites and workspaces from many goroutines;
// run with -race. Every create must be listed exactly once afterwards.
func TestAdminConcurrent(t *testing.T) {
	a := newAdmin(t)
	const workers, each = 8, 10
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < each; i++ {
				st, in := a.do(core.Post, "/v1/organizations/invites", map[string]string{"email": fmt.Sprintf("c%d-%d@new.example", w, i), "role": "user"})
				if st != http.StatusOK {
					t.Errorf("create invite: %d %s", st, in.Raw)
					return
				}
				if i%2 == 0 {
					a.do(core.Del, "/v1/organizations/invites/"+in.Get("id").String(), nil)
				}
				a.do(core.Get, "/v1/organizations/invites?limit=5", nil)
				a.do(core.Post, "/v1/organizations/workspaces", map[string]string{"name": "c"})
				a.do(core.Get, "/v1/organizations/workspaces?limit=5", nil)
				a.do(core.Post, "/v1/organizations/users/"+acmeAlan, map[string]string{"role": "user"})
			}
		}()
	}
	wg.Wait()
	invites := idsOf(a.ok(core.Get, "/v1/organizations/invites?limit=1000", nil).Get("data"))
	if want := 4 + workers*each/2; len(invites) != want {
		t.Fatalf("listed %d invites, want %d", len(invites), want)
	}
	if n := len(idsOf(a.ok(core.Get, "/v1/organizations/workspaces?limit=1000", nil).Get("data"))); n != 2+workers*each {
		t.Fatalf("listed %d workspaces, want %d", n, 2+workers*each)
	}
}

// BenchmarkInviteCreateAndList measures a create followed by a first-page list, the usual
// onboarding round trip, as the invite list grows.
func BenchmarkInviteCreateAndList(b *testing.B) {
	a := benchAdmin(b)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		a.ok(core.Post, "/v1/organizations/invites", map[string]string{"email": fmt.Sprintf("b%d@new.example", i), "role": "user"})
		a.ok(core.Get, "/v1/organizations/invites", nil)
	}
}

// BenchmarkAdminParallel measures reads and writes of the administration store from parallel
// clients: the store's one mutex is held only for the lookup and the copy.
func BenchmarkAdminParallel(b *testing.B) {
	a := benchAdmin(b)
	var n atomic.Int64
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			switch i := n.Add(1); i % 4 {
			case 0:
				a.do(core.Post, "/v1/organizations/users/"+acmeAlan, map[string]string{"role": "user"})
			case 1:
				a.do(core.Get, "/v1/organizations/users?limit=5", nil)
			case 2:
				a.do(core.Get, "/v1/organizations/workspaces/"+acmeResearch, nil)
			default:
				a.do(core.Get, "/v1/organizations/rate_limits", nil)
			}
		}
	})
}

func TestAdminFixturesRefused(t *testing.T) {
	org := `{"organizations":[{"id":"org_1","uuid":"3f1c2a9e-5b7d-4e21-9c3a-1d2e3f4a5b6c","name":"A","created_at":"2024-01-01T00:00:00Z","credentials":[]}]}`
	for _, tc := range []struct{ admin, want string }{
		{`{"invites":[{"organization_id":"org_2","id":"invite_x","email":"a@b.c","role":"user","status":"pending","invited_at":"2025-01-01T00:00:00Z"}]}`, "unknown organization org_2"},
		{`{"rate_limits":[{"organization_id":"org_1","group_type":"model_group","models":null,"limits":[{"type":"rpm","value":1}]}]}`, "models must be a non-empty list"},
		{`{"rate_limits":[{"organization_id":"org_1","group_type":"batch","models":["m"],"limits":[{"type":"rpm","value":1}]}]}`, "models must be a non-empty list"},
		{`{"workspace_rate_limits":[{"workspace_id":"wrkspc_nope","group_type":"batch","limits":[{"type":"rpm","value":1}]}]}`, "unknown workspace wrkspc_nope"},
		{`{"workspaces":[{"organization_id":"org_1","id":"wrkspc_a","name":"A","created_at":"2024-01-01T00:00:00Z","archived_at":null,"display_color":"#000000","tags":{},
			"data_residency":{"workspace_geo":"us","allowed_inference_geos":"unrestricted","default_inference_geo":"global"}}],
		  "workspace_rate_limits":[{"workspace_id":"wrkspc_a","group_type":"batch","limits":[{"type":"rpm","value":1}]}]}`, "which its organization does not have"},
		{`{"invites":[{"organization_id":"org_1","id":"invite_x","email":"a@b.c","role":"user","status":"expired","invited_at":"2025-01-01T00:00:00Z"}]}`, "invites.0.status"},
	} {
		_, err := core.LoadFixtures(fstest.MapFS{"organizations.json": {Data: []byte(org)}, "admin.json": {Data: []byte(tc.admin)}})
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("LoadFixtures(%s) = %v, want an error mentioning %q", tc.admin, err, tc.want)
		}
	}
}

// TestAdminListFilters: the SDKs' filters of the invite list (email, roles, statuses) and of the
// user list (roles) narrow the lists; an unknown value is a 400 naming the parameter.
func TestAdminListFilters(t *testing.T) {
	a := newAdmin(t)
	ids := func(path string) string {
		var out []string
		for _, e := range a.ok(core.Get, path, nil).Get("data").Array() {
			out = append(out, e.Get("id").String())
		}
		return strings.Join(out, " ")
	}
	all := ids("/v1/organizations/invites?limit=1000")
	if got := ids("/v1/organizations/invites?statuses[]=accepted"); got != "invite_01AcmeAcceptedNoether0001" {
		t.Fatalf("statuses=accepted: %q (all: %q)", got, all)
	}
	if got := ids("/v1/organizations/invites?statuses=expired"); got != "invite_01AcmeExpiredKnuth000001" {
		t.Fatalf("statuses=expired (a pending invite past its expiry): %q", got)
	}
	if got := ids("/v1/organizations/invites?statuses=accepted,expired&limit=1000"); got != "invite_01AcmeAcceptedNoether0001 invite_01AcmeExpiredKnuth000001" &&
		got != "invite_01AcmeExpiredKnuth000001 invite_01AcmeAcceptedNoether0001" {
		t.Fatalf("statuses=accepted,expired: %q", got)
	}
	created := a.ok(core.Post, "/v1/organizations/invites", map[string]string{"email": "Filter.Me@acme.example", "role": "billing"}).Get("id").String()
	if got := ids("/v1/organizations/invites?email=filter.me@ACME.example"); got != created {
		t.Fatalf("email filter: %q, want %s", got, created)
	}
	if got := ids("/v1/organizations/invites?roles=billing&statuses=pending"); !strings.Contains(got, created) {
		t.Fatalf("roles=billing&statuses=pending: %q lacks %s", got, created)
	}
	for _, e := range a.ok(core.Get, "/v1/organizations/users?roles[]=developer&roles[]=admin&limit=1000", nil).Get("data").Array() {
		if r := e.Get("role").String(); r != "developer" && r != "admin" {
			t.Fatalf("roles=developer,admin listed a %s", r)
		}
	}
	if n := a.ok(core.Get, "/v1/organizations/users?roles=admin", nil).Get("data.#").Int(); n == 0 {
		t.Fatalf("roles=admin listed nobody")
	}
	a.fails(core.Get, "/v1/organizations/invites?statuses=deleted", nil, http.StatusBadRequest, core.ErrInvalidRequest, "statuses")
	a.fails(core.Get, "/v1/organizations/invites?roles=owner", nil, http.StatusBadRequest, core.ErrInvalidRequest, "roles")
	a.fails(core.Get, "/v1/organizations/users?roles=owner", nil, http.StatusBadRequest, core.ErrInvalidRequest, "roles")
	a.fails(core.Get, "/v1/organizations/workspaces?include_default=maybe", nil, http.StatusBadRequest, core.ErrInvalidRequest, "include_default")
	if a.ok(core.Get, "/v1/organizations/workspaces?include_default=true", nil).Raw != a.ok(core.Get, "/v1/organizations/workspaces", nil).Raw {
		t.Fatalf("include_default changed the list")
	}
}
