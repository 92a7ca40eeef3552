package conformance

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/platformkit/platformkit/fake"

	"github.com/platformkit/platformkit/conformance/kit"
)

// What the checks of streamed answers do where there is nothing to compare: a target that does
// not show the behaviour gets "unsupported", never "passed"; and the rate-limit check puts the
// fake's enforcement back as it found it.
func TestStreamedAnswerChecksWithNothingToCompare(t *testing.T) {
	unsupported := func(name string, c kit.Check, h http.Handler) {
		t.Helper()
		if o := kit.RunCheck(context.Background(), openAt(t, hideControl(h)), c); !strings.HasPrefix(o.Skipped, kit.PrefixUnsupported) {
			t.Errorf("%s: %+v; want unsupported", name, o)
		}
	}
	headers := checkByID(t, "messages/stream-ratelimit-headers")
	unsupported("a deployment without rate-limit headers", headers, fake.New())
	inProcess := fake.New()
	if o := kit.RunCheck(context.Background(), openAt(t, inProcess), headers); !o.Passed() || len(o.CleanupFailures) > 0 {
		t.Errorf("against the fake with its control API: %+v", o)
	}
	if inProcess.RateLimits().Enforce {
		t.Errorf("the check left the fake enforcing rate limits")
	}

	// A deployment without prompt caching: its answers report no cache read.
	noCache := kit.EditAnswers(fake.New(), kit.On(http.MethodPost, "^/v1/messages$"), kit.EditJSON(func(m map[string]any) {
		if u, ok := m["usage"].(map[string]any); ok {
			u["cache_read_input_tokens"] = 0
		}
	}))
	unsupported("a deployment without prompt caching", checkByID(t, "messages/stream-cache-usage"), noCache)

	// A deployment whose model answers the same request differently every time.
	n := 0
	sampling := kit.EditAnswers(fake.New(), kit.On(http.MethodPost, "^/v1/messages$"), kit.EditJSON(func(m map[string]any) {
		n++
		m["stop_sequence"] = fmt.Sprint("sample ", n)
	}))
	unsupported("a deployment that samples", checkByID(t, "messages/stream-equals-whole-answer"), sampling)

	// A deployment that refuses structured outputs for its model.
	refusing := kit.InRequests(http.MethodPost, "/v1/messages", func(b map[string]any) {
		if f, ok := b["output_config"].(map[string]any); ok {
			f["format"] = map[string]any{"type": "json_schema", "schema": map[string]any{"type": "object", "properties": map[string]any{"n": map[string]any{"type": "integer", "minimum": 1}}}}
		}
	})(fake.New())
	unsupported("a deployment refusing structured outputs", checkByID(t, "messages/stream-structured-output"), refusing)
}
