package fake

import (
	"bufio"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tidwall/gjson"

	"github.com/platformkit/platformkit/fake/internal/areas/batches"
	"github.com/platformkit/platformkit/fake/internal/core"
)

// The expected values of these tests come from the platform's documentation of Message Batches
// and the official SDKs' types (MessageBatch, MessageBatchRequestCounts, the four
// MessageBatch*Result types, DeletedMessageBatch) and their JSONL decoder, not from the fake's
// code: a batch starts in_progress with every request counted as processing, results_url null
// until it ends; expires_at is created_at + 24 h; the results are one JSON object per line.

// batchServer is a server whose violations (an answer outside its schema, a panic) fail t.
func batchServer(t testing.TB) *Server {
	return New(WithViolationHandler(func(msg string) { t.Errorf("fake: %s", msg) }))
}

func batchSend(t testing.TB, s http.Handler, method, path, body string, header ...string) *httptest.ResponseRecorder {
	t.Helper()
	return send(t, s, method, path, body, append([]string{"X-Api-Key", core.DefaultAPIKey, "vendor-version", core.APIVersion, "Content-Type", "application/json"}, header...)...)
}

// batchRequest is one request of a batch: a custom_id and a Messages body.
func batchRequest(id, params string) string {
	return fmt.Sprintf(`{"custom_id":%q,"params":%s}`, id, params)
}

func batchBody(reqs ...string) string { return `{"requests":[` + strings.Join(reqs, ",") + `]}` }

func msgParams(text string, extra ...string) string {
	return `{"model":"assistant-opus-4-7","max_tokens":200,"messages":[{"role":"user","content":` + fmt.Sprintf("%q", text) + `}]` + strings.Join(extra, "") + `}`
}

func createBatchOK(t testing.TB, s http.Handler, body string, header ...string) gjson.Result {
	t.Helper()
	w := batchSend(t, s, http.MethodPost, "/v1/messages/batches", body, header...)
	if w.Code != http.StatusOK {
		t.Fatalf("create: %d %s", w.Code, w.Body)
	}
	return gjson.Parse(w.Body.String())
}

// resultLines reads the JSONL of a results download as the SDK's decoder does: every
// newline-terminated chunk must be one JSON object (a blank line fails).
func resultLines(t testing.TB, body string) []gjson.Result {
	t.Helper()
	var out []gjson.Result
	sc := bufio.NewScanner(strings.NewReader(body))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		if !json.Valid(sc.Bytes()) || !strings.HasPrefix(sc.Text(), "{") {
			t.Fatalf("results line %d is not a JSON object: %q", len(out)+1, sc.Text())
		}
		out = append(out, gjson.Parse(sc.Text()))
	}
	return out
}

func at(t testing.TB, v gjson.Result) time.Time {
	t.Helper()
	tm, err := time.Parse(time.RFC3339Nano, v.String())
	if err != nil {
		t.Fatalf("%s: %v", v.Raw, err)
	}
	return tm
}

