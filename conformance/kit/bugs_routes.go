package kit

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"sync"
	"time"
)

// Bug builders for the checks of any area whose routes are patterns: they break the fake on the
// requests of a method to paths matching a pattern, for the bug declarations of checks.

// Refuses400 is the bug of a target that refuses requests match accepts with 400 naming what.
func Refuses400(match func(*http.Request) bool, what string) func(http.Handler) http.Handler {
	return Refuses(match, http.StatusBadRequest, "invalid_request_error", what)
}

// InRouteRequests is the bug of a target that reads the JSON body of requests of the method to paths
// matching pattern wrongly: edit rewrites it before the target reads it.
func InRouteRequests(method, pattern string, edit func(r *http.Request, body map[string]any)) func(http.Handler) http.Handler {
	match := On(method, pattern)
	return func(h http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if match(r) {
				// A request without a body reads as an empty object, so that a bug can add a field.
				body := map[string]any{}
				if b, err := io.ReadAll(r.Body); err == nil {
					if len(bytes.TrimSpace(b)) == 0 || json.Unmarshal(b, &body) == nil && body != nil {
						edit(r, body)
						if len(b) > 0 || len(body) > 0 {
							b, _ = json.Marshal(body)
						}
					}
					r.Body, r.ContentLength = io.NopCloser(bytes.NewReader(b)), int64(len(b))
				}
			}
			h.ServeHTTP(w, r)
		})
	}
}

// InRouteQuery is the bug of a target that reads the query of requests of the method to paths
// matching pattern wrongly: edit rewrites it before the target reads it.
func InRouteQuery(method, pattern string, edit func(q url.Values)) func(http.Handler) http.Handler {
	return InQuery(On(method, pattern), edit)
}

// InRouteOKAnswers edits the JSON object of 2xx answers to requests of the method to paths matching pattern.
func InRouteOKAnswers(method, pattern string, f func(r *http.Request, m map[string]any)) func(http.Handler) http.Handler {
	return InOKAnswers(On(method, pattern), f)
}

// EachDataItem calls f with each object of the answer's data array.
func EachDataItem(m map[string]any, f func(item map[string]any)) {
	data, _ := m["data"].([]any)
	for _, d := range data {
		if item, ok := d.(map[string]any); ok {
			f(item)
		}
	}
}

// RouteAnswersStatus answers to from with status to, on requests of the method to paths matching pattern.
func RouteAnswersStatus(method, pattern string, from, to int) func(http.Handler) http.Handler {
	return AnswersStatus(On(method, pattern), from, to)
}

// IgnoresInvalidQuery is the bug of a target that, where it should refuse a query parameter,
// ignores it: a request the honest target answers 400 is served again without param.
func IgnoresInvalidQuery(method, pattern, param string) func(http.Handler) http.Handler {
	match := On(method, pattern)
	return func(h http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if !match(r) || !r.URL.Query().Has(param) {
				h.ServeHTTP(w, r)
				return
			}
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, r.Clone(r.Context()))
			if rec.Code == http.StatusBadRequest && strings.Contains(rec.Body.String(), param) {
				q := r.URL.Query()
				q.Del(param)
				r.URL.RawQuery = q.Encode()
				h.ServeHTTP(w, r)
				return
			}
			CopyAnswer(w, rec)
		})
	}
}

// RefusesBody is the bug of a target that refuses, with 400 naming what, the requests of the
// method to paths matching pattern whose JSON body refuse accepts.
func RefusesBody(method, pattern string, refuse func(body map[string]any) bool, what string) func(http.Handler) http.Handler {
	match := On(method, pattern)
	return func(h http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if match(r) {
				if body := PeekBody(r); body != nil && refuse(body) {
					Refuses400(func(*http.Request) bool { return true }, what)(h).ServeHTTP(w, r)
					return
				}
			}
			h.ServeHTTP(w, r)
		})
	}
}

// AsFirstOrg is the bug of a target that does not tell organizations apart: the second
// organization's key (the fake's) is read as the first's.
func AsFirstOrg(pattern string) func(http.Handler) http.Handler {
	re := regexp.MustCompile(pattern)
	return func(h http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if re.MatchString(r.URL.Path) {
				for _, name := range []string{"X-Api-Key", "Authorization"} {
					if v := r.Header.Get(name); strings.HasSuffix(v, "-2") {
						r.Header.Set(name, strings.TrimSuffix(v, "-2"))
					}
				}
			}
			h.ServeHTTP(w, r)
		})
	}
}

