package conformance

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/platformkit/platformkit/fake"
)

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

// editAnswers serves h, but passes the body of every 2xx answer to a request that match accepts
// through edit: a target that answers something other than what it did.
func editAnswers(h http.Handler, match func(*http.Request) bool, edit func(r *http.Request, body []byte) []byte) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !match(r) {
			h.ServeHTTP(w, r)
			return
		}
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, r)
		for k, vs := range rec.Header() {
			w.Header()[k] = vs
		}
		w.Header().Del("Content-Length")
		w.WriteHeader(rec.Code)
		body := rec.Body.Bytes()
		if rec.Code/100 == 2 {
			body = edit(r, body)
		}
		w.Write(body)
	})
}

// on matches requests of the method whose path matches the pattern.
func on(method, pattern string) func(*http.Request) bool {
	re := regexp.MustCompile(pattern)
	return func(r *http.Request) bool { return r.Method == method && re.MatchString(r.URL.Path) }
}

// editJSON decodes a JSON object, lets f change it and encodes it again.
func editJSON(f func(m map[string]any)) func(*http.Request, []byte) []byte {
	return func(_ *http.Request, b []byte) []byte {
		var m map[string]any
		if json.Unmarshal(b, &m) != nil {
			return b
		}
		f(m)
		out, _ := json.Marshal(m)
		return out
	}
}

// messagesOf returns the messages of a Create a Message body.
func messagesOf(body map[string]any) []any {
	msgs, _ := body["messages"].([]any)
	return msgs
}

func roleOf(m any) string {
	turn, _ := m.(map[string]any)
	role, _ := turn["role"].(string)
	return role
}

