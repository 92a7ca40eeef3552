package conformance

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/platformkit/platformkit/fake"

	"github.com/platformkit/platformkit/conformance/kit"
)

// serve starts h on a loopback port for the test.
func serve(t *testing.T, h http.Handler) string {
	t.Helper()
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return srv.URL
}

// preflight runs Begin against base with the fake's default credentials and returns its problems
// and what it printed.
func preflight(t *testing.T, base string, kv ...string) ([]string, string) {
	t.Helper()
	var out bytes.Buffer
	r := kit.Begin(context.Background(), kit.ConfigFromEnv(env(base, kv...)), nil, &out)
	return r.Problems, out.String()
}

// TestPreflightStopsOnAWrongTarget: a target that is not the API's root stops the run with one line
// that names the likely mistake, before any check; these are the mistakes operators make.
func TestPreflightStopsOnAWrongTarget(t *testing.T) {
	api := serve(t, fake.New())
	static := serve(t, http.FileServer(http.Dir("testdata-does-not-exist"))) // python3 -m http.server: 404 text/plain pages
	html := serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Write([]byte("<!doctype html><title>Welcome</title>"))
	}))
	otherJSON := serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(`{"data":[{"name":"widget"}],"count":1}`))
	}))
	otherJSON404 := serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusNotFound)
		w.Write([]byte(`{"detail":"Not Found"}`))
	}))
	// A gateway that refuses with JSON that is not the API's envelope, and no request-id.
	gateway := serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusUnauthorized)
		w.Write([]byte(`{"message":"Unauthorized"}`))
	}))
	for name, c := range map[string]struct{ base, want string }{
		"/v1 base URL": {api + "/v1",
			"GET /v1/models answered 404 application/json (no list of models): is CONFORMANCE_BASE_URL the API's root, without /v1?"},
		"/v1/ base URL": {api + "/v1/",
			"GET /v1/models answered 404 application/json (no list of models): is CONFORMANCE_BASE_URL the API's root, without /v1?"},
		"static file server": {static,
			"GET /v1/models answered 404 text/plain (no list of models): is " + static + " the Platform API? CONFORMANCE_BASE_URL must be the API's root, the URL its paths /v1/... are under"},
		"static file server under /v1": {static + "/v1",
			"GET /v1/models answered 404 text/plain (no list of models): is CONFORMANCE_BASE_URL the API's root, without /v1?"},
		"HTML on every path": {html,
			"GET /v1/models answered 200 text/html (not JSON): is " + html + " the Platform API? CONFORMANCE_BASE_URL must be the API's root, the URL its paths /v1/... are under"},
		"another JSON API": {otherJSON,
			"GET /v1/models answered 200 application/json (not a list of models: "},
		"another JSON API's 404": {otherJSON404,
			"GET /v1/models answered 404 application/json (no list of models): is " + otherJSON404 + " the Platform API?"},
		"a gateway's refusal": {gateway,
			"GET /v1/models answered 401 application/json (not the error envelope): is " + gateway + " the Platform API?"},
	} {
		t.Run(name, func(t *testing.T) {
			problems, out := preflight(t, c.base)
			if len(problems) != 1 || !strings.HasPrefix(problems[0], c.want) {
				t.Fatalf("problems = %q, want one line starting %q", problems, c.want)
			}
			if out != problems[0]+"\n" {
				t.Errorf("output = %q, want the one line alone", out)
			}
		})
	}
}

// TestPreflightAcceptsTheAPI: the API answers the probe even when the key is not the target's
// (its refusal is its envelope with a request-id), so an unset API key is not taken for a wrong
// target.
func TestPreflightAcceptsTheAPI(t *testing.T) {
	if problems, out := preflight(t, serve(t, fake.New())); len(problems) != 0 {
		t.Errorf("the fake: problems %q\n%s", problems, out)
	}
	dep := deployment(t, fake.New()) // takes secretAPIKey only: the fake's key is refused with 401
	if problems, out := preflight(t, dep.URL); len(problems) != 0 || !strings.Contains(out, "conformance: skipping the API key's interfaces (models, messages, memory, work): CONFORMANCE_API_KEY is not set") {
		t.Errorf("a deployment refusing the unset key: problems %q\n%s", problems, out)
	}
	if problems, out := preflight(t, dep.URL+"/", "CONFORMANCE_API_KEY", secretAPIKey); len(problems) != 0 {
		t.Errorf("a deployment with a trailing slash: problems %q\n%s", problems, out)
	}
}

