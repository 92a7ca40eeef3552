package fake

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/platformkit/platformkit/fake/internal/areas/messages/wire"

	"github.com/platformkit/platformkit/fake/internal/core"

	"github.com/tidwall/gjson"
)

func TestJournalRecordsAPIRequestsWithoutSecrets(t *testing.T) {
	s := checked(t)
	send(t, s, "GET", "/v1/models?limit=2", "", modelsHeaders...)
	send(t, s, "GET", "/v1/models?limit=0", "", modelsHeaders...)
	send(t, s, "GET", "/v1/models", "", "X-Api-Key", "wrong")
	send(t, s, "POST", "/_fake/clock/advance", `{"seconds":5}`)
	send(t, s, "GET", "/v1/models/assistant-opus-4-7", "", modelsHeaders...)

	j := s.Journal()
	if len(j) != 4 {
		t.Fatalf("journal holds %d entries, want the 4 API requests and no control request", len(j))
	}
	ok, bad, unauth, later := j[0], j[1], j[2], j[3]
	if ok.Path != "/v1/models" || ok.Query != "limit=2" || ok.Status != 200 || !ok.Valid || ok.Interface != "models" || ok.CredentialID != "apikey_01AcmeDefaultKey00000001" {
		t.Errorf("first entry = %+v", ok)
	}
	if bad.Status != 400 || bad.Valid || bad.ErrorType != core.ErrInvalidRequest {
		t.Errorf("an invalid request reads %+v; want valid false, invalid_request_error", bad)
	}
	if unauth.Status != 401 || !unauth.Valid || unauth.CredentialID != "" {
		t.Errorf("an unauthenticated request reads %+v", unauth)
	}
	if !later.At.Equal(core.Epoch().Add(5 * time.Second)) {
		t.Errorf("at = %v, want the virtual time of arrival", later.At)
	}
	for _, e := range j {
		if e.RequestID == "" || strings.Contains(strings.Join(mapValues(e.Headers), " "), "test-api-key") {
			t.Errorf("entry %+v: wants a request ID and no credential", e)
		}
		if _, leaked := e.Headers["x-api-key"]; leaked {
			t.Errorf("entry %s records the X-Api-Key header", e.RequestID)
		}
	}
	w := send(t, s, "GET", "/_fake/journal", "")
	if got := gjson.Get(w.Body.String(), "data.#").Int(); got != 4 {
		t.Fatalf("GET /_fake/journal lists %d entries", got)
	}
	if w := send(t, s, "DELETE", "/_fake/journal", ""); gjson.Get(w.Body.String(), "cleared").Int() != 4 || len(s.Journal()) != 0 {
		t.Fatalf("DELETE /_fake/journal: %s", w.Body)
	}
}

func mapValues(m map[string]string) []string {
	var out []string
	for _, v := range m {
		out = append(out, v)
	}
	return out
}

func TestJournalKeepsJSONBodies(t *testing.T) {
	s := checked(t)
	w := send(t, s, "POST", "/v1/organizations/invites", `{"email":"x@acme.example","role":"user"}`,
		"X-Api-Key", "test-admin-key", "vendor-version", core.APIVersion, "Content-Type", "application/json")
	if w.Code != 200 {
		t.Fatalf("invite: %d %s", w.Code, w.Body)
	}
	e := s.Journal()[0]
	if string(e.Body) != `{"email":"x@acme.example","role":"user"}` || e.BodyBytes != len(e.Body) {
		t.Fatalf("body = %s (%d bytes)", e.Body, e.BodyBytes)
	}
}

// A body that decodes as something else than it is (an empty or blank create, read as {}) is not
// kept as JSON: the journal would not encode.
func TestJournalKeepsNoBlankBody(t *testing.T) {
	s := checked(t)
	for _, body := range []string{"", "  \n"} {
		w := send(t, s, "POST", "/v1/memory_stores", body, "X-Api-Key", "test-api-key", "vendor-version", core.APIVersion, "Content-Type", "application/json")
		if w.Code != 400 { // the create needs a name
			t.Fatalf("create with the body %q: %d %s", body, w.Code, w.Body)
		}
		j := s.Journal()
		if e := j[len(j)-1]; e.Body != nil || e.BodyBytes != len(body) {
			t.Errorf("body %q: journal body = %q (%d bytes)", body, e.Body, e.BodyBytes)
		}
		if w := send(t, s, "GET", "/_fake/journal", ""); w.Code != 200 {
			t.Fatalf("GET /_fake/journal after the body %q: %d %s", body, w.Code, w.Body)
		}
	}
}

