package fake

import (
	"bytes"
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/platformkit/platformkit/fake/internal/areas/tunnels"

	"github.com/platformkit/platformkit/fake/internal/areas/memory"

	"github.com/platformkit/platformkit/fake/internal/core"

	"github.com/tidwall/gjson"

	"github.com/platformkit/platformkit/conformance/certgen"
)

// The records of administration and tunnels are encoded once per change (recordJSON) and their
// bytes spliced into list pages and answered by single reads. These tests change a record after
// it was read and require the change in the next list page and single read, with the values
// worked out by hand: bytes kept past a change would answer the old ones.

// TestUserListAfterRoleChange: a role change shows in the list and in a read.
func TestUserListAfterRoleChange(t *testing.T) {
	a := newAdmin(t)
	role := func() (listed, read string) {
		t.Helper()
		listed = a.ok("GET", "/v1/organizations/users?limit=100", nil).Get(`data.#(id=="` + acmeAlan + `").role`).String()
		return listed, a.ok("GET", "/v1/organizations/users/"+acmeAlan, nil).Get("role").String()
	}
	if l, r := role(); l != "user" || r != "user" {
		t.Fatalf("before: listed %q, read %q; want user", l, r)
	}
	if got := a.ok("POST", "/v1/organizations/users/"+acmeAlan, map[string]string{"role": "billing"}).Get("role").String(); got != "billing" {
		t.Fatalf("the update answers role %q, want billing", got)
	}
	if l, r := role(); l != "billing" || r != "billing" {
		t.Fatalf("after the update: listed %q, read %q; want billing", l, r)
	}
}

// TestInviteListFollowsTheClockAndDeletes: an invite read while pending reads expired once the
// clock passes its expiry (21 days), in the list and alone; a deleted one reads deleted.
func TestInviteListFollowsTheClockAndDeletes(t *testing.T) {
	a := newAdmin(t)
	id := a.ok("POST", "/v1/organizations/invites", map[string]string{"email": "cached@acme.example", "role": "user"}).Get("id").String()
	status := func() (listed, read string) {
		t.Helper()
		listed = a.ok("GET", "/v1/organizations/invites?limit=100", nil).Get(`data.#(id=="` + id + `").status`).String()
		return listed, a.ok("GET", "/v1/organizations/invites/"+id, nil).Get("status").String()
	}
	if l, r := status(); l != "pending" || r != "pending" {
		t.Fatalf("when created: listed %q, read %q; want pending", l, r)
	}
	a.ts.Fake.AdvanceClock(21*24*time.Hour - time.Second)
	if l, r := status(); l != "pending" || r != "pending" {
		t.Fatalf("a second before expiry: listed %q, read %q; want pending", l, r)
	}
	a.ts.Fake.AdvanceClock(time.Second)
	if l, r := status(); l != "expired" || r != "expired" {
		t.Fatalf("at expiry: listed %q, read %q; want expired", l, r)
	}

	del := a.ok("POST", "/v1/organizations/invites", map[string]string{"email": "deleted@acme.example", "role": "user"}).Get("id").String()
	if got := a.ok("GET", "/v1/organizations/invites/"+del, nil).Get("status").String(); got != "pending" {
		t.Fatalf("a new invite reads %q", got)
	}
	a.ok("DELETE", "/v1/organizations/invites/"+del, nil)
	if got := a.ok("GET", "/v1/organizations/invites/"+del, nil).Get("status").String(); got != "deleted" {
		t.Fatalf("a deleted invite reads %q, want deleted", got)
	}
	if a.ok("GET", "/v1/organizations/invites?limit=100", nil).Get(`data.#(id=="` + del + `")`).Exists() {
		t.Fatal("a deleted invite is still listed")
	}
}

