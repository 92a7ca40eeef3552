package fake

import "testing"

// TestOutOfRangeMessagesNameTheRange: a refused parameter names its declared range as integers,
// however large (not 8.64e+07).
func TestOutOfRangeMessagesNameTheRange(t *testing.T) {
	w := send(t, checked(t), "GET", "/v1/environments/env_01AcmePrimary000000000001/work/poll?reclaim_older_than_ms=-1", "", modelsHeaders...)
	wantError(t, w, 400, "invalid_request_error", "reclaim_older_than_ms: must be an integer from 0 to 86400000")
}
