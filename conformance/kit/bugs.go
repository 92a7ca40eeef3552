package kit

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
)

// A Bug is the defect a check exists to catch, written as a deployment with that defect would
// behave: a small rewrite of the exchanges between the suite and an honest target, a request
// edited before the target reads it or an answer edited before the suite reads it. Every check
// declares its bug next to its code (Check.Bug), or says why it has none (Check.NoBug).
//
// The suite's own tests hold each check to its bug: run alone against the fake behind the
// bug, as a deployment with rate limits on (the fake run as one: Config.AsDeployment) or, for a
// fake-only check, as the fake, it must fail, with Want in its failure when Want is set; against the honest fake
// it must pass. So no check can quietly weaken below its title, and CHECKS.md shows, per check,
// the defect it is proven against.
type Bug struct {
	Says  string                          // the defect, in the API's terms: "has_more never turns false"
	Break func(http.Handler) http.Handler // an honest target, with the defect
	Want  string                          // a phrase of the check's failure against it ("" for any failure)
}

// InRequests is the bug of a target that reads part of what it is sent wrongly: the JSON body of
// every request of the method to the path passes through edit before the target reads it.
func InRequests(method, path string, edit func(body map[string]any)) func(http.Handler) http.Handler {
	return func(h http.Handler) http.Handler { return editRequests(h, method, path, edit) }
}

// InAnswers is the bug of a target that answers something other than it should: every answer to
// a request match accepts passes through edit (which may change the headers, and returns the
// body) before the suite reads it.
func InAnswers(match func(*http.Request) bool, edit func(r *http.Request, status int, header http.Header, body []byte) []byte) func(http.Handler) http.Handler {
	return func(h http.Handler) http.Handler { return EditAnswers(h, match, edit) }
}

// InOKAnswers is InAnswers for the JSON object of 2xx answers, edited in place by f.
func InOKAnswers(match func(*http.Request) bool, f func(r *http.Request, m map[string]any)) func(http.Handler) http.Handler {
	return InAnswers(match, OKBodies(func(r *http.Request, b []byte) []byte {
		var m map[string]any
		if json.Unmarshal(b, &m) != nil {
			return b
		}
		f(r, m)
		out, _ := json.Marshal(m)
		return out
	}))
}

// Both is the target with the defects of a and then b: one bug that shows on two routes.
func Both(a, b func(http.Handler) http.Handler) func(http.Handler) http.Handler {
	return func(h http.Handler) http.Handler { return b(a(h)) }
}

// editRequests serves h, but passes the JSON body of every request whose method and path match
// through edit first: a target that ignores or drops part of what it is sent.
func editRequests(h http.Handler, method, path string, edit func(body map[string]any)) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == method && r.URL.Path == path {
			var body map[string]any
			if b, err := io.ReadAll(r.Body); err == nil && json.Unmarshal(b, &body) == nil {
				edit(body)
				b, _ = json.Marshal(body)
				r.Body, r.ContentLength = io.NopCloser(bytes.NewReader(b)), int64(len(b))
			}
		}
		h.ServeHTTP(w, r)
	})
}

// EditAnswers serves h, but lets edit change the headers and the body of every answer to a
// request that match accepts: a target that answers something other than what it did.
func EditAnswers(h http.Handler, match func(*http.Request) bool, edit func(r *http.Request, status int, header http.Header, body []byte) []byte) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !match(r) {
			h.ServeHTTP(w, r)
			return
		}
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, r)
		body := edit(r, rec.Code, rec.Header(), rec.Body.Bytes())
		for k, vs := range rec.Header() {
			w.Header()[k] = vs
		}
		w.Header().Del("Content-Length")
		w.WriteHeader(rec.Code)
		w.Write(body)
	})
}

// OKBodies edits only the body of a 2xx answer.
func OKBodies(edit func(r *http.Request, body []byte) []byte) func(*http.Request, int, http.Header, []byte) []byte {
	return func(r *http.Request, status int, _ http.Header, body []byte) []byte {
		if status/100 != 2 {
			return body
		}
		return edit(r, body)
	}
}

