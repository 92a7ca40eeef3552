package conformance

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"

	"github.com/platformkit/platformkit/fake"

	"github.com/platformkit/platformkit/conformance/kit"
)

// brokenRun runs the preflight against h as a deployment (the fake's control API hidden), with
// the fake's API key exported and the variables kv, and returns the run and what it printed.
func brokenRun(t *testing.T, h http.Handler, kv ...string) (*kit.Run, string) {
	t.Helper()
	var out bytes.Buffer
	cfg := kit.ConfigFromEnv(env(serve(t, hideControl(h)), append([]string{"CONFORMANCE_API_KEY", kit.FakeAPIKey}, kv...)...))
	return kit.Begin(context.Background(), cfg, nil, &out), out.String()
}

// messagesAndModels runs every check of Messages and Models that is not fake-only against the
// run's target, as the label filter "messages || models" selects them, the envelope checks last
// (they judge every error answer met before them), and returns how each ended.
func messagesAndModels(t *testing.T, r *kit.Run) map[string]kit.Outcome {
	t.Helper()
	if len(r.Problems) > 0 {
		t.Fatalf("the run stopped: %q", r.Problems)
	}
	out := map[string]kit.Outcome{}
	var last []kit.Check
	for _, c := range kit.Checks() {
		if c.Has(kit.FakeOnly) || !c.Has(kit.Messages) && !c.Has(kit.Models) {
			continue
		}
		if strings.HasSuffix(c.ID, "/interface-error-envelope") {
			last = append(last, c)
			continue
		}
		out[c.ID] = kit.RunCheck(context.Background(), r.Target, c)
	}
	for _, c := range last {
		out[c.ID] = kit.RunCheck(context.Background(), r.Target, c)
	}
	return out
}

// failingOn lists the checks whose failure mentions what.
func failingOn(outcomes map[string]kit.Outcome, what string) []string {
	var ids []string
	for id, o := range outcomes {
		if strings.Contains(strings.Join(o.Failures, "\n"), what) {
			ids = append(ids, id)
		}
	}
	return ids
}

