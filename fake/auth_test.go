package fake

import (
	"net/textproto"
	"testing"

	"github.com/platformkit/platformkit/fake/internal/core"
)

// TestKeyInterfacesTakeBearer covers gaps §2: every interface that reads X-Api-Key also takes
// the same key as "Authorization: Bearer <key>", X-Api-Key decides when both are sent, and a
// valid credential of another kind is still refused with 403 naming the headers to use. The
// journal tells which header carried the accepted credential.
func TestKeyInterfacesTakeBearer(t *testing.T) {
	countTokens := `{"model":"` + testModel + `","messages":[{"role":"user","content":"hi"}]}`
	complete := `{"model":"` + testModel + `","max_tokens_to_sample":8,"prompt":"\n\nHuman: hi\n\nAssistant:"}`
	for _, ifc := range []struct {
		name         string
		method, path string
		body         string
		key, other   string   // the interface's key, and a valid credential of another kind
		extra        []string // headers the interface requires besides the credential
	}{
		{"models", "GET", "/v1/models", "", "test-api-key", "test-compliance-key", nil},
		{"messages", "POST", "/v1/messages/count_tokens", countTokens, "test-api-key", "test-admin-key", nil},
		{"completions", "POST", "/v1/complete", complete, "test-api-key", "test-bearer-token", nil},
		{"memory stores", "GET", "/v1/memory_stores", "", "test-api-key", "test-admin-key", nil},
		{"environments", "GET", "/v1/environments", "", "test-api-key", "test-environment-key", nil},
		{"work queue", "GET", "/v1/environments/" + acmePrimary + "/work/stats", "", "test-api-key", "test-admin-key", nil},
		{"administration", "GET", "/v1/organizations/me", "", "test-admin-key", "test-api-key", nil},
		// /v1/tunnels reads X-Api-Key (an admin key) as well as its bearer token: X-Api-Key decides.
		{"tunnels API", "GET", "/v1/tunnels", "", "test-admin-key", "test-api-key", []string{"vendor-beta", core.TunnelsAPIBeta}},
	} {
		for _, tc := range []struct {
			name       string
			header     []string
			status     int
			typ, msg   string
			credHeader string // in the journal
		}{
			{"X-Api-Key", []string{"X-Api-Key", ifc.key}, 200, "", "", "x-api-key"},
			{"Bearer", []string{"Authorization", "Bearer " + ifc.key}, 200, "", "", "authorization"},
			{"lower-case bearer scheme", []string{"Authorization", "bearer " + ifc.key}, 200, "", "", "authorization"},
			{"both, both right", []string{"X-Api-Key", ifc.key, "Authorization", "Bearer " + ifc.key}, 200, "", "", "x-api-key"},
			{"both, Bearer wrong", []string{"X-Api-Key", ifc.key, "Authorization", "Bearer nope"}, 200, "", "", "x-api-key"},
			{"both, X-Api-Key wrong: X-Api-Key decides", []string{"X-Api-Key", "nope", "Authorization", "Bearer " + ifc.key}, 401, core.ErrAuthentication, "invalid x-api-key", ""},
			{"both, X-Api-Key of another kind", []string{"X-Api-Key", ifc.other, "Authorization", "Bearer " + ifc.key}, 403, core.ErrPermission, `"X-Api-Key: <key>"`, ""},
			{"Bearer of another kind", []string{"Authorization", "Bearer " + ifc.other}, 403, core.ErrPermission, `"X-Api-Key: <key>" or "Authorization: Bearer <token>"`, ""},
			{"Bearer unknown", []string{"Authorization", "Bearer nope"}, 401, core.ErrAuthentication, "invalid authorization", ""},
		} {
			t.Run(ifc.name+"/"+tc.name, func(t *testing.T) {
				s := checked(t)
				w := send(t, s, ifc.method, ifc.path, ifc.body, append(append(tc.header, ifc.extra...), "vendor-version", core.APIVersion, "Content-Type", "application/json")...)
				if tc.status == 200 {
					if w.Code != 200 {
						t.Fatalf("status = %d, want 200: %s", w.Code, w.Body)
					}
				} else {
					wantError(t, w, tc.status, tc.typ, tc.msg)
				}
				j := s.Journal()
				if len(j) != 1 {
					t.Fatalf("journal holds %d entries, want 1", len(j))
				}
				if got := j[0].CredentialHeader; got != tc.credHeader {
					t.Errorf("journal credential_header = %q, want %q", got, tc.credHeader)
				}
				if _, leaked := j[0].Headers["authorization"]; leaked {
					t.Errorf("the journal records the Authorization header")
				}
			})
		}
	}
}

