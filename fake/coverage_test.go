package fake

import (
	"encoding/json"
	"io/fs"
	"os"
	"regexp"
	"slices"
	"strings"
	"syscall"
	"testing"

	"github.com/platformkit/platformkit/fake/internal/core"

	"github.com/platformkit/platformkit/schemas"
)

var messagesHeaders = []string{"X-Api-Key", "test-api-key", "vendor-version", core.APIVersion, "Content-Type", "application/json"}

// operationOf finds one operation's part of a coverage, failing the test when it is missing.
func operationOf(t *testing.T, c core.Coverage, name string) core.OperationCoverage {
	t.Helper()
	for _, o := range c.Operations {
		if o.Operation == name {
			return o
		}
	}
	t.Fatalf("coverage has no operation %q", name)
	return core.OperationCoverage{}
}

func TestCoverageCountsRequestsFieldsAndReasons(t *testing.T) {
	s := checked(t)
	send(t, s, "POST", "/v1/messages", `{"model":"assistant-haiku-4-5","max_tokens":16,"messages":[{"role":"user","content":"hi"}]}`, messagesHeaders...)
	send(t, s, "POST", "/v1/messages", `{"model":"assistant-haiku-4-5","messages":[{"role":"user","content":"hi"}]}`, messagesHeaders...)
	send(t, s, "POST", "/v1/messages", `{"model":"assistant-haiku-4-5","max_tokens":16,"messages":[{"role":"user","content":"a"},{"role":"robot","content":"b"}]}`, messagesHeaders...)
	send(t, s, "POST", "/v1/messages", `{"model":"assistant-haiku-4-5","max_tokens":16,"messages":[{"role":"robot","content":"b"}]}`, messagesHeaders...)
	send(t, s, "POST", "/v1/messages", `{"model":`, messagesHeaders...)
	send(t, s, "POST", "/v1/messages", `{"model":"assistant-haiku-4-5","max_tokens":16,"messages":[],"colour":"red"}`, messagesHeaders...)
	send(t, s, "GET", "/v1/models?limit=2", "", modelsHeaders...)
	send(t, s, "GET", "/v1/models?limit=abc", "", modelsHeaders...)
	send(t, s, "GET", "/v1/models?after_id=x&before_id=y", "", modelsHeaders...)
	send(t, s, "GET", "/v1/models", "", "X-Api-Key", "wrong")
	send(t, s, "GET", "/v1/no-such-thing", "", modelsHeaders...)
	send(t, s, "GET", "/_fake/journal", "") // control: not counted

	c := s.Coverage()
	if c.Scope != "default" || c.Requests != 11 || c.Invalid != 7 || c.Unrouted != 1 || c.OperationsExercised != 2 {
		t.Errorf("totals: scope %q, %d requests, %d invalid, %d unrouted, %d operations exercised; want default, 11, 7, 1, 2",
			c.Scope, c.Requests, c.Invalid, c.Unrouted, c.OperationsExercised)
	}
	msgs := operationOf(t, c, "POST /v1/messages")
	if msgs.Requests != 6 || msgs.Invalid != 5 || msgs.Interface != "messages" {
		t.Errorf("POST /v1/messages: %d requests, %d invalid, interface %q; want 6, 5, messages", msgs.Requests, msgs.Invalid, msgs.Interface)
	}
	type reason struct {
		code, field string
		count       int64
	}
	var got []reason
	for _, r := range msgs.Reasons {
		got = append(got, reason{r.Code, r.Field, r.Count})
		if r.Example == "" {
			t.Errorf("reason %s %s has no example message", r.Code, r.Field)
		}
	}
	want := []reason{
		{"missing_field", "max_tokens", 1},
		{"not_allowed", "messages[].role", 2}, // messages.1.role and messages.0.role: one reason
		{"body_not_json", "", 1},
		{"unknown_field", "colour", 1},
	}
	if !slices.Equal(got, want) {
		t.Errorf("POST /v1/messages reasons = %v, want %v", got, want)
	}
	for _, f := range []string{"model", "max_tokens", "messages", "messages[].role", "messages[].content"} {
		if !slices.Contains(msgs.BodyFields.Sent, f) {
			t.Errorf("body field %s was sent, but coverage lists it as not sent", f)
		}
	}
	for _, f := range []string{"system", "tools", "messages[].content[].type", "temperature", "stream"} {
		if !slices.Contains(msgs.BodyFields.NotSent, f) || slices.Contains(msgs.BodyFields.Sent, f) {
			t.Errorf("body field %s was never sent, but coverage does not list it as not sent", f)
		}
	}
	if len(msgs.BodyFields.Sent) != 5 {
		t.Errorf("body fields sent = %v, want exactly the 5 the requests held (colour is not a field of the schema)", msgs.BodyFields.Sent)
	}

	models := operationOf(t, c, "GET /v1/models")
	if models.Requests != 4 || models.Invalid != 2 {
		t.Errorf("GET /v1/models: %d requests, %d invalid; want 4 (one unauthenticated, which is not invalid), 2", models.Requests, models.Invalid)
	}
	if len(models.Reasons) != 2 || models.Reasons[0].Code != "bad_query" || models.Reasons[0].Field != "limit" ||
		models.Reasons[1].Code != "invalid_value" || models.Reasons[1].Field != "" {
		t.Errorf("GET /v1/models reasons = %+v, want bad_query limit then invalid_value", models.Reasons)
	}
	if !slices.Equal(models.QueryParameters.Sent, []string{"after_id", "before_id", "limit"}) || len(models.QueryParameters.NotSent) != 0 {
		t.Errorf("GET /v1/models query parameters = %+v", models.QueryParameters)
	}
	if got := operationOf(t, c, "GET /v1/models/:model_id"); got.Requests != 0 || len(got.QueryParameters.Sent)+len(got.BodyFields.Sent) != 0 {
		t.Errorf("an operation never called reads %+v", got)
	}
}

