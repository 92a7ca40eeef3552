package conformance

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/platformkit/platformkit/fake"

	"github.com/platformkit/platformkit/conformance/kit"
)

// TestChecksAreWellFormed keeps the coverage data honest: unique IDs, exactly one area, a clause
// that exists, a title.
func TestChecksAreWellFormed(t *testing.T) {
	seen := map[string]bool{}
	for _, c := range kit.Checks() {
		if seen[c.ID] {
			t.Errorf("check ID %q is used twice", c.ID)
		}
		seen[c.ID] = true
		if _, ok := kit.Clauses[c.Clause]; !ok {
			t.Errorf("%s: clause %q is neither a section of the Platform API reference nor a decision of EXTENSIONS.md", c.ID, c.Clause)
		}
		if c.Title == "" || c.Run == nil {
			t.Errorf("%s: needs a title and a Run function", c.ID)
		}
		if c.Bug != nil && (c.NoBug != "" || c.Bug.Says == "" || c.Bug.Break == nil) {
			t.Errorf("%s: a bug needs what it says and how it breaks the target, and no NoBug beside it", c.ID)
		}
		areas := 0
		for _, l := range c.Labels {
			switch {
			case slices.Contains(kit.Areas, l):
				areas++
				if !strings.HasPrefix(c.ID, string(l)+"/") {
					t.Errorf("%s: ID should start with its area %q", c.ID, l)
				}
			case !slices.Contains(kit.Qualifiers, l):
				t.Errorf("%s: label %q is not in the vocabulary", c.ID, l)
			}
		}
		if areas != 1 {
			t.Errorf("%s: has %d area labels, want exactly 1", c.ID, areas)
		}
		if strings.HasPrefix(c.Clause, "gaps") && !c.Has(kit.Extension) {
			t.Errorf("%s: verifies %s, a decision of EXTENSIONS.md, so it must carry the extension label", c.ID, c.Clause)
		}
	}
}

func TestConfigFromEnv(t *testing.T) {
	env := map[string]string{}
	get := func(k string) string { return env[k] }
	c := kit.ConfigFromEnv(get)
	if c.BaseURL != "" || c.APIKey != "" || c.AdminKey != "" || c.BearerToken != "" || c.APIKey2 != "" || c.Destructive {
		t.Fatalf("defaults: %+v (no credential is guessed)", c)
	}
	if f := c.WithFakeCredentials(); f.APIKey != "test-api-key" || f.APIKey2 != "test-api-key-2" || f.BearerToken != "test-bearer-token" {
		t.Fatalf("the fake's credentials: %+v", f)
	}
	env = map[string]string{"CONFORMANCE_BASE_URL": "https://api.example/", "CONFORMANCE_API_KEY": "real", "CONFORMANCE_DESTRUCTIVE": "1"}
	c = kit.ConfigFromEnv(get)
	if c.BaseURL != "https://api.example" || c.APIKey != "real" || c.APIKey2 != "" || !c.Destructive {
		t.Fatalf("a deployment's config: %+v (a second organization's key is never guessed)", c)
	}
}

// openAt points the harness at a handler, as an operator points it at a deployment.
func openAt(t *testing.T, h http.Handler) *kit.Target {
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	// The fake's keys, exported as an operator exports a deployment's: the fake behind h,
	// its control API hidden, knows them.
	cfg := kit.ConfigFromEnv(func(string) string { return "" }).WithFakeCredentials()
	cfg.BaseURL = srv.URL
	tg, err := kit.Open(context.Background(), cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	return tg
}

func checkByID(t *testing.T, id string) kit.Check {
	for _, c := range kit.Checks() {
		if c.ID == id {
			return c
		}
	}
	t.Fatalf("no check %s", id)
	return kit.Check{}
}

// TestChecksFailAgainstABrokenTarget shows that checks can fail, each run alone against a target
// with one bug: a model list oldest first, or error answers without a request-id header.
func TestChecksFailAgainstABrokenTarget(t *testing.T) {
	good := fake.New()
	oldest := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/v1/models" && r.Header.Get("X-Api-Key") != "" {
			w.Header().Set("Content-Type", "application/json")
			w.Write(oldestFirst("A"))
			return
		}
		good.ServeHTTP(w, r)
	})
	// Every error answer loses its request-id header; its body keeps a request_id.
	noRequestID := kit.EditAnswers(good, func(*http.Request) bool { return true }, func(_ *http.Request, status int, h http.Header, body []byte) []byte {
		if status >= 400 {
			h.Del("request-id")
		}
		return body
	})
	for id, target := range map[string]http.Handler{"models/list-newest-first": oldest, "models/interface-request-id-header": noRequestID} {
		if o := kit.RunCheck(context.Background(), openAt(t, target), checkByID(t, id)); o.Passed() || len(o.Failures) == 0 {
			t.Errorf("%s passed against a broken target: %+v", id, o)
		}
		if o := kit.RunCheck(context.Background(), openAt(t, good), checkByID(t, id)); !o.Passed() {
			t.Errorf("%s fails against the fake: %v", id, o.Failures)
		}
	}
}

