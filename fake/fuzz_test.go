package fake

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/platformkit/platformkit/fake/internal/areas/messages/stubs"

	"github.com/platformkit/platformkit/fake/internal/core"

	"github.com/tidwall/gjson"

	"github.com/platformkit/platformkit/fixtures"
	"github.com/platformkit/platformkit/schemas"
)

// Go fuzz targets, one per input path that parses what a client sends. Each drives the real
// handler through ServeHTTP on a fresh server and holds the same property (fuzzCheck): no panic
// and no answer outside its schema (the violation handler fails the input), never a 5xx, every
// 4xx the error envelope whose message names what it refuses and shows no Go internals, and a
// refused request leaves the server's state as it was. `go test` runs the seeds below; `make
// fuzz` (and, briefly, `make test`) runs each target with -fuzz.

// Fixture IDs the targets aim at, so that inputs reach the handlers' parsing instead of a 404.
const (
	fzTunnel = "tnl_01AcmeProduction000000001"
	fzEnv    = "env_01AcmePrimary000000000001"
	fzWork   = "work_01AcmeQueuedBuild00000001"
	fzStore  = "memstore_01AcmeSupportAgent0000001"
	fzMemory = "mem_01AcmeStyleGuide000000001"
	fzMemVer = "memver_01AcmeSupport0001"
	fzWs     = "wrkspc_01AcmeProduction00000001"
	fzUser   = "user_01AcmeGraceDeveloper00001"
)

// fzRoute is a route a target sends to, with the credentials its interface takes.
type fzRoute struct {
	method, path string
	ifc          *core.Iface
}

// refusalSubject matches the start of a 400 message: a field path, header or query parameter
// ("messages.0.content: ...", "limit: ...", "vendor-beta: ..."), the body as a whole, or the
// object whose state refuses the request ("workspace wrkspc_... is archived ...").
var refusalSubject = regexp.MustCompile(`^(` + fieldPath + `: |(the )?request body\b|after_id and before_id: |` +
	`(invite|workspace|tunnel|work item|environment|memory store|namespace|the organization|a fault|at most) )`)

// fieldPath is a field path as messages write it: names and indexes joined by dots, a name
// beyond letters, digits, "_" and "-" quoted as a JSON string.
const fieldPath = `(?:[A-Za-z0-9_\-]+|"(?:[^"\\]|\\.)*")(?:\.(?:[A-Za-z0-9_\-]+|"(?:[^"\\]|\\.)*"))*`

// fuzzServer is a fresh server whose violations (a recovered panic, an answer outside its schema)
// fail the input.
func fuzzServer(t *testing.T) *Server {
	return New(WithViolationHandler(func(msg string) { t.Errorf("fake: %s", msg) }))
}

// fuzzSend sends one request built from fuzzed parts; the query is set as it is, since a server
// hands a handler whatever bytes the request line held.
func fuzzSend(s *Server, method, path, query, body string, header ...string) *httptest.ResponseRecorder {
	req := httptest.NewRequest(method, path, strings.NewReader(body))
	req.URL.RawQuery = query
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Add(header[i], header[i+1])
	}
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	w := httptest.NewRecorder()
	s.ServeHTTP(w, req)
	return w
}

// fuzzCheck holds the answer to the property every target shares.
func fuzzCheck(t *testing.T, what string, w *httptest.ResponseRecorder) {
	t.Helper()
	if w.Code >= 500 {
		t.Fatalf("%s: %d %.500s", what, w.Code, w.Body)
	}
	if w.Code < 400 {
		return
	}
	body := w.Body.Bytes()
	typ, msg := gjson.GetBytes(body, "error.type").String(), gjson.GetBytes(body, "error.message").String()
	if gjson.GetBytes(body, "type").String() != "error" || typ == "" || msg == "" ||
		gjson.GetBytes(body, "request_id").String() != w.Header().Get("request-id") {
		t.Fatalf("%s: %d is not the error envelope: %.500s", what, w.Code, body)
	}
	if showsGoInternals(msg) {
		t.Fatalf("%s: message shows Go internals: %q", what, msg)
	}
	if typ == core.ErrInvalidRequest && !refusalSubject.MatchString(msg) {
		t.Fatalf("%s: message does not start with what it refuses: %q", what, msg)
	}
}

// fuzzState is what a refused request must leave as it was: the answers of the given list
// requests and the API's ID counter (a refusal that minted an ID would move every later one).
func fuzzState(s *Server, lists []fzRoute) string {
	var b strings.Builder
	fmt.Fprintf(&b, "ids=%d\n", s.srv.IDs.N.Load())
	for _, l := range lists {
		w := fuzzSend(s, http.MethodGet, l.path, "", "", headersFor(l.ifc)...)
		fmt.Fprintf(&b, "%s %d %s\n", l.path, w.Code, w.Body)
	}
	return b.String()
}

