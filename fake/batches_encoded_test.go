package fake

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/tidwall/gjson"
)

// TestBatchReadsAfterChange: a batch's read and its list item are the bytes encoded by the first
// read after a change (batches keep them). Read before and after each change the clock or a
// client makes (the batch ends, is archived after 29 days; another is canceled), both show it
// and agree byte for byte, and the counts agree with the results' lines.
func TestBatchReadsAfterChange(t *testing.T) {
	s := batchServer(t)
	refused := `{"model":"assistant-opus-4-7","max_tokens":200,"messages":[]}`
	id := createBatchOK(t, s, batchBody(batchRequest("a", msgParams("Hello")), batchRequest("b", refused), batchRequest("c", msgParams("Hi"))),
		"Fake-Batch-Pace", "10").Get("id").String()
	read := func(id, after string) gjson.Result {
		t.Helper()
		one := strings.TrimSpace(batchSend(t, s, http.MethodGet, "/v1/messages/batches/"+id, "").Body.String())
		listed := gjson.Get(batchSend(t, s, http.MethodGet, "/v1/messages/batches?limit=100", "").Body.String(), `data.#(id=="`+id+`")`).Raw
		if listed != one {
			t.Fatalf("after %s the list gives\n%s\nand reading the batch\n%s", after, listed, one)
		}
		return gjson.Parse(one)
	}
	for _, after := range []string{"create", "a second read"} {
		if b := read(id, after); b.Get("processing_status").String() != "in_progress" || b.Get("request_counts.processing").Int() != 3 {
			t.Fatalf("after %s: %s, want in_progress with 3 processing", after, b.Raw)
		}
	}
	s.AdvanceClock(30 * time.Second)
	b := read(id, "the clock passed its last request")
	if b.Get("processing_status").String() != "ended" || b.Get("request_counts").Raw != `{"processing":0,"succeeded":2,"errored":1,"canceled":0,"expired":0}` {
		t.Fatalf("after its last request: %s, want ended with 2 succeeded and 1 errored", b.Raw)
	}
	kinds := map[string]int{}
	for _, l := range resultLines(t, batchSend(t, s, http.MethodGet, "/v1/messages/batches/"+id+"/results", "").Body.String()) {
		kinds[l.Get("result.type").String()]++
	}
	if kinds["succeeded"] != 2 || kinds["errored"] != 1 {
		t.Fatalf("results: %v, want the counts' 2 succeeded and 1 errored", kinds)
	}
	if b.Get("archived_at").Type != gjson.Null {
		t.Fatalf("archived_at before 29 days: %s", b.Get("archived_at").Raw)
	}
	s.AdvanceClock(29 * 24 * time.Hour)
	if b := read(id, "29 days"); b.Get("archived_at").Type == gjson.Null {
		t.Fatalf("archived_at after 29 days is null: %s", b.Raw)
	}

	other := createBatchOK(t, s, batchBody(batchRequest("a", msgParams("Hello")), batchRequest("b", msgParams("Hi"))), "Fake-Batch-Pace", "10").Get("id").String()
	read(other, "create")
	batchSend(t, s, http.MethodPost, "/v1/messages/batches/"+other+"/cancel", "")
	if b := read(other, "cancel"); b.Get("processing_status").String() != "canceling" || b.Get("cancel_initiated_at").Type == gjson.Null {
		t.Fatalf("after cancel: %s, want canceling with its cancel_initiated_at", b.Raw)
	}
}
