package conformance

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/platformkit/platformkit/fake"

	"github.com/platformkit/platformkit/conformance/kit"
)

// rewritingMessages is the fake behind a target that rewrites each POST /v1/messages exchange: in
// changes the request body, out the response body (either may be nil).
func rewritingMessages(in func(map[string]any), out func(map[string]any)) http.Handler {
	good := fake.New()
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost || r.URL.Path != "/v1/messages" {
			good.ServeHTTP(w, r)
			return
		}
		var body map[string]any
		data, _ := io.ReadAll(r.Body)
		_ = json.Unmarshal(data, &body)
		if in != nil {
			in(body)
		}
		data, _ = json.Marshal(body)
		r.Body, r.ContentLength = io.NopCloser(bytes.NewReader(data)), int64(len(data))
		rec := httptest.NewRecorder()
		good.ServeHTTP(rec, r)
		resp := map[string]any{}
		if out != nil && json.Unmarshal(rec.Body.Bytes(), &resp) == nil && rec.Code == http.StatusOK {
			out(resp)
			data, _ := json.Marshal(resp)
			rec.Body = bytes.NewBuffer(data)
		}
		for k, v := range rec.Header() {
			w.Header()[k] = v
		}
		w.Header().Del("Content-Length")
		w.WriteHeader(rec.Code)
		w.Write(rec.Body.Bytes())
	})
}

// TestSDKSurfaceChecksFailAgainstBrokenTargets runs each check of the SDK surface alone against
// a target with exactly the bug its title names, and against the fake.
func TestSDKSurfaceChecksFailAgainstBrokenTargets(t *testing.T) {
	cases := []struct {
		id     string
		broken http.Handler
	}{
		// A target that refuses tools[].strict as an unknown field.
		{"messages/sdk-request-fields", rewritingMessages(func(b map[string]any) {
			if tools, ok := b["tools"].([]any); ok {
				if tool, ok := tools[0].(map[string]any); ok && tool["strict"] != nil {
					tool["no_such_field"] = true
				}
			}
		}, nil)},
		// A target whose messages lack container.
		{"messages/sdk-response-fields", rewritingMessages(nil, func(r map[string]any) { delete(r, "container") })},
		// A target that ignores output_config.format and answers prose.
		{"messages/structured-output-validates", rewritingMessages(func(b map[string]any) { delete(b, "output_config") }, nil)},
		// A target that accepts any structured-output schema.
		{"messages/structured-output-unsupported-keyword", rewritingMessages(func(b map[string]any) {
			if oc, ok := b["output_config"].(map[string]any); ok {
				delete(oc, "format")
			}
		}, nil)},
	}
	for _, c := range cases {
		o := kit.RunCheck(context.Background(), openAt(t, c.broken), checkByID(t, c.id))
		if o.Passed() || len(o.Failures) == 0 {
			t.Errorf("%s passed against a target with its bug: %+v", c.id, o)
		}
		if o := kit.RunCheck(context.Background(), openAt(t, fake.New()), checkByID(t, c.id)); !o.Passed() {
			t.Errorf("%s fails against the fake: %v", c.id, o.Failures)
		}
	}
	// A target that refuses structured outputs says so: the check cannot inspect an answer.
	refusing := rewritingMessages(func(b map[string]any) {
		if b["output_config"] != nil {
			b["output_config"] = map[string]any{"format": map[string]any{"type": "json_schema", "schema": map[string]any{"type": "object", "minimum": 1}}}
		}
	}, nil)
	if o := kit.RunCheck(context.Background(), openAt(t, refusing), checkByID(t, "messages/structured-output-validates")); !strings.HasPrefix(o.Skipped, kit.PrefixUnsupported) {
		t.Errorf("structured-output-validates against a target that refuses it: %+v, want unsupported", o)
	}
}