// fuzzRequest sends one fuzzed request and checks the property, the state included.
func fuzzRequest(t *testing.T, s *Server, rt fzRoute, query, body string, lists []fzRoute, header ...string) *httptest.ResponseRecorder {
	t.Helper()
	before := fuzzState(s, lists)
	w := fuzzSend(s, rt.method, rt.path, query, body, append(headersFor(rt.ifc), header...)...)
	fuzzCheck(t, rt.method+" "+rt.path, w)
	if w.Code >= 400 {
		if after := fuzzState(s, lists); after != before {
			t.Fatalf("%s %s refused with %d changed the state:\nbefore %.2000s\nafter  %.2000s", rt.method, rt.path, w.Code, before, after)
		}
	}
	return w
}

// fuzzBodies registers the seeds every body target shares (the known bad inputs of issue 13 and
// the classic JSON traps), spread over its routes, then the area's own for each route. Few seeds
// keep the baseline a fuzzing run starts with short: the fuzzer moves them between routes.
func fuzzBodies(f *testing.F, routes []fzRoute, own ...string) {
	shared := []string{
		"", "null", "[]", "{}", `"x"`, "1e1000001", `{"zz":[{"n":1e1000001}]}`, `{"n":1e-1000001}`,
		`{"n":-0.` + strings.Repeat("9", 300) + `}`, `{"a":` + strings.Repeat("[", 5000) + strings.Repeat("]", 5000) + `}`,
		`{"name":"\ud800"}`, "{\"name\":\"\xff\xfe\"}", `{"name":"a"}{"name":"b"}`, `{"metadata":{"k":1}}`,
		`{"name":` + `"` + strings.Repeat("x", 70000) + `"}`, `{"name":null,"description":[],"metadata":"x"}`,
		`{"[]A":1,"int":2}`, `{"metadata":{"k":{"map[x]":1}}}`,
	}
	for j, b := range shared {
		f.Add(uint8(j%len(routes)), b)
	}
	for i := range routes {
		for _, b := range own {
			f.Add(uint8(i), b)
		}
	}
}

// fuzzRouteBody is the body of the body targets: input route picks one of routes.
func fuzzRouteBody(f *testing.F, routes []fzRoute, lists []fzRoute) {
	f.Fuzz(func(t *testing.T, route uint8, body string) {
		fuzzRequest(t, fuzzServer(t), routes[int(route)%len(routes)], "", body, lists)
	})
}