func TestFaultAnswersErrorWithRetryHeaders(t *testing.T) {
	s := checked(t)
	if _, err := s.InjectFault(core.Fault{Path: "/v1/models*", Status: 429, RetryAfter: 2500 * time.Millisecond, Times: 2}); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 2; i++ {
		w := send(t, s, "GET", "/v1/models/assistant-opus-4-7", "", modelsHeaders...)
		wantError(t, w, 429, core.ErrRateLimit, "injected fault")
		if w.Header().Get("retry-after") != "3" || w.Header().Get("retry-after-ms") != "2500" {
			t.Fatalf("retry headers = %q, %q", w.Header().Get("retry-after"), w.Header().Get("retry-after-ms"))
		}
	}
	if w := send(t, s, "GET", "/v1/models/assistant-opus-4-7", "", modelsHeaders...); w.Code != 200 {
		t.Fatalf("the fault applied a third time: %d", w.Code)
	}
	j := s.Journal()
	if !j[0].Fault || j[2].Fault {
		t.Errorf("journal fault flags: %v %v", j[0].Fault, j[2].Fault)
	}
	s.InjectFault(core.Fault{Method: "POST", Status: 529})
	if w := send(t, s, "GET", "/v1/models", "", modelsHeaders...); w.Code != 200 {
		t.Fatalf("a POST fault applied to a GET: %d", w.Code)
	}
	if w := send(t, s, "GET", "/_fake/health", ""); w.Code != 200 {
		t.Fatal("the control API was faulted")
	}
}

func TestFaultValidation(t *testing.T) {
	s := checked(t)
	for body, field := range map[string]string{
		`{"status":418}`:                    "status",
		`{"status":429,"times":-1}`:         "times",
		`{"latency_ms":-5}`:                 "latency_ms",
		`{"path":"v1/models","status":500}`: "path",
		`{}`:                                "needs a status",
		`{"status":500,"id":"x"}`:           "id",
	} {
		wantError(t, send(t, s, "POST", "/_fake/faults", body), 400, core.ErrInvalidRequest, field)
	}
	w := send(t, s, "POST", "/_fake/faults", `{"status":500,"path":"/v1/models"}`)
	if w.Code != 200 || gjson.Get(w.Body.String(), "times").Int() != 1 || !strings.HasPrefix(gjson.Get(w.Body.String(), "id").String(), "fault_") {
		t.Fatalf("inject: %d %s", w.Code, w.Body)
	}
	if got := gjson.Get(send(t, s, "GET", "/_fake/faults", "").Body.String(), "data.#").Int(); got != 1 {
		t.Fatalf("%d faults listed", got)
	}
	s.Reset()
	if len(s.Faults()) != 0 || len(s.Journal()) != 0 {
		t.Fatal("reset kept faults or journal entries")
	}
}

func TestFaultDropsConnectionAndDelays(t *testing.T) {
	ts := NewTestServer(t)
	get := func() (*http.Response, error) {
		req, _ := http.NewRequest("GET", ts.URL+"/v1/models", nil)
		req.Header.Set("X-Api-Key", "test-api-key")
		req.Header.Set("vendor-version", core.APIVersion)
		return ts.Server.Client().Do(req)
	}
	ts.Fake.InjectFault(core.Fault{Drop: true})
	if resp, err := get(); err == nil {
		resp.Body.Close()
		t.Fatalf("a dropped connection answered %d", resp.StatusCode)
	}
	if j := ts.Fake.Journal(); len(j) != 1 || j[0].Status != 0 || !j[0].Fault {
		t.Fatalf("journal after a drop: %+v", j)
	}
	ts.Fake.InjectFault(core.Fault{Latency: 150 * time.Millisecond})
	start := time.Now()
	resp, err := get()
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if d := time.Since(start); resp.StatusCode != 200 || d < 150*time.Millisecond {
		t.Fatalf("latency fault: %d after %v", resp.StatusCode, d)
	}
}