// TestPreflightLeavesDeviatingModelsToTheChecks: a list of models that deviates from its schema
// is still the API: the preflight lets the run go on, names the deviation as a cause, and the
// check whose statement it breaks fails on it.
func TestPreflightLeavesDeviatingModelsToTheChecks(t *testing.T) {
	models := func(f func(m map[string]any)) http.Handler {
		return hideControl(kit.EditAnswers(fake.New(), kit.On(http.MethodGet, "^/v1/models$"), kit.EditJSON(func(list map[string]any) {
			for _, m := range list["data"].([]any) {
				f(m.(map[string]any))
			}
		})))
	}
	for name, c := range map[string]struct {
		target http.Handler
		check  string
	}{
		"a model without display_name": {models(func(m map[string]any) { delete(m, "display_name") }), "models/list-shape"},
		"created_at as a number":       {models(func(m map[string]any) { m["created_at"] = 1700000000 }), "models/release-time-is-a-timestamp"},
	} {
		t.Run(name, func(t *testing.T) {
			base := serve(t, c.target)
			problems, out := preflight(t, base, "CONFORMANCE_API_KEY", kit.FakeAPIKey)
			if len(problems) != 0 {
				t.Fatalf("problems %q, want none: the answer is the API's\n%s", problems, out)
			}
			if !strings.Contains(out, "conformance: cause: GET /v1/models answers a model list of another shape (reference 2.10, 4.5): models/model_list: data.0") {
				t.Errorf("the preflight does not name the model list of another shape:\n%s", out)
			}
			if o := kit.RunCheck(context.Background(), openAt(t, c.target), checkByID(t, c.check)); len(o.Failures) == 0 {
				t.Errorf("%s: %+v, want it to fail on the deviation", c.check, o)
			}
		})
	}
}

func TestPreflightNamesABaseURLWithoutScheme(t *testing.T) {
	for base, want := range map[string]string{
		"127.0.0.1:4010":    `CONFORMANCE_BASE_URL="127.0.0.1:4010" is not a URL of the form http(s)://host[:port]: add the scheme, as in http://127.0.0.1:4010`,
		"localhost:4010":    `CONFORMANCE_BASE_URL="localhost:4010" is not a URL of the form http(s)://host[:port]: add the scheme, as in http://localhost:4010`,
		"api.example.com":   `CONFORMANCE_BASE_URL="api.example.com" is not a URL of the form http(s)://host[:port]: add the scheme, as in http://api.example.com`,
		"ftp://example.com": `CONFORMANCE_BASE_URL="ftp://example.com" is not a URL of the form http(s)://host[:port]`,
		"http://":           `CONFORMANCE_BASE_URL="http:" is not a URL of the form http(s)://host[:port]`, // the trailing / is trimmed
		"http://h:1?x=1":    `CONFORMANCE_BASE_URL="http://h:1?x=1" is not a URL of the form http(s)://host[:port]: it has a query or fragment; give the API's root`,
	} {
		problems, out := preflight(t, base)
		if len(problems) != 1 || problems[0] != want || out != want+"\n" {
			t.Errorf("%s: problems %q, output %q; want the one line %q", base, problems, out, want)
		}
	}
	// Credentials in the URL are refused without showing them.
	problems, _ := preflight(t, "http://user:s3cret-pw@127.0.0.1:1")
	if len(problems) != 1 || strings.Contains(problems[0], "s3cret-pw") || !strings.Contains(problems[0], "carries user information") {
		t.Errorf("a URL with user information: %q", problems)
	}
}