func FuzzMessagesBody(f *testing.F) {
	routes := []fzRoute{{core.Post, "/v1/messages", core.IfMessages}, {core.Post, "/v1/messages/count_tokens", core.IfMessages}, {core.Post, "/v1/complete", core.IfMessages}}
	msgs := `"messages":[{"role":"user","content":"Hi"}],"model":"` + testModel + `"`
	nested := `{"type":"string","minLength":1000}`
	for range 3 {
		nested = `{"type":"array","minItems":1000,"items":` + nested + `}`
	}
	fuzzBodies(f, routes,
		`{"max_tokens":1e1000001,`+msgs+`}`, `{"max_tokens":10,"temperature":1e-1000001,`+msgs+`}`,
		`{"max_tokens":10,"thinking":{"type":"enabled","budget_tokens":1e1000001},`+msgs+`}`,
		`{"max_tokens":10,"top_k":"3",`+msgs+`}`, `{"max_tokens":10,"stream":true,`+msgs+`}`,
		`{"max_tokens":64,`+msgs+`,"tools":[{"name":"t","input_schema":{"type":"object","properties":{"a":`+nested+`}}}],"tool_choice":{"type":"tool","name":"t"}}`,
		`{"max_tokens":64,`+msgs+`,"tools":[{"name":"t","input_schema":{"type":"object","properties":{"a":{"type":"array","minItems":-5,"maxItems":-1}}}}],"tool_choice":{"type":"any"}}`,
		`{"max_tokens":64,`+msgs+`,"tools":[{"name":"t","input_schema":{"type":"object","properties":{"a":{"type":"array","minItems":50,"items":{"const":{"k":["v",1,null]}}},"b":{"enum":["x y z"]},"c":{"$ref":"#/$defs/d"}},"$defs":{"d":{"allOf":[{"required":["a","b"]},{"required":["c"]}]}}}}],"tool_choice":{"type":"any"}}`,
		`{"max_tokens":64,"model":"`+testModel+`","messages":[{"role":"user","content":[{"type":"document","source":{"type":"text","media_type":"text/plain","data":"A. B."},"citations":{"enabled":true}},{"type":"text","text":"Quote"}]}]}`,
		`{"model":"`+testModel+`","prompt":"\n\nHuman: Hi\n\nAssistant:","max_tokens_to_sample":1e1000001}`,
		`{"model":"`+testModel+`","prompt":"\n\nHuman: Hi\n\nAssistant:","max_tokens_to_sample":20,"stop_sequences":[""]}`,
		// Prompt caching: breakpoints everywhere, one too many, a 1h after a 5m, the top-level one,
		// an empty marked text, a pre-warm that streams, diagnostics naming an unknown message.
		`{"max_tokens":10,"model":"`+testModel+`","cache_control":{"type":"ephemeral","ttl":"1h"},"tools":[{"name":"t","input_schema":{"type":"object"},"cache_control":{"type":"ephemeral","ttl":"1h"}}],"system":[{"type":"text","text":"S","cache_control":{"type":"ephemeral"}}],"messages":[{"role":"user","content":[{"type":"text","text":"a","cache_control":{"type":"ephemeral"}},{"type":"text","text":"b","cache_control":{"type":"ephemeral","ttl":"1h"}},{"type":"text","text":"","cache_control":{"type":"ephemeral"}}]}]}`,
		`{"max_tokens":0,"stream":true,"cache_control":{"type":"ephemeral"},`+msgs+`}`,
		`{"max_tokens":10,"diagnostics":{"previous_message_id":"msg_x"},"messages":[{"role":"user","content":[{"type":"tool_result","tool_use_id":"t","content":[{"type":"text","text":"r","cache_control":{"type":"ephemeral"}}]}]}],"model":"`+testModel+`"}`,
		// Work without output (issue 38): a pattern of empty-width repeats, a definition reached
		// by many references, a keyword of the wrong type, a bad speed.
		`{"max_tokens":128000,`+msgs+`,"tools":[{"name":"t","input_schema":{"type":"object","properties":{"a":{"type":"array","minItems":1000,"items":{"type":"string","pattern":"`+strings.Repeat(`(?:^){1000}`, 120)+`"}}}}}],"tool_choice":{"type":"tool","name":"t"}}`,
		`{"max_tokens":64,`+msgs+`,"output_config":{"format":{"type":"json_schema","schema":{"type":"object","additionalProperties":false,"properties":{"a":{"$ref":"#/$defs/d"},"b":{"$ref":"#/$defs/d"}},"required":["a","b"],"$defs":{"d":{"type":"string","$defs":{"e":{},"f":{"type":5}}}}}}}}`,
		`{"max_tokens":64,`+msgs+`,"tools":[{"name":"t","input_schema":{"type":"object","properties":{"a":{"type":"array","minItems":"x"}}}}]}`,
		`{"max_tokens":10,"speed":"warp",`+msgs+`}`,
	)
	fuzzRouteBody(f, routes, []fzRoute{{core.Get, "/_fake/messages/stubs", nil}, {core.Get, "/_fake/cache", nil}})
}

func FuzzAdminBody(f *testing.F) {
	routes := []fzRoute{
		{core.Post, "/v1/organizations/invites", core.IfAdmin},
		{core.Post, "/v1/organizations/users/" + fzUser, core.IfAdmin},
		{core.Post, "/v1/organizations/workspaces", core.IfAdmin},
		{core.Post, "/v1/organizations/workspaces/" + fzWs, core.IfAdmin},
		{core.Post, "/v1/organizations/workspaces/" + fzWs + "/archive", core.IfAdmin},
		{core.Post, "/v1/organizations/workspaces/" + fzWs + "/rate_limits/rl_df1a5cdde2f9148a71081e26", core.IfAdmin},
	}
	fuzzBodies(f, routes, `{"email":"a@example.com","role":"user"}`, `{"role":"developer"}`, `{"name":"W","data_residency":{"workspace_geo":"us"}}`,
		`{"email":"a@example.com","role":"admin"}`, `{"name":"`+strings.Repeat("w", 41)+`"}`,
		`{"limits":[{"type":"requests_per_minute","value":1},{"type":"batch_requests_in_queue","value":null}]}`)
	fuzzRouteBody(f, routes, []fzRoute{
		{core.Get, "/v1/organizations/invites?limit=1000", core.IfAdmin}, {core.Get, "/v1/organizations/users?limit=1000", core.IfAdmin},
		{core.Get, "/v1/organizations/workspaces?limit=1000&include_archived=true", core.IfAdmin},
	})
}