// TestWorkspaceListByBetaAndChange: inference_data_privacy is answered only to requests that
// send EFSBeta, whichever kind of request encoded the record first; a rename and an archive
// show in the next page.
func TestWorkspaceListByBetaAndChange(t *testing.T) {
	a := newAdmin(t)
	list := func(beta bool) gjson.Result {
		t.Helper()
		h := []string{"X-Api-Key", a.key, "vendor-version", core.APIVersion}
		if beta {
			h = append(h, "vendor-beta", EFSBeta)
		}
		status, _, body, err := roundTrip(context.Background(), a.ts, "GET", "/v1/organizations/workspaces?include_archived=true&limit=100", nil, h...)
		if err != nil || status != http.StatusOK {
			t.Fatalf("list: %d %s %v", status, body, err)
		}
		return gjson.ParseBytes(bytes.TrimSpace(body)).Get(`data.#(id=="` + acmeResearch + `")`)
	}
	for _, beta := range []bool{false, true, false, true} {
		got := list(beta).Get("inference_data_privacy.human_review.type")
		if beta && got.String() != "enabled" || !beta && got.Exists() {
			t.Fatalf("with the beta %v: inference_data_privacy.human_review.type = %s", beta, got.Raw)
		}
	}
	a.ok("POST", "/v1/organizations/workspaces/"+acmeResearch, map[string]string{"name": "Renamed"})
	if got := list(false).Get("name").String(); got != "Renamed" {
		t.Fatalf("listed name %q after the rename, want Renamed", got)
	}
	a.ts.Fake.AdvanceClock(time.Minute)
	a.ok("POST", "/v1/organizations/workspaces/"+acmeResearch+"/archive", nil)
	if got := list(true).Get("archived_at").String(); got != "2026-01-01T00:01:00Z" {
		t.Fatalf("listed archived_at %q after archiving, want 2026-01-01T00:01:00Z", got)
	}
}

// TestTunnelListAfterChange: a tunnel's new display name and its archival, and its
// certificate's archival, show in the next list page and read.
func TestTunnelListAfterChange(t *testing.T) {
	tc := apiTunnels(t)
	var tn tunnels.Tunnel
	tc.ok(http.MethodPost, "/v1/tunnels", map[string]any{"display_name": "first"}, &tn)
	field := func(path, id, name string) (listed, read string) {
		t.Helper()
		l := gjson.GetBytes(tc.do(http.MethodGet, path+"?include_archived=true&limit=100", nil).body, `data.#(id=="`+id+`").`+name)
		return l.String(), gjson.GetBytes(tc.do(http.MethodGet, path+"/"+id, nil).body, name).String()
	}
	if l, r := field("/v1/tunnels", tn.ID, "display_name"); l != "first" || r != "first" {
		t.Fatalf("created: listed %q, read %q; want first", l, r)
	}
	tc.ok(http.MethodPost, "/v1/tunnels/"+tn.ID, map[string]any{"display_name": "second"}, nil)
	if l, r := field("/v1/tunnels", tn.ID, "display_name"); l != "second" || r != "second" {
		t.Fatalf("renamed: listed %q, read %q; want second", l, r)
	}
	certs := "/v1/tunnels/" + tn.ID + "/certificates"
	var c1, c2 tunnels.TunnelCertificate
	tc.ok(http.MethodPost, certs, map[string]string{"ca_certificate_pem": certgen.CA("one").PEM}, &c1)
	tc.ok(http.MethodPost, certs, map[string]string{"ca_certificate_pem": certgen.CA("two").PEM}, &c2)
	if l, r := field(certs, c1.ID, "archived_at"); l != "" || r != "" {
		t.Fatalf("a new certificate: listed archived_at %q, read %q; want null", l, r)
	}
	tc.ts.Fake.AdvanceClock(time.Minute)
	tc.ok(http.MethodPost, certs+"/"+c1.ID+"/archive", nil, nil)
	if l, r := field(certs, c1.ID, "archived_at"); l != "2026-01-01T00:01:00Z" || r != l {
		t.Fatalf("an archived certificate: listed archived_at %q, read %q; want 2026-01-01T00:01:00Z", l, r)
	}
	if l, r := field(certs, c2.ID, "archived_at"); l != "" || r != "" {
		t.Fatalf("before the tunnel's archival: listed archived_at %q, read %q; want null", l, r)
	}
	tc.ts.Fake.AdvanceClock(time.Minute)
	tc.ok(http.MethodPost, "/v1/tunnels/"+tn.ID+"/archive", nil, nil)
	if l, r := field("/v1/tunnels", tn.ID, "archived_at"); l != "2026-01-01T00:02:00Z" || r != l {
		t.Fatalf("an archived tunnel: listed archived_at %q, read %q; want 2026-01-01T00:02:00Z", l, r)
	}
	// Archival cascades to the certificate still active, at the same instant.
	if l, r := field(certs, c2.ID, "archived_at"); l != "2026-01-01T00:02:00Z" || r != l {
		t.Fatalf("a certificate of the archived tunnel: listed archived_at %q, read %q; want 2026-01-01T00:02:00Z", l, r)
	}
}