// oldestFirst is a model list in the wrong order (oldest first) whose first model is named name.
func oldestFirst(name string) []byte {
	return []byte(`{"data":[
		{"id":"a","type":"model","display_name":` + strconv.Quote(name) + `,"created_at":"2020-01-01T00:00:00Z","max_input_tokens":1,"max_tokens":1,"capabilities":` + caps + `},
		{"id":"b","type":"model","display_name":"B","created_at":"2024-01-01T00:00:00Z","max_input_tokens":1,"max_tokens":1,"capabilities":` + caps + `}],
		"first_id":"a","last_id":"b","has_more":false}`)
}

const caps = `{"batch":{"supported":true},"citations":{"supported":true},"code_execution":{"supported":true},"image_input":{"supported":true},"pdf_input":{"supported":true},"structured_outputs":{"supported":true},
	"context_management":{"supported":true,"clear_thinking_20251015":{"supported":true},"clear_tool_uses_20250919":{"supported":true},"compact_20260112":{"supported":true}},
	"effort":{"supported":true,"low":{"supported":true},"medium":{"supported":true},"high":{"supported":true},"xhigh":{"supported":true},"max":{"supported":true}},
	"thinking":{"supported":true,"types":{"adaptive":{"supported":true},"enabled":{"supported":true}}}}`

func TestOutcomes(t *testing.T) {
	// Against a target without the control API, fake-only checks are disabled, not failed.
	plain := openAt(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { http.NotFound(w, r) }))
	if plain.IsFake {
		t.Fatal("a target without /_fake/health was taken for the fake")
	}
	o := kit.RunCheck(context.Background(), plain, checkByID(t, "core/control-health"))
	if !strings.HasPrefix(o.Skipped, kit.PrefixDisabled) {
		t.Errorf("fake-only check against a deployment: %+v", o)
	}
	tg := openAt(t, fake.New())
	unsupported := kit.Check{ID: "core/x", Clause: "5", Labels: []kit.Label{kit.Core}, Title: "x", Run: func(t *kit.T) {
		t.Cleanup("remove it", func() error { return errors.New("gone wrong") })
		t.Unsupported("not offered")
	}}
	o = kit.RunCheck(context.Background(), tg, unsupported)
	if !strings.HasPrefix(o.Skipped, kit.PrefixUnsupported) || len(o.CleanupFailures) != 1 || len(o.Failures) != 0 {
		t.Errorf("unsupported with a failed cleanup: %+v; want skipped as unsupported, the cleanup failure reported, no failure", o)
	}
	if kit.Category(o.Skipped, false) != "unsupported" || kit.Category(kit.PrefixSuiteError+"x", true) != "error" || kit.Category("boom", true) != "failed" {
		t.Error("categories are not told apart")
	}
}

// openAsDeployment points the harness at a handler in the run mode that treats the fake as a
// deployment (Config.AsDeployment), with the fake's keys exported as an operator exports a
// deployment's.
func openAsDeployment(t *testing.T, h http.Handler) *kit.Target {
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	cfg := kit.ConfigFromEnv(func(string) string { return "" }).WithFakeCredentials()
	cfg.BaseURL, cfg.AsDeployment = srv.URL, true
	tg, err := kit.Open(context.Background(), cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	return tg
}
