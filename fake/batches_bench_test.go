package fake

import (
	"fmt"
	"net/http"
	"runtime"
	"strings"
	"testing"
	"time"
)

// shortBatch is a batch body of n short requests, and the body of each.
func shortBatch(n int) (string, []string) {
	reqs, bodies := make([]string, n), make([]string, n)
	for i := range n {
		bodies[i] = msgParams(fmt.Sprint("Hello number ", i), `,"max_tokens":16`)
		bodies[i] = strings.Replace(bodies[i], `"max_tokens":200,`, "", 1)
		reqs[i] = batchRequest(fmt.Sprint("r", i), bodies[i])
	}
	return batchBody(reqs...), bodies
}

// BenchmarkBatchVersusAlone: 10,000 short requests as one batch (created, ended, its results
// read) and the same requests sent one by one to POST /v1/messages, in-process, in the same run.
// The issue asks the batch to go at no less than 0.8× the rate of the requests sent alone.
func BenchmarkBatchVersusAlone(b *testing.B) {
	const n = 10_000
	body, bodies := shortBatch(n)
	b.Run("batch", func(b *testing.B) {
		for range b.N {
			s := New()
			id := createBatchOK(b, s, body).Get("id").String()
			s.AdvanceClock(time.Hour)
			if w := batchSend(b, s, http.MethodGet, "/v1/messages/batches/"+id+"/results", ""); w.Code != http.StatusOK {
				b.Fatal(w.Code)
			}
		}
		b.ReportMetric(float64(n*b.N)/b.Elapsed().Seconds(), "requests/s")
	})
	b.Run("alone", func(b *testing.B) {
		for range b.N {
			s := New()
			for _, r := range bodies {
				if w := batchSend(b, s, http.MethodPost, "/v1/messages", r); w.Code != http.StatusOK {
					b.Fatal(w.Code, w.Body)
				}
			}
		}
		b.ReportMetric(float64(n*b.N)/b.Elapsed().Seconds(), "requests/s")
	})
}

// TestBatchMemory100k: a batch of 100,000 short requests, with the journal's entries of its
// requests, keeps at most the 89 MiB docs/limits.md states, and a tenth more for the garbage
// collector's timing. make resources runs it without -race, which changes what a heap holds.
func TestBatchMemory100k(t *testing.T) {
	if raceDetector {
		t.Skip("a memory bound: make resources holds it without -race")
	}
	body, _ := shortBatch(100_000)
	s := New()
	var m0, m1 runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&m0)
	start := time.Now()
	id := createBatchOK(t, s, body).Get("id").String()
	took := time.Since(start)
	runtime.GC()
	runtime.ReadMemStats(&m1)
	s.AdvanceClock(24 * time.Hour)
	w := batchSend(t, s, http.MethodGet, "/v1/messages/batches/"+id+"/results", "")
	kept := int64(m1.HeapAlloc) - int64(m0.HeapAlloc)
	t.Logf("body %d bytes; created in %v; heap kept after create %d bytes (%d a request); results %d bytes, %d lines",
		len(body), took, kept, kept/100_000, w.Body.Len(), strings.Count(w.Body.String(), "\n"))
	if limit := int64(89<<20) * 11 / 10; kept > limit {
		t.Errorf("a batch of 100,000 short requests keeps %d bytes, more than the %d docs/limits.md allows (89 MiB, and a tenth)", kept, limit)
	}
	if lines := strings.Count(w.Body.String(), "\n"); lines != 100_000 {
		t.Errorf("results: %d lines, want 100,000", lines)
	}
}