func TestCoverageOutlivesTheJournalAndFollowsNamespaces(t *testing.T) {
	// Unchecked: checking 10,000 answers against their schema would take most of the test's time.
	s := New()
	for range core.JournalCap + 5 {
		send(t, s, "GET", "/v1/models?limit=1", "", modelsHeaders...)
	}
	if n := len(s.Journal()); n != core.JournalCap {
		t.Fatalf("the journal holds %d entries, want %d: the test needs it to have dropped the oldest", n, core.JournalCap)
	}
	s.ClearJournal()
	if got := operationOf(t, s.Coverage(), "GET /v1/models").Requests; got != core.JournalCap+5 {
		t.Errorf("after the journal dropped entries and was cleared, coverage counts %d requests, want %d", got, core.JournalCap+5)
	}

	send(t, s, "GET", "/ns/alpha/v1/models/nope", "", modelsHeaders...)
	send(t, s, "GET", "/v1/models/nope", "", append([]string{core.NamespaceHeader, "beta"}, modelsHeaders...)...)
	send(t, s, "GET", "/ns/Bad!/v1/models", "", modelsHeaders...)
	send(t, s, "POST", "/ns/alpha/_fake/faults", `{"path":"/v1/models","status":400}`)
	send(t, s, "GET", "/ns/alpha/v1/models", "", modelsHeaders...)

	alpha, _ := s.Namespace("alpha")
	a := alpha.Coverage()
	if a.Scope != "namespace" || a.Namespace != "alpha" || a.Requests != 2 || a.Invalid != 0 {
		t.Errorf("namespace alpha: %+v; want 2 requests, none invalid (a fault is not the client's mistake)", a)
	}
	if f := operationOf(t, a, "GET /v1/models").Faulted; f != 1 {
		t.Errorf("namespace alpha counts %d faulted requests, want 1", f)
	}
	s.DeleteNamespace("alpha")
	all := s.ServerCoverage()
	if all.Scope != "server" || operationOf(t, all, "GET /v1/models/:model_id").Requests != 2 || all.Unrouted != 1 {
		t.Errorf("server coverage: %d requests of GET /v1/models/:model_id and %d unrouted, want 2 (a dropped namespace's included) and 1",
			operationOf(t, all, "GET /v1/models/:model_id").Requests, all.Unrouted)
	}
	if got := operationOf(t, s.Coverage(), "GET /v1/models/:model_id").Requests; got != 0 {
		t.Errorf("the default server's own coverage counts %d namespace requests", got)
	}

	w := send(t, s, "GET", "/_fake/coverage?all=true", "")
	if err := schemas.Validate("control/coverage", w.Body.Bytes(), schemas.Strict); err != nil {
		t.Fatalf("GET /_fake/coverage?all=true: %v", err)
	}
	var doc core.Coverage
	if err := json.Unmarshal(w.Body.Bytes(), &doc); err != nil || doc.Requests != all.Requests || doc.Scope != "server" {
		t.Errorf("GET /_fake/coverage?all=true = %d requests (%v), want %d", doc.Requests, err, all.Requests)
	}
	if w := send(t, s, "GET", "/ns/beta/_fake/coverage", ""); !json.Valid(w.Body.Bytes()) || w.Code != 200 {
		t.Errorf("GET /ns/beta/_fake/coverage: %d %s", w.Code, w.Body)
	}
	wantError(t, send(t, s, "GET", "/_fake/coverage?all=maybe", ""), 400, core.ErrInvalidRequest, "all")

	s.Reset()
	if c := s.ServerCoverage(); c.Requests != 0 {
		t.Errorf("after a reset of the default server, server coverage counts %d requests", c.Requests)
	}
}

