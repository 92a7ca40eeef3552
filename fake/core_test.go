package fake

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/platformkit/platformkit/fake/internal/core"

	"github.com/gin-gonic/gin"
	"github.com/tidwall/gjson"
)

// send makes one request to h and returns the recorded response.
func send(t testing.TB, h http.Handler, method, path, body string, header ...string) *httptest.ResponseRecorder {
	t.Helper()
	var r io.Reader
	if body != "" {
		r = strings.NewReader(body)
	}
	req := httptest.NewRequest(method, path, r)
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Add(header[i], header[i+1])
	}
	w := httptest.NewRecorder()
	h.ServeHTTP(w, req)
	return w
}

// encodedWhole encodes v as one value, by reflection, as writeJSON does: what a body spliced
// from records encoded ahead of time must equal.
func encodedWhole(t *testing.T, v any) string {
	t.Helper()
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

var modelsHeaders = []string{"X-Api-Key", "test-api-key", "vendor-version", core.APIVersion}

// checked returns a server that fails t on any response outside its schema or any panic.
func checked(t *testing.T) *Server {
	return New(WithViolationHandler(func(msg string) { t.Errorf("fake: %s", msg) }))
}

func wantError(t *testing.T, w *httptest.ResponseRecorder, status int, errType, inMessage string) {
	t.Helper()
	if got := w.Code; got != status {
		t.Fatalf("status = %d, want %d; body %s", got, status, w.Body)
	}
	body := w.Body.Bytes()
	if got := gjson.GetBytes(body, "error.type").String(); got != errType {
		t.Errorf("error.type = %q, want %q", got, errType)
	}
	if msg := gjson.GetBytes(body, "error.message").String(); !strings.Contains(msg, inMessage) {
		t.Errorf("error.message = %q, want it to mention %q", msg, inMessage)
	}
	if got, want := gjson.GetBytes(body, "request_id").String(), w.Header().Get("request-id"); got == "" || got != want {
		t.Errorf("request_id = %q, request-id header = %q: want equal and set", got, want)
	}
	if got := w.Header().Get("Content-Type"); got != "application/json" {
		t.Errorf("Content-Type = %q", got)
	}
}

func TestCredentialsPerInterface(t *testing.T) {
	s := checked(t)
	for _, tc := range []struct {
		name   string
		header []string
		status int
		typ    string
		msg    string
	}{
		{"own key", []string{"X-Api-Key", "test-api-key"}, 200, "", ""},
		{"second organization's key", []string{"X-Api-Key", "test-api-key-2"}, 200, "", ""},
		{"no credential", nil, 401, core.ErrAuthentication, "X-Api-Key"},
		{"unknown key", []string{"X-Api-Key", "nope"}, 401, core.ErrAuthentication, "not known"},
		{"admin key", []string{"X-Api-Key", "test-admin-key"}, 403, core.ErrPermission, "admin API key"},
		{"compliance bearer", []string{"Authorization", "Bearer test-compliance-key"}, 403, core.ErrPermission, "compliance"},
		{"bearer of an API key", []string{"Authorization", "Bearer test-api-key"}, 200, "", ""},
		{"authorization of another scheme", []string{"Authorization", "Basic dGVzdA=="}, 401, core.ErrAuthentication, `"Bearer <token>"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := send(t, s, "GET", "/v1/models", "", append(tc.header, "vendor-version", core.APIVersion)...)
			if tc.status == 200 {
				if w.Code != 200 {
					t.Fatalf("status = %d, want 200: %s", w.Code, w.Body)
				}
				return
			}
			wantError(t, w, tc.status, tc.typ, tc.msg)
		})
	}
}

// TestVersionHeader covers the version table (versions.go): both served versions in either
// header, the platform's wording for a missing header and for an unknown value under the name the
// request used, and vendor-version deciding when both are sent.
func TestVersionHeader(t *testing.T) {
	s := checked(t)
	key := []string{"X-Api-Key", "test-api-key"}
	for _, tc := range []struct {
		name   string
		header []string
		msg    string // "" for 200
	}{
		{"missing", nil, "anthropic-version: header is required"},
		{"anthropic 2023-06-01", []string{"anthropic-version", "2023-06-01"}, ""},
		{"anthropic 2026-10-21", []string{"anthropic-version", "2026-10-21"}, ""},
		{"vendor 2023-06-01", []string{"vendor-version", "2023-06-01"}, ""},
		{"vendor 2026-10-21", []string{"vendor-version", "2026-10-21"}, ""},
		{"anthropic unknown", []string{"anthropic-version", "2020-01-01"}, `anthropic-version: "2020-01-01" is not a valid version`},
		{"vendor unknown", []string{"vendor-version", "2023-01-01"}, `vendor-version: "2023-01-01" is not a valid version`},
		{"a list is no version", []string{"anthropic-version", "2023-06-01, 2023-06-01"}, `anthropic-version: "2023-06-01, 2023-06-01" is not a valid version`},
		{"vendor decides: unknown", []string{"vendor-version", "2020-01-01", "anthropic-version", "2023-06-01"}, `vendor-version: "2020-01-01" is not a valid version`},
		{"vendor decides: served", []string{"vendor-version", "2026-10-21", "anthropic-version", "2020-01-01"}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := send(t, s, "GET", "/v1/models", "", append(tc.header, key...)...)
			if tc.msg == "" {
				if w.Code != 200 {
					t.Fatalf("status %d, want 200: %s", w.Code, w.Body)
				}
				return
			}
			wantError(t, w, 400, core.ErrInvalidRequest, tc.msg)
			var env struct{ Error struct{ Message string } }
			_ = json.Unmarshal(w.Body.Bytes(), &env)
			if env.Error.Message != tc.msg {
				t.Fatalf("message %q, want exactly %q", env.Error.Message, tc.msg)
			}
		})
	}
}

func TestParseBetas(t *testing.T) {
	h := http.Header{}
	h.Add("vendor-beta", "a, b,,c")
	h.Add("vendor-beta", "d")
	h.Add("vendor-beta", " a ")
	work := &core.Meter{}
	work.Start(nil, core.MaxBetaSteps)
	betas, err := core.ParseBetas(h, work)
	if err != nil {
		t.Fatal(err)
	}
	got := strings.Join(betas, "|")
	if want := "a|b|c|d"; got != want {
		t.Fatalf("parseBetas = %q, want %q", got, want)
	}
}

func TestRoutingErrors(t *testing.T) {
	s := checked(t)
	wantError(t, send(t, s, "GET", "/v1/nothing", ""), 404, core.ErrNotFound, "/v1/nothing")
	w := send(t, s, "DELETE", "/v1/models", "", modelsHeaders...)
	wantError(t, w, 405, core.ErrInvalidRequest, "DELETE")
	// A trailing slash is another route, not a redirect that clients would follow silently.
	wantError(t, send(t, s, "GET", "/v1/models/", "", modelsHeaders...), 404, core.ErrNotFound, "")
}

func TestRequestIDsAreDeterministic(t *testing.T) {
	run := func() []string {
		s := New()
		var out []string
		for _, p := range []string{"/v1/models", "/v1/models/assistant-opus-4-5", "/nowhere"} {
			w := send(t, s, "GET", p, "", modelsHeaders...)
			out = append(out, w.Header().Get("request-id"), w.Body.String())
		}
		return out
	}
	a, b := run(), run()
	for i := range a {
		if a[i] != b[i] {
			t.Fatalf("two new servers answered the same requests differently:\n%s\n%s", a[i], b[i])
		}
	}
	if !strings.HasPrefix(a[0], "req_") || a[0] == a[2] {
		t.Fatalf("request IDs %q, %q: want distinct req_ IDs", a[0], a[2])
	}
}

// TestControlCallsLeaveAPIAnswersIdentical: a client that polls for readiness, reads the clock or
// the journal, or injects and clears faults between its API requests gets byte-identical API
// answers, request-ids included, to one that only sends the API requests: control calls never
// consume the API's ID counters.
func TestControlCallsLeaveAPIAnswersIdentical(t *testing.T) {
	apiKey := []string{"X-Api-Key", core.DefaultAPIKey, "vendor-version", core.APIVersion, "Content-Type", "application/json"}
	adminKey := []string{"X-Api-Key", core.DefaultAdminKey, "vendor-version", core.APIVersion, "Content-Type", "application/json"}
	api := []struct {
		method, path, body string
		header             []string
	}{
		{"GET", "/v1/models?limit=2", "", apiKey},
		{"POST", "/v1/messages", `{"model":"assistant-opus-4-7","max_tokens":40,"messages":[{"role":"user","content":"hello"}]}`, apiKey},
		{"POST", "/v1/memory_stores", `{"name":"notes"}`, apiKey},
		{"POST", "/v1/organizations/workspaces", `{"name":"Scratch"}`, adminKey},
		{"GET", "/nowhere", "", nil},
		{"POST", "/v1/messages", `{"model":"assistant-opus-4-7","max_tokens":40,"messages":[{"role":"user","content":"again"}]}`, apiKey},
	}
	control := []struct{ method, path, body string }{
		{"GET", "/_fake/health", ""},
		{"POST", "/_fake/faults", `{"path":"/v1/never-requested","status":500}`},
		{"GET", "/_fake/clock", ""},
		{"GET", "/_fake/journal", ""},
		{"GET", "/_fake/faults", ""},
		{"GET", "/_fake/messages/scenarios", ""},
		{"POST", "/_fake/tunnels/token_check", `{"tunnel_token":"no-such-token"}`},
		{"DELETE", "/_fake/faults", ""},
	}
	run := func(s *Server, interleave bool) (answers []string) {
		for i, r := range api {
			if interleave {
				for _, c := range control[:1+i%len(control)] {
					if w := send(t, s, c.method, c.path, c.body); w.Code != 200 {
						t.Fatalf("%s %s = %d %s", c.method, c.path, w.Code, w.Body)
					}
				}
			}
			w := send(t, s, r.method, r.path, r.body, r.header...)
			answers = append(answers, w.Header().Get("request-id")+" "+w.Body.String())
		}
		return answers
	}
	plain := run(checked(t), false)
	polled := checked(t)
	if w := send(t, polled, "POST", "/_fake/reset", ""); w.Code != 200 {
		t.Fatalf("reset = %d", w.Code)
	}
	interleaved := run(polled, true)
	for i := range plain {
		if plain[i] != interleaved[i] {
			t.Errorf("%s %s answered differently after control calls:\n plain:       %s\n interleaved: %s",
				api[i].method, api[i].path, plain[i], interleaved[i])
		}
	}
	if !strings.Contains(plain[1], `"id":"msg_`) {
		t.Fatalf("the messages answer has no msg_ ID, so the test proves nothing: %s", plain[1])
	}
}

// TestControlIDsCountPerKind: what the control API creates is numbered per kind, so an enqueued
// work item's ID does not depend on the health polls or faults that came before it.
func TestControlIDsCountPerKind(t *testing.T) {
	enqueue := func(s *Server) string {
		w := send(t, s, "POST", "/_fake/environments/env_01AcmePrimary000000000001/work", `{}`)
		if w.Code != 200 {
			t.Fatalf("enqueue = %d %s", w.Code, w.Body)
		}
		return gjson.Get(w.Body.String(), "id").String()
	}
	quiet, busy := checked(t), checked(t)
	send(t, busy, "GET", "/_fake/health", "")
	send(t, busy, "POST", "/_fake/faults", `{"path":"/v1/never-requested","status":500}`)
	if a, b := enqueue(quiet), enqueue(busy); a != b {
		t.Fatalf("work ID = %q after other control calls, %q without", b, a)
	}
	if id := send(t, busy, "GET", "/_fake/health", "").Header().Get("request-id"); !strings.HasPrefix(id, core.ControlRequestPrefix) {
		t.Fatalf("control request-id = %q, want the prefix %q that no API request-id has", id, core.ControlRequestPrefix)
	}
}

// TestBodies uses the control API's advance call, the simplest route with a JSON body.
func TestBodies(t *testing.T) {
	s := checked(t)
	post := func(body string, header ...string) *httptest.ResponseRecorder {
		return send(t, s, "POST", "/_fake/clock/advance", body, header...)
	}
	wantError(t, post(`{"seconds":`), 400, core.ErrInvalidRequest, "not valid JSON")
	wantError(t, post(`[1]`), 400, core.ErrInvalidRequest, "expected object")
	wantError(t, post(`{"seconds":"ten"}`), 400, core.ErrInvalidRequest, "seconds: expected number")
	wantError(t, post(`{"seconds":1,"minutes":2}`), 400, core.ErrInvalidRequest, "minutes: unknown field")
	wantError(t, post(``), 400, core.ErrInvalidRequest, "seconds: field required")
	wantError(t, post(`{"seconds":-1}`), 400, core.ErrInvalidRequest, "seconds")
	if w := post(`{"seconds":1.5}`); w.Code != 200 || gjson.Get(w.Body.String(), "now").String() != "2026-01-01T00:00:01.5Z" {
		t.Fatalf("advance 1.5s: %d %s", w.Code, w.Body)
	}
}

func TestBodyOverLimitIsRefusedUnread(t *testing.T) {
	s := checked(t)
	// A body that declares its size is refused before a byte of it is read.
	r := &countingReader{r: bytes.NewReader(make([]byte, core.DefaultBodyLimit+1))}
	req := httptest.NewRequest("POST", "/_fake/clock/advance", r)
	req.ContentLength = core.DefaultBodyLimit + 1
	w := httptest.NewRecorder()
	s.ServeHTTP(w, req)
	wantError(t, w, 413, core.ErrRequestTooLarge, "limit")
	if r.n != 0 {
		t.Errorf("read %d bytes of a body declared too large", r.n)
	}
	// A chunked body is read only up to the limit.
	r = &countingReader{r: bytes.NewReader(make([]byte, 4*core.DefaultBodyLimit))}
	req = httptest.NewRequest("POST", "/_fake/clock/advance", r)
	req.ContentLength = -1
	w = httptest.NewRecorder()
	s.ServeHTTP(w, req)
	wantError(t, w, 413, core.ErrRequestTooLarge, "limit")
	if r.n > core.DefaultBodyLimit+1 {
		t.Errorf("read %d bytes of a chunked body; the limit is %d", r.n, core.DefaultBodyLimit)
	}
}

type countingReader struct {
	r io.Reader
	n int
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += n
	return n, err
}

func TestContentTypeMustBeJSON(t *testing.T) {
	c := &core.Call{X: &core.Exchange{}, Route: &core.Route{Ifc: core.IfModels}}
	for ct, ok := range map[string]bool{"application/json": true, "application/json; charset=utf-8": true, "text/plain": false, "": true} {
		req := httptest.NewRequest("POST", "/", strings.NewReader(`{}`))
		if ct != "" {
			req.Header.Set("Content-Type", ct)
		}
		c.Context, _ = gin.CreateTestContext(httptest.NewRecorder())
		c.Request = req
		_, err := c.Body()
		if (err == nil) != ok {
			t.Errorf("Content-Type %q: err = %v, want accepted %v", ct, err, ok)
		}
	}
}

// sendTo serves one GET of a route that is not in the table, through the same frame and adapter.
func sendTo(t *testing.T, s *Server, rt *core.Route) *httptest.ResponseRecorder {
	w := httptest.NewRecorder()
	s.srv.ServeOn(core.NewEngine([]*core.Route{rt}), w, httptest.NewRequest(rt.Method, rt.Path, nil))
	return w
}

func TestPanicIsReportedAndAnswered500(t *testing.T) {
	var got []string
	s := New(WithViolationHandler(func(msg string) { got = append(got, msg) }))
	w := sendTo(t, s, &core.Route{Method: "GET", Path: "/boom", H: func(*core.Server, *core.Call) (any, error) { panic("kaboom") }})
	wantError(t, w, 500, core.ErrAPI, "internal error")
	if len(got) != 1 || !strings.Contains(got[0], "kaboom") {
		t.Fatalf("violations = %q, want the panic reported once", got)
	}
}

func TestSchemaViolationIsReported(t *testing.T) {
	var got []string
	s := New(WithViolationHandler(func(msg string) { got = append(got, msg) }))
	sendTo(t, s, &core.Route{Method: "GET", Path: "/bad", Schema: "models/model", H: func(*core.Server, *core.Call) (any, error) {
		return map[string]any{"id": "x", "extra": true}, nil
	}})
	if len(got) != 1 || !strings.Contains(got[0], "does not match its schema") {
		t.Fatalf("violations = %q, want one schema mismatch", got)
	}
}

func TestClockAndReset(t *testing.T) {
	s := checked(t)
	if got := s.Now(); !got.Equal(core.Epoch()) {
		t.Fatalf("Now = %v, want %v", got, core.Epoch())
	}
	changed := s.srv.Clock.Changed()
	if got, want := s.AdvanceClock(90*time.Second), core.Epoch().Add(90*time.Second); !got.Equal(want) {
		t.Fatalf("AdvanceClock = %v, want %v", got, want)
	}
	select {
	case <-changed:
	default:
		t.Fatal("advancing the clock did not signal Changed")
	}
	if got := s.AdvanceClock(-time.Hour); !got.Equal(core.Epoch().Add(90 * time.Second)) {
		t.Fatalf("a negative advance moved the clock to %v", got)
	}
	w := send(t, s, "GET", "/_fake/clock", "")
	if got := gjson.Get(w.Body.String(), "now").String(); got != "2026-01-01T00:01:30Z" {
		t.Fatalf("GET /_fake/clock now = %q", got)
	}
	send(t, s, "GET", "/v1/models", "", modelsHeaders...)
	w = send(t, s, "POST", "/_fake/reset", "")
	if got := gjson.Get(w.Body.String(), "now").String(); w.Code != 200 || got != "2026-01-01T00:00:00Z" {
		t.Fatalf("reset: %d now = %q", w.Code, got)
	}
	// After a reset the server answers as a new one would, request IDs included.
	if got, want := send(t, s, "GET", "/v1/models", "", modelsHeaders...).Header().Get("request-id"), send(t, New(), "GET", "/v1/models", "", modelsHeaders...).Header().Get("request-id"); got != want {
		t.Fatalf("request-id after reset = %q, new server = %q", got, want)
	}
}

func TestWallClock(t *testing.T) {
	s := New(WithWallClock())
	if d := time.Since(s.Now()); d < 0 || d > time.Minute {
		t.Fatalf("wall clock reads %v", s.Now())
	}
}

func TestHealth(t *testing.T) {
	w := send(t, checked(t), "GET", "/_fake/health", "")
	if w.Code != 200 || strings.TrimSpace(w.Body.String()) != `{"status":"ok"}` {
		t.Fatalf("health: %d %s", w.Code, w.Body)
	}
}

func TestIDs(t *testing.T) {
	var g core.IDs
	a, b := g.Next("msg_"), g.Next("msg_")
	if len(a) != len("msg_01")+core.IDWidth || a >= b {
		t.Fatalf("ids %q, %q: want fixed width and increasing", a, b)
	}
	g.N.Store(1 << 40)
	if c := g.Next("msg_"); c <= b {
		t.Fatalf("id %q does not sort after %q", c, b)
	}
	g.N.Store(61) // the next is 62: "10" in base 62
	if c := g.Next("req_"); c != "req_01"+strings.Repeat("0", core.IDWidth-2)+"10" {
		t.Fatalf("id %q, want req_01 and 62 in base 62 on %d digits", c, core.IDWidth)
	}
	g.N.Store(^uint64(0) - 1)
	if c := g.Next("x_"); c != "x_01"+strings.Repeat("0", core.IDWidth-11)+"LygHa16AHYF" {
		t.Fatalf("id %q, want the largest counter on %d digits", c, core.IDWidth)
	}
}

func TestConcurrentRequests(t *testing.T) {
	ts := NewTestServer(t)
	var wg sync.WaitGroup
	seen := sync.Map{}
	for i := 0; i < 32; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			req, _ := http.NewRequest("GET", ts.URL+"/v1/models?limit=3", nil)
			req.Header.Set("X-Api-Key", "test-api-key")
			req.Header.Set("vendor-version", core.APIVersion)
			resp, err := ts.Server.Client().Do(req)
			if err != nil {
				t.Error(err)
				return
			}
			resp.Body.Close()
			if _, dup := seen.LoadOrStore(resp.Header.Get("request-id"), true); dup {
				t.Errorf("request-id %s given twice", resp.Header.Get("request-id"))
			}
		}()
	}
	wg.Wait()
}

