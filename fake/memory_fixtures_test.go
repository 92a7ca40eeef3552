package fake

import (
	"encoding/json"
	"io/fs"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/platformkit/platformkit/fake/internal/core"

	"github.com/platformkit/platformkit/fixtures"
)

// TestMemoryFixturesRefuseBrokenHistories: a history that could not have happened is refused
// when the fixtures load, naming the store and what is wrong, instead of serving nonsense.
func TestMemoryFixturesRefuseBrokenHistories(t *testing.T) {
	orgs, err := fs.ReadFile(fixtures.FS(), "organizations.json")
	if err != nil {
		t.Fatal(err)
	}
	api := map[string]any{"type": "api_actor", "api_key_id": "k"}
	ver := func(id, mem, op, at string, content, path any) map[string]any {
		return map[string]any{"id": id, "memory_id": mem, "operation": op, "created_at": at, "created_by": api, "content": content, "path": path}
	}
	redacted := ver("memver_r", "mem_a", "modified", "2025-01-02T00:00:00Z", nil, nil)
	redacted["redacted_at"], redacted["redacted_by"] = "2025-01-03T00:00:00Z", api
	cases := []struct {
		name     string
		org      string
		versions []map[string]any
		want     string
	}{
		{"unknown organization", "org_nope", nil, "unknown organization"},
		{"first version not created", "", []map[string]any{ver("memver_1", "mem_a", "modified", "2025-01-01T00:00:00Z", "x", "/a")}, "first version"},
		{"two created versions", "", []map[string]any{
			ver("memver_1", "mem_a", "created", "2025-01-01T00:00:00Z", "x", "/a"),
			ver("memver_2", "mem_a", "created", "2025-01-02T00:00:00Z", "y", "/a")}, "first version"},
		{"write after delete", "", []map[string]any{
			ver("memver_1", "mem_a", "created", "2025-01-01T00:00:00Z", "x", "/a"),
			ver("memver_2", "mem_a", "deleted", "2025-01-02T00:00:00Z", nil, "/a"),
			ver("memver_3", "mem_a", "modified", "2025-01-03T00:00:00Z", "y", "/a")}, "follows the deleted"},
		{"redacted head", "", []map[string]any{ver("memver_1", "mem_a", "created", "2025-01-01T00:00:00Z", "x", "/a"), redacted}, "is redacted"},
		{"two memories at one path", "", []map[string]any{
			ver("memver_1", "mem_a", "created", "2025-01-01T00:00:00Z", "x", "/a"),
			ver("memver_2", "mem_b", "created", "2025-01-02T00:00:00Z", "y", "/a")}, "both live at /a"},
		{"content on a deleted version", "", []map[string]any{
			ver("memver_1", "mem_a", "created", "2025-01-01T00:00:00Z", "x", "/a"),
			ver("memver_2", "mem_a", "deleted", "2025-01-02T00:00:00Z", "x", "/a")}, "content is null exactly"},
		{"path null without redaction", "", []map[string]any{ver("memver_1", "mem_a", "created", "2025-01-01T00:00:00Z", "x", nil)}, "redacted_at"},
		{"invalid path", "", []map[string]any{ver("memver_1", "mem_a", "created", "2025-01-01T00:00:00Z", "x", "/a//b")}, "empty"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			org := c.org
			if org == "" {
				org = "org_01AcmeCorporation00000001"
			}
			if c.versions == nil {
				c.versions = []map[string]any{}
			}
			doc, _ := json.Marshal(map[string]any{"memory_stores": []any{map[string]any{
				"organization_id": org, "id": "memstore_x", "name": "x", "created_at": "2025-01-01T00:00:00Z",
				"updated_at": "2025-01-01T00:00:00Z", "versions": c.versions}}})
			_, err := core.LoadFixtures(fstest.MapFS{"organizations.json": {Data: orgs}, "memory_stores.json": {Data: doc}})
			if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "memstore_x") {
				t.Fatalf("err = %v, want one naming memstore_x and %q", err, c.want)
			}
		})
	}
}

// TestMemoryFixturesReplay: live memories are the replay of the fixture history.
func TestMemoryFixturesReplay(t *testing.T) {
	m := newMemTester(t)
	style := m.ok(core.Get, "/v1/memory_stores/"+memSupportStore+"/memories/"+memStyleGuide, nil)
	if style.Get("memory_version_id").String() != "memver_01AcmeSupport0012" || style.Get("created_at").String() != "2025-03-01T09:05:00Z" ||
		style.Get("updated_at").String() != "2025-03-08T16:20:00Z" || !strings.HasSuffix(style.Get("content").String(), "Never promise dates.\n") {
		t.Fatalf("style guide = %s", style.Raw)
	}
	renamed := m.ok(core.Get, "/v1/memory_stores/"+memSupportStore+"/memories/mem_01AcmeCustomerGlobex0000001", nil)
	if renamed.Get("path").String() != "/customers/globex/profile.md" {
		t.Fatalf("renamed fixture memory = %s", renamed.Raw)
	}
	// A redacted older version leaves the memory's current content alone.
	if got := m.ok(core.Get, "/v1/memory_stores/"+memSupportStore+"/memories/mem_01AcmeCustomerAcme0000001", nil).Get("content").String(); !strings.Contains(got, "ops desk") {
		t.Fatalf("customer profile = %q", got)
	}
	// Changes on one server never reach another: each copies the fixtures.
	m.ok(core.Post, "/v1/memory_stores/"+memSupportStore+"/memory_versions/memver_01AcmeSupport0001/redact", nil)
	other := newMemTester(t)
	if got := other.ok(core.Get, "/v1/memory_stores/"+memSupportStore+"/memory_versions/memver_01AcmeSupport0001", nil); got.Get("redacted_at").Type.String() != "Null" {
		t.Fatalf("a redaction leaked into another server: %s", got.Raw)
	}
}

// TestMemoryResetAndAttribution: Reset brings the fixtures back, and each key's writes are
// attributed to that key.
func TestMemoryResetAndAttribution(t *testing.T) {
	m := newMemTester(t)
	m.ok(core.Post, "/v1/memory_stores/"+memSupportStore+"/memory_versions/memver_01AcmeSupport0001/redact", nil)
	m.ts.Fake.Reset()
	if got := m.ok(core.Get, "/v1/memory_stores/"+memSupportStore+"/memory_versions/memver_01AcmeSupport0001", nil); got.Get("redacted_at").Type.String() != "Null" {
		t.Fatalf("Reset kept a redaction: %s", got.Raw)
	}
	m.key = "test-api-key-2"
	mem := m.newMemory(memGlobexStore, "/plans/q4.md", "later")
	v := m.ok(core.Get, "/v1/memory_stores/"+memGlobexStore+"/memory_versions/"+mem.Get("memory_version_id").String(), nil)
	if v.Get("created_by.api_key_id").String() != "apikey_01GlobexDefaultKey0000001" {
		t.Fatalf("a write with the second organization's key is attributed to %s", v.Get("created_by").Raw)
	}
}