func FuzzTunnelsBody(f *testing.F) {
	routes := []fzRoute{
		{core.Post, "/v1/organizations/tunnels/" + fzTunnel + "/certificates", core.IfTunnels},
		{core.Post, "/v1/organizations/tunnels/" + fzTunnel + "/rotate_token", core.IfTunnels},
		{core.Post, "/v1/organizations/tunnels/" + fzTunnel + "/archive", core.IfTunnels},
		{core.Post, "/v1/tunnels", core.IfTunnelsAPI},
		{core.Post, "/v1/tunnels/" + fzTunnel, core.IfTunnelsAPI},
		{core.Post, "/v1/tunnels/" + fzTunnel + "/certificates", core.IfTunnelsAPI},
		{core.Post, "/_fake/tunnels", nil},
		{core.Post, "/_fake/tunnels/token_check", nil},
		{core.Post, "/_fake/tunnels/" + fzTunnel + "/gateway_check", nil},
	}
	fuzzBodies(f, routes, `{"ca_certificate_pem":`+mustJSON(f, fixturePEM(f, 0))+`}`, `{"reason":"x"}`, `{"display_name":"d"}`,
		`{"token":"x"}`, `{"certificate_pem":"-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n"}`)
	fuzzRouteBody(f, routes, []fzRoute{
		{core.Get, "/v1/organizations/tunnels?limit=1000&include_archived=true", core.IfTunnels},
		{core.Get, "/v1/organizations/tunnels/" + fzTunnel + "/certificates?limit=1000&include_archived=true", core.IfTunnels},
	})
}

func FuzzWorkBody(f *testing.F) {
	work := "/v1/environments/" + fzEnv + "/work/" + fzWork
	routes := []fzRoute{
		{core.Post, "/v1/environments", core.IfEnvironments},
		{core.Post, "/v1/environments/" + fzEnv, core.IfEnvironments},
		{core.Post, work, core.IfWork},
		{core.Post, work + "/ack", core.IfWork},
		{core.Post, work + "/heartbeat", core.IfWork},
		{core.Post, work + "/stop", core.IfWork},
		{core.Post, "/_fake/environments/" + fzEnv + "/work", nil},
	}
	fuzzBodies(f, routes, `{"name":"e","config":{"type":"cloud"}}`, `{"lease_token":"x"}`, `{"session_id":"s","metadata":{"k":"v"}}`, `{"metadata":{"k":null,"j":"v"}}`,
		`{"expected_lease_token":"x","lease_duration_ms":1e1000001}`)
	fuzzRouteBody(f, routes, []fzRoute{
		{core.Get, "/v1/environments?limit=100&include_archived=true", core.IfEnvironments},
		{core.Get, "/v1/environments/" + fzEnv + "/work?limit=100", core.IfWork},
	})
}

// memoryLists is the memory area's state: stores, one store's memories and its versions.
var memoryLists = []fzRoute{
	{core.Get, "/v1/memory_stores?limit=100&include_archived=true", core.IfMemory},
	{core.Get, "/v1/memory_stores/" + fzStore + "/memories?limit=100&depth=100", core.IfMemory},
	{core.Get, "/v1/memory_stores/" + fzStore + "/memory_versions?limit=100", core.IfMemory},
}

func FuzzMemoryBody(f *testing.F) {
	routes := []fzRoute{
		{core.Post, "/v1/memory_stores", core.IfMemory},
		{core.Post, "/v1/memory_stores/" + fzStore, core.IfMemory},
		{core.Post, "/v1/memory_stores/" + fzStore + "/memories", core.IfMemory},
		{core.Post, "/v1/memory_stores/" + fzStore + "/memories/" + fzMemory, core.IfMemory},
		{core.Post, "/v1/memory_stores/" + fzStore + "/memory_versions/" + fzMemVer + "/redact", core.IfMemory},
		{core.Post, "/v1/memory_stores/" + fzStore + "/archive", core.IfMemory},
	}
	fuzzBodies(f, routes, `{"name":"s","metadata":{"k":"v"}}`, `{"path":"/a/b.md","content":"x"}`,
		`{"content":"y","precondition":{"type":"content_sha256","content_sha256":"00"}}`, `{"path":"/a/../b"}`)
	fuzzRouteBody(f, routes, memoryLists)
}

func FuzzControlBody(f *testing.F) {
	routes := []fzRoute{
		{core.Post, "/_fake/faults", nil},
		{core.Post, "/_fake/clock/advance", nil},
		{core.Post, "/_fake/messages/stubs", nil},
	}
	fuzzBodies(f, routes, `{"path":"/v1/models*","status":429,"retry_after":2,"times":2}`, `{"path":"/v1/messages","stream_events":3}`,
		`{"seconds":1e1000001}`, `{"seconds":-1}`, `{"latency_ms":1e300}`, `{"reply":{"content":[{"type":"text","text":"x"}]}}`)
	fuzzRouteBody(f, routes, []fzRoute{{core.Get, "/_fake/faults", nil}, {core.Get, "/_fake/clock", nil}, {core.Get, "/_fake/messages/stubs", nil}})
}

