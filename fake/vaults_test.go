package fake

import (
	"net/http"
	"strings"
	"testing"

	"github.com/platformkit/platformkit/fake/internal/core"
)

// The expected values come from the official Python SDK 2.14.0's vault types
// (types/beta/vault_*.py, types/beta/vaults/*): a vault's fields, the metadata patch, the
// credential's auth answered without its secrets, the deletion objects and the validation.

func TestVaultsLifecycle(t *testing.T) {
	ts := NewTestServer(t)
	api := apiClient(t, ts)
	v := api.ok("POST", "/v1/vaults", map[string]any{"display_name": "prod", "metadata": map[string]any{"team": "a", "tier": "1"}})
	id := v.get("id").String()
	if !strings.HasPrefix(id, "vlt_") || v.get("type").String() != "vault" || v.get("archived_at").Type != 0 || v.get("metadata.team").String() != "a" {
		t.Fatalf("vault = %s", v.body)
	}
	api.ok("POST", "/v1/vaults", map[string]any{"display_name": "second"})
	up := api.ok("POST", "/v1/vaults/"+id, map[string]any{"display_name": "production", "metadata": map[string]any{"team": nil, "owner": "b"}})
	if up.get("display_name").String() != "production" || up.get("metadata").Raw != `{"owner":"b","tier":"1"}` {
		t.Errorf("update = %s, want the name changed and metadata patched", up.body)
	}
	page := api.ok("GET", "/v1/vaults?limit=1", nil)
	if page.get("data.0.display_name").String() != "second" || page.get("next_page").String() == "" {
		t.Errorf("first page = %s, want the newest and a next_page", page.body)
	}
	if r := api.do("POST", "/v1/vaults", map[string]any{}); r.status != http.StatusBadRequest || !strings.HasPrefix(r.get("error.message").String(), "display_name") {
		t.Errorf("no display_name = %d %s, want 400 naming it", r.status, r.body)
	}
	if r := (&workClient{t, ts, "X-Api-Key", "test-api-key-2"}).do("GET", "/v1/vaults/"+id, nil); r.status != http.StatusNotFound {
		t.Errorf("another organization's vault = %d, want 404", r.status)
	}

	creds := "/v1/vaults/" + id + "/credentials"
	bearer := api.ok("POST", creds, map[string]any{"display_name": "docs", "auth": map[string]any{"type": "static_bearer", "mcp_server_url": "https://mcp.example.com", "token": "sk-secret"}})
	if strings.Contains(string(bearer.body), "sk-secret") || bearer.get("auth.mcp_server_url").String() != "https://mcp.example.com" ||
		!strings.HasPrefix(bearer.get("id").String(), "vcrd_") || bearer.get("vault_id").String() != id {
		t.Errorf("credential = %s, want the auth without its token", bearer.body)
	}
	oauth := api.ok("POST", creds, map[string]any{"auth": map[string]any{"type": "mcp_oauth", "mcp_server_url": "https://mcp.example.com/o", "access_token": "at-secret",
		"refresh": map[string]any{"client_id": "c", "refresh_token": "rt-secret", "token_endpoint": "https://auth.example.com/token", "token_endpoint_auth": map[string]any{"type": "client_secret_post", "client_secret": "cs-secret"}}}})
	if b := string(oauth.body); strings.Contains(b, "-secret") || oauth.get("auth.refresh.client_id").String() != "c" || oauth.get("auth.refresh.token_endpoint_auth.type").String() != "client_secret_post" {
		t.Errorf("oauth credential = %s, want refresh without its secrets", b)
	}
	env := api.ok("POST", creds, map[string]any{"auth": map[string]any{"type": "environment_variable", "secret_name": "API_TOKEN", "secret_value": "v-secret", "networking": map[string]any{"type": "unrestricted"}}})
	if strings.Contains(string(env.body), "v-secret") || env.get("auth.secret_name").String() != "API_TOKEN" || !env.get("auth.injection_location.header").Exists() {
		t.Errorf("environment variable credential = %s", env.body)
	}
	cpath := creds + "/" + env.get("id").String()
	if r := api.do("POST", cpath, map[string]any{"auth": map[string]any{"type": "static_bearer", "token": "x"}}); r.status != 400 || !strings.HasPrefix(r.get("error.message").String(), "auth.type") {
		t.Errorf("changing the auth type = %d %s, want 400 naming auth.type", r.status, r.body)
	}
	if r := api.do("POST", cpath, map[string]any{"auth": map[string]any{"type": "environment_variable", "secret_name": "OTHER"}}); r.status != 400 || !strings.HasPrefix(r.get("error.message").String(), "auth.secret_name") {
		t.Errorf("changing secret_name = %d %s, want 400 naming auth.secret_name", r.status, r.body)
	}
	val := api.ok("POST", creds+"/"+oauth.get("id").String()+"/mcp_oauth_validate", nil)
	if val.get("type").String() != "vault_credential_validation" || !val.get("has_refresh_token").Bool() {
		t.Errorf("validation = %s", val.body)
	}
	if r := api.do("POST", creds+"/"+bearer.get("id").String()+"/mcp_oauth_validate", nil); r.status != 400 {
		t.Errorf("validating a static bearer = %d, want 400", r.status)
	}
	if n := api.ok("GET", creds, nil).get("data.#").Int(); n != 3 {
		t.Errorf("%d credentials listed, want 3", n)
	}
	del := api.ok("DELETE", creds+"/"+bearer.get("id").String(), nil)
	if del.get("type").String() != "vault_credential_deleted" {
		t.Errorf("credential delete = %s", del.body)
	}
	api.ok("POST", "/v1/vaults/"+id+"/archive", nil)
	if r := api.do("POST", creds, map[string]any{"auth": map[string]any{"type": "static_bearer", "mcp_server_url": "https://x", "token": "t"}}); r.status != 400 {
		t.Errorf("a credential in an archived vault = %d, want 400", r.status)
	}
	if archived := api.ok("GET", creds+"/"+oauth.get("id").String(), nil); archived.get("archived_at").Type == 0 {
		t.Errorf("archiving the vault left its credential live: %s", archived.body)
	}
	if api.ok("DELETE", "/v1/vaults/"+id, nil).get("type").String() != "vault_deleted" || api.do("GET", creds, nil).status != 404 {
		t.Errorf("the deleted vault is still there")
	}
}

