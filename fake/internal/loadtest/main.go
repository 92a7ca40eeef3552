// Command loadtest measures the fake's binary against a bare gin handler that serves the same
// bytes, in the same run, on loopback:
//
//	go run ./fake/internal/loadtest [-requests 20000] [-concurrency 8] [-rounds 20]
//
// It builds the binary, starts it, and records one answer of every endpoint of the load. It
// then starts a second process, this command again with -bare, whose gin engine has one route
// per endpoint path that checks the same credential, version and beta headers and answers the
// recorded status, headers and body: everything an HTTP server must do, with nothing behind it.
// Each endpoint is loaded in alternating rounds (fake then bare, then bare then fake, ...) so
// that a machine that gets busier or quieter affects both alike, and the table reports the
// fake's figures as ratios to the bare handler's: throughput (the median of the rounds' ratios;
// above 1 is faster), p50 and p99 latency over all requests (above 1 is slower), and the
// server's own CPU time a request (above 1 costs more). Throughput and latency include the load's
// client, which shares the cores: the CPU column is what the server alone spent, read from the
// kernel's accounting of its threads, and moves least from run to run. Ratios compare across
// machines; absolute times do not, and nothing here fails on a timing. A round is 1,000 requests
// by default (20,000 in 20 rounds): rounds of a few hundred lasted about 10 ms, which one burst
// of other work on a shared machine skewed, so that a row moved by 0.3 from run to run with no
// change to the fake.
//
// The CPU ratio is that of the two servers' CPU over all their rounds, not a median of rounds:
// most of what the fake spends beyond the bare handler is its garbage collector, which runs in
// cycles of about 10 ms every 2,000 requests or so (its heap holds the fixtures and the journal
// of the last 10,000 requests, where the bare handler's holds almost nothing), so a round has
// one cycle or none and a median would count the cycles or leave them out by chance. The "cpu
// q1-q3" column gives the middle half of the rounds' ratios, to judge a figure against a bound.
// Both servers are warmed up first, uncounted: -warm-up requests each (by default 10,000, so
// that the fake's journal is full, as it is in a server that has served a while: the first
// endpoint loaded used to pay for filling it, and a model read, whose answer is encoded once,
// showed 1.4 when it was first and 1.1 when loaded again), and one round of each endpoint before
// its counted rounds.
//
// Streamed answers also report events per second and the time to the first event, against the
// bare handler's replay of the same recorded bytes. Start-up is measured for both processes:
// from exec to the first 200 of GET /_fake/health.
//
// Traffic goes only to 127.0.0.1; every loop is bounded in count and in time.
package main

import (
	"github.com/platformkit/platformkit/fake/internal/proc"

	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"
)

func main() {
	bare := flag.String("bare", "", "serve the recorded answers in `FILE` with a bare gin engine (used by the load test itself)")
	requests := flag.Int("requests", 20000, "requests per endpoint and server (a hundredth of it for streams)")
	concurrency := flag.Int("concurrency", 8, "concurrent clients")
	rounds := flag.Int("rounds", 20, "alternating rounds per endpoint")
	warmUp := flag.Int("warm-up", 10000, "uncounted requests to each server before the first endpoint (the fake's journal holds the last 10,000)")
	starts := flag.Int("starts", 5, "start-up measurements per server")
	limit := flag.Duration("max-duration", 20*time.Second, "stop a round's load after this long")
	only := flag.String("only", "", "load only the endpoints whose name matches `REGEXP` (all are still recorded)")
	flag.Parse()
	var err error
	if *bare != "" {
		err = serveBare(*bare)
	} else {
		var re *regexp.Regexp
		if re, err = regexp.Compile(*only); err == nil {
			err = run(config{requests: *requests, concurrency: *concurrency, rounds: max(*rounds, 1), warmUp: *warmUp, starts: *starts, limit: *limit, only: re})
		}
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "loadtest:", err)
		os.Exit(1)
	}
}

type config struct {
	requests, concurrency, rounds, warmUp, starts int
	limit                                         time.Duration
	only                                          *regexp.Regexp
}