// TestDateHeaderFollowsTheServerClock: over a real connection (net/http adds a wall-clock Date
// when none is set), the Date header is the virtual clock's, so two fresh servers answer the same
// headers, and it moves only when the clock does.
func TestDateHeaderFollowsTheServerClock(t *testing.T) {
	get := func(base string) *http.Response {
		t.Helper()
		req, _ := http.NewRequest("GET", base+"/v1/models", nil)
		req.Header.Set("X-Api-Key", core.DefaultAPIKey)
		req.Header.Set("vendor-version", core.APIVersion)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp
	}
	s := New()
	srv := httptest.NewServer(s)
	defer srv.Close()
	if got := get(srv.URL).Header.Values("Date"); len(got) != 1 || got[0] != "Thu, 01 Jan 2026 00:00:00 GMT" {
		t.Errorf("Date = %q, want the virtual clock's start, Thu, 01 Jan 2026 00:00:00 GMT", got)
	}
	s.AdvanceClock(36*time.Hour + 90*time.Second)
	if got := get(srv.URL).Header.Get("Date"); got != "Fri, 02 Jan 2026 12:01:30 GMT" {
		t.Errorf("Date after advancing 36h1m30s = %q", got)
	}
	ns := httptest.NewServer(New())
	defer ns.Close()
	if got := get(ns.URL + "/ns/a").Header.Get("Date"); got != "Thu, 01 Jan 2026 00:00:00 GMT" {
		t.Errorf("Date in a namespace = %q", got)
	}
}

