package fake

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/platformkit/platformkit/fake/internal/core"

	"github.com/tidwall/gjson"
)

// Fixture IDs the tests rely on (fixtures/memory_stores.json).
const (
	memSupportStore  = "memstore_01AcmeSupportAgent0000001"
	memLegacyStore   = "memstore_01AcmeLegacyOnboard00001"
	memResearchStore = "memstore_01AcmeResearchNotes00001"
	memGlobexStore   = "memstore_01GlobexPlanning00000001"
	memStyleGuide    = "mem_01AcmeStyleGuide000000001"
	memScratchpad    = "mem_01AcmeScratchpad000000001"
	memRedactedVer   = "memver_01AcmeSupport0005"
	memAcmeKeyID     = "apikey_01AcmeDefaultKey00000001"
)

// memTester sends memory-store requests to a test server with the first organization's API key.
type memTester struct {
	t   *testing.T
	ts  *TestServer
	key string
}

// newMemTester starts a test server and calls it with the first organization's API key.
func newMemTester(t *testing.T) *memTester {
	return &memTester{t: t, ts: NewTestServer(t), key: "test-api-key"}
}

// memReply is an answer: status, headers and the body as gjson.
type memReply struct {
	status int
	header http.Header
	body   gjson.Result
}

// do sends the request; body is JSON-encoded unless it is a string (sent as is).
func (m *memTester) do(method, path string, body any) memReply {
	m.t.Helper()
	status, h, data, err := roundTrip(context.Background(), m.ts, method, path, body,
		"X-Api-Key", m.key, "vendor-version", core.APIVersion, "vendor-beta", "managed-agents-2026-04-01")
	if err != nil {
		m.t.Fatal(err)
	}
	return memReply{status, h, gjson.ParseBytes(data)}
}

// ok sends the request and fails the test unless it answers 200.
func (m *memTester) ok(method, path string, body any) gjson.Result {
	m.t.Helper()
	r := m.do(method, path, body)
	if r.status != http.StatusOK {
		m.t.Fatalf("%s %s = %d %s, want 200", method, path, r.status, r.body.Raw)
	}
	return r.body
}

// fails sends the request and requires the status and error type, and that the message names
// field (when not empty).
func (m *memTester) fails(status int, typ, field, method, path string, body any) memReply {
	m.t.Helper()
	r := m.do(method, path, body)
	if r.status != status || r.body.Get("error.type").String() != typ {
		m.t.Fatalf("%s %s = %d %s, want %d %s", method, path, r.status, r.body.Raw, status, typ)
	}
	if field != "" && !strings.Contains(r.body.Get("error.message").String(), field) {
		m.t.Fatalf("%s %s: message %q does not name %q", method, path, r.body.Get("error.message"), field)
	}
	return r
}

// newStore creates a store and returns its ID.
func (m *memTester) newStore() string {
	m.t.Helper()
	return m.ok(core.Post, "/v1/memory_stores", map[string]any{"name": "test store"}).Get("id").String()
}

// newMemory creates a memory and returns it (view basic).
func (m *memTester) newMemory(store, path, content string) gjson.Result {
	m.t.Helper()
	return m.ok(core.Post, "/v1/memory_stores/"+store+"/memories", map[string]any{"path": path, "content": content})
}

// versions lists a store's versions with the query and returns the data array's IDs.
func (m *memTester) versions(store string, q url.Values) []string {
	m.t.Helper()
	var ids []string
	for _, v := range m.ok(core.Get, "/v1/memory_stores/"+store+"/memory_versions?"+q.Encode(), nil).Get("data").Array() {
		ids = append(ids, v.Get("id").String())
	}
	return ids
}

// memEqual reports whether a and b hold the same strings in the same order.
func memEqual(a, b []string) bool {
	return strings.Join(a, "\x00") == strings.Join(b, "\x00")
}