// TestBrokenDeploymentsOneCause: a deployment with one defect of the kinds real ones have gets
// that defect named once, as one cause or one failing check, and not a cascade of failures.
func TestBrokenDeploymentsOneCause(t *testing.T) {
	t.Parallel()
	onModels := kit.On(http.MethodGet, "^/v1/models$")
	t.Run("a model list of another shape", func(t *testing.T) {
		noCaps := kit.EditAnswers(fake.New(), onModels, kit.EditJSON(func(list map[string]any) {
			for _, m := range list["data"].([]any) {
				delete(m.(map[string]any), "capabilities")
			}
		}))
		r, out := brokenRun(t, noCaps)
		if !strings.Contains(out, "conformance: cause: GET /v1/models answers a model list of another shape (reference 2.10, 4.5): models/model_list: data.0: missing properties: 'capabilities'\n") {
			t.Errorf("the preflight does not name the model list's shape:\n%s", out)
		}
		outcomes := messagesAndModels(t, r)
		if got := failingOn(outcomes, "capabilities"); len(got) != 1 || got[0] != "models/list-shape" {
			t.Errorf("checks failing on the missing capabilities: %q, want models/list-shape alone", got)
		}
		if o := outcomes["messages/create-response-shape"]; !o.Passed() {
			t.Errorf("messages/create-response-shape: %+v, want it to pass: it reads no model's capabilities", o)
		}
	})
	t.Run("errors without request_id", func(t *testing.T) {
		noRequestID := kit.EditAnswers(fake.New(), kit.APIRoute, func(_ *http.Request, status int, _ http.Header, body []byte) []byte {
			if status < 400 {
				return body
			}
			var m map[string]any
			if json.Unmarshal(body, &m) != nil {
				return body
			}
			delete(m, "request_id")
			out, _ := json.Marshal(m)
			return out
		})
		r, _ := brokenRun(t, noRequestID)
		outcomes := messagesAndModels(t, r)
		for _, id := range failingOn(outcomes, "request_id") {
			// The envelope checks hold reference 7; the request-id checks compare the body's
			// request_id with the header (gaps §1): both are statements about it.
			if !strings.HasSuffix(id, "/interface-error-envelope") && !strings.HasSuffix(id, "/interface-request-id-header") {
				t.Errorf("%s fails on the missing request_id: %q", id, outcomes[id].Failures)
			}
		}
		for _, id := range []string{"messages/interface-error-envelope", "models/interface-error-envelope"} {
			if f := strings.Join(outcomes[id].Failures, "\n"); !strings.Contains(f, "missing properties: 'request_id'") {
				t.Errorf("%s: %+v, want it to fail naming request_id", id, outcomes[id])
			}
		}
		if o := outcomes["messages/roles"]; !o.Passed() {
			t.Errorf("messages/roles: %+v, want it to pass: its 400s name the field, which is its statement", o)
		}
	})
	t.Run("a refused key", func(t *testing.T) {
		refusing := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusUnauthorized)
			w.Write([]byte(`{"error":{"message":"Authentication Error, invalid key","type":"auth_error","code":"401"}}`))
		})
		r, out := brokenRun(t, refusing)
		want := `CONFORMANCE_API_KEY rejected: GET /v1/models answered 401 application/json with X-Api-Key and with Authorization: Bearer: {"error":{"message":"Authentication Error, invalid key","type":"auth_error","code":"401"}}`
		if len(r.Problems) != 1 || r.Problems[0] != want || out != want+"\n" {
			t.Errorf("problems %q, output %q; want the one line %q", r.Problems, out, want)
		}
	})
	t.Run("only anthropic-version", func(t *testing.T) {
		r, out := brokenRun(t, makerOnly(fake.New()))
		if !strings.Contains(out, "conformance: sending the API version in anthropic-version and the API key in X-Api-Key, to model ") {
			t.Errorf("the preflight does not find the version header:\n%s", out)
		}
		for _, id := range []string{"messages/create-response-shape", "messages/roles", "models/list-shape", "models/get-alias", "messages/interface-credential-accepted"} {
			if o := kit.RunCheck(context.Background(), r.Target, checkByID(t, id)); !o.Passed() {
				t.Errorf("%s: %+v, want it to pass as against the fake", id, o)
			}
		}
	})
	t.Run("a proxy that wraps error messages", func(t *testing.T) {
		// As LiteLLM re-words an upstream 400: the upstream's whole error inside its message.
		wrapping := kit.EditAnswers(fake.New(), kit.APIRoute, func(_ *http.Request, status int, _ http.Header, body []byte) []byte {
			var m map[string]any
			if status != http.StatusBadRequest || json.Unmarshal(body, &m) != nil {
				return body
			}
			e, _ := m["error"].(map[string]any)
			e["message"] = "proxy.BadRequestError: UpstreamException - " + string(body)
			out, _ := json.Marshal(m)
			return out
		})
		r, _ := brokenRun(t, wrapping)
		for id, pass := range map[string]bool{"messages/temperature-range": true, "messages/roles": true, "messages/errors-name-the-field": false} {
			o := kit.RunCheck(context.Background(), r.Target, checkByID(t, id))
			if o.Passed() != pass {
				t.Errorf("%s: %+v, want passed %v: only errors-name-the-field says the message starts with the field", id, o, pass)
			}
		}
	})
	notServed := func(method, path string) http.Handler {
		return kit.Refuses(kit.On(method, "^"+path+"$"), http.StatusNotFound, "not_found_error", "no such route")(fake.New())
	}
	t.Run("no /v1/models", func(t *testing.T) {
		r, out := brokenRun(t, notServed(http.MethodGet, "/v1/models"))
		if !strings.Contains(out, "conformance: cause: GET /v1/models is not served (404 application/json)") {
			t.Fatalf("the preflight does not name the missing route:\n%s", out)
		}
		o := kit.RunCheck(context.Background(), r.Target, checkByID(t, "messages/create-response-shape"))
		if !strings.HasPrefix(o.Skipped, kit.PrefixBlocked+"GET /v1/models is not served") {
			t.Errorf("without a model list or CONFORMANCE_MODEL: %+v, want blocked by the missing list", o)
		}
		r, _ = brokenRun(t, notServed(http.MethodGet, "/v1/models"), "CONFORMANCE_MODEL", "assistant-sonnet-4-6")
		if o := kit.RunCheck(context.Background(), r.Target, checkByID(t, "messages/create-response-shape")); !o.Passed() {
			t.Errorf("with CONFORMANCE_MODEL: %+v, want it to pass", o)
		}
	})
	t.Run("no model routes, as a server of Messages alone", func(t *testing.T) {
		// As a web framework answers a path it has no route for (mockllm's FastAPI): 404, not the
		// API's envelope. Every Models check is blocked by the one cause, and none fails on it:
		// a route not served is not served, whatever the check asked of it.
		fastAPI := func(h http.Handler) http.Handler {
			return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if r.URL.Path == "/v1/models" || strings.HasPrefix(r.URL.Path, "/v1/models/") {
					w.Header().Set("Content-Type", "application/json")
					w.WriteHeader(http.StatusNotFound)
					_, _ = io.WriteString(w, `{"detail":"Not Found"}`)
					return
				}
				h.ServeHTTP(w, r)
			})
		}
		r, _ := brokenRun(t, fastAPI(fake.New()), "CONFORMANCE_MODEL", "assistant-sonnet-4-6")
		outcomes := messagesAndModels(t, r)
		for id, o := range outcomes {
			if !strings.HasPrefix(id, "models/") {
				continue
			}
			if len(o.Failures) > 0 || !strings.HasPrefix(o.Skipped, kit.PrefixBlocked+"GET /v1/models is not served") && !strings.HasPrefix(o.Skipped, kit.PrefixNotConfigured) {
				t.Errorf("%s: %+v, want blocked by the route not served", id, o)
			}
		}
		if o := outcomes["messages/interface-error-envelope"]; !o.Passed() {
			t.Errorf("messages/interface-error-envelope: %+v, want it to pass: the 404s of a route not served are not the API's errors", o)
		}
	})
	t.Run("stream usage with nulls", func(t *testing.T) {
		// As local-openai2anthropic streams: message_start's usage has null cache counts, and a
		// text block starts as {"type": "text", "text": ""}, without citations: fields only
		// EXTENSIONS.md (gaps §4's event grammar) requires of an event. A check of a reference
		// clause that reads the stream does not fail on them; the extension check of the event
		// grammar does.
		nullCache := regexp.MustCompile(`"cache_creation_input_tokens":\s*[0-9]+`)
		nulls := kit.EditAnswers(fake.New(), kit.On(http.MethodPost, "^/v1/messages$"), kit.OKBodies(func(_ *http.Request, body []byte) []byte {
			body = bytes.ReplaceAll(body, []byte(`{"content_block":{"citations":null,`), []byte(`{"content_block":{`))
			return nullCache.ReplaceAll(body, []byte(`"cache_creation_input_tokens":null`))
		}))
		r, _ := brokenRun(t, nulls)
		if o := kit.RunCheck(context.Background(), r.Target, checkByID(t, "messages/stream-max-tokens-respected")); !o.Passed() {
			t.Errorf("messages/stream-max-tokens-respected: %+v, want it to pass: its statement (4.4) reads no cache count", o)
		}
		if o := kit.RunCheck(context.Background(), r.Target, checkByID(t, "messages/stream-grammar")); !strings.Contains(strings.Join(o.Failures, "\n"), "cache_creation_input_tokens") {
			t.Errorf("messages/stream-grammar: %+v, want it to fail on the null cache count", o)
		}
	})
	t.Run("no credential required", func(t *testing.T) {
		// As mockllm: every request is answered, with a key or without. That is the statement of
		// the credential checks (5), not of the envelope (7), which holds on the errors there are.
		open := func(h http.Handler) http.Handler {
			return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if r.Header.Get("X-Api-Key") == "" && r.Header.Get("Authorization") == "" {
					r.Header.Set("X-Api-Key", kit.FakeAPIKey)
				}
				h.ServeHTTP(w, r)
			})
		}
		r, _ := brokenRun(t, open(fake.New()))
		for _, id := range []string{"messages/interface-error-envelope", "models/interface-error-envelope"} {
			if o := kit.RunCheck(context.Background(), r.Target, checkByID(t, id)); !o.Passed() {
				t.Errorf("%s: %+v, want it to pass: every error answer met is the envelope", id, o)
			}
		}
		if o := kit.RunCheck(context.Background(), r.Target, checkByID(t, "messages/interface-missing-credential-401")); o.Passed() {
			t.Errorf("messages/interface-missing-credential-401 passed; want it to fail: a request without a key is answered")
		}
	})
	t.Run("no model by ID", func(t *testing.T) {
		// As local-openai2anthropic: the list is served, GET /v1/models/{id} is not (its web
		// framework's 404). The checks that read a model by ID are blocked by the one cause.
		noGet := func(h http.Handler) http.Handler {
			return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if strings.HasPrefix(r.URL.Path, "/v1/models/") {
					w.Header().Set("Content-Type", "application/json")
					w.WriteHeader(http.StatusNotFound)
					_, _ = io.WriteString(w, `{"detail":"Not Found"}`)
					return
				}
				h.ServeHTTP(w, r)
			})
		}
		r, out := brokenRun(t, noGet(fake.New()))
		if !strings.Contains(out, "conformance: cause: GET /v1/models/{model_id} is not served (404 application/json)") {
			t.Fatalf("the preflight does not name the missing route:\n%s", out)
		}
		for _, id := range []string{"models/get-each-listed", "models/get-alias", "models/get-unknown-404"} {
			if o := kit.RunCheck(context.Background(), r.Target, checkByID(t, id)); !strings.HasPrefix(o.Skipped, kit.PrefixBlocked+"GET /v1/models/{model_id} is not served") {
				t.Errorf("%s: %+v, want blocked by the route not served", id, o)
			}
		}
		for _, id := range []string{"models/list-shape", "models/interface-error-envelope"} {
			if o := kit.RunCheck(context.Background(), r.Target, checkByID(t, id)); !o.Passed() {
				t.Errorf("%s: %+v, want it to pass", id, o)
			}
		}
	})
	t.Run("a stream outside the event grammar", func(t *testing.T) {
		// As mockllm streams: OpenAI-style data lines, no message_start. The event grammar is
		// gaps §4's, so a check of a reference clause that needs a stream's message (max_tokens,
		// 4.4) is blocked by it as a cause, and the grammar's own check fails on it.
		noStart := regexp.MustCompile(`(?s)^event: message_start\ndata: [^\n]*\n\n`)
		broken := kit.EditAnswers(fake.New(), kit.On(http.MethodPost, "^/v1/messages$"), kit.OKBodies(func(_ *http.Request, body []byte) []byte {
			return noStart.ReplaceAll(body, nil)
		}))
		r, _ := brokenRun(t, broken)
		if o := kit.RunCheck(context.Background(), r.Target, checkByID(t, "messages/stream-max-tokens-respected")); !strings.HasPrefix(o.Skipped, kit.PrefixBlocked+"POST /v1/messages with stream true answers events outside the grammar of gaps §4") {
			t.Errorf("messages/stream-max-tokens-respected: %+v, want blocked by the stream's grammar", o)
		}
		if o := kit.RunCheck(context.Background(), r.Target, checkByID(t, "messages/stream-grammar")); !strings.Contains(strings.Join(o.Failures, "\n"), "message_start") {
			t.Errorf("messages/stream-grammar: %+v, want it to fail on the missing message_start", o)
		}
	})
	t.Run("a stream answered as JSON", func(t *testing.T) {
		// As LiteLLM's mock answers "stream": true: one JSON message. No event stream is a
		// stream outside gaps §4 as well: the reference-clause check that needs one is blocked,
		// and messages/stream-first-event, whose statement it is, fails.
		asJSON := kit.EditAnswers(fake.New(), kit.On(http.MethodPost, "^/v1/messages$"), func(_ *http.Request, status int, h http.Header, body []byte) []byte {
			if strings.HasPrefix(h.Get("Content-Type"), "text/event-stream") {
				h.Set("Content-Type", "application/json")
			}
			return body
		})
		r, _ := brokenRun(t, asJSON)
		if o := kit.RunCheck(context.Background(), r.Target, checkByID(t, "messages/stream-max-tokens-respected")); !strings.HasPrefix(o.Skipped, kit.PrefixBlocked+"POST /v1/messages with stream true answers application/json") {
			t.Errorf("messages/stream-max-tokens-respected: %+v, want blocked by the missing event stream", o)
		}
		if o := kit.RunCheck(context.Background(), r.Target, checkByID(t, "messages/stream-first-event")); !strings.Contains(strings.Join(o.Failures, "\n"), "text/event-stream") {
			t.Errorf("messages/stream-first-event: %+v, want it to fail on the JSON answer", o)
		}
	})
	t.Run("no count_tokens", func(t *testing.T) {
		r, out := brokenRun(t, notServed(http.MethodPost, "/v1/messages/count_tokens"))
		if !strings.Contains(out, "conformance: cause: POST /v1/messages/count_tokens is not served") {
			t.Fatalf("the preflight does not name the missing route:\n%s", out)
		}
		for _, id := range []string{"messages/interface-credential-accepted", "messages/interface-missing-credential-401", "messages/system-and-tools-count"} {
			if o := kit.RunCheck(context.Background(), r.Target, checkByID(t, id)); !o.Passed() {
				t.Errorf("%s: %+v, want it to pass: its statement is not about count_tokens", id, o)
			}
		}
		if o := kit.RunCheck(context.Background(), r.Target, checkByID(t, "messages/count-tokens-agrees")); !strings.HasPrefix(o.Skipped, kit.PrefixBlocked+"POST /v1/messages/count_tokens is not served") {
			t.Errorf("messages/count-tokens-agrees: %+v, want blocked by the missing route", o)
		}
	})
}

