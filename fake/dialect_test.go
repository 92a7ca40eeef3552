package fake

import (
	"bytes"
	"context"
	"io"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/tidwall/gjson"

	"github.com/platformkit/platformkit/fake/internal/core"
)

// The maker's words below are the official Python SDK's (anthropic 2.14.0): the role
// claude_code_user (types/organization_role.py, organization/invite_create_params.py,
// user_update_params.py), model names claude-* (types/model_param.py: claude-sonnet-4-5,
// claude-sonnet-4-5-20250929).

// dialectDo sends a request with the version in the header versionHeader ("" for none) and the
// key key, and answers the status and the body.
func dialectDo(t *testing.T, ts *TestServer, key, versionHeader, method, path string, body any) (int, []byte) {
	t.Helper()
	h := []string{"X-Api-Key", key}
	if versionHeader != "" {
		h = append(h, versionHeader, core.APIVersion)
	}
	status, _, data, err := roundTrip(context.Background(), ts, method, path, body, h...)
	if err != nil {
		t.Fatal(err)
	}
	return status, bytes.TrimSpace(data)
}

func TestDialectAdminRoles(t *testing.T) {
	ts := NewTestServer(t)
	admin := func(vh, method, path string, body any) gjson.Result {
		t.Helper()
		status, data := dialectDo(t, ts, "test-admin-key", vh, method, path, body)
		if status != http.StatusOK {
			t.Fatalf("%s %s (%s): %d %s", method, path, vh, status, data)
		}
		return gjson.ParseBytes(data)
	}
	// The maker's role, sent by an SDK, is accepted on create and answered in its words.
	in := admin("anthropic-version", http.MethodPost, "/v1/organizations/invites", map[string]string{"email": "sdk@acme.example", "role": "claude_code_user"})
	if got := in.Get("role").String(); got != "claude_code_user" {
		t.Errorf("invite created by the maker's dialect: role %q, want claude_code_user", got)
	}
	// The same record read in the reference's words.
	if got := admin("vendor-version", http.MethodGet, "/v1/organizations/invites/"+in.Get("id").String(), nil).Get("role").String(); got != "assistant_code_user" {
		t.Errorf("the same invite read with vendor-version: role %q, want assistant_code_user", got)
	}
	// Ken, the fixture's code user, is found by either word in the roles filter, and a user
	// update takes the maker's word.
	for _, c := range []struct{ vh, role, want string }{
		{"anthropic-version", "claude_code_user", "claude_code_user"},
		{"anthropic-version", "assistant_code_user", "claude_code_user"},
		{"vendor-version", "claude_code_user", "assistant_code_user"},
		{"vendor-version", "assistant_code_user", "assistant_code_user"},
	} {
		list := admin(c.vh, http.MethodGet, "/v1/organizations/users?roles[]="+c.role, nil)
		if n := len(list.Get("data").Array()); n != 1 || list.Get("data.0.email").String() != "ken@acme.example" || list.Get("data.0.role").String() != c.want {
			t.Errorf("users?roles[]=%s with %q: %s; want Ken alone with role %s", c.role, c.vh, list.Raw, c.want)
		}
	}
	u := admin("anthropic-version", http.MethodPost, "/v1/organizations/users/user_01AcmeKenCodeUser00000001", map[string]string{"role": "developer"})
	if u.Get("role").String() != "developer" {
		t.Fatalf("update: %s", u.Raw)
	}
	if got := admin("anthropic-version", http.MethodPost, "/v1/organizations/users/user_01AcmeKenCodeUser00000001", map[string]string{"role": "claude_code_user"}).Get("role").String(); got != "claude_code_user" {
		t.Errorf("update to claude_code_user answered role %q", got)
	}
	// The journal keeps the reference's word whichever dialect the client sent.
	var sent []string
	for _, e := range ts.Fake.Journal() {
		if r := gjson.GetBytes(e.Body, "role"); r.Exists() {
			sent = append(sent, r.String())
		}
	}
	for _, r := range sent {
		if r == "claude_code_user" {
			t.Errorf("the journal holds the maker's word: %v", sent)
		}
	}
}

