package fake

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/platformkit/platformkit/fake/internal/core"

	"github.com/tidwall/gjson"
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

// The managed-agents rows of the load test (fake/internal/loadtest), with its data: 20 agents, a
// cloud environment, 20 sessions, the last of which was sent 5 user messages (30 events), and
// its requests, a page of 20 of each list, through the handler of a server made by New (a test
// server also checks every answer against its schema). Each reports the process's CPU time an
// operation (cpu-ns/op) beside the wall time, which on a shared machine swings with the load;
// the server first answers 10,000 model reads, uncounted, so that its journal is full and its
// garbage collector marks what it marks in a server that has served a while. The figure to
// compare is each row's cpu-ns/op against the model read's and the model list's in the same run:
//
//	go test -run '^$' -bench 'ManagedAgentsPage' -benchtime 20000x -count 6 ./fake
func BenchmarkManagedAgentsPage(b *testing.B) {
	s := New()
	serve := benchAPI(b, s)
	id := func(answer []byte) string { return gjson.GetBytes(answer, "id").String() }
	var agent string
	for range 20 {
		agent = id(serve("POST", "/v1/agents", map[string]any{"name": "load", "model": "assistant-sonnet-4-5",
			"tools": []any{map[string]any{"type": "agent_toolset_20260401", "configs": []any{map[string]any{"name": "bash"}}}}}))
	}
	env := id(serve("POST", "/v1/environments", map[string]any{"name": "load", "config": map[string]any{"type": "cloud"}}))
	var session string
	for range 20 {
		session = id(serve("POST", "/v1/sessions", map[string]any{"agent": agent, "environment_id": env, "title": "load"}))
	}
	for range 5 {
		serve("POST", "/v1/sessions/"+session+"/events", userMessage("hello"))
	}
	if n := gjson.GetBytes(serve("GET", "/v1/sessions/"+session+"/events?limit=100", nil), "data.#").Int(); n != 30 {
		b.Fatalf("the session has %d events, want 30", n)
	}
	for _, bc := range []struct{ name, path string }{
		{"model", "/v1/models/assistant-opus-4-5"},
		{"models", "/v1/models?limit=20"},
		{"agent", "/v1/agents/" + agent},
		{"agents", "/v1/agents?limit=20"},
		{"session", "/v1/sessions/" + session},
		{"sessions", "/v1/sessions?limit=20"},
		{"session-events", "/v1/sessions/" + session + "/events?limit=20"},
	} {
		b.Run(bc.name, func(b *testing.B) {
			for range 10_000 {
				serve("GET", "/v1/models/assistant-opus-4-5", nil)
			}
			// One request, served again and again into a writer that keeps nothing: the
			// figures are the server's (a recorder's buffer grown for each answer was a third
			// of a list's CPU).
			req := httptest.NewRequest(http.MethodGet, bc.path, nil)
			req.Header.Set("X-Api-Key", core.DefaultAPIKey)
			req.Header.Set("Vendor-Version", core.APIVersion)
			w := &discardWriter{header: http.Header{}}
			b.ReportAllocs()
			before := cpuTime()
			for b.Loop() {
				clear(w.header)
				s.ServeHTTP(w, req)
				if w.status != http.StatusOK {
					b.Fatalf("%s: %d", bc.path, w.status)
				}
			}
			b.ReportMetric(float64(cpuTime()-before)/float64(b.N), "cpu-ns/op")
		})
	}
}

// benchAPI returns a function that serves a request with body (nil: none) as the API key, fails
// the benchmark unless it answers 200, and returns the answer.
func benchAPI(b testing.TB, s *Server) func(method, path string, body any) []byte {
	return benchAPIAs(b, s, core.DefaultAPIKey)
}

// benchAPIAs is benchAPI with the API key key.
func benchAPIAs(b testing.TB, s *Server, key string) func(method, path string, body any) []byte {
	return func(method, path string, body any) []byte {
		var data []byte
		if body != nil {
			var err error
			if data, err = json.Marshal(body); err != nil {
				b.Fatal(err)
			}
		}
		req := httptest.NewRequest(method, path, bytes.NewReader(data))
		req.Header.Set("X-Api-Key", key)
		req.Header.Set("Vendor-Version", core.APIVersion)
		req.Header.Set("Content-Type", "application/json")
		w := httptest.NewRecorder()
		s.ServeHTTP(w, req)
		if w.Code != http.StatusOK {
			b.Fatalf("%s %s: %d %s", method, path, w.Code, w.Body)
		}
		return w.Body.Bytes()
	}
}

// discardWriter is a ResponseWriter that keeps the status and drops the body.
type discardWriter struct {
	header http.Header
	status int
}

func (w *discardWriter) Header() http.Header { return w.header }

func (w *discardWriter) WriteHeader(status int) { w.status = status }

func (w *discardWriter) Write(p []byte) (int, error) {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	return len(p), nil
}
