package fake

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/tidwall/gjson"
)

// The control API of batches: the pace a namespace's batches take (PUT /_fake/batch_pace), the
// journal entry of each request of a batch, and what a reset and a snapshot do to batches. The
// expected values are the documented contract (docs/control-api.md, conformance/EXTENSIONS.md
// §13): a batch of n requests at pace p ends n×p after its creation.

func advanceNS(t *testing.T, s http.Handler, prefix string, seconds float64) {
	t.Helper()
	body, _ := json.Marshal(map[string]float64{"seconds": seconds})
	if w := send(t, s, http.MethodPost, prefix+"/_fake/clock/advance", string(body), "Content-Type", "application/json"); w.Code != http.StatusOK {
		t.Fatalf("advance: %d %s", w.Code, w.Body)
	}
}

func batchStatus(t *testing.T, s http.Handler, prefix, id string) string {
	t.Helper()
	w := batchSend(t, s, http.MethodGet, prefix+"/v1/messages/batches/"+id, "")
	return w.Result().Status + " " + gjson.Get(w.Body.String(), "processing_status").String()
}

// TestBatchPaceControl: PUT /_fake/batch_pace sets the pace of the batches a namespace creates
// afterwards without Fake-Batch-Pace (the header still decides its own batch); another
// namespace keeps 0.1 s; a value outside 0 to 86400 is a 400 naming seconds; a reset puts 0.1
// back.
func TestBatchPaceControl(t *testing.T) {
	s := batchServer(t)
	pace := func(prefix string) string {
		return gjson.Get(send(t, s, http.MethodGet, prefix+"/_fake/batch_pace", "").Body.String(), "seconds").Raw
	}
	if got := pace(""); got != "0.1" {
		t.Fatalf("the pace before any PUT: %s, want 0.1", got)
	}
	w := send(t, s, http.MethodPut, "/ns/slow/_fake/batch_pace", `{"seconds":2}`, "Content-Type", "application/json")
	if w.Code != http.StatusOK || gjson.Get(w.Body.String(), "seconds").Raw != "2" {
		t.Fatalf("PUT: %d %s", w.Code, w.Body)
	}
	three := batchBody(batchRequest("a", msgParams("one")), batchRequest("b", msgParams("two")), batchRequest("c", msgParams("three")))
	w = batchSend(t, s, http.MethodPost, "/ns/slow/v1/messages/batches", three)
	id := gjson.Get(w.Body.String(), "id").String()
	advanceNS(t, s, "/ns/slow", 5.9)
	if got := batchStatus(t, s, "/ns/slow", id); got != "200 OK in_progress" {
		t.Fatalf("3 requests at 2 s, 5.9 s after creation: %s, want in_progress", got)
	}
	advanceNS(t, s, "/ns/slow", 0.1)
	if got := batchStatus(t, s, "/ns/slow", id); got != "200 OK ended" {
		t.Fatalf("3 requests at 2 s, 6 s after creation: %s, want ended", got)
	}
	w = batchSend(t, s, http.MethodPost, "/ns/slow/v1/messages/batches", three, "Fake-Batch-Pace", "0")
	if got := gjson.Get(w.Body.String(), "processing_status").String(); got != "ended" {
		t.Errorf("Fake-Batch-Pace 0 over a pace of 2 s: %s, want ended at once", got)
	}
	if got := pace(""); got != "0.1" {
		t.Errorf("the root's pace after a namespace's PUT: %s, want 0.1", got)
	}
	w = batchSend(t, s, http.MethodPost, "/v1/messages/batches", three)
	advanceNS(t, s, "", 0.3)
	if got := batchStatus(t, s, "", gjson.Get(w.Body.String(), "id").String()); got != "200 OK ended" {
		t.Errorf("the root's batch of 3 requests 0.3 s after creation: %s, want ended", got)
	}
	for _, bad := range []string{`{"seconds":-1}`, `{"seconds":86401}`, `{}`} {
		w := send(t, s, http.MethodPut, "/ns/slow/_fake/batch_pace", bad, "Content-Type", "application/json")
		if w.Code != http.StatusBadRequest || !strings.Contains(gjson.Get(w.Body.String(), "error.message").String(), "seconds") {
			t.Errorf("PUT %s: %d %s, want 400 naming seconds", bad, w.Code, w.Body)
		}
	}
	if got := pace("/ns/slow"); got != "2" {
		t.Errorf("a refused PUT changed the pace: %s", got)
	}
	send(t, s, http.MethodPost, "/ns/slow/_fake/reset", "")
	if got := pace("/ns/slow"); got != "0.1" {
		t.Errorf("the pace after a reset: %s, want 0.1", got)
	}
	// The same, as methods of the server.
	if err := s.SetBatchPace(1500 * time.Millisecond); err != nil || pace("") != "1.5" || s.BatchPace() != 1500*time.Millisecond {
		t.Errorf("SetBatchPace(1.5 s): %v; the route says %s, BatchPace %v", err, pace(""), s.BatchPace())
	}
	if err := s.SetBatchPace(-time.Second); err == nil || !strings.Contains(err.Error(), "seconds") || s.BatchPace() != 1500*time.Millisecond {
		t.Errorf("SetBatchPace(-1 s): %v, pace now %v; want an error naming seconds and the pace unchanged", err, s.BatchPace())
	}
}

