package fake

import (
	"slices"
	"testing"

	"github.com/platformkit/platformkit/fake/internal/areas/messages/tape"

	"github.com/platformkit/platformkit/fake/internal/core"
)

// TestTapedRoutesAreMarkedOnTheirLines: the tape records exactly the inference routes, as the
// route table marks them, under the names its files carry.
func TestTapedRoutesAreMarkedOnTheirLines(t *testing.T) {
	var got []string
	for _, rt := range core.Routes() {
		if rt.Tape != "" {
			got = append(got, rt.Method+" "+rt.Path+" "+rt.Tape)
		}
	}
	want := []string{
		"GET /v1/models models",
		"GET /v1/models/:model_id model",
		"POST /v1/messages messages",
		"POST /v1/messages/count_tokens count_tokens",
		"POST /v1/complete complete",
	}
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("taped routes = %q, want %q", got, want)
	}
}

// TestKindOfMatchesARequestToItsTapedRoute: a request path finds its taped route by the route
// table's pattern, a parameter standing for one non-empty segment; any other path is not taped.
func TestKindOfMatchesARequestToItsTapedRoute(t *testing.T) {
	for _, c := range []struct{ method, path, want string }{
		{"POST", "/v1/messages", "messages"},
		{"POST", "/v1/messages/count_tokens", "count_tokens"},
		{"POST", "/v1/complete", "complete"},
		{"GET", "/v1/models", "models"},
		{"GET", "/v1/models/claude-sonnet-4-5", "model"},
		{"GET", "/v1/models/", ""},
		{"GET", "/v1/models/a/b", ""},
		{"GET", "/v1/messages", ""},
		{"POST", "/v1/models", ""},
		{"GET", "/v1/organizations/me", ""},
		{"POST", "/v1/messages/", ""},
	} {
		k, ok := tape.KindOf(c.method, c.path)
		if ok != (c.want != "") || k.Name != c.want {
			t.Errorf("kindOf(%s %s) = %q, %v; want %q", c.method, c.path, k.Name, ok, c.want)
		}
	}
}