// TestMeter holds the work meter to its contract: charges within the allowance go on, the one
// past it stops the work for good with a 400 naming the place, a stage's own cause and blame
// are told apart, and a context that ended is seen within 1,024 steps, the 400 saying so.
func TestMeter(t *testing.T) {
	var m core.Meter
	m.Start(nil, 10)
	if !m.Charge(4) || !m.Charge(6) || m.Stopped() {
		t.Fatalf("10 steps of 10: stopped (%v)", m.Err)
	}
	if m.Charge(1) || m.Charge(0) || !m.Stopped() {
		t.Fatal("the 11th step of 10 went on, or the meter went on after it")
	}
	err := m.Refusal("tools.0.input_schema", "more than %d steps", 10)
	if got, want := err.Error(), core.ErrInvalidRequest+": tools.0.input_schema: more than 10 steps"; got != want {
		t.Errorf("refusal = %q, want %q", got, want)
	}
	m.Start(nil, 100)
	if !m.ChargeBytes(63) || m.Left != 99 || !m.ChargeBytes(64) || m.Left != 97 {
		t.Errorf("chargeBytes(63), chargeBytes(64) left %d, want 97 (a step, and one per 64 bytes)", m.Left)
	}
	cause := errors.New("cause")
	m.Blame(cause) // not over: nothing to blame
	if m.Stopped() {
		t.Fatal("blame stopped a meter that was not over")
	}
	m.Charge(1000)
	m.Blame(cause)
	if m.Err != cause {
		t.Errorf("err after blame = %v, want the cause", m.Err)
	}
	if m.Refusal("x", "y") == nil {
		t.Error("no refusal once stopped")
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	m.Start(ctx, 1_000_000)
	n := 0
	for m.Charge(1) {
		n++
	}
	if n >= 1024 {
		t.Errorf("%d steps after the context ended, want under 1,024", n)
	}
	if got, want := m.Refusal("x", "y").Error(), core.ErrInvalidRequest+": x: the work stopped here: the client closed the request (context canceled)"; got != want {
		t.Errorf("refusal = %q, want %q", got, want)
	}
}
