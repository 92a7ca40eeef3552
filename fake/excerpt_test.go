package fake

import (
	"context"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/platformkit/platformkit/fake/internal/core"

	"github.com/tidwall/gjson"
)

// TestQuotedAndExcerpt: the one rule of excerpts, on values worked out by hand.
func TestQuotedAndExcerpt(t *testing.T) {
	for _, tc := range []struct {
		s         string
		max       int
		quoted    string
		excerpted string
	}{
		{"abc", 3, `"abc"`, "abc"},
		{"abcd", 3, `"abc"...`, "abc..."},
		{"", 0, `""`, ""},
		{"x", 0, `""...`, "..."},
		{"héllo", 2, `"h"...`, "h..."},             // é is two bytes: the cut backs off to h
		{"héllo", 3, `"h\u00e9"...`, "hé..."},      // in ASCII, quoted
		{"a\u200bb", 10, `"a\u200bb"`, "a\u200bb"}, // an invisible character shows as its escape
		{"line\nbreak", 4, `"line"...`, "line..."},
	} {
		if got := core.Quoted(tc.s, tc.max); got != tc.quoted {
			t.Errorf("quoted(%q, %d) = %s, want %s", tc.s, tc.max, got, tc.quoted)
		}
		if got := core.Excerpt(tc.s, tc.max); got != tc.excerpted {
			t.Errorf("excerpt(%q, %d) = %q, want %q", tc.s, tc.max, got, tc.excerpted)
		}
	}
}

// FuzzQuoted: whatever the string and the bound, quoted is ASCII, unquotes to a prefix of s of
// at most max bytes (and at least max-3) that cuts no character of valid UTF-8, and says "..."
// exactly when it cut.
func FuzzQuoted(f *testing.F) {
	f.Add("héllo wörld", 3)
	f.Add("\xff\xfe", 1)
	f.Add(strings.Repeat("€", 50), 80)
	f.Fuzz(func(t *testing.T, s string, max int) {
		if max < 0 || max > 1<<16 {
			return
		}
		q := core.Quoted(s, max)
		body, more := strings.CutSuffix(q, "...")
		prefix, err := strconv.Unquote(body)
		if err != nil {
			t.Fatalf("quoted(%q, %d) = %s does not unquote: %v", s, max, q, err)
		}
		for _, b := range []byte(q) {
			if b >= utf8.RuneSelf {
				t.Fatalf("quoted(%q, %d) = %s is not ASCII", s, max, q)
			}
		}
		if !strings.HasPrefix(s, prefix) || len(prefix) > max || more != (len(prefix) < len(s)) {
			t.Fatalf("quoted(%q, %d) = %s: not a prefix of at most max bytes, or ... wrong", s, max, q)
		}
		if utf8.ValidString(s) && !utf8.ValidString(prefix) || len(prefix) < max-utf8.UTFMax+1 && more {
			t.Fatalf("quoted(%q, %d) = %s cuts a character, or more than one", s, max, q)
		}
		if e := core.Excerpt(s, max); e != s && e != prefix+"..." {
			t.Fatalf("excerpt(%q, %d) = %q, want the same prefix as quoted", s, max, e)
		}
	})
}

// TestErrorsQuoteBoundedExcerpts (issue 47, item 13): an error quotes at most an excerpt of what
// the request sent, however long: a thread's fingerprint mismatch quoting the thread's and the
// request's mcp_servers (a 3.5 MB request made a 7.7 MB error), an unknown ID, a query
// parameter, a header, a field name, a tool name, a path. Each answer is a 4xx whose message
// stays under 5,000 bytes, however many bytes the value had; the place that quotes a value cuts
// it itself, so the message keeps what follows the value (the one-constructor bound of a whole
// message, " bytes more)", is for what no place quotes: a field path of the request's own keys).
func TestErrorsQuoteBoundedExcerpts(t *testing.T) {
	const bound = 5000
	ts := NewTestServer(t)
	big := strings.Repeat("z", 200_000)
	server := func(url string) []any {
		return []any{map[string]any{"type": "url", "name": "s", "url": url}}
	}
	first := create(t, ts, msgBody("thread", threadCreate(), "mcp_servers", server("https://a.example/"+big)), threadBeta...)
	key := []string{"X-Api-Key", core.DefaultAPIKey, "vendor-version", core.APIVersion}
	for _, tc := range []struct {
		name         string
		method, path string
		body         any
		header       []string
		field        string // the message's start
	}{
		{"thread fingerprint", "POST", "/v1/messages", msgBody("thread", threadContinue(first.Get("id").String()), "mcp_servers", server("https://b.example/"+big)),
			threadBeta, "thread.previous_message_id: this request differs from the thread in fields that must stay the same: mcp_servers"},
		{"unknown ID", "GET", "/v1/memory_stores/memstore_" + big, nil, nil, "memory store"},
		{"previous_message_id", "POST", "/v1/messages", msgBody("thread", threadContinue("msg_"+big)), threadBeta, "thread.previous_message_id: no thread holds message"},
		{"strict $ref", "POST", "/v1/messages", msgBody("tools", []any{map[string]any{"name": "t", "strict": true, "input_schema": map[string]any{"type": "object",
			"properties": map[string]any{"a": map[string]any{"$ref": "#/$defs/" + big}}, "required": []any{"a"}, "additionalProperties": false}}}), nil, "tools.0.input_schema"},
		{"query parameter", "GET", "/v1/models?limit=" + big, nil, nil, "limit:"},
		{"API version", "GET", "/v1/models", nil, []string{"vendor-version", big}, "vendor-version:"},
		{"namespace header", "GET", "/v1/models", nil, []string{core.NamespaceHeader, big}, "fake-namespace:"},
		{"tool_choice.name", "POST", "/v1/messages", msgBody("tools", loopTools, "tool_choice", map[string]any{"type": "tool", "name": big}), nil, "tool_choice.name:"},
		{"unknown field", "POST", "/v1/messages", msgBody(big, 1), nil, ""},
		{"no route", "GET", "/v1/" + big, nil, nil, "no route for GET"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			status, _, data, err := roundTrip(context.Background(), ts, tc.method, tc.path, tc.body, append(append([]string{}, key...), tc.header...)...)
			if err != nil {
				t.Fatal(err)
			}
			msg := gjson.GetBytes(data, "error.message").String()
			if status < 400 || status >= 500 || !strings.HasPrefix(msg, tc.field) {
				t.Fatalf("status %d, message %.300q; want a 4xx starting %q", status, msg, tc.field)
			}
			if len(data) > bound {
				t.Errorf("the answer is %d bytes (message %.200q...), want at most %d", len(data), msg, bound)
			}
			if cutWhole := strings.HasSuffix(msg, " bytes more)"); cutWhole != (tc.name == "unknown field") {
				t.Errorf("message %.300q...%s: cut as a whole %v, want %v", msg, msg[max(len(msg)-100, 0):], cutWhole, tc.name == "unknown field")
			}
		})
	}
}