// TestBearerOnlyInterfacesIgnoreXAPIKey: compliance and tunnels read Authorization only, so an
// X-Api-Key beside it changes nothing (spec 5 lists an optional x-api-key on compliance), and a
// credential of theirs sent as X-Api-Key is refused with 403 naming the right header.
func TestBearerOnlyInterfacesIgnoreXAPIKey(t *testing.T) {
	s := checked(t)
	w := send(t, s, "GET", "/v1/compliance/apps/projects", "", "Authorization", "Bearer test-compliance-key", "X-Api-Key", "nope")
	if w.Code != 200 {
		t.Fatalf("compliance with an extra X-Api-Key: status %d: %s", w.Code, w.Body)
	}
	w = send(t, s, "GET", "/v1/compliance/apps/projects", "", "X-Api-Key", "test-compliance-key")
	wantError(t, w, 403, core.ErrPermission, `goes in another header here; use the header "Authorization: Bearer <token>"`)
	w = send(t, s, "GET", "/v1/organizations/tunnels", "", "X-Api-Key", "test-api-key", "vendor-version", core.APIVersion, "vendor-beta", "mcp-tunnels-2026-05-19")
	wantError(t, w, 403, core.ErrPermission, "tunnels interface does not accept an API key")
}

// TestWorkKeysInBothHeaders: on the work endpoints an environment key is read from
// Authorization, and X-Api-Key, when present, decides before it.
func TestWorkKeysInBothHeaders(t *testing.T) {
	s := checked(t)
	stats := "/v1/environments/" + acmePrimary + "/work/stats"
	if w := send(t, s, "GET", stats, "", "Authorization", "Bearer test-environment-key", "vendor-version", core.APIVersion); w.Code != 200 {
		t.Fatalf("environment key as Bearer: status %d: %s", w.Code, w.Body)
	}
	w := send(t, s, "GET", stats, "", "X-Api-Key", "test-environment-key", "vendor-version", core.APIVersion)
	wantError(t, w, 403, core.ErrPermission, "an environment key goes in another header here")
	w = send(t, s, "GET", stats, "", "X-Api-Key", "nope", "Authorization", "Bearer test-environment-key", "vendor-version", core.APIVersion)
	wantError(t, w, 401, core.ErrAuthentication, "invalid x-api-key")
}

// TestTunnelsAPIXApiKeyDecides: /v1/tunnels takes the workload-identity token in Authorization
// and the admin key in either header; X-Api-Key, when present, decides before Authorization, as
// on every interface that reads it (issue 47, item 12: a wrong X-Api-Key beside the right bearer
// token was answered 200).
func TestTunnelsAPIXApiKeyDecides(t *testing.T) {
	s := checked(t)
	hs := []string{"vendor-version", core.APIVersion, "vendor-beta", core.TunnelsAPIBeta}
	w := send(t, s, "GET", "/v1/tunnels", "", append([]string{"X-Api-Key", "nope", "Authorization", "Bearer " + core.DefaultBearerToken}, hs...)...)
	wantError(t, w, 401, core.ErrAuthentication, "invalid x-api-key")
	w = send(t, s, "GET", "/v1/tunnels", "", append([]string{"X-Api-Key", core.DefaultAPIKey, "Authorization", "Bearer " + core.DefaultBearerToken}, hs...)...)
	wantError(t, w, 403, core.ErrPermission, "does not accept an API key")
	if w := send(t, s, "GET", "/v1/tunnels", "", append([]string{"X-Api-Key", core.DefaultAdminKey, "Authorization", "Bearer nope"}, hs...)...); w.Code != 200 {
		t.Fatalf("right admin X-Api-Key, wrong bearer: status %d: %s", w.Code, w.Body)
	}
	if w := send(t, s, "GET", "/v1/tunnels", "", append([]string{"Authorization", "Bearer " + core.DefaultBearerToken}, hs...)...); w.Code != 200 {
		t.Fatalf("the bearer token alone: status %d: %s", w.Code, w.Body)
	}
}

// TestHeaderNamesAreCanonical: the headers read with headerOf, which looks a name up without
// canonicalising it, are written in canonical form; a name that is not would never be found.
func TestHeaderNamesAreCanonical(t *testing.T) {
	names := append([]string{core.HeaderAPIKey, core.HeaderAuthorization, core.HeaderVendorVersion, core.HeaderAnthropicVersion,
		core.HeaderRetryCount, core.NamespaceHeader}, core.BetaHeaders...)
	for _, n := range names {
		if c := textproto.CanonicalMIMEHeaderKey(n); c != n {
			t.Errorf("%q is not canonical: %q", n, c)
		}
	}
}