func run(cfg config) error {
	killOnInterrupt()
	dir, err := os.MkdirTemp("", "platformfake-load")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	running.Lock()
	running.dir = dir
	running.Unlock()
	fakeBin := filepath.Join(dir, "platformfake")
	if out, err := exec.Command("go", "build", "-o", fakeBin, "./fake/cmd/platformfake").CombinedOutput(); err != nil {
		return fmt.Errorf("building the binary: %v\n%s", err, out)
	}
	self, err := os.Executable()
	if err != nil {
		return err
	}
	fake, err := start(fakeBin, "-addr", "127.0.0.1:0", "-quiet")
	if err != nil {
		return err
	}
	defer fake.Stop()

	client := newClient(cfg.concurrency)
	endpoints, err := seed(client, fake.Base, endpoints)
	if err != nil {
		return err
	}
	recorded, err := record(client, fake.Base, endpoints)
	if err != nil {
		return err
	}
	spec := filepath.Join(dir, "bare.json")
	if err := writeJSONFile(spec, recorded); err != nil {
		return err
	}
	bare, err := start(self, "-bare", spec)
	if err != nil {
		return err
	}
	defer bare.Stop()

	fmt.Printf("load: %d requests per endpoint and server in %d alternating rounds, %d concurrent clients, on 127.0.0.1\n",
		cfg.requests, cfg.rounds, cfg.concurrency)
	fmt.Printf("fake: the binary; bare: a gin engine answering the same bytes after checking the same headers\n")
	fmt.Printf("ratios are fake/bare: throughput above 1 is faster, latency above 1 is slower, cpu (the server's CPU a request) above 1 costs more\n\n")
	if i := warmUpEndpoint(endpoints, cfg.only); i >= 0 && cfg.warmUp > 0 {
		fmt.Printf("warm-up: %d requests of %s to each server, uncounted\n\n", cfg.warmUp, endpoints[i].name)
		for _, srv := range []*process{fake, bare} {
			if rd := load(client, srv.Base, endpoints[i], recorded[i], cfg.warmUp, cfg.concurrency, 10*cfg.limit); rd.errors > 0 {
				return fmt.Errorf("warm-up: %d unexpected answers: %s", rd.errors, rd.firstError)
			}
		}
	}
	fmt.Printf("%-44s %10s %10s %7s %7s %7s %9s %9s %7s %9s %9s %9s\n", "endpoint", "fake/s", "bare/s", "tput", "p50", "p99", "fake p50", "bare p50",
		"cpu", "cpu q1-q3", "fake cpu", "bare cpu")
	failed := 0
	for i, ep := range endpoints {
		if !cfg.only.MatchString(ep.name) {
			continue
		}
		n := cfg.requests
		if ep.stream {
			n = max(cfg.requests/100, cfg.rounds)
		}
		var f, b stats
		if !ep.isCreate() { // a create's warm-up round would only add records to the fake's answers
			for _, srv := range []*process{fake, bare} {
				load(client, srv.Base, ep, recorded[i], n/cfg.rounds, cfg.concurrency, cfg.limit)
			}
		}
		for r := range cfg.rounds {
			targets := []*stats{&f, &b}
			servers := []*process{fake, bare}
			if r%2 == 1 {
				slices.Reverse(targets)
				slices.Reverse(servers)
			}
			for t := range targets {
				cpu := servers[t].CPU()
				rd := load(client, servers[t].Base, ep, recorded[i], n/cfg.rounds, cfg.concurrency, cfg.limit)
				rd.cpu = servers[t].CPU() - cpu
				targets[t].add(rd)
			}
		}
		fmt.Printf("%-44s %10.0f %10.0f %7.2f %7.2f %7.2f %9s %9s %7s %9s %9s %9s\n", ep.name, f.perSecond(), b.perSecond(),
			f.throughputRatio(&b), ratio(f.pct(&f.lat, 50), b.pct(&b.lat, 50)), ratio(f.pct(&f.lat, 99), b.pct(&b.lat, 99)),
			fmtDur(f.pct(&f.lat, 50)), fmtDur(b.pct(&b.lat, 50)), fmtRatio(f.cpuPerRequest(), b.cpuPerRequest()),
			f.cpuQuartiles(&b), fmtDur(f.cpuPerRequest()), fmtDur(b.cpuPerRequest()))
		if ep.stream {
			fmt.Printf("  %-42s %10.0f %10.0f %7.2f\n", fmt.Sprintf("events/s (%d events an answer)", recorded[i].Events),
				f.eventsPerSecond(), b.eventsPerSecond(), f.throughputRatio(&b))
			fmt.Printf("  %-42s %10s %10s %7s %7.2f %7.2f\n", "first event vs a replay: p50, ratios p50 p99",
				fmtDur(f.pct(&f.first, 50)), fmtDur(b.pct(&b.first, 50)), "",
				ratio(f.pct(&f.first, 50), b.pct(&b.first, 50)), ratio(f.pct(&f.first, 99), b.pct(&b.first, 99)))
		}
		if f.errors+b.errors > 0 {
			fmt.Printf("  %d unexpected answers from the fake, %d from bare: %s\n", f.errors, b.errors, f.firstError+b.firstError)
			failed++
		}
	}
	if cfg.starts > 0 {
		fmt.Printf("\nstart-up, exec to the first 200 of GET /_fake/health, %d runs each:\n", cfg.starts)
		for _, s := range []struct {
			name string
			args []string
		}{{"fake (embedded fixtures)", []string{fakeBin, "-addr", "127.0.0.1:0", "-quiet"}}, {"bare gin", []string{self, "-bare", spec}}} {
			times, err := startups(s.args, cfg.starts)
			if err != nil {
				return err
			}
			fmt.Printf("  %-26s min %9s  median %9s  max %9s\n", s.name, fmtDur(times[0]), fmtDur(times[len(times)/2]), fmtDur(times[len(times)-1]))
		}
	}
	if failed > 0 {
		return fmt.Errorf("%d endpoints had unexpected answers", failed)
	}
	return nil
}