// TestPreflightNamesTheRequestThatGotNoAnswer: a target that accepts the connection and never
// answers is named with the request and the timeout, and the wait is not silent.
func TestPreflightNamesTheRequestThatGotNoAnswer(t *testing.T) {
	defer func(d time.Duration) { kit.ProgressEvery = d }(kit.ProgressEvery)
	kit.ProgressEvery = 100 * time.Millisecond
	release := make(chan struct{})
	base := serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-release:
		case <-r.Context().Done():
		}
	}))
	defer close(release)
	problems, out := preflight(t, base, "CONFORMANCE_TIMEOUT", "0.5")
	want := "cannot reach " + base + ": no answer to GET " + base + "/_fake/health within 500ms (CONFORMANCE_TIMEOUT sets the timeout)"
	if len(problems) != 1 || problems[0] != want {
		t.Fatalf("problems = %q, want %q", problems, want)
	}
	if !strings.HasPrefix(out, "conformance: waiting for an answer to GET "+base+"/_fake/health (0s of 500ms)\n") || !strings.HasSuffix(out, want+"\n") {
		t.Errorf("output = %q, want progress lines, then the problem", out)
	}
}

func TestTimeoutSetting(t *testing.T) {
	for v, want := range map[string]time.Duration{"": kit.DefaultTimeout, "90": 90 * time.Second, "1.5": 1500 * time.Millisecond, "2m": 2 * time.Minute, " 30s ": 30 * time.Second} {
		c := kit.ConfigFromEnv(env("", "CONFORMANCE_TIMEOUT", v))
		if c.Timeout != want || len(c.InvalidSettings()) != 0 {
			t.Errorf("CONFORMANCE_TIMEOUT=%q: %v %q, want %v", v, c.Timeout, c.InvalidSettings(), want)
		}
	}
	for _, v := range []string{"soon", "0", "-5s", "2h", "1e300", "NaN", "-Inf", "0.0000000001"} {
		problems, _ := preflight(t, "", "CONFORMANCE_TIMEOUT", v)
		if len(problems) != 1 || !strings.HasPrefix(problems[0], "CONFORMANCE_TIMEOUT=") {
			t.Errorf("CONFORMANCE_TIMEOUT=%q: problems %q, want one line naming the variable", v, problems)
		}
	}
}

// TestUnsupportedOnlyForTheAPIsOwn404: a route the target lacks is unsupported only when the API
// itself says so (its not_found_error envelope, request-id); an HTML page, another server's JSON
// 404, or an envelope without request-id fails the check, since it says nothing about what the
// deployment offers.
func TestUnsupportedOnlyForTheAPIsOwn404(t *testing.T) {
	good := fake.New()
	lacking := func(answer func(w http.ResponseWriter)) http.Handler {
		return hideControl(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if strings.HasPrefix(r.URL.Path, "/v1/memory_stores") {
				answer(w)
				return
			}
			good.ServeHTTP(w, r)
		}))
	}
	envelope := `{"type":"error","error":{"type":"not_found_error","message":"no route"},"request_id":"req_1"}`
	check := checkByID(t, "memory/store-list-newest-first")
	for name, c := range map[string]struct {
		answer      func(w http.ResponseWriter)
		unsupported bool
	}{
		"the API's own 404": {func(w http.ResponseWriter) {
			w.Header().Set("Content-Type", "application/json")
			w.Header().Set("Request-Id", "req_404")
			w.WriteHeader(http.StatusNotFound)
			w.Write([]byte(envelope))
		}, true},
		"an HTML 404": {func(w http.ResponseWriter) {
			w.Header().Set("Content-Type", "text/html")
			w.WriteHeader(http.StatusNotFound)
			w.Write([]byte("<h1>Not Found</h1>"))
		}, false},
		"an envelope without request-id": {func(w http.ResponseWriter) {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusNotFound)
			w.Write([]byte(envelope))
		}, false},
		"a 404 of another error type": {func(w http.ResponseWriter) {
			w.Header().Set("Content-Type", "application/json")
			w.Header().Set("Request-Id", "req_404")
			w.WriteHeader(http.StatusNotFound)
			w.Write([]byte(strings.Replace(envelope, "not_found_error", "invalid_request_error", 1)))
		}, false},
	} {
		t.Run(name, func(t *testing.T) {
			o := kit.RunCheck(context.Background(), openAt(t, lacking(c.answer)), check)
			if c.unsupported != strings.HasPrefix(o.Skipped, kit.PrefixUnsupported) || c.unsupported == (len(o.Failures) > 0) {
				t.Errorf("outcome %+v; want unsupported: %v, else failed", o, c.unsupported)
			}
		})
	}
}