// PeekBody decodes the request's JSON body as an object and puts the body back, so that the
// handler behind a bug reads it as sent; nil when the body is not a JSON object.
func PeekBody(r *http.Request) map[string]any {
	b, _ := io.ReadAll(r.Body)
	r.Body = io.NopCloser(bytes.NewReader(b))
	var body map[string]any
	if json.Unmarshal(b, &body) != nil {
		return nil
	}
	return body
}

// ReadState reads path from h with the headers of r (its credential and version), as the target
// itself would look up its state; nil unless it answers a JSON object with 200.
func ReadState(h http.Handler, r *http.Request, path string) map[string]any {
	req := httptest.NewRequest(http.MethodGet, path, nil)
	req.Header = r.Header.Clone()
	req.Header.Del("Content-Length")
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	var m map[string]any
	if rec.Code != http.StatusOK || json.Unmarshal(rec.Body.Bytes(), &m) != nil {
		return nil
	}
	return m
}

// Str returns the string at key of m.
func Str(m map[string]any, key string) string {
	s, _ := m[key].(string)
	return s
}

// ShiftTime moves the timestamp at key of m by d, when it is one.
func ShiftTime(m map[string]any, key string, d time.Duration) {
	if at, err := time.Parse(time.RFC3339Nano, Str(m, key)); err == nil {
		m[key] = at.Add(d).Format(time.RFC3339Nano)
	}
}

// ActionIdempotent is the bug of a target where an action (suffix "/ack", "/stop", or "" for
// an update of the record itself) that should be refused with 400 answers the record, unchanged,
// with 200.
func ActionIdempotent(pattern, suffix string) func(http.Handler) http.Handler {
	match := On(http.MethodPost, pattern)
	return func(h http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if !match(r) {
				h.ServeHTTP(w, r)
				return
			}
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, r)
			if rec.Code == http.StatusBadRequest {
				if item := ReadState(h, r, strings.TrimSuffix(r.URL.Path, suffix)); item != nil {
					out, _ := json.Marshal(item)
					w.Header().Set("Content-Type", "application/json")
					w.Write(out)
					return
				}
			}
			CopyAnswer(w, rec)
		})
	}
}

// CallState sends method path (with the JSON body, when not nil) to h with the headers of r, as
// the target itself would act on its state; the answer's JSON object, nil unless 200.
func CallState(h http.Handler, r *http.Request, method, path string, body any) map[string]any {
	var rd io.Reader
	if body != nil {
		b, _ := json.Marshal(body)
		rd = bytes.NewReader(b)
	}
	req := httptest.NewRequest(method, path, rd)
	req.Header = r.Header.Clone()
	req.Header.Del("Content-Length")
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	var m map[string]any
	if rec.Code != http.StatusOK || json.Unmarshal(rec.Body.Bytes(), &m) != nil {
		return nil
	}
	return m
}

// ErrorMessageOnly is the bug of a target whose 400 answers to requests match accepts say only
// message, the envelope otherwise intact.
func ErrorMessageOnly(match func(*http.Request) bool, message string) func(http.Handler) http.Handler {
	return InAnswers(match, func(_ *http.Request, status int, _ http.Header, b []byte) []byte {
		var m map[string]any
		if status != http.StatusBadRequest || json.Unmarshal(b, &m) != nil {
			return b
		}
		if e, ok := m["error"].(map[string]any); ok {
			e["message"] = message
		}
		out, _ := json.Marshal(m)
		return out
	})
}

// DeletedStillReadable is the bug of a target whose delete (of paths matching pattern)
// answers as it should, but whose reads of the deleted record still answer it.
func DeletedStillReadable(pattern string) func(http.Handler) http.Handler {
	match := regexp.MustCompile(pattern)
	return func(h http.Handler) http.Handler {
		var mu sync.Mutex
		gone := map[string][]byte{}
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if !match.MatchString(r.URL.Path) {
				h.ServeHTTP(w, r)
				return
			}
			switch r.Method {
			case http.MethodDelete:
				if rec := ReadState(h, r, r.URL.Path); rec != nil {
					b, _ := json.Marshal(rec)
					mu.Lock()
					gone[r.URL.Path] = b
					mu.Unlock()
				}
			case http.MethodGet:
				mu.Lock()
				b, ok := gone[r.URL.Path]
				mu.Unlock()
				if ok {
					w.Header().Set("Content-Type", "application/json")
					w.Write(b)
					return
				}
			}
			h.ServeHTTP(w, r)
		})
	}
}

// SecondLater moves the timestamp at key of m a second later.
func SecondLater(m map[string]any, key string) { ShiftTime(m, key, time.Second) }
