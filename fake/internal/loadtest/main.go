// Command loadtest builds the fake's binary, starts it on a loopback port, and sends a bounded
// load to a few endpoints. It reports each endpoint's throughput and latency as a ratio to a
// baseline measured in the same run (GET /_fake/health: the same server, routing and encoding
// with no work behind it), so the figures compare across machines and never flake as timings.
//
//	go run ./fake/internal/loadtest [-requests 4000] [-concurrency 8]
//
// Traffic goes only to 127.0.0.1; every loop is bounded in count and in time.
package main

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// endpoint is one kind of request of the load.
type endpoint struct {
	name   string
	path   string
	header map[string]string
}

var apiHeaders = map[string]string{"X-Api-Key": "test-api-key", "vendor-version": "2023-06-01"}

var endpoints = []endpoint{
	{"baseline GET /_fake/health", "/_fake/health", nil},
	{"GET /v1/models/{id}", "/v1/models/assistant-opus-4-5", apiHeaders},
	{"GET /v1/models?limit=5", "/v1/models?limit=5", apiHeaders},
	{"GET /v1/models (401)", "/v1/models", nil},
}

type result struct {
	perSecond     float64
	p50, p99      time.Duration
	errors, count int64
}

func main() {
	requests := flag.Int("requests", 4000, "requests per endpoint")
	concurrency := flag.Int("concurrency", 8, "concurrent clients")
	limit := flag.Duration("max-duration", 60*time.Second, "stop each endpoint's load after this long")
	flag.Parse()
	if err := run(*requests, *concurrency, *limit); err != nil {
		fmt.Fprintln(os.Stderr, "loadtest:", err)
		os.Exit(1)
	}
}

func run(requests, concurrency int, limit time.Duration) error {
	dir, err := os.MkdirTemp("", "platformfake-load")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	bin := filepath.Join(dir, "platformfake")
	if out, err := exec.Command("go", "build", "-o", bin, "./fake/cmd/platformfake").CombinedOutput(); err != nil {
		return fmt.Errorf("building the binary: %v\n%s", err, out)
	}
	cmd := exec.Command(bin, "-addr", "127.0.0.1:0", "-quiet")
	stdout, _ := cmd.StdoutPipe()
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		return err
	}
	defer func() { _ = cmd.Process.Signal(os.Interrupt); _ = cmd.Wait() }()
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil {
		return fmt.Errorf("reading the listening line: %w", err)
	}
	base, ok := strings.CutPrefix(strings.TrimSpace(line), "listening on ")
	if !ok || !strings.HasPrefix(base, "http://127.0.0.1:") {
		return fmt.Errorf("unexpected first line %q", line)
	}

	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: concurrency}, Timeout: 10 * time.Second}
	load(client, base, endpoints[0], requests/4, concurrency, limit) // warm up connections and caches
	fmt.Printf("load: %d requests per endpoint, %d concurrent clients, binary on %s\n\n", requests, concurrency, base)
	fmt.Printf("%-30s %10s %10s %10s %8s %10s %10s\n", "endpoint", "req/s", "p50", "p99", "errors", "tput ratio", "p50 ratio")
	var baseline result
	for i, ep := range endpoints {
		r := load(client, base, ep, requests, concurrency, limit)
		if i == 0 {
			baseline = r
		}
		fmt.Printf("%-30s %10.0f %10s %10s %8d %10.2f %10.2f\n", ep.name, r.perSecond, r.p50.Round(time.Microsecond), r.p99.Round(time.Microsecond),
			r.errors, r.perSecond/baseline.perSecond, float64(r.p50)/float64(baseline.p50))
		if r.errors > 0 {
			return errors.New("some requests failed")
		}
	}
	return nil
}

// load sends n requests to one endpoint from c goroutines, stopping early after limit.
func load(client *http.Client, base string, ep endpoint, n, c int, limit time.Duration) result {
	ctx, cancel := context.WithTimeout(context.Background(), limit)
	defer cancel()
	var next, errs atomic.Int64
	lat := make([][]time.Duration, c)
	var wg sync.WaitGroup
	start := time.Now()
	for w := 0; w < c; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			for next.Add(1) <= int64(n) && ctx.Err() == nil {
				req, _ := http.NewRequestWithContext(ctx, http.MethodGet, base+ep.path, nil)
				for k, v := range ep.header {
					req.Header.Set(k, v)
				}
				t0 := time.Now()
				resp, err := client.Do(req)
				if err != nil {
					errs.Add(1)
					continue
				}
				_, _ = io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				if resp.StatusCode >= 500 {
					errs.Add(1)
				}
				lat[w] = append(lat[w], time.Since(t0))
			}
		}(w)
	}
	wg.Wait()
	elapsed := time.Since(start)
	all := slices.Concat(lat...)
	slices.Sort(all)
	r := result{errors: errs.Load(), count: int64(len(all))}
	if len(all) > 0 {
		r.perSecond = float64(len(all)) / elapsed.Seconds()
		r.p50, r.p99 = all[len(all)/2], all[len(all)*99/100]
	}
	return r
}
