package workworker_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	workworker "github.com/platformkit/platformkit/examples/work-worker"
	"github.com/platformkit/platformkit/fake"
)

// The worker runs against the fake. Its Sleep moves the fake's virtual clock, so a lease of 30
// seconds takes no real time; after its third heartbeat an operator stops the item gracefully
// (with the API key), the next heartbeat answers lease_extended false, the worker winds down, and
// the item is stopped once its lease lapses.
func Example() {
	f := fake.New(fake.WithViolationHandler(func(msg string) { panic(msg) }))
	srv := httptest.NewServer(f)
	defer srv.Close()
	const env = "env_01AcmePrimary000000000001"

	heartbeats := 0
	w := &workworker.Worker{
		BaseURL: srv.URL, EnvironmentID: env, Key: "test-environment-key", WorkerID: "example-worker",
		HTTP: srv.Client(), LeaseSeconds: 30,
		Log: func(format string, args ...any) { fmt.Printf(format+"\n", args...) },
		Sleep: func(ctx context.Context, d time.Duration) error {
			fmt.Printf("clock: %s\n", f.AdvanceClock(d).Format(time.RFC3339))
			if heartbeats++; heartbeats == 3 {
				fmt.Println("operator: graceful stop")
				operator(srv, http.MethodPost, "/v1/environments/"+env+"/work/work_01AcmeQueuedBuild00000001/stop")
			}
			return nil
		},
	}
	state, err := w.RunOne(context.Background(), func(ctx context.Context, it *workworker.Item) error {
		<-ctx.Done() // a long job: runs until the worker is told to stop
		return ctx.Err()
	})
	fmt.Println("worker finished with the item", state, err)

	f.AdvanceClock(30 * time.Second)
	item := operator(srv, http.MethodGet, "/v1/environments/"+env+"/work/work_01AcmeQueuedBuild00000001")
	fmt.Println("after the lease lapsed:", item["state"], "at", item["stopped_at"])

	// Output:
	// polled work_01AcmeQueuedBuild00000001 (session sesn_01AcmeBuildNightly000001, job nightly-build)
	// acknowledged: starting
	// heartbeat at 2026-01-01T00:00:00Z: active, lease extended true, ttl 30s
	// clock: 2026-01-01T00:00:10Z
	// heartbeat at 2026-01-01T00:00:10Z: active, lease extended true, ttl 30s
	// clock: 2026-01-01T00:00:20Z
	// heartbeat at 2026-01-01T00:00:20Z: active, lease extended true, ttl 30s
	// clock: 2026-01-01T00:00:30Z
	// operator: graceful stop
	// heartbeat at 2026-01-01T00:00:30Z: stopping, lease extended false, ttl 20s
	// work shut down (context canceled)
	// worker finished with the item stopping <nil>
	// after the lease lapsed: stopped at 2026-01-01T00:00:50Z
}

// operator calls the API with the organization's API key and returns the JSON object answered.
func operator(srv *httptest.Server, method, path string) map[string]any {
	req, _ := http.NewRequest(method, srv.URL+path, strings.NewReader(""))
	req.Header.Set("X-Api-Key", "test-api-key")
	req.Header.Set("vendor-version", "2023-06-01")
	resp, err := srv.Client().Do(req)
	if err != nil {
		panic(err)
	}
	defer resp.Body.Close()
	var out map[string]any
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil || resp.StatusCode != http.StatusOK {
		panic(fmt.Sprintf("%s %s: %d %v", method, path, resp.StatusCode, err))
	}
	return out
}

// TestLeaseLost runs a worker that sleeps past its lease: the item goes back to the queue and the
// worker's next heartbeat is refused, so it abandons the work.
func TestLeaseLost(t *testing.T) {
	ts := fake.NewTestServer(t)
	w := &workworker.Worker{
		BaseURL: ts.URL, EnvironmentID: "env_01AcmePrimary000000000001", Key: "test-environment-key", WorkerID: "slow",
		HTTP: ts.Client(), LeaseSeconds: 10, Log: t.Logf,
		Sleep: func(ctx context.Context, d time.Duration) error {
			ts.Fake.AdvanceClock(time.Minute) // far longer than the lease
			return nil
		},
	}
	_, err := w.RunOne(context.Background(), func(ctx context.Context, it *workworker.Item) error {
		<-ctx.Done()
		return ctx.Err()
	})
	if !errors.Is(err, workworker.ErrLeaseLost) {
		t.Fatalf("RunOne = %v, want ErrLeaseLost", err)
	}
	// Requeued at the lapse, it is now the newest in line: behind the two other fixture items.
	var polled []string
	for range 3 {
		it, err := w.Poll(context.Background())
		if err != nil || it == nil {
			t.Fatalf("Poll = %+v, %v", it, err)
		}
		polled = append(polled, it.ID)
	}
	if polled[2] != "work_01AcmeQueuedBuild00000001" {
		t.Fatalf("after the lapse, polls = %v; want the item back at the end of the queue", polled)
	}
}
