package batches

import (
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"time"

	. "github.com/onsi/gomega"

	"github.com/platformkit/platformkit/conformance/kit"
)

// long is how many requests a batch has when a check must act while it is in progress: at the
// fake's pace (100 ms a request) two seconds of its time.
const long = 20

// inProgress ends the check as unsupported when the batch resp was about has ended already:
// the target processed it before the check could act on it in progress.
func inProgress(t *kit.T, id, what string) {
	if b := t.OK(getReq(id)); b.Get("processing_status").String() == "ended" {
		t.Unsupported("message batch %s of %d requests ended before the check could %s: %s", id, long, what, b)
	}
}

// batchChecks wait for their batches to end (and delete them only then): slow, since a
// deployment's batch takes its own time, from seconds to hours. They run against a deployment
// with CONFORMANCE_SLOW=1, or where the run moves the target's clock (Target.WaitFunc).
func batchChecks() []kit.Check {
	return []kit.Check{
		{ID: "messages/batch-create-shape", Clause: clause, Labels: slow,
			Title: "a created batch is in_progress, every request counted as processing, with a msgbatch_ ID, expires_at 24 h after created_at, and ended_at, cancel_initiated_at, archived_at and results_url null",
			Run: func(t *kit.T) {
				model, _ := t.Model()
				b := create(t, greetings(model, 2))
				t.Expect(b.Get("id").String()).To(HavePrefix("msgbatch_"), "%s", b)
				t.Expect(b.Get("type").String()).To(Equal("message_batch"), "%s", b)
				t.Expect(b.Get("processing_status").String()).To(Equal("in_progress"), "%s", b)
				t.Expect(requestCounts(b)).To(Equal(map[string]int64{"processing": 2, "succeeded": 0, "errored": 0, "canceled": 0, "expired": 0}),
					"every request counts as processing until the batch ends: %s", b.Get("request_counts"))
				for _, f := range []string{"ended_at", "cancel_initiated_at", "archived_at", "results_url"} {
					t.Expect(b.Get(f).Type.String()).To(Equal("Null"), "%s is null in a new batch: %s", f, b)
				}
				created := mustTime(t, b, "created_at")
				t.Expect(mustTime(t, b, "expires_at").Sub(created)).To(Equal(24*time.Hour), "expires_at is created_at + 24 h: %s", b)
				awaitEnd(t, b.Get("id").String())
			},
			Bug: &kit.Bug{Says: "a new batch counts its requests as succeeded at once", Want: "processing",
				Break: kit.InRouteOKAnswers(http.MethodPost, createPattern, func(_ *http.Request, m map[string]any) {
					if rc, ok := m["request_counts"].(map[string]any); ok {
						rc["succeeded"], rc["processing"] = rc["processing"], 0
					}
				})}},
		{ID: "messages/batch-ends", Clause: clause, Labels: slow,
			Title: "a batch moves from in_progress to ended: then ended_at is set (not before created_at), no request is processing, the counts sum to its requests, and results_url is set",
			Run: func(t *kit.T) {
				model, _ := t.Model()
				b := create(t, append(greetings(model, 2), entry("refused", refused(model))))
				ended := awaitEnd(t, b.Get("id").String())
				t.Expect(ended.Get("ended_at").Type.String()).To(Equal("String"), "an ended batch has its ended_at: %s", ended)
				t.Expect(mustTime(t, ended, "ended_at")).NotTo(BeTemporally("<", mustTime(t, ended, "created_at")), "ended_at is not before created_at: %s", ended)
				counts := requestCounts(ended)
				t.Expect(counts["processing"]).To(BeZero(), "no request of an ended batch is processing: %s", ended.Get("request_counts"))
				t.Expect(counts["succeeded"]+counts["errored"]+counts["canceled"]+counts["expired"]).To(Equal(int64(3)), "the counts sum to the batch's 3 requests: %s", ended.Get("request_counts"))
				t.Expect(ended.Get("results_url").String()).NotTo(BeEmpty(), "an ended batch has its results_url: %s", ended)
			},
			Bug: &kit.Bug{Says: "an ended batch keeps ended_at null", Want: "ended_at",
				Break: kit.SetsField(kit.On(http.MethodGet, batchPattern), "ended_at", nil)}},
		{ID: "messages/batch-counts-agree", Clause: clause, Labels: slow,
			Title: "the results of an ended batch are JSONL, one line per request with its custom_id, and request_counts agree with the lines' result types",
			Run: func(t *kit.T) {
				model, _ := t.Model()
				sent := append(greetings(model, 2), entry("refused", refused(model)))
				ended := awaitEnd(t, create(t, sent).Get("id").String())
				lines := results(t, ended)
				got := byID(t, lines)
				t.Expect(got).To(HaveLen(3), "one line per request: %d lines", len(lines))
				for _, id := range []string{"req-0", "req-1", "refused"} {
					t.Expect(got).To(HaveKey(id), "the results have the line of %s", id)
				}
				t.Expect(got["refused"].Get("result.type").String()).To(Equal("errored"), "a request the Messages rules refuse is errored: %s", got["refused"].Raw)
				t.Expect(requestCounts(ended)).To(Equal(countsOf(lines)), "request_counts agree with the results' lines: %s", ended.Get("request_counts"))
			},
			Bug: &kit.Bug{Says: "request_counts count errored requests as succeeded", Want: "agree",
				Break: countsErroredAsSucceeded}},
		{ID: "messages/batch-results-once-ended", Clause: clause, Labels: slow,
			Title: "the results of a batch in progress are refused with 400 invalid_request_error; once it has ended they are its lines",
			Run: func(t *kit.T) {
				model, _ := t.Model()
				id := create(t, greetings(model, long)).Get("id").String()
				early := t.Do(actionReq(http.MethodGet, id, "/results", ""))
				if early.Status != http.StatusBadRequest {
					inProgress(t, id, "ask for its results early")
				}
				t.ExpectError(early, http.StatusBadRequest, "invalid_request_error")
				t.Expect(results(t, awaitEnd(t, id))).To(HaveLen(long), "once ended, one line per request")
			},
			Bug: &kit.Bug{Says: "the results of a batch in progress are served (empty)", Want: "400",
				Break: servesEarlyResults}},
		{ID: "messages/batch-errored-line-alone", Clause: clause, Labels: slow,
			Title: "a request the Messages rules refuse is an errored line whose error (type and message) is the one the same request gets sent alone to POST /v1/messages",
			Run: func(t *kit.T) {
				model, _ := t.Model()
				ended := awaitEnd(t, create(t, []any{entry("ok", hello(model, 0)), entry("refused", refused(model))}).Get("id").String())
				line := byID(t, results(t, ended))["refused"]
				t.Expect(line.Get("result.type").String()).To(Equal("errored"), "%s", line.Raw)
				t.Expect(line.Get("result.error.type").String()).To(Equal("error"), "the line's error is the error envelope: %s", line.Raw)
				alone := t.Do(kit.Request{Area: kit.Messages, Method: http.MethodPost, Path: "/v1/messages", Body: refused(model)})
				t.Expect(alone.Status).To(Equal(http.StatusBadRequest), "the request sent alone is refused: %s", alone)
				t.Expect(line.Get("result.error.error.type").String()).To(Equal(alone.Get("error.type").String()),
					"the errored line has the same error type as the request sent alone (%s): %s", alone.Get("error"), line.Raw)
				t.Expect(line.Get("result.error.error.message").String()).To(Equal(alone.Get("error.message").String()),
					"the errored line has the same message as the request sent alone (%s): %s", alone.Get("error"), line.Raw)
			},
			Bug: &kit.Bug{Says: "errored lines carry a generic error, not the request's own", Want: "same message",
				Break: rewritesErrors}},
		{ID: "messages/batch-delete-once-ended", Clause: clause, Labels: slow,
			Title: "deleting a batch in progress is refused with 400 and keeps it; once ended it is deleted ({id, type: message_batch_deleted}), then 404",
			Run: func(t *kit.T) {
				model, _ := t.Model()
				id := create(t, greetings(model, long)).Get("id").String()
				early := t.Do(actionReq(http.MethodDelete, id, "", ""))
				if early.Status != http.StatusBadRequest {
					inProgress(t, id, "delete it early")
				}
				t.ExpectError(early, http.StatusBadRequest, "invalid_request_error")
				t.OK(getReq(id))
				awaitEnd(t, id)
				del := t.OK(actionReq(http.MethodDelete, id, "", "batches/message_batch_deleted"))
				t.Expect(del.Get("id").String()).To(Equal(id), "%s", del)
				t.Expect(del.Get("type").String()).To(Equal("message_batch_deleted"), "%s", del)
				t.ExpectError(t.Do(getReq(id)), http.StatusNotFound, "not_found_error")
			},
			Bug: &kit.Bug{Says: "a batch in progress is answered deleted (and kept)", Want: "400",
				Break: deletesInProgress}},
		{ID: "messages/batch-cancel", Clause: clause, Labels: slow,
			Title: "a canceled batch is canceling with cancel_initiated_at, then ended; the requests it did not process are canceled lines, counted in request_counts",
			Run: func(t *kit.T) {
				model, _ := t.Model()
				id := create(t, greetings(model, long)).Get("id").String()
				c := t.Do(actionReq(http.MethodPost, id, "/cancel", "batches/message_batch"))
				if c.Status != http.StatusOK {
					inProgress(t, id, "cancel it")
				}
				t.Expect(c.Status).To(Equal(http.StatusOK), "a batch in progress is canceled: %s", c)
				t.Expect(c.Get("processing_status").String()).To(BeElementOf("canceling", "ended"), "%s", c)
				t.Expect(c.Get("cancel_initiated_at").Type.String()).To(Equal("String"), "a canceled batch has its cancel_initiated_at: %s", c)
				ended := awaitEnd(t, id)
				lines := results(t, ended)
				t.Expect(lines).To(HaveLen(long), "one line per request")
				counts := requestCounts(ended)
				t.Expect(counts["canceled"]).To(BeNumerically(">", 0), "a batch canceled at once has canceled requests: %s", ended.Get("request_counts"))
				t.Expect(counts).To(Equal(countsOf(lines)), "request_counts agree with the results' lines: %s", ended.Get("request_counts"))
			},
			Bug: &kit.Bug{Says: "a cancel is answered canceling but every request is processed", Want: "canceled requests",
				Break: ignoresCancel}},
		{ID: "messages/batch-cancel-ended-refused", Clause: clause, Labels: slow,
			Title: "canceling a batch that has ended is refused with 400 invalid_request_error, and the batch is unchanged",
			Run: func(t *kit.T) {
				model, _ := t.Model()
				ended := awaitEnd(t, create(t, greetings(model, 1)).Get("id").String())
				id := ended.Get("id").String()
				t.ExpectError(t.Do(actionReq(http.MethodPost, id, "/cancel", "")), http.StatusBadRequest, "invalid_request_error")
				t.Expect(t.OK(getReq(id)).Get("@this").Raw).To(MatchJSON(ended.Get("@this").Raw), "the refused cancel changes nothing")
			},
			Bug: &kit.Bug{Says: "a cancel of an ended batch answers the batch", Want: "400",
				Break: kit.ActionIdempotent(cancelPattern, "/cancel")}},
		{ID: "messages/batch-list-newest-first", Clause: clause, Labels: slow,
			Title: "the batch list is newest first: of two batches created one after the other, the later is listed first",
			Run: func(t *kit.T) {
				model, _ := t.Model()
				older := create(t, greetings(model, 1)).Get("id").String()
				newer := create(t, greetings(model, 1)).Get("id").String()
				page := t.OK(listReq(url.Values{"limit": {"2"}}))
				t.Expect(ids(page)).To(Equal([]string{newer, older}), "the newest batch is listed first: %s", page)
				awaitEnd(t, older)
				awaitEnd(t, newer)
			},
			Bug: &kit.Bug{Says: "the batch list is oldest first", Want: "newest batch is listed first",
				Break: kit.InRouteOKAnswers(http.MethodGet, createPattern, func(_ *http.Request, m map[string]any) {
					if data, ok := m["data"].([]any); ok {
						slices.Reverse(data)
					}
				})}},
		{ID: "messages/batch-list-paging", Clause: clause, Labels: slow,
			Title: "the batch list pages by ID cursor: limit 1 answers the newest with first_id = last_id and has_more; after_id and before_id step to the next and back",
			Run: func(t *kit.T) {
				model, _ := t.Model()
				older := create(t, greetings(model, 1)).Get("id").String()
				newer := create(t, greetings(model, 1)).Get("id").String()
				first := t.OK(listReq(url.Values{"limit": {"1"}}))
				t.Expect(ids(first)).To(Equal([]string{newer}), "%s", first)
				t.Expect([]string{first.Get("first_id").String(), first.Get("last_id").String()}).To(Equal([]string{newer, newer}), "%s", first)
				t.Expect(first.Get("has_more").Bool()).To(BeTrue(), "another batch follows: %s", first)
				next := t.OK(listReq(url.Values{"limit": {"1"}, "after_id": {newer}}))
				t.Expect(ids(next)).To(Equal([]string{older}), "after_id steps to the next batch: %s", next)
				back := t.OK(listReq(url.Values{"limit": {"1"}, "before_id": {older}}))
				t.Expect(ids(back)).To(Equal([]string{newer}), "before_id steps back: %s", back)
				awaitEnd(t, older)
				awaitEnd(t, newer)
			},
			Bug: &kit.Bug{Says: "after_id is ignored", Want: "after_id",
				Break: kit.IgnoresQuery(kit.On(http.MethodGet, createPattern), "after_id")}},
	}
}