func TestDialectModels(t *testing.T) {
	ts := NewTestServer(t)
	get := func(vh, path string) gjson.Result {
		t.Helper()
		status, data := dialectDo(t, ts, "test-api-key", vh, http.MethodGet, path, nil)
		if status != http.StatusOK {
			t.Fatalf("GET %s (%s): %d %s", path, vh, status, data)
		}
		return gjson.ParseBytes(data)
	}
	// The SDK's alias names the model its reference name does (models.retrieve("claude-sonnet-4-5")).
	maker := get("anthropic-version", "/v1/models/claude-sonnet-4-5")
	ref := get("vendor-version", "/v1/models/assistant-sonnet-4-5")
	if got := maker.Get("id").String(); got != "claude-sonnet-4-5-20250929" {
		t.Errorf("claude-sonnet-4-5 in the maker's dialect: id %q, want claude-sonnet-4-5-20250929", got)
	}
	if got := ref.Get("id").String(); got != "assistant-sonnet-4-5-20250929" {
		t.Errorf("assistant-sonnet-4-5 in the reference's dialect: id %q", got)
	}
	if got := get("vendor-version", "/v1/models/claude-sonnet-4-5").Get("id").String(); got != "assistant-sonnet-4-5-20250929" {
		t.Errorf("claude-sonnet-4-5 with vendor-version: id %q, want the reference's name", got)
	}
	if got := maker.Get("display_name").String(); got != "Claude Sonnet 4.5" {
		t.Errorf("display_name %q, want Claude Sonnet 4.5", got)
	}
	// Nothing else of the record changes.
	if m, r := maker.Get("capabilities").Raw, ref.Get("capabilities").Raw; m != r {
		t.Errorf("capabilities differ between dialects:\n%s\n%s", m, r)
	}
	// The list: every id in the maker's words, in the same order, with the same cursors' shape.
	ml, rl := get("anthropic-version", "/v1/models?limit=1000"), get("vendor-version", "/v1/models?limit=1000")
	mi, ri := ml.Get("data.#.id").Array(), rl.Get("data.#.id").Array()
	if len(mi) == 0 || len(mi) != len(ri) {
		t.Fatalf("lists of %d and %d models", len(mi), len(ri))
	}
	for i := range mi {
		if want := "claude-" + ri[i].String()[len("assistant-"):]; mi[i].String() != want {
			t.Errorf("model %d: %q, want %q", i, mi[i].String(), want)
		}
	}
	// first_id, a model ID too, goes back as a cursor in either word.
	if fid := ml.Get("first_id").String(); fid != mi[0].String() {
		t.Errorf("first_id %q, want %q", fid, mi[0].String())
	}
	if after := get("anthropic-version", "/v1/models?limit=1&after_id="+mi[0].String()); after.Get("data.0.id").String() != mi[1].String() {
		t.Errorf("after_id=%s: %s, want %s", mi[0].String(), after.Get("data.0.id").String(), mi[1].String())
	}
}

func TestDialectMessagesModel(t *testing.T) {
	ts := NewTestServer(t)
	body := map[string]any{"model": "claude-sonnet-4-5", "max_tokens": 16,
		"messages": []any{map[string]any{"role": "user", "content": "claude-sonnet-4-5"}}}
	for _, c := range []struct{ vh, want string }{
		{"anthropic-version", "claude-sonnet-4-5"},
		{"vendor-version", "assistant-sonnet-4-5"},
	} {
		status, data := dialectDo(t, ts, "test-api-key", c.vh, http.MethodPost, "/v1/messages", body)
		if status != http.StatusOK {
			t.Fatalf("%s: %d %s", c.vh, status, data)
		}
		m := gjson.ParseBytes(data)
		if got := m.Get("model").String(); got != c.want {
			t.Errorf("%s: model %q, want %q", c.vh, got, c.want)
		}
		if got := m.Get("role").String(); got != "assistant" {
			t.Errorf("%s: role %q: the message role is not the maker's name and never changes", c.vh, got)
		}
		status, data = dialectDo(t, ts, "test-api-key", c.vh, http.MethodPost, "/v1/messages/count_tokens", map[string]any{"model": "claude-opus-4-7", "messages": body["messages"]})
		if status != http.StatusOK || !gjson.GetBytes(data, "input_tokens").Exists() {
			t.Errorf("count_tokens with claude-opus-4-7 (%s): %d %s", c.vh, status, data)
		}
	}
	// A stream's message_start names the model in the request's words.
	stream := map[string]any{"model": "claude-sonnet-4-5", "max_tokens": 16, "stream": true, "messages": body["messages"]}
	_, data := dialectDo(t, ts, "test-api-key", "anthropic-version", http.MethodPost, "/v1/messages", stream)
	if !bytes.Contains(data, []byte(`"model":"claude-sonnet-4-5"`)) || bytes.Contains(data, []byte(`assistant-sonnet`)) {
		t.Errorf("stream in the maker's dialect: %.400s", data)
	}
	// The journal keeps the reference's words.
	for _, e := range ts.Fake.Journal() {
		if m := gjson.GetBytes(e.Body, "model").String(); m != "" && m[:7] == "claude-" {
			t.Errorf("journal entry %s %s holds model %q", e.Method, e.Path, m)
		}
	}
}