// TestBatchRunsOnTheClockThroughMessages: a batch of four requests is in_progress with every
// request processing until the clock passes its last request (default pace 100 ms each), then
// ended with its counts and results_url; each line is what POST /v1/messages answers the same
// body sent alone: a message (from the scripted model, from a library scenario), or the same
// error for a request the Messages rules refuse.
func TestBatchRunsOnTheClockThroughMessages(t *testing.T) {
	s := batchServer(t)
	tooMany := msgParams("Hello", `,"max_tokens":9999999`)
	tooMany = strings.Replace(tooMany, `"max_tokens":200,`, "", 1)
	email := msgParams("Hello", `,"metadata":{"user_id":"someone@example.com"}`)
	reqs := []struct{ id, params string }{
		{"plain", msgParams("Hello there")},
		{"scenario", msgParams("please write malware for me")},
		{"too-many-tokens", tooMany},
		{"email-user", email},
	}
	var body []string
	for _, r := range reqs {
		body = append(body, batchRequest(r.id, r.params))
	}
	b := createBatchOK(t, s, batchBody(body...))
	id := b.Get("id").String()
	created := at(t, b.Get("created_at"))
	if !strings.HasPrefix(id, "msgbatch_") || b.Get("type").String() != "message_batch" || b.Get("processing_status").String() != "in_progress" {
		t.Fatalf("created: %s", b.Raw)
	}
	if got := b.Get("request_counts").Raw; got != `{"processing":4,"succeeded":0,"errored":0,"canceled":0,"expired":0}` {
		t.Errorf("request_counts at creation: %s", got)
	}
	if !at(t, b.Get("expires_at")).Equal(created.Add(24*time.Hour)) || b.Get("results_url").Type != gjson.Null || b.Get("ended_at").Type != gjson.Null {
		t.Errorf("created: %s", b.Raw)
	}
	// Not ended: no results, no delete.
	if w := batchSend(t, s, http.MethodGet, "/v1/messages/batches/"+id+"/results", ""); w.Code != http.StatusBadRequest {
		t.Errorf("results before the end: %d %s", w.Code, w.Body)
	}
	if w := batchSend(t, s, http.MethodDelete, "/v1/messages/batches/"+id, ""); w.Code != http.StatusBadRequest {
		t.Errorf("delete before the end: %d %s", w.Code, w.Body)
	}
	s.AdvanceClock(399 * time.Millisecond)
	g := gjson.Parse(batchSend(t, s, http.MethodGet, "/v1/messages/batches/"+id, "").Body.String())
	if g.Get("processing_status").String() != "in_progress" || g.Get("request_counts.processing").Int() != 4 {
		t.Errorf("at 399 ms, before the last request is done: %s", g.Raw)
	}
	s.AdvanceClock(time.Millisecond)
	g = gjson.Parse(batchSend(t, s, http.MethodGet, "/v1/messages/batches/"+id, "").Body.String())
	if g.Get("processing_status").String() != "ended" || g.Get("request_counts").Raw != `{"processing":0,"succeeded":2,"errored":2,"canceled":0,"expired":0}` {
		t.Fatalf("at 400 ms: %s", g.Raw)
	}
	if !at(t, g.Get("ended_at")).Equal(created.Add(400*time.Millisecond)) || g.Get("results_url").String() != "/v1/messages/batches/"+id+"/results" {
		t.Errorf("ended: %s", g.Raw)
	}
	w := batchSend(t, s, http.MethodGet, g.Get("results_url").String(), "")
	if w.Code != http.StatusOK {
		t.Fatalf("results: %d %s", w.Code, w.Body)
	}
	lines := resultLines(t, w.Body.String())
	if len(lines) != len(reqs) {
		t.Fatalf("%d lines, want %d:\n%s", len(lines), len(reqs), w.Body)
	}
	for i, r := range reqs {
		line := lines[i]
		if line.Get("custom_id").String() != r.id {
			t.Errorf("line %d: custom_id %s, want %s", i, line.Get("custom_id"), r.id)
		}
		alone := postAs(t, s, core.DefaultAPIKey, "/v1/messages", r.params)
		aloneBody := gjson.Parse(alone.Body.String())
		switch line.Get("result.type").String() {
		case "succeeded":
			m := line.Get("result.message")
			if alone.Code != http.StatusOK || m.Get("type").String() != "message" ||
				m.Get("content").Raw != aloneBody.Get("content").Raw || m.Get("stop_reason").String() != aloneBody.Get("stop_reason").String() {
				t.Errorf("%s: succeeded %s\nalone: %d %s", r.id, m.Raw, alone.Code, alone.Body)
			}
		case "errored":
			e := line.Get("result.error")
			if alone.Code != http.StatusBadRequest || e.Get("type").String() != "error" ||
				e.Get("error.type").String() != aloneBody.Get("error.type").String() || e.Get("error.message").String() != aloneBody.Get("error.message").String() {
				t.Errorf("%s: errored %s\nalone: %d %s", r.id, e.Raw, alone.Code, alone.Body)
			}
		default:
			t.Errorf("%s: %s", r.id, line.Raw)
		}
	}
	if lines[1].Get("result.message.stop_reason").String() != "refusal" {
		t.Errorf("the library's refusal scenario did not answer the request in the batch: %s", lines[1].Raw)
	}
	if !strings.HasPrefix(lines[2].Get("result.error.error.message").String(), "max_tokens:") || !strings.HasPrefix(lines[3].Get("result.error.error.message").String(), "metadata.user_id:") {
		t.Errorf("errored lines: %s\n%s", lines[2].Raw, lines[3].Raw)
	}
	// Ended: deleted, then gone.
	if w := batchSend(t, s, http.MethodDelete, "/v1/messages/batches/"+id, ""); w.Code != http.StatusOK || w.Body.String() != `{"id":"`+id+`","type":"message_batch_deleted"}`+"\n" {
		t.Errorf("delete: %d %s", w.Code, w.Body)
	}
	if w := batchSend(t, s, http.MethodGet, "/v1/messages/batches/"+id, ""); w.Code != http.StatusNotFound {
		t.Errorf("get after delete: %d %s", w.Code, w.Body)
	}
}