// TestStoreRecordEncodesAsEncodingJSON: a memory store's record, written field by field, is
// the bytes encoding/json writes for it, escapes, key order, zones and nil fields included, and
// a time RFC 3339 cannot hold is refused as encoding/json refuses it.
func TestStoreRecordEncodesAsEncodingJSON(t *testing.T) {
	at := time.Date(2026, 1, 2, 3, 4, 5, 6_000_000, time.UTC)
	got, err := (&memory.StoreRecord{MemoryStore: memory.MemoryStore{ID: "memstore_1", Type: "memory_store", Name: "n",
		Metadata: map[string]string{"b": "2", "a": "1"}, CreatedAt: at, UpdatedAt: at}}).Json()
	want := `{"id":"memstore_1","type":"memory_store","name":"n","description":"","metadata":{"a":"1","b":"2"},` +
		`"created_at":"2026-01-02T03:04:05.006Z","updated_at":"2026-01-02T03:04:05.006Z","archived_at":null}`
	if err != nil || string(got) != want {
		t.Errorf("json() = %s, %v; want %s", got, err, want)
	}
	zone := time.FixedZone("x", -(3*3600 + 30*60))
	for _, m := range []memory.MemoryStore{
		{ID: "memstore_2", Type: "memory_store", Name: "q\"b\\<&>\t\u2028é\xff", Description: "line\nbreak",
			Metadata: map[string]string{"z\"": "\x01", "é": "<>", "": ""}, CreatedAt: at.In(zone), UpdatedAt: at.Add(time.Nanosecond), ArchivedAt: &at},
		{ID: "memstore_3", Metadata: nil, CreatedAt: time.Time{}, UpdatedAt: at},
		{ID: "memstore_4", Metadata: map[string]string{}, CreatedAt: time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC)},
		{ID: "memstore_5", CreatedAt: time.Date(-1, 1, 1, 0, 0, 0, 0, time.UTC)},
		{ID: "memstore_6", CreatedAt: at, UpdatedAt: at.In(time.FixedZone("y", 24*3600))},
		{ID: "memstore_7", CreatedAt: at.In(time.FixedZone("z", 23*3600+59*60)), UpdatedAt: at.In(time.FixedZone("w", -23*3600))},
	} {
		want, wantErr := core.EncodeRecord(m)
		got, err := (&memory.StoreRecord{MemoryStore: m}).Json()
		if string(got) != string(want) || (err == nil) != (wantErr == nil) {
			t.Errorf("%s: json() = %s, %v; encoding/json writes %s, %v", m.ID, got, err, want, wantErr)
		}
	}
}

// BenchmarkStoreRecordEncode measures the encoding of a created store's record, which every
// create pays once: go test -run '^$' -bench StoreRecordEncode -benchmem ./fake
func BenchmarkStoreRecordEncode(b *testing.B) {
	at := time.Date(2026, 1, 2, 3, 4, 5, 6_000_000, time.UTC)
	m := memory.MemoryStore{ID: "memstore_01AcmeResearchNotes00001", Type: "memory_store", Name: "load", Metadata: map[string]string{}, CreatedAt: at, UpdatedAt: at}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := (&memory.StoreRecord{MemoryStore: m}).Json(); err != nil {
			b.Fatal(err)
		}
	}
}
