package messages

import (
	"testing"

	"github.com/platformkit/platformkit/internal/sdkfields"
)

// requireComplete fails t for every field of v, recursively, that the SDK's response types
// mark required and the answer did not carry, or carried in a shape the SDK could not decode
// (sdkfields.Missing).
func requireComplete(t *testing.T, what string, v any) {
	t.Helper()
	for _, p := range sdkfields.Missing(v, what) {
		t.Errorf("%s", p)
	}
}
