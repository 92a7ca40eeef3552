package fake

import (
	"bufio"
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/platformkit/platformkit/fake/internal/core"
)

// BenchmarkSessionEventToStream measures a user message's round trip through a session: sent,
// answered by the deterministic agent, and its session.status_idle read by a client streaming the
// session's events. It reports the time from sending to reading, per message (the bound
// is 5 ms for an event to reach a streaming client).
func BenchmarkSessionEventToStream(b *testing.B) {
	ts := NewTestServer(b)
	api := apiClient(b, ts)
	env := api.ok("POST", "/v1/environments", map[string]any{"name": "cloud", "config": map[string]any{"type": "cloud"}}).get("id").String()
	agent := api.ok("POST", "/v1/agents", map[string]any{"name": "bench", "model": "assistant-sonnet-4-5"}).get("id").String()
	// open starts a session and streams it; a session holds at most sessions.MaxEvents events,
	// so a long run moves to a new one every 1,000 messages (six events each).
	open := func() (string, *bufio.Scanner, func()) {
		id := api.ok("POST", "/v1/sessions", map[string]any{"agent": agent, "environment_id": env}).get("id").String()
		ctx, cancel := context.WithCancel(context.Background())
		req, _ := http.NewRequestWithContext(ctx, "GET", ts.URL+"/v1/sessions/"+id+"/events/stream", nil)
		req.Header.Set("X-Api-Key", core.DefaultAPIKey)
		req.Header.Set("Vendor-Version", core.APIVersion)
		resp, err := ts.Server.Client().Do(req)
		if err != nil {
			b.Fatal(err)
		}
		return id, bufio.NewScanner(resp.Body), func() { cancel(); resp.Body.Close(); api.ok("DELETE", "/v1/sessions/"+id, nil) }
	}
	id, lines, done := open()
	var total time.Duration
	for i := 0; b.Loop(); i++ {
		if i > 0 && i%1000 == 0 {
			b.StopTimer()
			done()
			id, lines, done = open()
			b.StartTimer()
		}
		start := time.Now()
		api.ok("POST", "/v1/sessions/"+id+"/events", userMessage("ping"))
		for lines.Scan() && !strings.HasPrefix(lines.Text(), "event: session.status_idle") {
		}
		total += time.Since(start)
	}
	done()
	b.ReportMetric(float64(total.Microseconds())/float64(b.N), "µs/message")
}