// TestBatchRequestsJournaled: each request of a batch is in the journal as the POST
// /v1/messages it is (its body the request's params, its status and error type those the
// request gets alone), its request_id the create request's, "/" and its custom_id, marked with
// the batch's ID and its custom_id, in order, before the create request's own entry
// (unmarked); the journal pages one entry at a time through them all.
func TestBatchRequestsJournaled(t *testing.T) {
	s := batchServer(t)
	refused := `{"model":"assistant-opus-4-7","max_tokens":200,"messages":[]}`
	ok := msgParams("Hello")
	w := batchSend(t, s, http.MethodPost, "/v1/messages/batches", batchBody(batchRequest("ok", ok), batchRequest("refused", refused)))
	id, reqID := gjson.Get(w.Body.String(), "id").String(), w.Header().Get("request-id")
	alone := batchSend(t, s, http.MethodPost, "/v1/messages", refused)
	j := s.Journal()
	if len(j) != 4 {
		t.Fatalf("%d journal entries, want 2 for the batch's requests, 1 for the create and 1 for the request sent alone: %+v", len(j), j)
	}
	for i, want := range []struct {
		customID, body string
		status         int
		errType        string
	}{{"ok", ok, http.StatusOK, ""}, {"refused", refused, alone.Code, gjson.Get(alone.Body.String(), "error.type").String()}} {
		e := j[i]
		if e.Batch == nil || e.Batch.ID != id || e.Batch.CustomID != want.customID {
			t.Errorf("entry %d: batch %+v, want {%s %s}", i, e.Batch, id, want.customID)
		}
		if e.Method != http.MethodPost || e.Path != "/v1/messages" || e.RequestID != reqID+"/"+want.customID || e.Interface != j[2].Interface {
			t.Errorf("entry %d: %s %s request-id %s interface %s, want POST /v1/messages %s/%s %s", i, e.Method, e.Path, e.RequestID, e.Interface, reqID, want.customID, j[2].Interface)
		}
		if e.Status != want.status || e.ErrorType != want.errType || e.Valid != (want.errType == "") {
			t.Errorf("entry %d: status %d error %q valid %v, want %d %q", i, e.Status, e.ErrorType, e.Valid, want.status, want.errType)
		}
		if string(e.Body) != want.body || e.Headers["x-api-key"] != "" || e.Headers["content-type"] != "application/json" {
			t.Errorf("entry %d: body %s headers %v, want %s and the create's headers but its key", i, e.Body, e.Headers, want.body)
		}
		if e.CredentialID != j[2].CredentialID || e.APIVersion != j[2].APIVersion {
			t.Errorf("entry %d: credential %s version %s, want the create's %s %s", i, e.CredentialID, e.APIVersion, j[2].CredentialID, j[2].APIVersion)
		}
	}
	if c := j[2]; c.Batch != nil || c.Path != "/v1/messages/batches" || c.RequestID != reqID {
		t.Errorf("the create's entry: %s batch %+v request-id %s", c.Path, c.Batch, c.RequestID)
	}
	if j[3].Batch != nil {
		t.Errorf("the request sent alone is marked: %+v", j[3].Batch)
	}
	// The control API's view: the schema's batch field, as the journal route answers it, and
	// its pages of one entry, each after the last.
	body := send(t, s, http.MethodGet, "/_fake/journal", "").Body.String()
	if got := gjson.Get(body, "data.#.batch.custom_id").Raw; got != `["ok","refused"]` {
		t.Errorf("GET /_fake/journal batch custom_ids: %s", got)
	}
	var paged []string
	for after := ""; len(paged) < 10; {
		q := "/_fake/journal?limit=1"
		if after != "" {
			q += "&after_id=" + after
		}
		page := gjson.Parse(send(t, s, http.MethodGet, q, "").Body.String())
		paged = append(paged, page.Get("data.0.request_id").String())
		if !page.Get("has_more").Bool() {
			break
		}
		after = page.Get("last_id").String()
	}
	if want := []string{reqID + "/ok", reqID + "/refused", reqID, j[3].RequestID}; strings.Join(paged, " ") != strings.Join(want, " ") {
		t.Errorf("the journal paged one entry at a time: %v, want %v", paged, want)
	}
}

// TestBatchesResetAndSnapshot: a snapshot holds the batches made before it, so loading one taken
// before a batch forgets that batch and loading one taken after keeps it; a reset forgets every
// batch made since and returns to the loaded snapshot's. (That a loaded batch continues exactly
// is TestBatchSnapshotContinuesEveryBatch's.)
func TestBatchesResetAndSnapshot(t *testing.T) {
	s := batchServer(t)
	one := batchBody(batchRequest("a", msgParams("one")))
	before := send(t, s, http.MethodGet, "/_fake/snapshot", "").Body.String()
	kept := createBatchOK(t, s, one).Get("id").String()
	after := send(t, s, http.MethodGet, "/_fake/snapshot", "").Body.String()
	if !strings.Contains(after, kept) || strings.Contains(before, kept) {
		t.Errorf("the snapshot taken after batch %s does not hold it, or the one taken before does", kept)
	}
	for _, snap := range []string{before, after} {
		if w := send(t, s, http.MethodPost, "/_fake/snapshot", snap, "Content-Type", "application/json"); w.Code != http.StatusOK {
			t.Fatalf("load: %d %s", w.Code, w.Body)
		}
		want := "404"
		if snap == after {
			want = "200"
		}
		if got := batchStatus(t, s, "", kept); !strings.HasPrefix(got, want) {
			t.Errorf("batch %s after a snapshot was loaded: %s, want %s", kept, got, want)
		}
	}
	id := createBatchOK(t, s, one).Get("id").String()
	send(t, s, http.MethodPost, "/_fake/reset", "")
	if got := batchStatus(t, s, "", id); !strings.HasPrefix(got, "404") {
		t.Errorf("batch %s after a reset: %s, want 404", id, got)
	}
	if got := gjson.Get(batchSend(t, s, http.MethodGet, "/v1/messages/batches", "").Body.String(), "data.#.id").Raw; got != `["`+kept+`"]` {
		t.Errorf("batches listed after a reset: %s, want the loaded snapshot's [%s]", got, kept)
	}
}
