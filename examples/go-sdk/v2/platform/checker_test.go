package platform

import (
	"encoding/json"
	"slices"
	"testing"

	"github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/platformkit/platformkit/internal/sdkfields"
)

// TestMissingRequiredFindsGaps: the check the proof rests on reports an absent required field
// (also inside a list and inside the chosen variant of a union) and a field of the wrong type,
// and accepts null and absent optional fields.
func TestMissingRequiredFindsGaps(t *testing.T) {
	const complete = `{"id":"env_1","archived_at":null,"config":{"type":"self_hosted"},"created_at":"2026-01-01T00:00:00Z","description":"",` +
		`"metadata":{},"name":"e","type":"environment","updated_at":"2026-01-01T00:00:00Z"}`
	for _, tc := range []struct {
		name, body string
		want       []string
	}{
		{"complete", complete, nil},
		{"no name", `{"id":"env_1","archived_at":null,"config":{"type":"self_hosted"},"created_at":"x","description":"","metadata":{},"type":"environment","updated_at":"x"}`,
			[]string{"e.name: required by the SDK's BetaEnvironment, missing from the answer"}},
		{"cloud variant without packages", `{"id":"env_1","archived_at":null,"config":{"type":"cloud","networking":{"type":"unrestricted"}},"created_at":"x","description":"","metadata":{},"name":"e","type":"environment","updated_at":"x"}`,
			[]string{"e.config.packages: required by the SDK's BetaCloudConfig, missing from the answer"}},
		{"metadata of the wrong type", `{"id":"env_1","archived_at":null,"config":{"type":"self_hosted"},"created_at":"x","description":"","metadata":[1],"name":"e","type":"environment","updated_at":"x"}`,
			[]string{"e.metadata: the SDK's BetaEnvironment could not decode [1]"}},
	} {
		var env anthropic.BetaEnvironment
		if err := json.Unmarshal([]byte(tc.body), &env); err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if got := sdkfields.Missing(env, "e"); !slices.Equal(got, tc.want) {
			t.Errorf("%s: Missing = %q, want %q", tc.name, got, tc.want)
		}
	}
	var page struct{ Data []anthropic.BetaEnvironment }
	if err := json.Unmarshal([]byte(`{"data":[`+complete+`,{"id":"env_2"}]}`), &page); err != nil {
		t.Fatal(err)
	}
	if got := sdkfields.Missing(page.Data, "data"); len(got) == 0 || got[0] != "data.1.archived_at: required by the SDK's BetaEnvironment, missing from the answer" {
		t.Errorf("in a list: %q", got)
	}
}
