// Command soak sends the fake's binary the requests known to cost it work or memory (package
// hostile) and measures what they cost, on loopback:
//
//	go run ./fake/internal/soak -probe [-bin PATH]          # each reproduction once: a table
//	go run ./fake/internal/soak -repro [-items 2,6] [-bin PATH] # issue 47's table, a row each
//	go run ./fake/internal/soak [-duration 10m] [-mix cache|threads] [-bin PATH] # hostile traffic across namespaces
//
// It builds the binary (or runs -bin), starts it on 127.0.0.1 with a free port, and stops it.
// -probe sends each reproduction and prints its status, the field its error names, its wall
// time, the CPU the server spent on it (including after the client gave up, -timeout) and the
// server's RSS before and after (after: once it is idle and 2.5 s have passed). -repro sends
// each reproduction of issue 47 (hostile.Issue47: threads, stubs, generation budgets, tunnels,
// the tape) to a server of its own and prints, a row each, the answer, the server's CPU until it
// is idle again (after the client gave up included) and its RSS 3 s later; row 15 starts the
// binary with -replay on a directory over the bound and times its refusal. The soak sends
// structured-output amplifiers, prompt-cache writes (models of the largest length taken,
// conversations of 2,000 turns with diagnostics) and GET /_fake/cache across -namespaces
// namespaces from -concurrency clients for -duration, sampling the server's RSS every 5 s, and
// prints the largest and the last. With -mix threads (make soak-hostile) it sends issue 47's
// traffic instead: threads, stubs and generation (threadsClient). It says whether RSS levelled
// (the last quarter's peak against the quarter before) and fails on a 5xx or a request without
// an answer. Every loop is bounded in count (-max-requests) and time.
// It is not part of make test: it runs for minutes.
package main

import (
	"github.com/platformkit/platformkit/fake/internal/proc"

	"encoding/json"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/platformkit/platformkit/fake/internal/hostile"
)

func main() {
	bin := flag.String("bin", "", "the binary to run (default: build ./fake/cmd/platformfake)")
	probe := flag.Bool("probe", false, "send each reproduction once and print a table, instead of soaking")
	duration := flag.Duration("duration", time.Minute, "how long to soak")
	namespaces := flag.Int("namespaces", 1000, "namespaces to spread the soak over")
	concurrency := flag.Int("concurrency", 4, "concurrent clients of the soak")
	mix := flag.String("mix", "cache", "the soak's traffic: cache (schema amplifiers, prompt-cache writes, long conversations with diagnostics: issue 38) or threads (threads, stubs and generation: issue 47)")
	maxRequests := flag.Int64("max-requests", 1_000_000, "the most requests the soak sends")
	maxRSS := flag.Float64("max-rss", 6144, "MiB: the soak stops, and fails, when the server's RSS passes it (the machine's memory is not the thing tested)")
	timeout := flag.Duration("timeout", 30*time.Second, "how long a probe's client waits for an answer")
	repro := flag.Bool("repro", false, "send each reproduction of issue 47 to a server of its own and print a table, instead of soaking")
	items := flag.String("items", "", "with -repro, the rows to send (e.g. 2,6,12; default all)")
	flag.Parse()
	if *repro {
		only := map[int]bool{}
		for _, f := range strings.FieldsFunc(*items, func(r rune) bool { return r == ',' || r == ' ' }) {
			n, err := strconv.Atoi(f)
			if err != nil {
				fmt.Fprintf(os.Stderr, "soak: -items: %q is not a row number\n", f)
				os.Exit(2)
			}
			only[n] = true
		}
		if err := withBinary(*bin, func(bin string) error { return runRepro(bin, only) }); err != nil {
			fmt.Fprintln(os.Stderr, "soak:", err)
			os.Exit(1)
		}
		return
	}
	if *mix != "cache" && *mix != "threads" {
		fmt.Fprintf(os.Stderr, "soak: -mix: %q is not cache or threads\n", *mix)
		os.Exit(2)
	}
	soak := soakConfig{duration: *duration, namespaces: max(*namespaces, 1), concurrency: max(*concurrency, 1), mix: *mix, maxRequests: *maxRequests, maxRSS: *maxRSS}
	if err := run(*bin, *probe, soak, *timeout); err != nil {
		fmt.Fprintln(os.Stderr, "soak:", err)
		os.Exit(1)
	}
}

// soakConfig is what the soak sends: for how long, to how many namespaces, from how many
// clients, which traffic, and at most how many requests.
type soakConfig struct {
	duration                time.Duration
	namespaces, concurrency int
	mix                     string
	maxRequests             int64
	maxRSS                  float64 // MiB
}

func run(bin string, probe bool, soak soakConfig, timeout time.Duration) error {
	return withBinary(bin, func(bin string) error {
		p, err := start(bin)
		if err != nil {
			return err
		}
		defer p.Stop()
		if probe {
			return runProbe(p, timeout)
		}
		return runSoak(p, soak)
	})
}

