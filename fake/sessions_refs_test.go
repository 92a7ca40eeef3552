package fake

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/platformkit/platformkit/fake/internal/core"
)

// uploadCSV uploads a small text file with key and answers its ID.
func uploadCSV(t *testing.T, ts *TestServer, key, name string, more ...part) string {
	return uploadAs(t, ts, key, name, "text/plain", []byte("a,b\n1,2\n"), more...)
}

// A file resource must be the caller's live file (the reference: sessions take a file_id in
// resources[], and an unknown file ID is 404, an expired one 404 file_expired): unknown, deleted,
// another workspace's or organization's file is 404 naming the resource's file_id, an expired one
// 404 with error_code file_expired; a valid one is listed among the session's resources.
func TestSessionFileResources(t *testing.T) {
	ts := NewTestServer(t)
	api := apiClient(t, ts)
	agent := newAgent(t, api, "")
	good := uploadCSV(t, ts, core.DefaultAPIKey, "data.csv")
	deleted := uploadCSV(t, ts, core.DefaultAPIKey, "gone.csv")
	api.ok("DELETE", "/v1/files/"+deleted, nil)
	expiring := uploadCSV(t, ts, core.DefaultAPIKey, "soon.csv", part{"expires_in_seconds", "", "", []byte("3600")})
	research := uploadCSV(t, ts, "test-api-key-research", "research.csv")
	other := uploadCSV(t, ts, core.DefaultAPIKey+core.SecondOrganizationSuffix, "other.csv")
	ts.Fake.AdvanceClock(time.Hour)
	create := func(id string) reply {
		return api.do("POST", "/v1/sessions", map[string]any{"agent": agent, "environment_id": acmeStaging,
			"resources": []any{map[string]any{"type": "memory_store", "memory_store_id": "memstore_01prefs"}, map[string]any{"type": "file", "file_id": id}}})
	}
	for name, tc := range map[string]struct {
		id, code string
	}{
		"unknown": {"file_nope", ""}, "deleted": {deleted, ""}, "expired": {expiring, "file_expired"},
		"another workspace": {research, ""}, "another organization": {other, ""},
	} {
		r := create(tc.id)
		if r.status != http.StatusNotFound || r.get("error.type").String() != "not_found_error" ||
			!strings.HasPrefix(r.get("error.message").String(), "resources.1.file_id: ") || r.get("error.details.error_code").String() != tc.code {
			t.Errorf("%s file: %d %s, want 404 naming resources.1.file_id with error_code %q", name, r.status, r.body, tc.code)
		}
	}
	s := create(good)
	if s.status != http.StatusOK {
		t.Fatalf("a valid file: %d %s", s.status, s.body)
	}
	list := api.ok("GET", "/v1/sessions/"+s.get("id").String()+"/resources", nil)
	if got := list.get(`data.#(type=="file").file_id`).String(); got != good {
		t.Errorf("resources = %s, want the file %s listed", list.body, good)
	}
	if r := api.do("POST", "/v1/sessions/"+s.get("id").String()+"/resources", map[string]any{"type": "file", "file_id": expiring}); r.status != 404 || r.get("error.details.error_code").String() != "file_expired" {
		t.Errorf("adding an expired file: %d %s, want 404 file_expired", r.status, r.body)
	}
}

// A session's vault_ids must be the caller's live vaults: unknown, another workspace's, or
// archived is 400 naming its place in vault_ids; valid ones are echoed.
func TestSessionVaultIDs(t *testing.T) {
	ts := NewTestServer(t)
	api := apiClient(t, ts)
	research := &workClient{t, ts, "X-Api-Key", "test-api-key-research"}
	agent := newAgent(t, api, "")
	mine := api.ok("POST", "/v1/vaults", map[string]any{"display_name": "mine"}).get("id").String()
	archived := api.ok("POST", "/v1/vaults", map[string]any{"display_name": "old"}).get("id").String()
	api.ok("POST", "/v1/vaults/"+archived+"/archive", nil)
	theirs := research.ok("POST", "/v1/vaults", map[string]any{"display_name": "research"}).get("id").String()
	for name, id := range map[string]string{"unknown": "vlt_nope", "archived": archived, "another workspace": theirs} {
		r := api.do("POST", "/v1/sessions", map[string]any{"agent": agent, "environment_id": acmeStaging, "vault_ids": []any{mine, id}})
		if r.status != http.StatusBadRequest || !strings.HasPrefix(r.get("error.message").String(), "vault_ids.1: ") {
			t.Errorf("%s vault: %d %s, want 400 naming vault_ids.1", name, r.status, r.body)
		}
	}
	s := api.ok("POST", "/v1/sessions", map[string]any{"agent": agent, "environment_id": acmeStaging, "vault_ids": []any{mine}})
	if got := s.get("vault_ids").Raw; got != `["`+mine+`"]` {
		t.Errorf("vault_ids = %s, want [%s]", got, mine)
	}
}