func TestCoverageReasonsAreBounded(t *testing.T) {
	s := checked(t)
	for i := range core.MaxReasons + 10 {
		send(t, s, "POST", "/v1/messages", `{"model":"m","max_tokens":1,"messages":[],"f`+string(rune('a'+i%26))+string(rune('a'+i/26))+`":1}`, messagesHeaders...)
	}
	o := operationOf(t, s.Coverage(), "POST /v1/messages")
	if len(o.Reasons) != core.MaxReasons || o.ReasonsDropped != 10 || o.Invalid != core.MaxReasons+10 {
		t.Errorf("%d reasons kept, %d dropped, %d invalid; want 32, 10, 42", len(o.Reasons), o.ReasonsDropped, o.Invalid)
	}
}

// BenchmarkCoverage measures requests with coverage counted ("on") and without ("off"): a model
// read (no body, one path lookup) and message creations whose body coverage walks (a short one,
// and a conversation of 40 turns with tools and a system prompt).
func BenchmarkCoverage(b *testing.B) {
	turns := []any{}
	for i := range 40 {
		role := []string{"user", "assistant"}[i%2]
		turns = append(turns, map[string]any{"role": role, "content": []any{map[string]any{"type": "text", "text": "turn text"}}})
	}
	long := msgBody("messages", turns, "system", "be brief", "temperature", 0.5, "metadata", map[string]any{"user_id": "u1"},
		"tools", []any{map[string]any{"name": "lookup", "description": "d", "input_schema": map[string]any{"type": "object"}}})
	for _, bc := range []struct {
		name, method, path string
		body               any
	}{
		{"get-model", "GET", "/v1/models/assistant-opus-4-5", nil},
		{"create-message", "POST", "/v1/messages", msgBody()},
		{"create-message-40-turns", "POST", "/v1/messages", long},
	} {
		var data []byte
		if bc.body != nil {
			var err error
			if data, err = json.Marshal(bc.body); err != nil {
				b.Fatal(err)
			}
		}
		for _, on := range []bool{true, false} {
			name := bc.name + "/off"
			if on {
				name = bc.name + "/on"
			}
			b.Run(name, func(b *testing.B) {
				benchCPU(b, New(func(c *core.Config) { c.NoCoverage = !on }), bc.method, bc.path, data, messagesHeaders)
			})
		}
	}
}

// benchCPU measures s answering one request (method, path, body, headers as name, value
// pairs) with 200, again and again, reporting the CPU time per request beside the wall time.
func benchCPU(b *testing.B, s *Server, method, path string, body []byte, headers []string) {
	serve := func() { benchDo(b, s, method, path, body, headers) }
	serve() // outside the measure: compiling the schemas, building the counts
	b.ReportAllocs()
	before := cpuTime()
	for b.Loop() {
		serve()
	}
	// CPU time as well as wall time: on a shared machine the wall time of each run swings with
	// the load, the CPU the process spent much less.
	b.ReportMetric(float64(cpuTime()-before)/float64(b.N), "cpu-ns/op")
}

// cpuTime is the CPU time (user and system) the process has used, in nanoseconds.
func cpuTime() int64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return ru.Utime.Nano() + ru.Stime.Nano()
}