// queryRoutes are the routes that read query parameters, with fixture IDs filled in.
var queryRoutes = []fzRoute{
	{core.Get, "/v1/models", core.IfModels},
	{core.Get, "/v1/organizations/invites", core.IfAdmin},
	{core.Get, "/v1/organizations/users", core.IfAdmin},
	{core.Get, "/v1/organizations/workspaces", core.IfAdmin},
	{core.Get, "/v1/organizations/rate_limits", core.IfAdmin},
	{core.Get, "/v1/organizations/workspaces/" + fzWs + "/rate_limits", core.IfAdmin},
	{core.Get, "/v1/organizations/tunnels", core.IfTunnels},
	{core.Get, "/v1/organizations/tunnels/" + fzTunnel + "/certificates", core.IfTunnels},
	{core.Get, "/v1/environments", core.IfEnvironments},
	{core.Get, "/v1/environments/" + fzEnv + "/work", core.IfWork},
	{core.Get, "/v1/environments/" + fzEnv + "/work/poll", core.IfWork},
	{core.Get, "/v1/compliance/apps/chats", core.IfCompliance},
	{core.Get, "/v1/compliance/apps/chats/assistant_chat_01Acme000001/messages", core.IfCompliance},
	{core.Get, "/v1/compliance/apps/projects", core.IfCompliance},
	{core.Get, "/v1/compliance/organizations", core.IfCompliance},
	{core.Get, "/v1/memory_stores", core.IfMemory},
	{core.Get, "/v1/memory_stores/" + fzStore + "/memories", core.IfMemory},
	{core.Get, "/v1/memory_stores/" + fzStore + "/memory_versions", core.IfMemory},
	{core.Get, "/v1/files", core.IfFiles},
	{core.Get, "/_fake/journal", nil},
}

// FuzzQuery sends query strings to every route that reads one. GETs change no state but a poll's
// lease, so the state is compared on the memory area only, whose lists read the most parameters.
func FuzzQuery(f *testing.F) {
	for i := range queryRoutes {
		f.Add(uint8(i), "limit=1e1000001")
	}
	for j, q := range []string{"", "limit=1e1000001", "limit=-1", "limit=0", "limit=" + strings.Repeat("9", 400), "after_id=x&before_id=y",
		"include_archived=maybe", "block_ms=999999", "reclaim_older_than_ms=-5", "path_prefix=/a/&depth=2", "depth=1e9",
		"page=%ff%fe", "email=%00", "user_ids[]=x&limit=%20", "limit=1&limit=2", "%zz", ";;;&&&==", "memory_id=\xff"} {
		f.Add(uint8(j*7%len(queryRoutes)), q)
	}
	f.Fuzz(func(t *testing.T, route uint8, query string) {
		fuzzRequest(t, fuzzServer(t), queryRoutes[int(route)%len(queryRoutes)], query, "", memoryLists)
	})
}

// tokenRoutes are the lists paged by tokens (page) or by cursors (after_id, before_id).
var tokenRoutes = []struct {
	fzRoute
	param string
}{
	{fzRoute{core.Get, "/v1/organizations/rate_limits?limit=1", core.IfAdmin}, "page"},
	{fzRoute{core.Get, "/v1/compliance/apps/projects?limit=1", core.IfCompliance}, "page"},
	{fzRoute{core.Get, "/v1/memory_stores?limit=1", core.IfMemory}, "page"},
	{fzRoute{core.Get, "/v1/memory_stores/" + fzStore + "/memories?limit=1", core.IfMemory}, "page"},
	{fzRoute{core.Get, "/v1/organizations/tunnels?limit=1", core.IfTunnels}, "page"},
	{fzRoute{core.Get, "/v1/environments?limit=1", core.IfEnvironments}, "page"},
	{fzRoute{core.Get, "/v1/models?limit=1", core.IfModels}, "after_id"},
	{fzRoute{core.Get, "/v1/organizations/workspaces?limit=1", core.IfAdmin}, "before_id"},
}

// FuzzPageTokens mutates real page tokens and cursors: the seeds are the next_page and last_id of
// each list's first page, so mutations reach the token's decoding and signature check.
func FuzzPageTokens(f *testing.F) {
	s := New()
	for i, rt := range tokenRoutes {
		page := gjson.Parse(send(f, s, core.Get, rt.path, "", headersFor(rt.ifc)...).Body.String())
		tok := page.Get("next_page").String()
		if rt.param != "page" {
			tok = page.Get("last_id").String()
		}
		if tok == "" {
			f.Fatalf("%s: no %s on the first page to seed from", rt.path, rt.param)
		}
		for _, v := range []string{tok, tok[:len(tok)/2], tok + "=", strings.ToUpper(tok), "", "\x00"} {
			f.Add(uint8(i), v)
		}
	}
	f.Fuzz(func(t *testing.T, route uint8, token string) {
		rt := tokenRoutes[int(route)%len(tokenRoutes)]
		path, query, _ := strings.Cut(rt.path, "?")
		w := fuzzSend(fuzzServer(t), core.Get, path, query+"&"+rt.param+"="+url.QueryEscape(token), "", headersFor(rt.ifc)...)
		fuzzCheck(t, rt.path+" "+rt.param, w)
	})
}