// On matches requests of the method whose path matches the pattern.
func On(method, pattern string) func(*http.Request) bool {
	re := regexp.MustCompile(pattern)
	return func(r *http.Request) bool { return r.Method == method && re.MatchString(r.URL.Path) }
}

// EditJSON decodes the JSON object of a 2xx answer, lets f change it and encodes it again.
func EditJSON(f func(m map[string]any)) func(*http.Request, int, http.Header, []byte) []byte {
	return OKBodies(func(_ *http.Request, b []byte) []byte {
		var m map[string]any
		if json.Unmarshal(b, &m) != nil {
			return b
		}
		f(m)
		out, _ := json.Marshal(m)
		return out
	})
}

// MessagesOf returns the messages of a Create a Message body.
func MessagesOf(body map[string]any) []any {
	msgs, _ := body["messages"].([]any)
	return msgs
}

func RoleOf(m any) string {
	turn, _ := m.(map[string]any)
	role, _ := turn["role"].(string)
	return role
}

// Generic defects, for the declarations of many checks. A path names a field of a JSON answer
// with dots; "*" steps into every element of an array ("data.*.display_name").

// DropsField is the bug of a target whose 2xx answers to requests match accepts lack the field.
func DropsField(match func(*http.Request) bool, path string) func(http.Handler) http.Handler {
	return InOKAnswers(match, func(_ *http.Request, m map[string]any) {
		AtPath(m, strings.Split(path, "."), func(parent map[string]any, key string) { delete(parent, key) })
	})
}

// SetsField is the bug of a target whose 2xx answers to requests match accepts carry value at path
// (only where the field exists: a bug changes what is there, it does not invent a shape).
func SetsField(match func(*http.Request) bool, path string, value any) func(http.Handler) http.Handler {
	return InOKAnswers(match, func(_ *http.Request, m map[string]any) {
		AtPath(m, strings.Split(path, "."), func(parent map[string]any, key string) {
			if _, ok := parent[key]; ok {
				parent[key] = value
			}
		})
	})
}

// AtPath calls f with the object holding the last key of path, for every object path reaches.
func AtPath(v any, path []string, f func(parent map[string]any, key string)) {
	switch x := v.(type) {
	case map[string]any:
		if len(path) == 1 {
			f(x, path[0])
			return
		}
		if path[0] == "*" {
			return
		}
		AtPath(x[path[0]], path[1:], f)
	case []any:
		if path[0] != "*" {
			return
		}
		for _, e := range x {
			if len(path) > 1 {
				AtPath(e, path[1:], f)
			}
		}
	}
}

// AnswersStatus is the bug of a target that answers status to requests match accepts, with the
// body and headers it would have sent with its own status (when its own status is from).
func AnswersStatus(match func(*http.Request) bool, from, status int) func(http.Handler) http.Handler {
	return func(h http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if !match(r) {
				h.ServeHTTP(w, r)
				return
			}
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, r)
			if rec.Code == from {
				rec.Code = status
			}
			CopyAnswer(w, rec)
		})
	}
}

// IgnoresQuery is the bug of a target that ignores a query parameter of requests match accepts.
func IgnoresQuery(match func(*http.Request) bool, param string) func(http.Handler) http.Handler {
	return func(h http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if match(r) {
				q := r.URL.Query()
				q.Del(param)
				r.URL.RawQuery = q.Encode()
			}
			h.ServeHTTP(w, r)
		})
	}
}

// IgnoresField is the bug of a target that ignores a top-level field of the JSON body of
// requests of the method to the path.
func IgnoresField(method, path, field string) func(http.Handler) http.Handler {
	return InRequests(method, path, func(b map[string]any) { delete(b, field) })
}

// DropsHeader is the bug of a target whose answers to requests match accepts lack the header.
func DropsHeader(match func(*http.Request) bool, header string) func(http.Handler) http.Handler {
	return InAnswers(match, func(_ *http.Request, _ int, h http.Header, body []byte) []byte {
		h.Del(header)
		return body
	})
}