// TestChecksFailAgainstTargetsWithTheBugOfTheirTitle: each target below carries exactly the bug
// the title of one check names, with the control API hidden as on a deployment; that check, run
// on its own, fails against it, and passes against the honest fake as a deployment. So no check
// can quietly weaken below its title again.
func TestChecksFailAgainstTargetsWithTheBugOfTheirTitle(t *testing.T) {
	cases := []struct {
		check, bug string
		target     func(h http.Handler) http.Handler
		wallClock  bool
		want       string // in the failure
	}{
		{"messages/stop-sequences", "stop_sequences are ignored", func(h http.Handler) http.Handler {
			return editRequests(h, http.MethodPost, "/v1/messages", func(b map[string]any) { delete(b, "stop_sequences") })
		}, false, "stop sequence"},
		{"messages/continues-assistant-turn", "the last assistant turn is dropped and the reply starts over", func(h http.Handler) http.Handler {
			return editRequests(h, http.MethodPost, "/v1/messages", func(b map[string]any) {
				if msgs := messagesOf(b); len(msgs) > 1 && roleOf(msgs[len(msgs)-1]) == "assistant" {
					b["messages"] = msgs[:len(msgs)-1]
				}
			})
		}, false, "more input tokens"},
		{"messages/consecutive-turns", "only the first of consecutive turns of one role is read", func(h http.Handler) http.Handler {
			return editRequests(h, http.MethodPost, "/v1/messages", func(b map[string]any) {
				var kept []any
				for i, m := range messagesOf(b) {
					if i == 0 || roleOf(m) != roleOf(messagesOf(b)[i-1]) {
						kept = append(kept, m)
					}
				}
				b["messages"] = kept
			})
		}, false, "more input tokens"},
		{"messages/complete-stream", "every piece of a streamed completion is empty", func(h http.Handler) http.Handler {
			empty := regexp.MustCompile(`"completion":"(?:[^"\\]|\\.)*"`)
			return editAnswers(h, on(http.MethodPost, "^/v1/complete$"), func(_ *http.Request, b []byte) []byte {
				return empty.ReplaceAll(b, []byte(`"completion":""`))
			})
		}, false, "make a text"},
		{"messages/system-and-tools-count", "input tokens leave out the system prompt", func(h http.Handler) http.Handler {
			drop := func(b map[string]any) { delete(b, "system") }
			return editRequests(editRequests(h, http.MethodPost, "/v1/messages", drop), http.MethodPost, "/v1/messages/count_tokens", drop)
		}, false, "system prompt"},
		{"compliance/delete-chat", "the deletion is confirmed without its type", func(h http.Handler) http.Handler {
			return editAnswers(h, on(http.MethodDelete, "^/v1/compliance/apps/chats/[^/]+$"), editJSON(func(m map[string]any) { delete(m, "type") }))
		}, false, "assistant_chat_deleted"},
		{"compliance/delete-file", "the deletion is confirmed without its type", func(h http.Handler) http.Handler {
			return editAnswers(h, on(http.MethodDelete, "^/v1/compliance/apps/chats/files/[^/]+$"), editJSON(func(m map[string]any) { delete(m, "type") }))
		}, false, "assistant_file_deleted"},
		{"compliance/files-shared-message-ids", "a file's metadata lists only the first message that carries it", func(h http.Handler) http.Handler {
			return editAnswers(h, on(http.MethodGet, "^/v1/compliance/apps/chats/files/[^/]+$"), editJSON(func(m map[string]any) {
				if ids, _ := m["message_ids"].([]any); len(ids) > 1 {
					m["message_ids"] = ids[:1]
				}
			}))
		}, false, "message_ids"},
		{"compliance/files-metadata-and-content", "md5 is lowercase hex but not the MD5 of the bytes", func(h http.Handler) http.Handler {
			return editAnswers(h, on(http.MethodGet, "^/v1/compliance/apps/chats/files/[^/]+$"), editJSON(func(m map[string]any) {
				if _, ok := m["md5"].(string); ok {
					m["md5"] = "d41d8cd98f00b204e9800998ecf8427e"
				}
			}))
		}, false, "MD5 of its download"},
		{"admin/invite-list-statuses", "pending invites are left out of the list", func(h http.Handler) http.Handler {
			return editAnswers(h, on(http.MethodGet, "^/v1/organizations/invites$"), editJSON(func(m map[string]any) {
				var kept []any
				for _, in := range m["data"].([]any) {
					if in.(map[string]any)["status"] != "pending" {
						kept = append(kept, in)
					}
				}
				m["data"] = append([]any{}, kept...)
			}))
		}, false, "pending"},
		{"tunnels/archive-retry-unchanged", "every archive stamps archived_at anew, to the second", func(h http.Handler) http.Handler {
			stamp := regexp.MustCompile(`"archived_at":"[^"]*"`)
			return editAnswers(h, on(http.MethodPost, "^/v1/organizations/tunnels/[^/]+/archive$"), func(_ *http.Request, b []byte) []byte {
				return stamp.ReplaceAll(b, []byte(`"archived_at":"`+time.Now().UTC().Format(time.RFC3339)+`"`))
			})
		}, true, "unchanged"},
		{"models/list-pages-backwards", "has_more never turns false", func(h http.Handler) http.Handler {
			return editAnswers(h, on(http.MethodGet, "^/v1/models$"), func(r *http.Request, b []byte) []byte {
				if r.URL.Query().Get("before_id") == "" {
					return b
				}
				return bytes.ReplaceAll(b, []byte(`"has_more":false`), []byte(`"has_more":true`))
			})
		}, false, "has_more"},
	}
	for _, tc := range cases {
		t.Run(tc.check, func(t *testing.T) {
			t.Parallel()
			c := checkByID(t, tc.check)
			newFake := func() *fake.Server {
				if tc.wallClock {
					return fake.New(fake.WithWallClock())
				}
				return fake.New()
			}
			broken := openAt(t, hideControl(tc.target(newFake())))
			broken.Config.Destructive = true
			o := RunCheck(context.Background(), broken, c)
			if len(o.Failures) == 0 || !strings.Contains(strings.Join(o.Failures, "\n"), tc.want) {
				t.Errorf("against a target where %s: %+v; want a failure saying %q", tc.bug, o, tc.want)
			} else {
				t.Logf("caught: %.300s", o.Failures[0])
			}
			honest := openAt(t, hideControl(newFake()))
			honest.Config.Destructive = true
			if o := RunCheck(context.Background(), honest, c); !o.Passed() {
				t.Errorf("fails against the honest fake as a deployment: %+v", o)
			}
		})
	}
}