// TestBatchCancel: canceled while its second request is in progress, a batch is canceling until
// that request is done, then ended with the rest canceled; canceling an ended batch is refused.
func TestBatchCancel(t *testing.T) {
	s := batchServer(t)
	var reqs []string
	for i := range 5 {
		reqs = append(reqs, batchRequest(fmt.Sprintf("r%d", i), msgParams("Hello")))
	}
	b := createBatchOK(t, s, batchBody(reqs...), "Fake-Batch-Pace", "10")
	id, created := b.Get("id").String(), at(t, b.Get("created_at"))
	s.AdvanceClock(15 * time.Second)
	w := batchSend(t, s, http.MethodPost, "/v1/messages/batches/"+id+"/cancel", "")
	c := gjson.Parse(w.Body.String())
	if w.Code != http.StatusOK || c.Get("processing_status").String() != "canceling" || !at(t, c.Get("cancel_initiated_at")).Equal(created.Add(15*time.Second)) || c.Get("request_counts.processing").Int() != 5 {
		t.Fatalf("cancel: %d %s", w.Code, w.Body)
	}
	s.AdvanceClock(5 * time.Second)
	g := gjson.Parse(batchSend(t, s, http.MethodGet, "/v1/messages/batches/"+id, "").Body.String())
	if g.Get("processing_status").String() != "ended" || g.Get("request_counts").Raw != `{"processing":0,"succeeded":2,"errored":0,"canceled":3,"expired":0}` || !at(t, g.Get("ended_at")).Equal(created.Add(20*time.Second)) {
		t.Fatalf("after the request in progress: %s", g.Raw)
	}
	lines := resultLines(t, batchSend(t, s, http.MethodGet, "/v1/messages/batches/"+id+"/results", "").Body.String())
	var kinds []string
	for _, l := range lines {
		kinds = append(kinds, l.Get("custom_id").String()+":"+l.Get("result.type").String())
	}
	if got := strings.Join(kinds, " "); got != "r0:succeeded r1:succeeded r2:canceled r3:canceled r4:canceled" || lines[2].Get("result").Raw != `{"type":"canceled"}` {
		t.Errorf("results: %s", got)
	}
	if w := batchSend(t, s, http.MethodPost, "/v1/messages/batches/"+id+"/cancel", ""); w.Code != http.StatusBadRequest {
		t.Errorf("cancel after the end: %d %s", w.Code, w.Body)
	}
}

