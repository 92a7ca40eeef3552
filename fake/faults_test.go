package fake

import (
	"testing"
	"time"

	"github.com/platformkit/platformkit/fake/internal/core"

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
	// retry-after is HTTP's delay-seconds, a whole number: rounded up, never shorter than asked.
	if got := answer.Header().Get("retry-after") + " " + answer.Header().Get("retry-after-ms"); got != "3 2500" {
		t.Errorf("retry-after, retry-after-ms = %q, want \"3 2500\"", got)
	}
	for body, field := range map[string]string{
		`{"status":429,"retry_after":1e300}`:  "retry_after",
		`{"status":429,"retry_after":-1}`:     "retry_after",
		`{"status":429,"retry_after":0.0005}`: "retry_after",
		`{"latency_ms":1e30}`:                 "latency_ms",
		`{"latency_ms":600001}`:               "latency_ms",
	} {
		wantError(t, send(t, s, "POST", "/_fake/faults", body), 400, core.ErrInvalidRequest, field)
	}
	if _, err := s.InjectFault(core.Fault{Latency: time.Hour}); err == nil {
		t.Error("InjectFault accepted a latency of an hour")
	}
}

// TestFaultRetryAfterIsSentAsEchoed: what the echoed fault says is what its answers carry: an
// explicit 0 is sent as 0, an absent retry_after is the default 1 s (echoed as 1), a fraction is
// exact in retry-after-ms and rounded up to whole seconds in retry-after, which has no fraction.
func TestFaultRetryAfterIsSentAsEchoed(t *testing.T) {
	for _, c := range []struct {
		body, echoed, headers string
	}{
		{`{"path":"/v1/models","status":429,"retry_after":0}`, "0", "0 0"},
		{`{"path":"/v1/models","status":529}`, "1", "1 1000"},
		{`{"path":"/v1/models","status":429,"retry_after":0.05}`, "0.05", "1 50"},
		{`{"path":"/v1/models","status":429,"retry_after":1.1}`, "1.1", "2 1100"},
		{`{"path":"/v1/models","status":429,"retry_after":7}`, "7", "7 7000"},
		{`{"path":"/v1/models","status":500,"retry_after":7}`, "0", " "}, // only 429 and 529 carry it
	} {
		s := checked(t)
		w := send(t, s, "POST", "/_fake/faults", c.body)
		if w.Code != 200 {
			t.Fatalf("%s: inject = %d %s", c.body, w.Code, w.Body)
		}
		if got := gjson.Get(w.Body.String(), "retry_after").Raw; got != c.echoed {
			t.Errorf("%s: echoed retry_after = %s, want %s", c.body, got, c.echoed)
		}
		answer := send(t, s, "GET", "/v1/models", "", modelsHeaders...)
		if got := answer.Header().Get("retry-after") + " " + answer.Header().Get("retry-after-ms"); got != c.headers {
			t.Errorf("%s: retry-after, retry-after-ms = %q, want %q", c.body, got, c.headers)
		}
	}
	// In Go a zero RetryAfter cannot be told from an unset one: it is the default, and Faults
	// says so.
	s := checked(t)
	if _, err := s.InjectFault(core.Fault{Status: 429}); err != nil {
		t.Fatal(err)
	}
	if got := s.Faults()[0].RetryAfter; got != time.Second {
		t.Errorf("RetryAfter of Fault{Status: 429} = %v, want the default 1s", got)
	}
	if _, err := s.InjectFault(core.Fault{Status: 429, RetryAfter: 1500 * time.Microsecond}); err == nil {
		t.Error("InjectFault accepted a retry-after of 1.5 ms, which retry-after-ms cannot carry")
	}
}
