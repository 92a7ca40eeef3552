package kit

import (
	"net/http"
	"testing"
)

// TestRequestIDsAreUniquePerNamespace: a repeated request-id is a violation within one world,
// and not across namespaces of the fake, each of which numbers its requests from the start.
func TestRequestIDsAreUniquePerNamespace(t *testing.T) {
	tg := &Target{}
	answer := func(path string, header http.Header, id string) *Response {
		return &Response{req: &Request{Method: http.MethodGet, Path: path, Header: header}, Header: http.Header{"Request-Id": {id}}}
	}
	steps := []struct {
		resp *Response
		dup  bool
	}{
		{answer("/v1/models", nil, "req_1"), false},
		{answer("/ns/a/v1/models", nil, "req_1"), false},
		{answer("/v1/models", http.Header{"Fake-Namespace": {"b"}}, "req_1"), false},
		{answer("/ns/b/v1/models", nil, "req_1"), true}, // the header and the prefix name one world
		{answer("/ns/a/v1/models/x", nil, "req_2"), false},
		{answer("/v1/models/x", nil, "req_1"), true},
	}
	for i, s := range steps {
		if got := tg.noteRequestID(s.resp) != ""; got != s.dup {
			t.Errorf("step %d (%s %v): violation %v, want %v", i, s.resp.req.Path, s.resp.req.Header, got, s.dup)
		}
	}
}
