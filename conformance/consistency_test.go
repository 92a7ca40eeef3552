package conformance

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/platformkit/platformkit/fake"

	"github.com/platformkit/platformkit/conformance/kit"
)

// rewriting serves h, but passes the body of every answer to a request whose path contains path
// through edit, and may override headers: a target that answers inconsistently.
func rewriting(h http.Handler, path string, edit func([]byte) []byte, header http.Header) http.Handler {
	return kit.EditAnswers(h, func(r *http.Request) bool { return strings.Contains(r.URL.Path, path) },
		func(_ *http.Request, _ int, h http.Header, body []byte) []byte {
			for k, vs := range header {
				h[k] = vs
			}
			return edit(body)
		})
}

func same(b []byte) []byte { return b }

// withoutAliases serves h, but answers 404 to the get-model operation for every alias.
func withoutAliases(h http.Handler) http.Handler {
	aliases := map[string]bool{"assistant-haiku-4-5": true, "assistant-opus-4-5": true, "assistant-sonnet-4-5": true,
		"assistant-opus-4-1": true, "assistant-opus-4-0": true, "assistant-sonnet-4-0": true}
	n := 0
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if id, ok := strings.CutPrefix(r.URL.Path, "/v1/models/"); ok && aliases[id] {
			n++
			w.Header().Set("Content-Type", "application/json")
			w.Header().Set("request-id", fmt.Sprintf("req_alias%d", n))
			w.WriteHeader(http.StatusNotFound)
			fmt.Fprintf(w, `{"type":"error","error":{"type":"not_found_error","message":"model: not found"},"request_id":"req_alias%d"}`, n)
			return
		}
		h.ServeHTTP(w, r)
	})
}

// TestConsistencyChecksCatchInconsistentTargets: each target below contradicts itself in one way
// a client author would notice, with the control API hidden as on a deployment; the check named
// fails against it.
func TestConsistencyChecksCatchInconsistentTargets(t *testing.T) {
	cases := []struct {
		name, check string
		target      http.Handler
		want        string
	}{
		{"an expired invite reads pending", "admin/invite-status-agrees-with-expiry",
			rewriting(fake.New(), "/v1/organizations/invites", func(b []byte) []byte {
				return bytes.ReplaceAll(b, []byte(`"status":"expired"`), []byte(`"status":"pending"`))
			}, nil), "before the target's now"},
		{"aliases are not resolved though their dated models are listed", "models/get-alias",
			withoutAliases(fake.New()), "resolves (spec 2.10)"},
		{"every answer has the same request-id", "models/list-pages-complete",
			rewriting(fake.New(), "/v1/models", same, http.Header{"Request-Id": {"req_always_the_same"}}), "was already given"},
		{"has_more is true on the last page", "core/cursor-has-more-agrees",
			rewriting(fake.New(), "/v1/organizations/users", func(b []byte) []byte {
				return bytes.ReplaceAll(b, []byte(`"has_more":false`), []byte(`"has_more":true`))
			}, nil), "has_more"},
		{"last_id is not the last item's ID", "core/cursor-ids-are-item-ids",
			rewriting(fake.New(), "/v1/organizations/invites", func(b []byte) []byte {
				return bytes.Replace(b, []byte(`"last_id":"`), []byte(`"last_id":"x`), 1)
			}, nil), "last_id"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			c := checkByID(t, tc.check)
			o := kit.RunCheck(context.Background(), openAt(t, hideControl(tc.target)), c)
			if o.Passed() || len(o.Failures) == 0 || !strings.Contains(o.Failures[0], tc.want) {
				t.Errorf("%s against a target where %s: %+v; want a failure saying %q", tc.check, tc.name, o, tc.want)
			}
			if o := kit.RunCheck(context.Background(), openAt(t, hideControl(fake.New())), c); !o.Passed() {
				t.Errorf("%s fails against the fake as a deployment: %+v", tc.check, o)
			}
		})
	}
}

func TestRefusalWithoutDetails(t *testing.T) {
	for _, tc := range []struct {
		contentType, body string
		bad               bool
	}{
		{"application/json", `{"type":"message","stop_reason":"refusal","stop_details":{"type":"refusal","category":null,"explanation":null}}`, false},
		{"application/json", `{"type":"message","stop_reason":"refusal","stop_details":null}`, true},
		{"application/json", `{"type":"message","stop_reason":"refusal"}`, true},
		{"application/json", `{"type":"message","stop_reason":"end_turn","stop_details":null}`, false},
		{"application/json", `{"type":"model","stop_reason":"refusal"}`, false},
		{"text/event-stream", "event: message_delta\ndata: {\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"refusal\",\"stop_details\":{\"type\":\"refusal\",\"category\":\"bio\",\"explanation\":null}}}\n\n", false},
		{"text/event-stream; charset=utf-8", "event: message_delta\ndata: {\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"refusal\",\"stop_details\":null}}\n\n", true},
	} {
		if got := kit.RefusalWithoutDetails(tc.contentType, []byte(tc.body)); (got != "") != tc.bad {
			t.Errorf("%s %s: %q; want a violation: %v", tc.contentType, tc.body, got, tc.bad)
		}
	}
}
