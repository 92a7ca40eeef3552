package batches

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"path"
	"regexp"
	"time"

	"github.com/platformkit/platformkit/conformance/kit"
)

// Defects of message batches, for the bug declarations of their checks.

const (
	batchPattern   = `^/v1/messages/batches/[^/]+$`
	resultsPattern = `^/v1/messages/batches/[^/]+/results$`
	cancelPattern  = `^/v1/messages/batches/[^/]+/cancel$`
	createPattern  = `^/v1/messages/batches$`
)

var cancelRoute = regexp.MustCompile(cancelPattern)

// through serves r to h and returns the answer, recorded.
func through(h http.Handler, r *http.Request) *httptest.ResponseRecorder {
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, r)
	return rec
}

func writeJSON(w http.ResponseWriter, v any) {
	b, _ := json.Marshal(v)
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("request-id", "req_bug")
	w.Write(b)
}

// answersRefused is the bug of a target that answers a request match matches with answer where
// it refused it with 400; its other answers are the target's.
func answersRefused(match func(*http.Request) bool, answer func(w http.ResponseWriter, r *http.Request)) func(http.Handler) http.Handler {
	return func(h http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if !match(r) {
				h.ServeHTTP(w, r)
				return
			}
			if rec := through(h, r); rec.Code != http.StatusBadRequest {
				kit.CopyAnswer(w, rec)
				return
			}
			answer(w, r)
		})
	}
}

// servesEarlyResults is the bug of a target that answers the results of a batch in progress:
// 200 and no line, where it refused them.
var servesEarlyResults = answersRefused(kit.On(http.MethodGet, resultsPattern), func(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Content-Type", "application/x-jsonl")
	w.Header().Set("request-id", "req_bug")
	w.WriteHeader(http.StatusOK)
})

// deletesInProgress is the bug of a target that answers the delete of a batch in progress as
// done, where it refused it (and keeps the batch).
var deletesInProgress = answersRefused(kit.On(http.MethodDelete, batchPattern), func(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, map[string]any{"id": path.Base(r.URL.Path), "type": "message_batch_deleted"})
})

// ignoresCancel is the bug of a target that answers a cancel as begun and goes on processing:
// the batch answered canceling, every request of it then processed.
func ignoresCancel(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost || !cancelRoute.MatchString(r.URL.Path) {
			h.ServeHTTP(w, r)
			return
		}
		b := kit.ReadState(h, r, r.URL.Path[:len(r.URL.Path)-len("/cancel")])
		if b == nil || b["processing_status"] != "in_progress" {
			h.ServeHTTP(w, r)
			return
		}
		b["processing_status"], b["cancel_initiated_at"] = "canceling", time.Now().UTC().Format(time.RFC3339Nano)
		writeJSON(w, b)
	})
}

// countsErroredAsSucceeded is the bug of a target whose request_counts of an ended batch count
// its errored requests as succeeded, disagreeing with the results' lines.
var countsErroredAsSucceeded = kit.InRouteOKAnswers(http.MethodGet, batchPattern, func(_ *http.Request, m map[string]any) {
	rc, _ := m["request_counts"].(map[string]any)
	if m["processing_status"] != "ended" || rc == nil {
		return
	}
	s, _ := rc["succeeded"].(float64)
	e, _ := rc["errored"].(float64)
	rc["succeeded"], rc["errored"] = s+e, 0
})

// rewritesErrors is the bug of a target whose errored lines carry an error of their own, not the
// one the request gets sent alone.
var rewritesErrors = kit.InAnswers(kit.On(http.MethodGet, resultsPattern), kit.OKBodies(func(_ *http.Request, body []byte) []byte {
	var out bytes.Buffer
	for _, l := range bytes.SplitAfter(body, []byte("\n")) {
		var line map[string]any
		if json.Unmarshal(l, &line) != nil {
			out.Write(l)
			continue
		}
		if res, _ := line["result"].(map[string]any); res != nil && res["type"] == "errored" {
			res["error"] = map[string]any{"type": "error", "error": map[string]any{"type": "invalid_request_error", "message": "Invalid request."}}
		}
		b, _ := json.Marshal(line)
		out.Write(append(b, '\n'))
	}
	return out.Bytes()
}))

// refusesButCreates is the bug of a target that refuses a malformed batch and creates a batch
// of its first request all the same: half created.
func refusesButCreates(h http.Handler) http.Handler {
	match := kit.On(http.MethodPost, createPattern)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !match(r) {
			h.ServeHTTP(w, r)
			return
		}
		body := kit.ReadBody(r)
		r.Body = http.NoBody
		again := func(b []byte) *http.Request {
			req := httptest.NewRequest(http.MethodPost, r.URL.String(), bytes.NewReader(b))
			req.Header = r.Header.Clone()
			req.ContentLength = int64(len(b))
			return req
		}
		rec := through(h, again(body))
		if rec.Code == http.StatusBadRequest {
			var sent struct{ Requests []json.RawMessage }
			if json.Unmarshal(body, &sent) == nil && len(sent.Requests) > 0 {
				first, _ := json.Marshal(map[string]any{"requests": sent.Requests[:1]})
				through(h, again(first))
			}
		}
		kit.CopyAnswer(w, rec)
	})
}

// editsRequests is the bug of a target that reads the requests of a create wrongly: edit
// rewrites each before the target reads it.
func editsRequests(edit func(i int, req map[string]any)) func(http.Handler) http.Handler {
	return kit.InRouteRequests(http.MethodPost, createPattern, func(_ *http.Request, body map[string]any) {
		reqs, _ := body["requests"].([]any)
		for i, q := range reqs {
			if q, ok := q.(map[string]any); ok {
				edit(i, q)
			}
		}
	})
}
