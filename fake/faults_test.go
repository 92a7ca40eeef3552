package fake

import (
	"testing"
	"time"

	"github.com/tidwall/gjson"
)

// TestFaultDurations: in Go a fault's waits are time.Durations; over the control API they stay
// seconds (retry_after) and milliseconds (latency_ms), and values that would not fit a Duration
// are refused with the field named.
func TestFaultDurations(t *testing.T) {
	s := checked(t)
	w := send(t, s, "POST", "/_fake/faults", `{"path":"/v1/models","status":429,"retry_after":2.5,"latency_ms":20}`)
	if w.Code != 200 {
		t.Fatalf("inject = %d %s", w.Code, w.Body)
	}
	if got := gjson.Get(w.Body.String(), "retry_after").Float(); got != 2.5 {
		t.Errorf("retry_after = %v, want 2.5", got)
	}
	if got := gjson.Get(w.Body.String(), "latency_ms").Int(); got != 20 {
		t.Errorf("latency_ms = %v, want 20", got)
	}
	f := s.Faults()[0]
	if f.RetryAfter != 2500*time.Millisecond || f.Latency != 20*time.Millisecond {
		t.Errorf("Fault = %+v, want RetryAfter 2.5s and Latency 20ms", f)
	}
	answer := send(t, s, "GET", "/v1/models", "", modelsHeaders...)
	if got := answer.Header().Get("retry-after") + " " + answer.Header().Get("retry-after-ms"); got != "2.5 2500" {
		t.Errorf("retry-after, retry-after-ms = %q, want \"2.5 2500\"", got)
	}
	for body, field := range map[string]string{
		`{"status":429,"retry_after":1e300}`: "retry_after",
		`{"status":429,"retry_after":-1}`:    "retry_after",
		`{"latency_ms":1e30}`:                "latency_ms",
		`{"latency_ms":600001}`:              "latency_ms",
	} {
		wantError(t, send(t, s, "POST", "/_fake/faults", body), 400, errInvalidRequest, field)
	}
	if _, err := s.InjectFault(Fault{Latency: time.Hour}); err == nil {
		t.Error("InjectFault accepted a latency of an hour")
	}
}