// The geos the Python SDK's types allow (anthropic 2.14.0,
// types/beta/organization/beta_data_residency_create_config_param.py): workspace_geo "us";
// default_inference_geo and the items of allowed_inference_geos "global" or "us".
func TestWorkspaceGeosAreTheSDKs(t *testing.T) {
	a := newAdmin(t)
	for _, c := range []struct {
		residency map[string]any
		field     string
	}{
		{map[string]any{"workspace_geo": "eu"}, "data_residency.workspace_geo"},
		{map[string]any{"default_inference_geo": "eu"}, "data_residency.default_inference_geo"},
		{map[string]any{"allowed_inference_geos": []string{"us", "eu"}, "default_inference_geo": "us"}, "data_residency.allowed_inference_geos.1"},
	} {
		status, got := a.do(http.MethodPost, "/v1/organizations/workspaces", map[string]any{"name": "geo", "data_residency": c.residency})
		if msg := got.Get("error.message").String(); status != http.StatusBadRequest || !strings.HasPrefix(msg, c.field) {
			t.Errorf("data_residency %v: %d %q; want 400 naming %s", c.residency, status, msg, c.field)
		}
	}
	got := a.ok(http.MethodPost, "/v1/organizations/workspaces", map[string]any{"name": "geo",
		"data_residency": map[string]any{"workspace_geo": "us", "allowed_inference_geos": []string{"global", "us"}, "default_inference_geo": "us"}})
	if dr := got.Get("data_residency").Raw; dr != `{"allowed_inference_geos":["global","us"],"default_inference_geo":"us","workspace_geo":"us"}` {
		t.Errorf("data_residency %s", dr)
	}
	// No fixture workspace holds a geo the SDKs' types refuse.
	for _, w := range a.ok(http.MethodGet, "/v1/organizations/workspaces?limit=100&include_archived=true", nil).Get("data").Array() {
		dr := w.Get("data_residency")
		if dr.Get("workspace_geo").String() != "us" || !slices.Contains([]string{"global", "us"}, dr.Get("default_inference_geo").String()) {
			t.Errorf("fixture workspace %s: data_residency %s", w.Get("id").String(), dr.Raw)
		}
	}
}

// TestDialectTapeForwardsAsSent: recording from a real deployment (which knows only the maker's
// words), the upstream gets the body as the client sent it, and the recording holds the request
// and the answer in the reference's words, as the journal does.
func TestDialectTapeForwardsAsSent(t *testing.T) {
	var got atomic.Value
	inner := New() // the deployment: the fake itself, answering in the words of the request
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		got.Store(string(b))
		r.Body = io.NopCloser(bytes.NewReader(b))
		r.Header.Set("X-Api-Key", core.DefaultAPIKey)
		inner.ServeHTTP(w, r)
	}))
	t.Cleanup(up.Close)
	dir := t.TempDir()
	ts := tapeServer(t, TapeConfig{Upstream: up.URL, Record: dir})
	body := map[string]any{"model": "claude-sonnet-4-5", "max_tokens": 16, "messages": []any{map[string]any{"role": "user", "content": "Hello"}}}
	if status, data := dialectDo(t, ts, liveKey, "anthropic-version", http.MethodPost, "/v1/messages", body); status != http.StatusOK {
		t.Fatalf("recorded request: %d %s", status, data)
	}
	if sent, _ := got.Load().(string); gjson.Get(sent, "model").String() != "claude-sonnet-4-5" {
		t.Errorf("the upstream got %s; want the model as the client sent it, claude-sonnet-4-5", sent)
	}
	var recorded []string
	_ = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			b, _ := os.ReadFile(p)
			recorded = append(recorded, string(b))
		}
		return nil
	})
	if len(recorded) != 1 || !strings.Contains(recorded[0], "assistant-sonnet-4-5") || strings.Contains(recorded[0], "claude-sonnet") {
		t.Errorf("recordings: %.600s", recorded)
	}
	// Replayed, the one recording answers each client in its words.
	play := tapeServer(t, TapeConfig{Replay: dir, OnMiss: OnMissError})
	for vh, want := range map[string]string{"anthropic-version": "claude-sonnet-4-5", "vendor-version": "assistant-sonnet-4-5"} {
		status, data := dialectDo(t, play, "test-api-key", vh, http.MethodPost, "/v1/messages", body)
		if got := gjson.GetBytes(data, "model").String(); status != http.StatusOK || got != want {
			t.Errorf("replayed to %s: %d model %q, want %q: %.300s", vh, status, got, want, data)
		}
	}
}

