package main

import (
	"strings"
	"testing"

	"github.com/platformkit/platformkit/fake"
)

// TestToolLoop runs the example against the fake and shows what a user sees.
func TestToolLoop(t *testing.T) {
	ts := fake.NewTestServer(t)
	var out strings.Builder
	if err := run(ts.Client(), ts.URL, "test-api-key", &out); err != nil {
		t.Fatal(err)
	}
	t.Log("\n" + out.String())
	got := out.String()
	for _, want := range []string{"step 1: stop_reason=tool_use", "tool call get_weather(", "step 2: stop_reason=end_turn", "  assistant: "} {
		if !strings.Contains(got, want) {
			t.Errorf("output lacks %q:\n%s", want, got)
		}
	}
}