func badInputChecks() []kit.Check {
	return []kit.Check{
		{ID: "messages/batch-duplicate-custom-id", Clause: clause, Labels: ext,
			Title: "a batch with two requests of one custom_id is refused whole with 400 naming requests.1.custom_id, and creates nothing",
			Run: func(t *kit.T) {
				model, _ := t.Model()
				refusedWhole(t, []any{entry("twice", hello(model, 0)), entry("twice", hello(model, 1))}, "requests.1.custom_id")
			},
			Bug: &kit.Bug{Says: "custom_ids are not required to be unique", Want: "400",
				Break: editsRequests(func(i int, q map[string]any) { q["custom_id"] = fmt.Sprintf("%v-%d", q["custom_id"], i) })}},
		{ID: "messages/batch-too-many-requests", Clause: clause, Labels: ext,
			Title: "a batch of 100,001 requests is refused whole with 400 naming requests, and creates nothing",
			Run: func(t *kit.T) {
				reqs := make([]any, 100_001)
				for i := range reqs {
					reqs[i] = entry(fmt.Sprintf("r%d", i), map[string]any{})
				}
				refusedWhole(t, reqs, "requests")
			},
			Bug: &kit.Bug{Says: "a refused batch is half created (its first request kept as a batch)", Want: "creates nothing",
				Break: refusesButCreates}},
		{ID: "messages/batch-streamed-request", Clause: clause, Labels: ext,
			Title: "a batch whose request sends stream: true is refused whole with 400 naming requests.0.params.stream, and creates nothing",
			Run: func(t *kit.T) {
				model, _ := t.Model()
				p := hello(model, 0)
				p["stream"] = true
				refusedWhole(t, []any{entry("streamed", p)}, "requests.0.params.stream")
			},
			Bug: &kit.Bug{Says: "stream in a batch's params is ignored", Want: "400",
				Break: editsRequests(func(_ int, q map[string]any) {
					if p, ok := q["params"].(map[string]any); ok {
						delete(p, "stream")
					}
				})}},
		{ID: "messages/batch-params-not-object", Clause: clause, Labels: ext,
			Title: "a batch whose request's params is not an object is refused whole with 400 naming requests.0.params, and creates nothing",
			Run: func(t *kit.T) {
				refusedWhole(t, []any{entry("text", "Say hello.")}, "requests.0.params")
			},
			Bug: &kit.Bug{Says: "params that are not an object are read as an empty request", Want: "400",
				Break: editsRequests(func(_ int, q map[string]any) {
					if _, ok := q["params"].(map[string]any); !ok {
						q["params"] = map[string]any{}
					}
				})}},
	}
}