// warmUpEndpoint is the index of the first endpoint of the load that only reads (no create, no
// stream) from the API (the journal keeps API requests, not the control API's), or -1.
func warmUpEndpoint(eps []endpoint, only *regexp.Regexp) int {
	for i, ep := range eps {
		if only.MatchString(ep.name) && !ep.isCreate() && !ep.stream && strings.HasPrefix(ep.target, "/v1/") {
			return i
		}
	}
	return -1
}

func ratio(a, b time.Duration) float64 { return float64(a) / float64(b) }

// fmtRatio is ratio(a, b) to two places, or "n/a" when b was not measured.
func fmtRatio(a, b time.Duration) string {
	if b <= 0 {
		return "n/a"
	}
	return fmt.Sprintf("%.2f", ratio(a, b))
}

func fmtDur(d time.Duration) string {
	switch {
	case d >= time.Second:
		return d.Round(time.Millisecond).String()
	case d >= time.Millisecond:
		return d.Round(10 * time.Microsecond).String()
	}
	return d.Round(time.Microsecond).String()
}

func newClient(concurrency int) *http.Client {
	return &http.Client{
		Transport: &http.Transport{MaxIdleConnsPerHost: concurrency, DisableCompression: true},
		Timeout:   30 * time.Second,
	}
}

// process is a running server.
type process struct{ *proc.Process }

// start runs the binary with args (proc.Start).
func start(bin string, args ...string) (*process, error) {
	p, err := proc.Start(bin, args...)
	if err != nil {
		return nil, err
	}
	running.Lock()
	running.procs = append(running.procs, p)
	running.Unlock()
	return &process{p}, nil
}

// running are the servers started and the temporary directory, which an interrupt of the load
// test stops and removes before it exits: its deferred calls do not run then, and both servers
// outlived it.
var running struct {
	sync.Mutex
	procs []*proc.Process
	dir   string
}

// killOnInterrupt kills the running servers and exits on SIGINT or SIGTERM.
func killOnInterrupt() {
	stop := make(chan os.Signal, 1)
	signal.Notify(stop, os.Interrupt, syscall.SIGTERM)
	go func() {
		<-stop
		running.Lock()
		for _, p := range running.procs {
			_ = p.Cmd.Process.Kill()
			_ = p.Cmd.Wait()
		}
		if running.dir != "" {
			os.RemoveAll(running.dir)
		}
		os.Exit(1)
	}()
}

// startups starts the server n times and returns the times from exec to its first healthy
// answer, sorted.
func startups(args []string, n int) ([]time.Duration, error) {
	client := &http.Client{Timeout: time.Second}
	var out []time.Duration
	for range n {
		t0 := time.Now()
		p, err := start(args[0], args[1:]...)
		if err != nil {
			return nil, err
		}
		for {
			resp, err := client.Get(p.Base + "/_fake/health")
			if err == nil {
				_, _ = io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				if resp.StatusCode == http.StatusOK {
					break
				}
			}
			if time.Since(t0) > 10*time.Second {
				p.Stop()
				return nil, errors.New("no healthy answer within 10s")
			}
			time.Sleep(200 * time.Microsecond)
		}
		out = append(out, time.Since(t0))
		p.Stop()
	}
	slices.Sort(out)
	return out, nil
}

func writeJSONFile(name string, v any) error {
	data, err := json.Marshal(v)
	if err != nil {
		return err
	}
	return os.WriteFile(name, data, 0o600)
}

// eventCount counts the events of a server-sent event stream.
func eventCount(body []byte) int {
	return bytes.Count(body, []byte("\nevent: ")) + boolInt(bytes.HasPrefix(body, []byte("event: ")))
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}