func TestIndexFree(t *testing.T) {
	for in, want := range map[string]string{
		"":                           "",
		"max_tokens":                 "max_tokens",
		"messages.0.content.12.type": "messages[].content[].type",
		"tools.3":                    "tools[]",
		"a2b.c":                      "a2b.c",
	} {
		if got := core.IndexFree(in); got != want {
			t.Errorf("indexFree(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestEveryOperationsFieldsFit(t *testing.T) {
	for _, op := range core.Operations().List {
		op.Load() // panics beyond the bound
		if op.Rt.Body != "" && op.NBody == 0 {
			t.Errorf("%s reads a body, but coverage finds no field in its schema %s", op.Name, op.Rt.Body)
		}
	}
}

// TestReasonCodesAreDocumented keeps the one table of reason codes (docs/coverage.md) and the
// schema's enumeration equal to the codes the fake answers.
func TestReasonCodesAreDocumented(t *testing.T) {
	codes := []string{core.ReasonBodyNotJSON, core.ReasonBodyNotObject, core.ReasonBodyTooLarge, core.ReasonBodyCut, core.ReasonContentType,
		core.ReasonMissingField, core.ReasonUnknownField, core.ReasonWrongType, core.ReasonNotAllowed, core.ReasonOutOfRange, core.ReasonBadFormat,
		core.ReasonBadQuery, core.ReasonInvalidValue}
	page, err := os.ReadFile("../docs/coverage.md")
	if err != nil {
		t.Fatal(err)
	}
	section := string(page)
	var documented []string
	for _, m := range regexp.MustCompile("(?m)^\\| `([a-z_]+)` \\|").FindAllStringSubmatch(section, -1) {
		documented = append(documented, m[1])
	}
	var schema struct {
		Properties struct {
			Operations struct {
				Items struct {
					Properties struct {
						Reasons struct {
							Items struct {
								Properties struct {
									Code struct {
										Enum []string `json:"enum"`
									} `json:"code"`
								} `json:"properties"`
							} `json:"items"`
						} `json:"reasons"`
					} `json:"properties"`
				} `json:"items"`
			} `json:"operations"`
		} `json:"properties"`
	}
	data, err := fs.ReadFile(schemas.FS(), "control/coverage.json")
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, &schema); err != nil {
		t.Fatal(err)
	}
	enum := schema.Properties.Operations.Items.Properties.Reasons.Items.Properties.Code.Enum
	for name, list := range map[string][]string{"docs/coverage.md's table": documented, "the schema's enum": enum} {
		if !slices.Equal(list, codes) {
			t.Errorf("%s lists %v, want the codes in order %v", name, list, codes)
		}
	}
}

// TestCoverageNamesTheAPIVersions: each operation lists the versions whose rules answered its
// requests, oldest first; a request refused for its version names none.
func TestCoverageNamesTheAPIVersions(t *testing.T) {
	s := New()
	models := func(version string) {
		send(t, s, "GET", "/v1/models", "", "X-Api-Key", "test-api-key", "vendor-version", version)
	}
	models("2026-10-21")
	models("2023-06-01")
	models("2026-10-21")
	models("1999-01-01")
	send(t, s, "POST", "/v1/messages", `{"model":"assistant-haiku-4-5","max_tokens":16,"messages":[{"role":"user","content":"hi"}]}`,
		"X-Api-Key", "test-api-key", "anthropic-version", "2026-10-21", "Content-Type", "application/json")
	c := s.ServerCoverage()
	for op, want := range map[string]string{"GET /v1/models": "2023-06-01 2026-10-21", "POST /v1/messages": "2026-10-21", "GET /v1/models/:model_id": ""} {
		if got := strings.Join(operationOf(t, c, op).APIVersions, " "); got != want {
			t.Errorf("%s: api_versions %q, want %q", op, got, want)
		}
	}
}

// The fields of a body decoded into a handler's struct (bindValid) are counted from the decoded
// value, refused bodies included, as those of a Messages body are.
func TestCoverageCountsTheFieldsOfBoundBodies(t *testing.T) {
	s := New()
	send(t, s, "POST", "/v1/memory_stores", `{"name":"notes","metadata":{"team":"a"}}`, messagesHeaders...)
	send(t, s, "POST", "/v1/memory_stores", `{"description":7}`, messagesHeaders...)
	op := operationOf(t, s.Coverage(), "POST /v1/memory_stores")
	if op.Requests != 2 || op.Invalid != 1 {
		t.Errorf("%d requests, %d invalid; want 2, 1", op.Requests, op.Invalid)
	}
	if !slices.Equal(op.BodyFields.Sent, []string{"description", "metadata", "name"}) {
		t.Errorf("body fields sent = %v, want description, metadata and name", op.BodyFields.Sent)
	}
}