// The vaults of a server keep at most vaults.MaxVaults, the fixtures' included; the next is
// refused with a 400, and a deleted one makes room.
func TestVaultCountIsBounded(t *testing.T) {
	ts := NewTestServer(t)
	api := apiClient(t, ts)
	const inFixtures = 1 // Globex's "Support tools" of the default data set
	var last string
	for i := inFixtures; i < 1000; i++ {
		last = api.ok("POST", "/v1/vaults", map[string]any{"display_name": "v"}).get("id").String()
	}
	if r := api.do("POST", "/v1/vaults", map[string]any{"display_name": "one too many"}); r.status != http.StatusBadRequest {
		t.Fatalf("vault 1001 = %d %s, want 400", r.status, r.body)
	}
	api.ok("DELETE", "/v1/vaults/"+last, nil)
	api.ok("POST", "/v1/vaults", map[string]any{"display_name": "again"})
}

// A reset forgets the vaults and skills a test made, and gives their bytes back to the budget
// every namespace shares.
func TestVaultsAndSkillsReset(t *testing.T) {
	ts := NewTestServer(t)
	api := apiClient(t, ts)
	vault := api.ok("POST", "/v1/vaults", map[string]any{"display_name": "v"}).get("id").String()
	skill := skillUpload(t, ts, "/v1/skills", core.DefaultAPIKey, [][2]string{{"greeting/SKILL.md", skillMD}}).get("id").String()
	ts.Fake.Reset()
	if r := api.do("GET", "/v1/vaults/"+vault, nil); r.status != http.StatusNotFound {
		t.Errorf("a vault after reset = %d, want 404", r.status)
	}
	if r := api.do("GET", "/v1/skills/"+skill, nil); r.status != http.StatusNotFound {
		t.Errorf("a skill after reset = %d, want 404", r.status)
	}
	if n := api.ok("GET", "/v1/vaults", nil).get("data.#").Int() + api.ok("GET", "/v1/skills", nil).get("data.#").Int(); n != 0 {
		t.Errorf("%d vaults and skills listed after reset, want none", n)
	}
}

// An mcp_oauth credential's refresh is changed by a patch (the SDK's
// MCPOAuthRefreshUpdateParams: refresh_token, scope, token_endpoint_auth), which keeps the
// fields it does not name and never shows the secrets; null removes the refresh.
func TestVaultCredentialRefreshPatch(t *testing.T) {
	ts := NewTestServer(t)
	api := apiClient(t, ts)
	creds := "/v1/vaults/" + api.ok("POST", "/v1/vaults", map[string]any{"display_name": "v"}).get("id").String() + "/credentials"
	id := api.ok("POST", creds, map[string]any{"auth": map[string]any{"type": "mcp_oauth", "mcp_server_url": "https://mcp.example.com", "access_token": "at-secret",
		"refresh": map[string]any{"client_id": "c", "refresh_token": "rt-secret", "token_endpoint": "https://auth.example.com/token", "scope": "read",
			"token_endpoint_auth": map[string]any{"type": "client_secret_basic", "client_secret": "cs-secret"}}}}).get("id").String()
	up := api.ok("POST", creds+"/"+id, map[string]any{"auth": map[string]any{"type": "mcp_oauth", "refresh": map[string]any{"scope": "write", "refresh_token": "rt2-secret"}}})
	if b := string(up.body); strings.Contains(b, "-secret") || up.get("auth.refresh.scope").String() != "write" || up.get("auth.refresh.client_id").String() != "c" ||
		up.get("auth.refresh.token_endpoint_auth.type").String() != "client_secret_basic" {
		t.Errorf("after a refresh patch: %s, want scope write, the rest kept, no secret shown", b)
	}
	if !api.ok("POST", creds+"/"+id+"/mcp_oauth_validate", nil).get("has_refresh_token").Bool() {
		t.Errorf("the patched refresh lost its token")
	}
	gone := api.ok("POST", creds+"/"+id, map[string]any{"auth": map[string]any{"type": "mcp_oauth", "refresh": nil}})
	if gone.get("auth.refresh").Type != 0 || api.ok("POST", creds+"/"+id+"/mcp_oauth_validate", nil).get("has_refresh_token").Bool() {
		t.Errorf("a null refresh = %s, want it removed", gone.body)
	}
	if r := api.do("POST", creds+"/"+id, map[string]any{"auth": map[string]any{"type": "mcp_oauth", "refresh": map[string]any{"scope": "x"}}}); r.status != 400 || !strings.HasPrefix(r.get("error.message").String(), "auth.refresh") {
		t.Errorf("patching an absent refresh = %d %s, want 400 naming auth.refresh", r.status, r.body)
	}
}