// FuzzMemoryPaths sends a path where each memory route takes one: creating a memory, moving one,
// and the list's path_prefix. An accepted path reads back as it was written.
func FuzzMemoryPaths(f *testing.F) {
	for _, p := range []string{"/a.md", "/a/b/c.md", "/", "//a", "/a/", "/a/../b", "/./a", "a", "/a\x00b", "/\u00e9", "/e\u0301",
		"/" + strings.Repeat("a/", 200) + "x", "/" + strings.Repeat("x", 2000), "/a\\b", "/\ud7ff", "/\xff", "/a b/ c", "/%2e%2e/x"} {
		for op := range 3 {
			f.Add(uint8(op), p)
		}
	}
	base := "/v1/memory_stores/" + fzStore
	f.Fuzz(func(t *testing.T, op uint8, path string) {
		s := fuzzServer(t)
		switch op % 3 {
		case 0:
			w := fuzzRequest(t, s, fzRoute{core.Post, base + "/memories", core.IfMemory}, "", mustJSON(t, map[string]string{"path": path, "content": "x"}), memoryLists)
			if w.Code != http.StatusOK {
				return
			}
			stored := gjson.Get(w.Body.String(), "path").String()
			list := fuzzSend(s, core.Get, base+"/memories", "depth=1000&limit=100", "", headersFor(core.IfMemory)...).Body.String()
			if !gjson.Get(list, fmt.Sprintf("data.#(path==%q)", stored)).Exists() {
				t.Fatalf("memory created at %q (stored as %q) is not listed: %.1000s", path, stored, list)
			}
		case 1:
			fuzzRequest(t, s, fzRoute{core.Post, base + "/memories/" + fzMemory, core.IfMemory}, "", mustJSON(t, map[string]string{"path": path}), memoryLists)
		default:
			fuzzRequest(t, s, fzRoute{core.Get, base + "/memories", core.IfMemory}, "path_prefix="+url.QueryEscape(path), "", memoryLists)
		}
	})
}

// fixturePEM returns the n-th CA certificate of the fixture tunnels. Seeds must be the same in
// every process of a fuzzing run (the coordinator's and its workers'), so they are never
// generated with fresh keys.
func fixturePEM(f *testing.F, n int) string {
	raw, err := fs.ReadFile(fixtures.FS(), "tunnels.json")
	if err != nil {
		f.Fatal(err)
	}
	pems := gjson.GetBytes(raw, "tunnels.#.certificates.#.ca_certificate_pem|@flatten").Array()
	if n >= len(pems) {
		f.Fatalf("fixtures/tunnels.json has %d CA certificates, want at least %d", len(pems), n+1)
	}
	return pems[n].String()
}

// FuzzCertificatePEM sends PEM text as a tunnel's CA certificate and as a gateway's chain.
func FuzzCertificatePEM(f *testing.F) {
	ca, other := fixturePEM(f, 0), fixturePEM(f, 1)
	for _, p := range []string{ca, ca + other, ca[:len(ca)/2], strings.ReplaceAll(ca, "A", "B"), strings.Replace(ca, "CERTIFICATE", "PRIVATE KEY", 2),
		"-----BEGIN CERTIFICATE-----\n-----END CERTIFICATE-----\n", "-----BEGIN CERTIFICATE-----\nMAA=\n-----END CERTIFICATE-----\n", "", "\x00"} {
		f.Add(false, p)
		f.Add(true, p)
	}
	lists := []fzRoute{{core.Get, "/v1/organizations/tunnels/" + fzTunnel + "/certificates?limit=1000&include_archived=true", core.IfTunnels}}
	f.Fuzz(func(t *testing.T, gateway bool, pemText string) {
		if gateway {
			fuzzRequest(t, fuzzServer(t), fzRoute{core.Post, "/_fake/tunnels/" + fzTunnel + "/gateway_check", nil}, "", mustJSON(t, map[string]string{"certificate_pem": pemText}), lists)
			return
		}
		fuzzRequest(t, fuzzServer(t), fzRoute{core.Post, "/v1/organizations/tunnels/" + fzTunnel + "/certificates", core.IfTunnels}, "", mustJSON(t, map[string]string{"ca_certificate_pem": pemText}), lists)
	})
}