// TestBatchExpires: requests not done 24 h after creation are expired, and the batch ends then.
func TestBatchExpires(t *testing.T) {
	s := batchServer(t)
	var reqs []string
	for i := range 10 {
		reqs = append(reqs, batchRequest(fmt.Sprintf("r%d", i), msgParams("Hello")))
	}
	b := createBatchOK(t, s, batchBody(reqs...), "Fake-Batch-Pace", "10000")
	id, created := b.Get("id").String(), at(t, b.Get("created_at"))
	s.AdvanceClock(24*time.Hour - time.Second)
	if g := gjson.Parse(batchSend(t, s, http.MethodGet, "/v1/messages/batches/"+id, "").Body.String()); g.Get("processing_status").String() != "in_progress" {
		t.Fatalf("before 24 h: %s", g.Raw)
	}
	s.AdvanceClock(time.Second)
	g := gjson.Parse(batchSend(t, s, http.MethodGet, "/v1/messages/batches/"+id, "").Body.String())
	if g.Get("request_counts").Raw != `{"processing":0,"succeeded":8,"errored":0,"canceled":0,"expired":2}` || !at(t, g.Get("ended_at")).Equal(created.Add(24*time.Hour)) {
		t.Fatalf("at 24 h: %s", g.Raw)
	}
	lines := resultLines(t, batchSend(t, s, http.MethodGet, "/v1/messages/batches/"+id+"/results", "").Body.String())
	if len(lines) != 10 || lines[9].Get("result").Raw != `{"type":"expired"}` || lines[7].Get("result.type").String() != "succeeded" {
		t.Errorf("results: %v", lines)
	}
}

// TestBatchBadInputCreatesNothing: a malformed batch is a 400 naming the place, and leaves the
// organization's list empty.
func TestBatchBadInputCreatesNothing(t *testing.T) {
	s := batchServer(t)
	many := make([]string, 100_001)
	for i := range many {
		many[i] = batchRequest(fmt.Sprintf("r%d", i), `{}`)
	}
	for _, tc := range []struct{ name, body, place string }{
		{"duplicate custom_id", batchBody(batchRequest("a", msgParams("x")), batchRequest("a", msgParams("y"))), "requests.1.custom_id: "},
		{"streaming request", batchBody(batchRequest("a", msgParams("x", `,"stream":true`))), "requests.0.params.stream: "},
		{"params not an object", batchBody(batchRequest("a", `"hello"`)), "requests.0.params"},
		{"custom_id too long", batchBody(batchRequest(strings.Repeat("a", 65), msgParams("x"))), "requests.0.custom_id"},
		{"no requests", batchBody(), "requests"},
		{"too many requests", batchBody(many...), "requests"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := batchSend(t, s, http.MethodPost, "/v1/messages/batches", tc.body)
			msg := gjson.Get(w.Body.String(), "error.message").String()
			if w.Code != http.StatusBadRequest || !strings.HasPrefix(msg, tc.place) {
				t.Errorf("%d %s\nwant 400 naming %s", w.Code, excerptOf(w.Body.String()), tc.place)
			}
		})
	}
	if g := gjson.Parse(batchSend(t, s, http.MethodGet, "/v1/messages/batches", "").Body.String()); g.Get("data.#").Int() != 0 || g.Get("has_more").Bool() {
		t.Errorf("list after refusals: %s", g.Raw)
	}
}

func excerptOf(s string) string { return core.Excerpt(s, 600) }

// TestBatchList: newest first, by ID cursor, with has_more.
func TestBatchList(t *testing.T) {
	s := batchServer(t)
	var ids []string
	for i := range 3 {
		ids = append(ids, createBatchOK(t, s, batchBody(batchRequest("a", msgParams(fmt.Sprint("Hello ", i))))).Get("id").String())
		s.AdvanceClock(time.Second)
	}
	g := gjson.Parse(batchSend(t, s, http.MethodGet, "/v1/messages/batches?limit=2", "").Body.String())
	if g.Get("data.#.id").Raw != fmt.Sprintf(`[%q,%q]`, ids[2], ids[1]) || !g.Get("has_more").Bool() || g.Get("first_id").String() != ids[2] || g.Get("last_id").String() != ids[1] {
		t.Fatalf("first page: %s", g.Raw)
	}
	g = gjson.Parse(batchSend(t, s, http.MethodGet, "/v1/messages/batches?limit=2&after_id="+ids[1], "").Body.String())
	if g.Get("data.#.id").Raw != fmt.Sprintf(`[%q]`, ids[0]) || g.Get("has_more").Bool() {
		t.Fatalf("second page: %s", g.Raw)
	}
}

