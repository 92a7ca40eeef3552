package main

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"slices"
	"sync"
	"sync/atomic"
	"time"
)

// round is what one round of load against one server measured.
type round struct {
	elapsed    time.Duration
	cpu        time.Duration   // the server's CPU time during the round (proc.Process.CPU)
	lat, first []time.Duration // per request: the whole answer, and the first event of a stream
	events     int
	errors     int
	firstError string
}

// load sends n requests for ep from c goroutines to base, stopping early after limit. An answer
// whose status is not the recorded one is an error; so is a stream with another event count.
func load(client *http.Client, base string, ep endpoint, want answer, n, c int, limit time.Duration) round {
	ctx, cancel := context.WithTimeout(context.Background(), limit)
	defer cancel()
	var next atomic.Int64
	var mu sync.Mutex
	var r round
	var wg sync.WaitGroup
	start := time.Now()
	for range c {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var mine round
			for next.Add(1) <= int64(n) && ctx.Err() == nil {
				lat, first, events, err := send(ctx, client, base, ep, want)
				if err != nil {
					if mine.errors++; mine.firstError == "" {
						mine.firstError = err.Error()
					}
					continue
				}
				mine.lat = append(mine.lat, lat)
				if ep.stream {
					mine.first = append(mine.first, first)
					mine.events += events
				}
			}
			mu.Lock()
			defer mu.Unlock()
			r.lat, r.first = append(r.lat, mine.lat...), append(r.first, mine.first...)
			r.events, r.errors = r.events+mine.events, r.errors+mine.errors
			if r.firstError == "" {
				r.firstError = mine.firstError
			}
		}()
	}
	wg.Wait()
	r.elapsed = time.Since(start)
	return r
}

var eventPrefix = []byte("event: ")

// send makes one request and reads the whole answer; for a stream it notes when the first
// event arrived and counts the events.
func send(ctx context.Context, client *http.Client, base string, ep endpoint, want answer) (lat, first time.Duration, events int, err error) {
	req := ep.request(base).WithContext(ctx)
	t0 := time.Now()
	resp, err := client.Do(req)
	if err != nil {
		return 0, 0, 0, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != want.Status {
		body, _ := io.ReadAll(io.LimitReader(resp.Body, 512))
		return 0, 0, 0, fmt.Errorf("status %d, want %d: %s", resp.StatusCode, want.Status, body)
	}
	if !ep.stream {
		_, err = io.Copy(io.Discard, resp.Body)
		return time.Since(t0), 0, 0, err
	}
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		if bytes.HasPrefix(sc.Bytes(), eventPrefix) {
			if events++; events == 1 {
				first = time.Since(t0)
			}
		}
	}
	if err := sc.Err(); err != nil {
		return 0, 0, 0, err
	}
	if events != want.Events {
		return 0, 0, 0, fmt.Errorf("%d events, want %d", events, want.Events)
	}
	return time.Since(t0), first, events, nil
}

// stats adds up the rounds of one server for one endpoint.
type stats struct {
	perRound   []float64       // requests per second of each round
	cpuRound   []time.Duration // the server's CPU time a request, in each round
	elapsed    time.Duration
	cpu        time.Duration // the server's, over every round
	lat, first []time.Duration
	events     int
	errors     int
	firstError string
	sorted     bool
}

func (s *stats) add(r round) {
	s.perRound = append(s.perRound, float64(len(r.lat))/r.elapsed.Seconds())
	s.cpuRound = append(s.cpuRound, r.cpu/time.Duration(max(len(r.lat)+r.errors, 1)))
	s.elapsed += r.elapsed
	s.cpu += r.cpu
	s.lat, s.first = append(s.lat, r.lat...), append(s.first, r.first...)
	s.events += r.events
	s.errors += r.errors
	if s.firstError == "" {
		s.firstError = r.firstError
	}
	s.sorted = false
}

func (s *stats) perSecond() float64 { return float64(len(s.lat)) / s.elapsed.Seconds() }

// cpuPerRequest is the server's CPU time a request, answered or not: what the request cost the
// server alone, which the load's client, on the same cores, does not blur as it does throughput.
func (s *stats) cpuPerRequest() time.Duration {
	if n := len(s.lat) + s.errors; n > 0 {
		return s.cpu / time.Duration(n)
	}
	return 0
}

// cpuQuartiles is the first and third quartiles of the ratios of s's CPU a request to that of
// base in the same round, "q1-q3": how far one round's figure strays, which a garbage collector's
// cycle in one round and not in the next makes wide even when the total is steady.
func (s *stats) cpuQuartiles(base *stats) string {
	var rs []float64
	for i := range min(len(s.cpuRound), len(base.cpuRound)) {
		if base.cpuRound[i] > 0 {
			rs = append(rs, float64(s.cpuRound[i])/float64(base.cpuRound[i]))
		}
	}
	if len(rs) < 4 {
		return "n/a"
	}
	slices.Sort(rs)
	return fmt.Sprintf("%.2f-%.2f", rs[len(rs)/4], rs[(3*len(rs))/4])
}

// throughputRatio is the median over the rounds of the ratio of s's throughput to that of base
// in the same round: a burst of other work on the machine skews one round, not the figure.
func (s *stats) throughputRatio(base *stats) float64 {
	var rs []float64
	for i := range min(len(s.perRound), len(base.perRound)) {
		rs = append(rs, s.perRound[i]/base.perRound[i])
	}
	slices.Sort(rs)
	if len(rs) == 0 {
		return 0
	}
	if len(rs)%2 == 0 {
		return (rs[len(rs)/2-1] + rs[len(rs)/2]) / 2
	}
	return rs[len(rs)/2]
}
func (s *stats) eventsPerSecond() float64 { return float64(s.events) / s.elapsed.Seconds() }

// pct returns the p-th percentile of the samples of *of (s.lat or s.first).
func (s *stats) pct(of *[]time.Duration, p int) time.Duration {
	if !s.sorted {
		slices.Sort(s.lat)
		slices.Sort(s.first)
		s.sorted = true
	}
	if len(*of) == 0 {
		return 0
	}
	return (*of)[min(len(*of)*p/100, len(*of)-1)]
}