// FuzzVersionHeaders sends vendor-version and vendor-beta values to an interface where the beta
// is optional (memory stores) and one where it is required (tunnels).
func FuzzVersionHeaders(f *testing.F) {
	for _, h := range [][2]string{{core.APIVersion, ""}, {"", ""}, {"2023-06-01 ", "x"}, {core.APIVersion, core.IfTunnels.Beta}, {core.APIVersion, "a,,b," + core.IfTunnels.Beta},
		{core.APIVersion, strings.Repeat(",", 5000)}, {"\xff", "\xff"}, {core.APIVersion, "managed-memory-2026-01-01"}, {"2023-06-01,2023-06-01", ""}} {
		f.Add(false, h[0], h[1])
		f.Add(true, h[0], h[1])
	}
	f.Fuzz(func(t *testing.T, tunnels bool, version, beta string) {
		rt, key := fzRoute{core.Get, "/v1/memory_stores", nil}, []string{"X-Api-Key", "test-api-key"}
		if tunnels {
			rt, key = fzRoute{core.Get, "/v1/organizations/tunnels", nil}, []string{"Authorization", "Bearer test-bearer-token"}
		}
		for _, h := range [][2]string{{"vendor-version", version}, {"vendor-beta", beta}} {
			if h[1] != "" {
				key = append(key, h[0], h[1])
			}
		}
		fuzzCheck(t, rt.path, fuzzSend(fuzzServer(t), rt.method, rt.path, "", "", key...))
	})
}

// fixtureTargets are the fixture files FuzzFixtures replaces, the small ones (compliance.json
// costs more to validate than a fuzz input should).
var fixtureTargets = []string{"organizations.json", "users.json", "models.json", "admin.json", "tunnels.json", "environments.json", "memory_stores.json", "messages_scenarios.json", "files.json", "agents.json", "vaults.json", "skills.json", "sessions.json"}

// FuzzFixtures loads a data set of organizations.json and one fuzzed file: a refused one is an
// error naming the file; an accepted one serves its area without a 5xx or a violation.
func FuzzFixtures(f *testing.F) {
	for i, name := range fixtureTargets {
		data, err := fs.ReadFile(fixtures.FS(), name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(uint8(i), data)
		f.Add(uint8(i), []byte(strings.Replace(string(data), `"id"`, `"id":1e1000001,"x"`, 1)))
		f.Add(uint8(i), data[:len(data)/2])
		f.Add(uint8(i), []byte(`{}`))
	}
	// The default sessions.json has no session: a snapshot's, of one waiting for its tool result.
	ts := NewTestServer(f)
	api := apiClient(f, ts)
	id := api.ok("POST", "/v1/sessions", map[string]any{"agent": api.ok("POST", "/v1/agents", agentBody("seed")).get("id").String(),
		"environment_id": acmePrimary, "resources": []any{map[string]any{"type": "memory_store", "memory_store_id": "memstore_01AcmeSupportAgent0000001"}}}).get("id").String()
	api.ok("POST", "/v1/sessions/"+id+"/events", userMessage("hello"))
	snap, err := ts.Fake.Snapshot()
	if err != nil {
		f.Fatal(err)
	}
	f.Add(uint8(slices.Index(fixtureTargets, "sessions.json")), []byte(snap["sessions.json"]))
	orgData, err := fs.ReadFile(fixtures.FS(), "organizations.json")
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, file uint8, data []byte) {
		name := fixtureTargets[int(file)%len(fixtureTargets)]
		fsys := fstest.MapFS{"organizations.json": {Data: orgData}, name: {Data: data}}
		fx, err := core.LoadFixtures(fsys)
		if err != nil {
			if !strings.Contains(err.Error(), name) && !strings.Contains(err.Error(), "organizations.json") {
				t.Fatalf("refusal of %s does not name the file: %v", name, err)
			}
			return
		}
		s := New(WithFixtures(&Fixtures{fx: fx}), WithViolationHandler(func(msg string) { t.Errorf("fake: %s", msg) }))
		for _, rt := range queryRoutes {
			fuzzCheck(t, rt.path, fuzzSend(s, rt.method, rt.path, "", "", headersFor(rt.ifc)...))
		}
	})
}

// FuzzAppendJSON holds appendJSON to encoding/json on every decoded value, in both modes: with
// HTML characters escaped it is json.Marshal, whose bytes the seed of every generated answer
// hashes (a byte of difference would change answers); without, it is an Encoder with
// SetEscapeHTML(false), which writes the events of a stream.
func FuzzAppendJSON(f *testing.F) {
	for _, doc := range []string{
		`{"model":"m","messages":[{"role":"user","content":"<b>&amp;</b> \u2028 \u2029 \u0001 \t\n\"\\"}],"z":[1,-2.5e3,true,null,{}],"a":{}}`,
		`["é😀", "\ud800", 0, [], {"b":1,"a":2,"":3}]`,
		`{"k":"abcdefgh<ijklmnop&qrstuvw>xyz\"0123456\\789abcd\u0001efghijk\u00e9lmnopq\u2028rstuvwxyz\u007f"}`,
	} {
		f.Add([]byte(doc))
	}
	f.Fuzz(func(t *testing.T, doc []byte) {
		v, err := schemas.Decode(doc)
		if err != nil {
			return
		}
		checkAppendJSON(t, v)
	})
}