// TestSuiteStopsOnAV1BaseURL: as an operator runs it, a base URL ending in /v1 prints the one line
// and the summary, runs no check, and fails.
func TestSuiteStopsOnAV1BaseURL(t *testing.T) {
	base := serve(t, fake.New()) + "/v1"
	s := runSuite(t, map[string]string{"CONFORMANCE_BASE_URL": base})
	want := "GET /v1/models answered 404 application/json (no list of models): is CONFORMANCE_BASE_URL the API's root, without /v1?\n"
	if s.code == 0 || !strings.HasPrefix(s.out, want) || strings.Contains(s.out, "Ran ") {
		t.Errorf("exit %d, output:\n%s\nwant it to start with %q and run no check", s.code, s.out, want)
	}
	if got := s.lastLine(); !strings.HasPrefix(got, "conformance: not run: 1 error before the first check; 0 of ") {
		t.Errorf("last line = %q, want the summary", got)
	}
	if r := s.file(t, kit.ResultsFile); !strings.Contains(r, "without /v1?") || !strings.Contains(r, `"suite_version": "devel"`) {
		t.Errorf("the results do not hold the problem and the suite version:\n%s", r)
	}
}

// TestAPIVersionSetting: CONFORMANCE_API_VERSION defaults to 2023-06-01 (what runs sent before the
// setting existed), takes each served version, and refuses any other with one line naming it.
func TestAPIVersionSetting(t *testing.T) {
	for v, want := range map[string]string{"": "2023-06-01", "2026-10-21": "2026-10-21", " 2023-06-01 ": "2023-06-01"} {
		c := kit.ConfigFromEnv(env("", "CONFORMANCE_API_VERSION", v))
		if c.APIVersion != want || len(c.InvalidSettings()) != 0 {
			t.Errorf("CONFORMANCE_API_VERSION=%q: %q %q, want %q", v, c.APIVersion, c.InvalidSettings(), want)
		}
	}
	problems, _ := preflight(t, "", "CONFORMANCE_API_VERSION", "2024-01-01")
	want := `CONFORMANCE_API_VERSION="2024-01-01": not an API version the suite knows; want one of 2023-06-01, 2026-10-21`
	if len(problems) != 1 || problems[0] != want {
		t.Errorf("problems %q, want [%q]", problems, want)
	}
}

// TestPreflightStopsOnARefusedVersion: a deployment that does not serve the version the suite
// sends stops the run with one line naming the version and the setting, before any check.
func TestPreflightStopsOnARefusedVersion(t *testing.T) {
	api := fake.New()
	oldOnly := serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if v := r.Header.Get("Vendor-Version"); v == "2026-10-21" {
			w.Header().Set("Content-Type", "application/json")
			w.Header().Set("Request-Id", "req_1")
			w.WriteHeader(http.StatusBadRequest)
			w.Write([]byte(`{"type":"error","error":{"type":"invalid_request_error","message":"vendor-version: \"2026-10-21\" is not a valid version"}}`))
			return
		}
		api.ServeHTTP(w, r)
	}))
	problems, _ := preflight(t, oldOnly, "CONFORMANCE_API_VERSION", "2026-10-21")
	want := oldOnly + ` refused API version 2026-10-21 ("vendor-version: \"2026-10-21\" is not a valid version"): CONFORMANCE_API_VERSION selects another (2023-06-01, 2026-10-21)`
	if len(problems) != 1 || problems[0] != want {
		t.Errorf("problems %q\nwant [%q]", problems, want)
	}
	if problems, _ := preflight(t, oldOnly); len(problems) != 0 {
		t.Errorf("at the default version: problems %q, want none", problems)
	}
}