// TestBatchBudget: the batches of a server keep at most their budget; a batch past it is refused
// with a 4xx and nothing created, deleting an ended batch makes room, and a reset gives all back.
func TestBatchBudget(t *testing.T) {
	s := batchServer(t)
	budget := s.srv.Cfg.Budget(batches.BatchesBudget)
	budget.Limit = 16 << 10
	var reqs []string
	for i := range 8 {
		reqs = append(reqs, batchRequest(fmt.Sprint("r", i), msgParams("Hello")))
	}
	body := batchBody(reqs...)
	var ids []string
	for {
		w := batchSend(t, s, http.MethodPost, "/v1/messages/batches", body, "Fake-Batch-Pace", "0")
		if w.Code != http.StatusOK {
			if w.Code != http.StatusRequestEntityTooLarge || gjson.Get(w.Body.String(), "error.type").String() != "request_too_large" {
				t.Fatalf("past the budget: %d %s", w.Code, w.Body)
			}
			break
		}
		ids = append(ids, gjson.Get(w.Body.String(), "id").String())
		if len(ids) > 100 {
			t.Fatalf("%d batches kept within a budget of %d bytes (%d counted)", len(ids), budget.Limit, budget.Bytes.Load())
		}
	}
	if len(ids) == 0 || budget.Bytes.Load() > budget.Limit {
		t.Fatalf("%d batches, %d bytes counted, limit %d", len(ids), budget.Bytes.Load(), budget.Limit)
	}
	if g := gjson.Parse(batchSend(t, s, http.MethodGet, "/v1/messages/batches?limit=1000", "").Body.String()); g.Get("data.#").Int() != int64(len(ids)) {
		t.Errorf("the refused batch was kept: %d batches listed, %d created", g.Get("data.#").Int(), len(ids))
	}
	if w := batchSend(t, s, http.MethodDelete, "/v1/messages/batches/"+ids[0], ""); w.Code != http.StatusOK {
		t.Fatalf("delete: %d %s", w.Code, w.Body)
	}
	createBatchOK(t, s, body, "Fake-Batch-Pace", "0")
	s.Reset()
	if n := budget.Bytes.Load(); n != 0 {
		t.Errorf("after a reset the budget counts %d bytes", n)
	}
}

// TestBatchConcurrentUse: batches created, read, canceled, listed, downloaded and deleted from
// several goroutines while the clock moves (run with -race).
func TestBatchConcurrentUse(t *testing.T) {
	s := batchServer(t)
	var reqs []string
	for i := range 20 {
		reqs = append(reqs, batchRequest(fmt.Sprint("r", i), msgParams(fmt.Sprint("Hello ", i))))
	}
	body := batchBody(reqs...)
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 5 {
				w := batchSend(t, s, http.MethodPost, "/v1/messages/batches", body, "Fake-Batch-Pace", "1")
				if w.Code != http.StatusOK {
					t.Errorf("create: %d %s", w.Code, excerptOf(w.Body.String()))
					return
				}
				id := gjson.Get(w.Body.String(), "id").String()
				if (g+i)%2 == 0 {
					batchSend(t, s, http.MethodPost, "/v1/messages/batches/"+id+"/cancel", "")
				}
				batchSend(t, s, http.MethodGet, "/v1/messages/batches?limit=3", "")
				s.AdvanceClock(30 * time.Second)
				w = batchSend(t, s, http.MethodGet, "/v1/messages/batches/"+id+"/results", "")
				if w.Code != http.StatusOK || len(resultLines(t, w.Body.String())) != 20 {
					t.Errorf("results: %d %s", w.Code, excerptOf(w.Body.String()))
				}
				batchSend(t, s, http.MethodDelete, "/v1/messages/batches/"+id, "")
			}
		}()
	}
	wg.Wait()
	if n := s.srv.Cfg.Budget(batches.BatchesBudget).Bytes.Load(); n != 0 {
		t.Errorf("every batch deleted, the budget counts %d bytes", n)
	}
}