func TestFaultCutsStreams(t *testing.T) {
	ts := NewTestServer(t)
	stream := func() (*http.Response, []byte, error) {
		body := `{"model":"assistant-opus-4-7","max_tokens":200,"stream":true,"messages":[{"role":"user","content":"Tell me about tides."}]}`
		req, _ := http.NewRequest("POST", ts.URL+"/v1/messages", strings.NewReader(body))
		req.Header.Set("X-Api-Key", "test-api-key")
		req.Header.Set("vendor-version", core.APIVersion)
		req.Header.Set("Content-Type", "application/json")
		resp, err := ts.Server.Client().Do(req)
		if err != nil {
			return nil, nil, err
		}
		defer resp.Body.Close()
		data, err := io.ReadAll(resp.Body)
		return resp, data, err
	}
	_, whole, err := stream()
	if err != nil {
		t.Fatal(err)
	}
	all, err := wire.ParseEventStream(whole)
	if err != nil || len(all) < 5 {
		t.Fatalf("uncut stream: %d events, %v", len(all), err)
	}

	// Cut without a status: three events arrive, then the connection drops.
	ts.Fake.InjectFault(core.Fault{Path: "/v1/messages", StreamEvents: 3})
	_, data, err := stream()
	if err == nil {
		t.Fatalf("a cut stream ended cleanly: %s", data)
	}
	if got := strings.Count(string(data), "event: "); got != 3 {
		t.Fatalf("%d events before the cut, want 3:\n%s", got, data)
	}

	// Cut with a status: two events, then an error event of the status's type ends the stream.
	ts.Fake.InjectFault(core.Fault{Path: "/v1/messages", StreamEvents: 2, Status: 529})
	_, data, err = stream()
	if err != nil {
		t.Fatal(err)
	}
	events, err := wire.ParseEventStream(data)
	if err != nil {
		t.Fatal(err)
	}
	if len(events) != 3 || events[2].Name != "error" || !strings.Contains(string(data), `"type":"overloaded_error"`) {
		t.Fatalf("events %+v, want two then an overloaded_error event:\n%s", events, data)
	}
	j := ts.Fake.Journal()
	if last := j[len(j)-1]; !last.Fault || last.ErrorType != core.ErrOverloaded {
		t.Errorf("journal of the cut stream: %+v", last)
	}
}

func TestJournalKeepsTheLastEntriesInOrder(t *testing.T) {
	s := &Server{srv: &core.Server{}}
	for i := 0; i < core.JournalCap+5; i++ {
		s.srv.RequestLog.Add(&core.JournalEntry{Status: i})
	}
	got := s.Journal()
	if len(got) != core.JournalCap || got[0].Status != 5 || got[len(got)-1].Status != core.JournalCap+4 {
		t.Fatalf("journal of %d entries from %d to %d; want the last %d, oldest first", len(got), got[0].Status, got[len(got)-1].Status, core.JournalCap)
	}
	for i := 1; i < len(got); i++ {
		if got[i].Status != got[i-1].Status+1 {
			t.Fatalf("out of order at %d", i)
		}
	}
}