// claudeNamed serves h as a deployment whose models are named as real ones name them (claude-*
// where the fake writes assistant-*): model IDs in paths and bodies are renamed on the way in
// and out, and nothing else changes.
func claudeNamed(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		r.URL.Path = strings.ReplaceAll(r.URL.Path, "/claude-", "/assistant-")
		r.URL.RawPath = ""
		if body := kit.ReadBody(r); len(body) > 0 {
			body = bytes.ReplaceAll(body, []byte(`"claude-`), []byte(`"assistant-`))
			r.Body, r.ContentLength = io.NopCloser(bytes.NewReader(body)), int64(len(body))
		}
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, r)
		out := bytes.ReplaceAll(rec.Body.Bytes(), []byte(`"assistant-`), []byte(`"claude-`))
		for k, vs := range rec.Header() {
			w.Header()[k] = vs
		}
		w.Header().Del("Content-Length")
		w.WriteHeader(rec.Code)
		w.Write(out)
	})
}

// TestChecksOfModelNamesOnClaudeNames: the checks that read model families (aliases, cache
// minimums) hold on a deployment whose models are claude-*, as on the fake's assistant-*.
func TestChecksOfModelNamesOnClaudeNames(t *testing.T) {
	r, out := brokenRun(t, claudeNamed(fake.New()))
	if !strings.Contains(out, "to model claude-") {
		t.Fatalf("the preflight does not take the deployment's model:\n%s", out)
	}
	for _, id := range []string{"models/get-alias", "messages/cache-model-minimums", "messages/create-response-fields"} {
		if o := kit.RunCheck(context.Background(), r.Target, checkByID(t, id)); !o.Passed() {
			t.Errorf("%s: %+v, want it to pass on claude-* models", id, o)
		}
	}
}

