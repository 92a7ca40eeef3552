// Package workworker is a complete environment worker for the work queue (spec 4.8): it polls
// for work, acknowledges it, keeps its lease with conditional heartbeats while the work runs,
// and shuts down gracefully when the service asks it to stop.
//
// The worker never reads the clock itself: it waits through Sleep, so that a test can run it
// against the fake and move the fake's virtual clock instead of waiting (see the example).
package workworker

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"time"
)

// Worker serves one environment's queue.
type Worker struct {
	BaseURL       string
	EnvironmentID string
	Key           string // the environment key, sent as "Authorization: Bearer <key>"
	WorkerID      string // sent as Vendor-Worker-ID, for the environment's stats
	HTTP          *http.Client
	LeaseSeconds  float64 // desired_ttl_seconds
	// Sleep waits d (time.Sleep in production; the example advances the fake's clock instead).
	Sleep func(ctx context.Context, d time.Duration) error
	// Log receives one line per step.
	Log func(format string, args ...any)
}

// Item is the part of a work item (spec 2.16) the worker reads.
type Item struct {
	ID       string            `json:"id"`
	State    string            `json:"state"`
	Metadata map[string]string `json:"metadata"`
	Data     struct {
		ID string `json:"id"`
	} `json:"data"`
}

// Heartbeat is the heartbeat response (spec 2.16).
type Heartbeat struct {
	LastHeartbeat string  `json:"last_heartbeat"`
	LeaseExtended bool    `json:"lease_extended"`
	State         string  `json:"state"`
	TTLSeconds    float64 `json:"ttl_seconds"`
}

// ErrLeaseLost is returned when a heartbeat is refused with 412: another worker holds the lease,
// or it lapsed and the item went back to the queue. The worker must abandon the work.
var ErrLeaseLost = fmt.Errorf("workworker: the lease was lost")

// call sends one request and decodes a 200 body into out.
func (w *Worker) call(ctx context.Context, method, path string, q url.Values, out any) error {
	u := w.BaseURL + "/v1/environments/" + url.PathEscape(w.EnvironmentID) + "/work" + path
	if len(q) > 0 {
		u += "?" + q.Encode()
	}
	req, err := http.NewRequestWithContext(ctx, method, u, nil)
	if err != nil {
		return err
	}
	req.Header.Set("Authorization", "Bearer "+w.Key)
	req.Header.Set("vendor-version", "2023-06-01")
	req.Header.Set("vendor-beta", "managed-agents-2026-04-01")
	req.Header.Set("Vendor-Worker-ID", w.WorkerID)
	resp, err := w.HTTP.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return err
	}
	switch {
	case resp.StatusCode == http.StatusPreconditionFailed:
		return ErrLeaseLost
	case resp.StatusCode != http.StatusOK:
		return fmt.Errorf("workworker: %s %s: %d %s", method, path, resp.StatusCode, body)
	}
	return json.Unmarshal(body, out)
}

// Poll waits up to 500 ms for an item; nil when none arrived.
func (w *Worker) Poll(ctx context.Context) (*Item, error) {
	var it *Item // the body is null when the queue is empty
	err := w.call(ctx, http.MethodGet, "/poll", url.Values{"block_ms": {"500"}}, &it)
	return it, err
}

// RunOne serves one item: poll until work arrives, acknowledge it, then heartbeat every third of
// the lease while work(ctx) runs, until the work is done or the service asks for a stop
// (lease_extended false), in which case ctx of work is cancelled and the worker winds down
// within the lease it still has. It returns the item's final heartbeat state.
func (w *Worker) RunOne(ctx context.Context, work func(ctx context.Context, it *Item) error) (string, error) {
	var it *Item
	for it == nil {
		var err error
		if it, err = w.Poll(ctx); err != nil {
			return "", err
		}
	}
	w.Log("polled %s (session %s, job %s)", it.ID, it.Data.ID, it.Metadata["job"])
	var acked Item
	if err := w.call(ctx, http.MethodPost, "/"+it.ID+"/ack", nil, &acked); err != nil {
		return "", err
	}
	w.Log("acknowledged: %s", acked.State)

	workCtx, stopWork := context.WithCancel(ctx)
	defer stopWork()
	done := make(chan error, 1)
	go func() { done <- work(workCtx, it) }()

	last := "NO_HEARTBEAT"
	ttl := strconv.FormatFloat(w.LeaseSeconds, 'f', -1, 64)
	for {
		var hb Heartbeat
		q := url.Values{"expected_last_heartbeat": {last}, "desired_ttl_seconds": {ttl}}
		if err := w.call(ctx, http.MethodPost, "/"+it.ID+"/heartbeat", q, &hb); err != nil {
			stopWork()
			<-done
			return "", err
		}
		last = hb.LastHeartbeat
		w.Log("heartbeat at %s: %s, lease extended %v, ttl %vs", hb.LastHeartbeat, hb.State, hb.LeaseExtended, hb.TTLSeconds)
		if !hb.LeaseExtended {
			stopWork() // the service asked for a stop: shut down before the lease runs out
			err := <-done
			w.Log("work shut down (%v)", err)
			return hb.State, nil
		}
		select {
		case err := <-done:
			return hb.State, err
		default:
		}
		if err := w.Sleep(ctx, time.Duration(w.LeaseSeconds*float64(time.Second)/3)); err != nil {
			return "", err
		}
	}
}