// An error quotes a value as the client sent it, in either dialect: the name a user recognises
// (a claude-* model quoted as assistant-* under vendor-version was a name the user never wrote).
// Values the client did not send are in the answer's dialect.
func TestDialectErrorQuotesTheClientsWord(t *testing.T) {
	ts := NewTestServer(t)
	for _, tc := range []struct{ vh, path, want string }{
		{"anthropic-version", "/v1/models/claude-nope", `model "claude-nope" was not found`},
		{"vendor-version", "/v1/models/claude-nope", `model "claude-nope" was not found`},
		{"vendor-version", "/v1/models/assistant-nope", `model "assistant-nope" was not found`},
	} {
		status, data := dialectDo(t, ts, "test-api-key", tc.vh, http.MethodGet, tc.path, nil)
		if msg := gjson.GetBytes(data, "error.message").String(); status != http.StatusNotFound || msg != tc.want {
			t.Errorf("%s GET %s: %d %q, want 404 %q", tc.vh, tc.path, status, msg, tc.want)
		}
	}
	// A model in a body, which the body's rewrite read in the reference's words.
	for _, tc := range []struct{ vh, model, want string }{
		{"vendor-version", "claude-sonnet-4-5", `of model "claude-sonnet-4-5"`},
		{"vendor-version", "assistant-sonnet-4-5", `of model "assistant-sonnet-4-5"`},
		{"anthropic-version", "claude-sonnet-4-5", `of model "claude-sonnet-4-5"`},
	} {
		body := map[string]any{"model": tc.model, "max_tokens": 10_000_000, "messages": []any{map[string]any{"role": "user", "content": "Hi"}}}
		status, data := dialectDo(t, ts, "test-api-key", tc.vh, http.MethodPost, "/v1/messages", body)
		if msg := gjson.GetBytes(data, "error.message").String(); status != http.StatusBadRequest || !strings.HasSuffix(msg, tc.want) {
			t.Errorf("%s, model %s: %d %q, want 400 ending %q", tc.vh, tc.model, status, msg, tc.want)
		}
	}
}

// An agent's model object names its model in the request's words (the SDK's managed-agents
// example creates one with {"id": "claude-sonnet-4-5"}).
func TestDialectAgentModel(t *testing.T) {
	ts := NewTestServer(t)
	body := agentBody("helper")
	body["model"] = map[string]any{"id": "claude-sonnet-4-5", "effort": "medium"}
	status, data := dialectDo(t, ts, "test-api-key", "anthropic-version", http.MethodPost, "/v1/agents", body)
	if got := gjson.GetBytes(data, "model.id").String(); status != http.StatusOK || got != "claude-sonnet-4-5" {
		t.Fatalf("create in the maker's words: %d model.id %q: %.300s", status, got, data)
	}
	status, data = dialectDo(t, ts, "test-api-key", "vendor-version", http.MethodGet, "/v1/agents/"+gjson.GetBytes(data, "id").String(), nil)
	if got := gjson.GetBytes(data, "model.id").String(); status != http.StatusOK || got != "assistant-sonnet-4-5" {
		t.Errorf("read in the reference's words: %d model.id %q", status, got)
	}
}