// makerOnly serves h as a deployment that knows only the maker's header names: vendor-version
// and vendor-beta are headers it does not read (the fake then reads anthropic-version, and
// refuses a request without it as the platform does).
func makerOnly(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		r.Header.Del("vendor-version")
		r.Header.Del("vendor-beta")
		h.ServeHTTP(w, r)
	})
}

// TestChecksAgainstAMakerDialectDeployment: against the fake behind makerOnly, as a deployment
// (TestChecksAgainstTheFakeAsADeployment), every check passes as against the fake, found by the
// preflight and not set, except the two whose statements are the reference's header names.
func TestChecksAgainstAMakerDialectDeployment(t *testing.T) {
	t.Parallel()
	srv := fake.New(fake.WithWallClock(), fake.WithRateLimits())
	tg := asDeploymentBehind(t, srv, makerOnly(srv))
	if tg.Config.VersionHeader != kit.MakerVersion {
		t.Fatalf("the preflight sends the version in %q, want anthropic-version", tg.Config.VersionHeader)
	}
	about := map[string]bool{"messages/version-vendor-header-decides": true, "messages/version-unknown-refused": true}
	runAsDeployment(t, tg, func(t *testing.T, c kit.Check, o kit.Outcome) {
		if about[c.ID] {
			return
		}
		if len(o.Failures) > 0 || len(o.CleanupFailures) > 0 || (o.Skipped != "" && !strings.HasPrefix(o.Skipped, kit.PrefixDisabled)) {
			t.Errorf("%+v", o)
		}
	})
}