// withBinary calls f with bin, or with a binary built from ./fake/cmd/platformfake when bin is "".
func withBinary(bin string, f func(bin string) error) error {
	if bin == "" {
		dir, err := os.MkdirTemp("", "platformfake-soak")
		if err != nil {
			return err
		}
		defer os.RemoveAll(dir)
		bin = filepath.Join(dir, "platformfake")
		if out, err := exec.Command("go", "build", "-o", bin, "./fake/cmd/platformfake").CombinedOutput(); err != nil {
			return fmt.Errorf("building the binary: %v\n%s", err, out)
		}
	}
	return f(bin)
}

// process is the running binary.
type process struct{ *proc.Process }

func start(bin string) (*process, error) {
	p, err := proc.Start(bin, "-addr", "127.0.0.1:0", "-quiet")
	if err != nil {
		return nil, err
	}
	return &process{p}, nil
}

// rss is the process's resident set in MiB.
func (p *process) rss() float64 {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", p.Cmd.Process.Pid))
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(data), "\n") {
		if rest, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			kb, _ := strconv.Atoi(strings.TrimSuffix(strings.TrimSpace(rest), " kB"))
			return float64(kb) / 1024
		}
	}
	return 0
}

// idle waits until the process has used no CPU for a second (at most limit) and returns how long
// that took.
func (p *process) idle(limit time.Duration) time.Duration {
	t0 := time.Now()
	for time.Since(t0) < limit {
		before := p.CPU()
		time.Sleep(time.Second)
		if p.CPU()-before <= 10*time.Millisecond {
			break
		}
	}
	return time.Since(t0)
}

var headers = map[string]string{"X-Api-Key": "test-api-key", "vendor-version": "2023-06-01", "Content-Type": "application/json"}

// send sends one request and returns the status and the error message ("" when none); status 0
// is a client that gave up or a connection error.
func send(client *http.Client, method, url, body string) (int, string) {
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req, err := http.NewRequest(method, url, rd)
	if err != nil {
		return 0, err.Error()
	}
	for k, v := range headers {
		req.Header.Set(k, v)
	}
	resp, err := client.Do(req)
	if err != nil {
		return 0, err.Error()
	}
	defer resp.Body.Close()
	data, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<20))
	var env struct {
		Error struct {
			Message string `json:"message"`
		} `json:"error"`
		ID string `json:"id"`
	}
	_ = json.Unmarshal(data, &env)
	if resp.StatusCode < 300 {
		return resp.StatusCode, env.ID
	}
	return resp.StatusCode, env.Error.Message
}

func runProbe(p *process, timeout time.Duration) error {
	client := &http.Client{Timeout: timeout}
	send(client, "GET", p.Base+"/v1/models", "")
	p.idle(5 * time.Second)
	idle := p.rss()
	fmt.Printf("idle RSS: %.0f MiB\n\n", idle)
	fmt.Println("| request | answer | field named | wall | server CPU | RSS after |")
	fmt.Println("|---|---|---|---|---|---|")
	var cases []hostile.Repeated
	for _, c := range hostile.CPU() {
		cases = append(cases, hostile.Repeated{Case: c, Method: "POST", Times: 1})
	}
	cases = append(cases, hostile.Memory()...)
	for _, c := range cases {
		cpu0, t0 := p.CPU(), time.Now()
		status, msg := 0, ""
		for range c.Times {
			status, msg = send(client, c.Method, p.Base+c.Path, c.Body)
		}
		wall := time.Since(t0)
		p.idle(3 * time.Minute) // work the client gave up on counts too
		cpu := p.CPU() - cpu0
		time.Sleep(2500 * time.Millisecond)
		field := ""
		if status >= 400 {
			field, _, _ = strings.Cut(msg, ": ")
			if len(field) > 60 {
				field = field[:57] + "..."
			}
		}
		answer := strconv.Itoa(status)
		if status == 0 {
			answer = fmt.Sprintf("no answer within %v", timeout)
		}
		fmt.Printf("| %s | %s | %s | %v | %v | %.0f MiB |\n", c.Name, answer, field, wall.Round(time.Millisecond), cpu, p.rss())
	}
	return nil
}

