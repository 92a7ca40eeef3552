package messages

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"time"

	"github.com/platformkit/platformkit/conformance/kit"
)

// threadTurns serves h and tells each Create a Message exchange of a thread to f: the request's
// body (which before may change: it is sent on after), the id of the reply it continues ("" for
// a create) and, after, the answer (which f may change through rec).
func threadTurns(h http.Handler, before func(body map[string]any, prev string), after func(body map[string]any, prev string, rec *httptest.ResponseRecorder)) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var body map[string]any
		data, _ := io.ReadAll(r.Body)
		th := map[string]any(nil)
		if r.URL.Path == "/v1/messages" && json.Unmarshal(data, &body) == nil {
			th, _ = body["thread"].(map[string]any)
		}
		if th == nil {
			r.Body = io.NopCloser(bytes.NewReader(data))
			h.ServeHTTP(w, r)
			return
		}
		prev, _ := th["previous_message_id"].(string)
		before(body, prev)
		data, _ = json.Marshal(body)
		r.Body, r.ContentLength = io.NopCloser(bytes.NewReader(data)), int64(len(data))
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, r)
		after(body, prev, rec)
		kit.CopyAnswer(w, rec)
	})
}

// replyID is the id of a 200 answer's message, or "".
func replyID(rec *httptest.ResponseRecorder) string {
	var m struct {
		ID string `json:"id"`
	}
	if rec.Code != http.StatusOK || json.Unmarshal(rec.Body.Bytes(), &m) != nil {
		return ""
	}
	return m.ID
}

// threadKeepsField is the bug of a target that does not compare field across a thread's turns:
// a continue is answered with the value the thread's create sent, whatever the continue sends.
func threadKeepsField(field string) func(http.Handler) http.Handler {
	return func(h http.Handler) http.Handler {
		var mu sync.Mutex
		kept := map[string]any{} // reply id -> the create's value (nil: absent)
		return threadTurns(h, func(body map[string]any, prev string) {
			if prev == "" {
				return
			}
			mu.Lock()
			defer mu.Unlock()
			if v, ok := kept[prev]; ok {
				if v == nil {
					delete(body, field)
				} else {
					body[field] = v
				}
			}
		}, func(body map[string]any, prev string, rec *httptest.ResponseRecorder) {
			id := replyID(rec)
			if id == "" {
				return
			}
			mu.Lock()
			defer mu.Unlock()
			if prev == "" {
				kept[id] = body[field]
			} else {
				kept[id] = kept[prev]
			}
		})
	}
}

// threadFixedExpiry is the bug of a target whose threads expire 5 minutes after their create
// (as the target's Date header tells the time), however often they are continued.
func threadFixedExpiry(h http.Handler) http.Handler {
	var mu sync.Mutex
	created := map[string]time.Time{} // reply id -> when its thread was created
	return threadTurns(h, func(map[string]any, string) {}, func(_ map[string]any, prev string, rec *httptest.ResponseRecorder) {
		now, err := http.ParseTime(rec.Header().Get("Date"))
		id := replyID(rec)
		if err != nil || id == "" {
			return
		}
		mu.Lock()
		defer mu.Unlock()
		if prev == "" {
			created[id] = now
			return
		}
		start, ok := created[prev]
		if !ok {
			return
		}
		if now.Sub(start) >= 5*time.Minute {
			rec.Code = http.StatusNotFound
			rec.Header().Del("Content-Length")
			rec.Body.Reset()
			rec.Body.WriteString(`{"type":"error","error":{"type":"not_found_error","message":"thread_not_found: the thread has expired","details":{"error_code":"thread_not_found"}},"request_id":"req_expired"}`)
			return
		}
		created[id] = start
	})
}

// threadAnyKey is the bug of a target that lets any key continue any thread: a continue sent
// with the second organization's key (the fake's) is read as sent with the first's.
func threadAnyKey(h http.Handler) http.Handler {
	second := kit.FakeAPIKey + "-2"
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if body := kit.PeekBody(r); r.URL.Path == "/v1/messages" && body != nil {
			if th, _ := body["thread"].(map[string]any); th["type"] == "continue" {
				if r.Header.Get("X-Api-Key") == second {
					r.Header.Set("X-Api-Key", kit.FakeAPIKey)
				}
				if r.Header.Get("Authorization") == "Bearer "+second {
					r.Header.Set("Authorization", "Bearer "+kit.FakeAPIKey)
				}
			}
		}
		h.ServeHTTP(w, r)
	})
}

// threadTextFingerprint is the bug of a target that compares field across a thread's turns as
// JSON text: a continue whose field is not byte for byte the create's (keys in another order,
// 1024.0 for 1024) is refused thread_fingerprint_mismatch.
func threadTextFingerprint(field string) func(http.Handler) http.Handler {
	return func(h http.Handler) http.Handler {
		var mu sync.Mutex
		kept := map[string]string{} // reply id -> the create's field as sent
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			data, _ := io.ReadAll(r.Body)
			r.Body = io.NopCloser(bytes.NewReader(data))
			var body map[string]json.RawMessage
			var th struct {
				Type     string `json:"type"`
				Previous string `json:"previous_message_id"`
			}
			if r.URL.Path != "/v1/messages" || json.Unmarshal(data, &body) != nil || json.Unmarshal(body["thread"], &th) != nil || th.Type == "" {
				h.ServeHTTP(w, r)
				return
			}
			mu.Lock()
			want, known := kept[th.Previous]
			mu.Unlock()
			if th.Type == "continue" && known && want != string(body[field]) {
				w.Header().Set("Content-Type", "application/json")
				w.Header().Set("request-id", "req_fingerprint")
				w.WriteHeader(http.StatusBadRequest)
				w.Write([]byte(`{"type":"error","error":{"type":"invalid_request_error","message":"` + field + `: differs from the thread's","details":{"error_code":"thread_fingerprint_mismatch"}},"request_id":"req_fingerprint"}`))
				return
			}
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, r)
			if id := replyID(rec); id != "" {
				mu.Lock()
				if th.Type == "create" {
					kept[id] = string(body[field])
				} else {
					kept[id] = want
				}
				mu.Unlock()
			}
			kit.CopyAnswer(w, rec)
		})
	}
}