// checkAppendJSON fails t unless appendJSON writes v as encoding/json does, in both modes.
func checkAppendJSON(t *testing.T, v any) {
	t.Helper()
	want, err := json.Marshal(v)
	if err != nil {
		return
	}
	if got, err := core.AppendJSON(nil, v, true, nil); err != nil || string(got) != string(want) {
		t.Fatalf("appendJSON(%#v, html)\n got %s (%v)\nwant %s", v, got, err, want)
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		t.Fatal(err)
	}
	if got, err := core.AppendJSON(nil, v, false, nil); err != nil || string(got)+"\n" != b.String() {
		t.Fatalf("appendJSON(%#v)\n got %s (%v)\nwant %s", v, got, err, b.Bytes())
	}
}

// appendJSON writes ints and the values it leaves to encoding/json as encoding/json does, and
// answers its error for a value it cannot encode.
func TestAppendJSONOtherTypes(t *testing.T) {
	title := "<T&C>"
	for _, v := range []any{
		map[string]any{"document_index": 3, "start_char_index": -1, "end_char_index": 0},
		map[string]any{"document_title": &title, "file_id": nil, "f": 0.5, "big": 1e21, "m": map[string]string{"<": ">"}},
		[]any{struct {
			A string `json:"a"`
		}{"x&y"}, int64(7), uint8(2)},
	} {
		checkAppendJSON(t, v)
	}
	if _, err := core.AppendJSON(nil, map[string]any{"ch": make(chan int)}, false, nil); err == nil {
		t.Error("appendJSON encoded a channel")
	}
}

// FuzzParseBetas: the beta values read from two header lines are, in order and each once, the
// non-empty trimmed comma-separated values of a plain pairwise reading, and reading them never
// costs more than the meter's allowance; past it, the error names the header.
func FuzzParseBetas(f *testing.F) {
	f.Add("a, b,,c", " a ,d")
	f.Add("x,x,x,x,x,x,x,x,x,y,z,y", "z,w") // past the handful kept without a map
	f.Add(strings.Repeat("b,", 20)+"c", "")
	f.Add(" \t, ,", "\u00a0a\u00a0,a")
	f.Fuzz(func(t *testing.T, vendor, anthropic string) {
		h := http.Header{"Vendor-Beta": {vendor}, "Anthropic-Beta": {anthropic}}
		var want []string
		steps := 0
		for _, line := range []string{vendor, anthropic} {
			for _, v := range strings.Split(line, ",") {
				steps += 1 + len(v)/core.StepBytes
				if v = strings.TrimSpace(v); v != "" && !slices.Contains(want, v) {
					want = append(want, v)
				}
			}
		}
		work := &core.Meter{}
		work.Start(nil, core.MaxBetaSteps)
		got, err := core.ParseBetas(h, work)
		if steps > core.MaxBetaSteps {
			if err == nil || !strings.Contains(err.Error(), "-beta: ") {
				t.Fatalf("%d steps: parseBetas = %q, %v; want an error naming the header", steps, got, err)
			}
			return
		}
		if err != nil || !slices.Equal(got, want) {
			t.Fatalf("parseBetas = %q, %v; want %q", got, err, want)
		}
		if used := core.MaxBetaSteps - work.Left; used != steps {
			t.Errorf("charged %d steps, want %d", used, steps)
		}
	})
}

// FuzzStubRules: whether a stub's user_text_contains holds, and whether it would but for case,
// are what strings.Contains says of the text and of both lowered, however the stubInput reads
// them (memoised, the lowered text shared) and in whichever order.
func FuzzStubRules(f *testing.F) {
	f.Add("Hello there", "hello", "there")
	f.Add("abc", "ABC", "abc")
	f.Add("aaaaaaaa", "aaab", "")
	f.Add("İstanbul", "istanbul", "\u0130")
	f.Fuzz(func(t *testing.T, text, a, b string) {
		work := &core.Meter{}
		work.Start(nil, stubs.MaxStubSteps)
		in := &stubs.StubInput{Text: text, HasText: true, Work: work}
		for _, sub := range []string{a, b, a} {
			got := in.Contains(sub)
			if want := strings.Contains(text, sub); got != want {
				t.Fatalf("contains(%q, %q) = %t, want %t", text, sub, got, want)
			}
			if got {
				continue
			}
			if got, want := in.ContainsFolded(sub), strings.Contains(strings.ToLower(text), strings.ToLower(sub)); got != want {
				t.Fatalf("containsFolded(%q, %q) = %t, want %t", text, sub, got, want)
			}
		}
	})
}