func runSoak(p *process, cfg soakConfig) error {
	duration, namespaces, concurrency := cfg.duration, cfg.namespaces, cfg.concurrency
	client := &http.Client{Timeout: time.Minute}
	model := strings.Repeat("m", 256) // the longest the fake takes
	cpuCases := hostile.CPU()
	var sent, answered, failed atomic.Int64
	var statuses sync.Map // status -> *atomic.Int64
	count := func(status int) {
		v, _ := statuses.LoadOrStore(status, new(atomic.Int64))
		v.(*atomic.Int64).Add(1)
	}
	var firstErr atomic.Value
	var stopped atomic.Bool // the RSS passed cfg.maxRSS
	stop := time.Now().Add(duration)
	var wg sync.WaitGroup
	for w := range concurrency {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := rand.New(rand.NewPCG(uint64(w), 38))
			prev := map[int]string{} // the last message id of each namespace, for diagnostics
			threads := newThreadsClient(client)
			for i := 0; time.Now().Before(stop) && !stopped.Load() && sent.Add(1) <= cfg.maxRequests; i++ {
				ns := r.IntN(namespaces)
				base := fmt.Sprintf("%s/ns/soak-%d", p.Base, ns)
				var status int
				var msg string
				if cfg.mix == "threads" {
					a := threads.next(r, base, ns, w, i)
					status, msg = a.status, a.msg
					if a.err != nil && msg == "" {
						msg = a.err.Error()
					}
					answered.Add(1)
					count(status)
					if status == 0 || status >= 500 {
						failed.Add(1)
						firstErr.CompareAndSwap(nil, fmt.Sprintf("%d %.200s", status, msg))
					}
					continue
				}
				switch k := r.IntN(10); {
				case k < 3: // a structured-output or tool-schema amplifier
					c := cpuCases[r.IntN(len(cpuCases))]
					status, msg = send(client, "POST", base+c.Path, c.Body)
				case k < 6: // a cache write, of the longest model
					status, msg = send(client, "POST", base+"/v1/messages", hostile.CachedBody(model, fmt.Sprintf("w%d-%d", w, i), 1, ""))
				case k < 9: // a long conversation with diagnostics: a large fingerprint
					status, msg = send(client, "POST", base+"/v1/messages", hostile.CachedBody(model, fmt.Sprintf("d%d-%d", w, i), 2000, prev[ns]))
					if status == 200 {
						prev[ns] = msg
					}
				default:
					status, msg = send(client, "GET", base+"/_fake/cache", "")
				}
				answered.Add(1)
				count(status)
				if status == 0 || status >= 500 {
					failed.Add(1)
					firstErr.CompareAndSwap(nil, fmt.Sprintf("%d %.200s", status, msg))
				}
			}
		}()
	}
	var peak, last float64
	var samples []float64 // RSS every 5 s
	t0 := time.Now()
	tick := time.NewTicker(5 * time.Second)
	defer tick.Stop()
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	// A line at each tenth of the run (at most one a minute apart, at least 5 s).
	every := min(max(duration/10, 5*time.Second), time.Minute)
	nextLine := t0.Add(every)
	fmt.Printf("idle RSS %.0f MiB; soaking %v (%s traffic) across %d namespaces from %d clients\n", p.rss(), duration, cfg.mix, namespaces, concurrency)
loop:
	for {
		select {
		case <-done:
			break loop
		case now := <-tick.C:
			last = p.rss()
			peak = max(peak, last)
			samples = append(samples, last)
			if last > cfg.maxRSS && !stopped.Load() {
				stopped.Store(true)
				fmt.Printf("%4.0fs: RSS %.0f MiB passed -max-rss %.0f MiB: stopping\n", time.Since(t0).Seconds(), last, cfg.maxRSS)
			}
			if !now.Before(nextLine) {
				nextLine = nextLine.Add(every)
				fmt.Printf("%4.0fs: RSS %.0f MiB (peak %.0f), %d requests answered\n", time.Since(t0).Seconds(), last, peak, answered.Load())
			}
		}
	}
	last = p.rss()
	peak = max(peak, last)
	fmt.Println(levelled(samples))
	var parts []string
	statuses.Range(func(k, v any) bool {
		parts = append(parts, fmt.Sprintf("%d: %d", k, v.(*atomic.Int64).Load()))
		return true
	})
	fmt.Printf("done: %d requests in %v (%s); RSS peak %.0f MiB, last %.0f MiB\n", answered.Load(), time.Since(t0).Round(time.Second), strings.Join(parts, ", "), peak, last)
	if n := failed.Load(); n > 0 {
		return fmt.Errorf("%d requests failed or answered 5xx, the first: %v", n, firstErr.Load())
	}
	if stopped.Load() {
		return fmt.Errorf("the server's RSS passed %.0f MiB", cfg.maxRSS)
	}
	return nil
}

// levelled says whether the RSS samples (every 5 s) levelled: the peak of the last quarter of
// the run against the peak of the quarter before it, within 10% or 50 MiB.
func levelled(samples []float64) string {
	q := len(samples) / 4
	if q == 0 {
		return "RSS: too short a run to tell whether it levelled"
	}
	peakOf := func(s []float64) float64 {
		m := 0.0
		for _, x := range s {
			m = max(m, x)
		}
		return m
	}
	before, lastQ := peakOf(samples[len(samples)-2*q:len(samples)-q]), peakOf(samples[len(samples)-q:])
	verdict := "levelled"
	if lastQ > before*1.1 && lastQ > before+50 {
		verdict = "still rising"
	}
	return fmt.Sprintf("RSS %s: peak %.0f MiB in the last quarter of the run, %.0f MiB in the quarter before", verdict, lastQ, before)
}