// Issue 13, defect 3: 1,000 requests with a 256 KiB header each held about 410 MiB. Entries keep
// a bounded copy of what they record and say what they cut, and the journal is bounded by bytes.
func TestJournalIsBoundedByBytes(t *testing.T) {
	s := checked(t)
	big := strings.Repeat("v", 256<<10)
	runtime.GC()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	for range 1000 {
		send(t, s, "GET", "/v1/models?"+strings.Repeat("q", 8<<10), "", append(modelsHeaders, "X-Big", big)...)
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	if grown := int64(after.HeapAlloc) - int64(before.HeapAlloc); grown > 32<<20 {
		t.Errorf("the journal of 1,000 requests with a 256 KiB header holds %d MiB; want at most 32", grown>>20)
	}
	j := s.Journal()
	e := j[len(j)-1]
	if len(e.Headers["x-big"]) != core.JournalValueCap || len(e.Query) != core.JournalURLCap || !slices.Equal(e.Truncated, []string{"query", "headers.x-big"}) {
		t.Errorf("entry keeps a %d-byte header and a %d-byte query, truncated %q", len(e.Headers["x-big"]), len(e.Query), e.Truncated)
	}
	if len(j) != 1000 || len(send(t, s, "GET", "/_fake/journal", "").Body.Bytes()) > 16<<20 {
		t.Errorf("journal of %d entries", len(j))
	}

	// Many headers: the first 16 KiB of them, in name order, and "headers" says so.
	var many []string
	for i := range 100 {
		many = append(many, fmt.Sprintf("X-H%03d", i), strings.Repeat("h", 500))
	}
	send(t, s, "GET", "/v1/models", "", append(modelsHeaders, many...)...)
	e = s.Journal()[len(s.Journal())-1]
	if _, ok := e.Headers["x-h000"]; !ok || len(e.Headers) > 40 || !slices.Contains(e.Truncated, "headers") {
		t.Errorf("entry of 100 large headers keeps %d, truncated %q", len(e.Headers), e.Truncated)
	}
}

func TestJournalDropsTheOldestBeyondItsBytes(t *testing.T) {
	s := &Server{srv: &core.Server{}}
	body := json.RawMessage(`"` + strings.Repeat("b", core.JournalBodyCap-2) + `"`)
	for i := range 1000 {
		s.srv.RequestLog.Add(&core.JournalEntry{Status: i, Body: body})
	}
	got := s.Journal()
	if s.srv.RequestLog.Bytes > core.JournalBytes || len(got) >= 1000 || len(got) < core.JournalBytes/(core.JournalBodyCap+core.JournalEntryBase+1) {
		t.Fatalf("%d entries of %d bytes", len(got), s.srv.RequestLog.Bytes)
	}
	for i, e := range got {
		if e.Status != 1000-len(got)+i {
			t.Fatalf("entry %d has status %d: not the last entries in order", i, e.Status)
		}
	}
}

func TestJournalPages(t *testing.T) {
	s := checked(t)
	var want []string
	for range 25 {
		want = append(want, send(t, s, "GET", "/v1/models/assistant-opus-4-7", "", modelsHeaders...).Header().Get("request-id"))
	}
	var got []string
	for after := ""; ; {
		page := gjson.Parse(send(t, s, "GET", "/_fake/journal?limit=10&after_id="+after, "").Body.String())
		for _, e := range page.Get("data").Array() {
			got = append(got, e.Get("request_id").String())
		}
		if !page.Get("has_more").Bool() {
			break
		}
		after = page.Get("last_id").String()
	}
	if !slices.Equal(got, want) {
		t.Fatalf("paged journal %v, want %v", got, want)
	}
	last := gjson.Get(send(t, s, "GET", "/_fake/journal?limit=2&before_id="+want[24], "").Body.String(), "data.#.request_id").String()
	if last != `["`+want[22]+`","`+want[23]+`"]` {
		t.Errorf("before_id page %s", last)
	}
	wantError(t, send(t, s, "GET", "/_fake/journal?after_id=req_nope", ""), 400, core.ErrInvalidRequest, "after_id")
	wantError(t, send(t, s, "GET", "/_fake/journal?limit=0", ""), 400, core.ErrInvalidRequest, "limit")
}

// TestNamespaceJournalsShareABound: the journals of a server and of its namespaces together stay
// within one byte budget. Going over it drops the oldest entries of the least recently used
// namespaces' journals first, never of the namespace in use, and a dropped namespace gives its
// share back.
func TestNamespaceJournalsShareABound(t *testing.T) {
	s := New()
	budget := s.srv.Cfg.Journals
	budget.Limit = 1 << 20 // 1 MiB instead of 256, so that the test sends little
	big := strings.Repeat("x", core.JournalValueCap)
	fill := func(ns string, n int) {
		for range n {
			r := httptest.NewRequest(http.MethodGet, "/ns/"+ns+"/v1/models/assistant-opus-4-7", nil)
			r.Header.Set("X-Api-Key", core.DefaultAPIKey)
			r.Header.Set("vendor-version", core.APIVersion)
			r.Header.Set("X-Big", big)
			w := httptest.NewRecorder()
			s.ServeHTTP(w, r)
			if w.Code != http.StatusOK {
				t.Error(w.Code, w.Body) // not Fatal: fill also runs on goroutines of its own
				return
			}
		}
	}
	// held returns each namespace's journal (entries, bytes) and the sum with the default
	// server's, reading the registry without touching its order.
	held := func() (map[string][2]int, int64) {
		s.srv.Spaces.Mu.Lock()
		defer s.srv.Spaces.Mu.Unlock()
		out := map[string][2]int{}
		total := int64(s.srv.RequestLog.Bytes)
		for e := s.srv.Spaces.Lru.Front(); e != nil; e = e.Next() {
			ns := e.Value.(*core.Namespace)
			j := &ns.Srv.RequestLog
			j.Mu.Lock()
			out[ns.Info.Name] = [2]int{j.N, j.Bytes}
			total += int64(j.Bytes)
			j.Mu.Unlock()
		}
		return out, total
	}
	const perNS = 150 // about 200 KiB of journal each: eight of them are 1.6 MiB
	for i := range 8 {
		fill(fmt.Sprintf("idle%d", i), perNS)
	}
	got, total := held()
	t.Logf("journals (entries, bytes): %v; %d bytes in all", got, total)
	if total != budget.Bytes.Load() {
		t.Fatalf("the budget counts %d bytes, the journals hold %d", budget.Bytes.Load(), total)
	}
	if total > budget.Limit {
		t.Errorf("the journals hold %d bytes, over the shared limit of %d", total, budget.Limit)
	}
	if got["idle7"][0] != perNS || got["idle6"][0] != perNS {
		t.Errorf("the namespaces in use lost entries: idle7 %v, idle6 %v", got["idle7"], got["idle6"])
	}
	if got["idle0"][0] >= perNS {
		t.Errorf("the least recently used namespace kept its whole journal (%v) though the budget was exceeded", got["idle0"])
	}
	// A journal trimmed in part keeps its last entries, in order. Every namespace numbered its
	// requests alike, so a whole journal (idle7's) shows which those are.
	partly, whole := "", s.srv.Spaces.ByName["idle7"].Value.(*core.Namespace).Srv.Journal()
	for name, h := range got {
		if h[0] > 0 && h[0] < perNS {
			partly = name
		}
	}
	if partly == "" {
		t.Fatalf("no journal was trimmed in part: %v", got)
	}
	kept := s.srv.Spaces.ByName[partly].Value.(*core.Namespace).Srv.Journal()
	for i, e := range kept {
		if want := whole[perNS-len(kept)+i].RequestID; e.RequestID != want {
			t.Fatalf("%s keeps %s at %d, want %s: not its last entries in order", partly, e.RequestID, i, want)
		}
	}
	s.DeleteNamespace("idle7")
	if _, after := held(); after != budget.Bytes.Load() || after != total-int64(got["idle7"][1]) {
		t.Errorf("after dropping idle7 the budget counts %d, the journals hold %d, want %d", budget.Bytes.Load(), after, total-int64(got["idle7"][1]))
	}
	s.ClearNamespaces()
	if _, after := held(); budget.Bytes.Load() != after || after != int64(s.srv.RequestLog.Bytes) {
		t.Errorf("with no namespace left the budget counts %d, the default journal holds %d", budget.Bytes.Load(), s.srv.RequestLog.Bytes)
	}

	// Namespaces filled at once, deleted and recreated meanwhile, keep the count exact.
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Go(func() {
			name := fmt.Sprintf("busy%d", i)
			fill(name, perNS/2)
			if i%2 == 0 {
				s.DeleteNamespace(name)
			}
			fill(name, perNS/2)
		})
	}
	wg.Wait()
	_, total = held()
	if total != budget.Bytes.Load() {
		t.Errorf("after concurrent use the budget counts %d bytes, the journals hold %d", budget.Bytes.Load(), total)
	}
	if entry := int64(got["idle7"][1] / perNS); total > budget.Limit+8*entry {
		t.Errorf("after concurrent use the journals hold %d bytes, over the limit of %d by more than one entry each", total, budget.Limit)
	}
}
