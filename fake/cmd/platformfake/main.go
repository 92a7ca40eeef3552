// Command platformfake serves the fake Platform API on a local address.
//
//	platformfake [-addr 127.0.0.1:4010] [-fixtures DIR] [-wall-clock] [-rate-limits] [-retry-after-scale F] [-max-namespaces N] [-quiet]
//	             [-exit-on-stdin-eof]
//	             [-read-header-timeout 10s] [-read-timeout 60s] [-idle-timeout 60s] [-max-conns 512]
//	             [-shutdown-grace 5s]
//	             [-snapshot-to DIR] [-snapshot-dir DIR] [-coverage-on-exit FILE]
//	             [-upstream URL -record DIR [-record-errors]]
//	             [-replay DIR [-on-miss model|error|upstream] [-replay-speed 0] [-upstream URL]]
//	platformfake -version
//	platformfake -h
//
// -snapshot-to writes the world to DIR on shutdown, as a data set -fixtures loads to continue
// exactly where it stood; -snapshot-dir lets POST /_fake/snapshot/save write under DIR.
//
// It prints "listening on http://ADDR" once it serves, and shuts down gracefully on SIGINT or
// SIGTERM: it stops accepting, lets requests in flight run for -shutdown-grace (default 5s), cuts
// those still running, and then writes -snapshot-to and -coverage-on-exit; it exits 0 unless
// writing them failed. With -exit-on-stdin-eof it also shuts down so when its standard input
// ends: a parent that starts it with a pipe as its stdin, and keeps the pipe's other end, ties
// the fake's life to its own however the parent ends (kill -9 included), since the system closes
// a dead process's end of the pipe. The npm and Python helpers start it so.
//
// The timeouts bound what a client can hold: reading a request's headers, reading the whole
// request, and a keep-alive connection left idle. Nothing bounds writing an answer (net/http lifts
// the read deadline once the request is read), so a long stream, a block_ms poll or a latency
// fault (up to 10 minutes) runs as long as it needs; the connection cap bounds how many
// connections are held at once instead.
//
// With -coverage-on-exit, it writes the coverage of the whole server (GET /_fake/coverage?all=true:
// every operation's requests, invalid requests and their reasons, request fields sent and never
// sent) to FILE as JSON once it has shut down, so that a CI job in any language gets it from one
// flag.
//
// With -record, the inference requests (Messages, count_tokens, Completions, Models) that no stub
// answers are forwarded to -upstream with the client's credential, passed through as they arrive,
// and written to DIR, one JSON file per request; with -replay, they are answered from such files.
// A recording that the fake could not serve stops the start with its file, field and reason.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"
	"time"

	"golang.org/x/net/netutil"

	"github.com/platformkit/platformkit/fake"
	"github.com/platformkit/platformkit/internal/version"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	err := run(ctx, os.Args[1:], os.Getenv, os.Stdout, os.Stderr)
	switch {
	case errors.Is(err, errUsage):
		os.Exit(2) // the flag package has printed the problem and the usage
	case err != nil:
		fmt.Fprintln(os.Stderr, "platformfake:", err)
		os.Exit(1)
	}
}

// stdin is what -exit-on-stdin-eof watches: the process's standard input (a test sets a pipe).
var stdin io.Reader = os.Stdin

// errUsage is a command line the flag package refused; it has already said why, with the usage,
// so main exits 2 (the convention for a usage error) without saying it again.
var errUsage = errors.New("usage error")

const usageHead = `platformfake serves the fake Platform API: in memory, deterministic (a virtual clock,
per-server IDs), with a test-control API under /_fake/ and a namespace per test under /ns/<name>/.

Usage: platformfake [flags]

It prints "listening on http://ADDR" once it serves; SIGINT or SIGTERM (and, with
-exit-on-stdin-eof, the end of its standard input) stops it gracefully: requests in flight get
-shutdown-grace to finish, then are cut, and the exit files are written.

Flags:
`

// run serves until ctx is done. It returns an error for bad flags, fixtures that do not load,
// or an address it cannot listen on.
func run(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	fl := flag.NewFlagSet("platformfake", flag.ContinueOnError)
	fl.SetOutput(stderr)
	// The flag package prints a bad flag's problem and then calls Usage: one line follows the
	// problem, and -h (below) prints the whole usage to stdout.
	fl.Usage = func() {}
	showVersion := fl.Bool("version", false, "print the version and exit")
	addr := fl.String("addr", "127.0.0.1:4010", "address to listen on (host:port; port 0 picks a free one)")
	dir := fl.String("fixtures", "", "directory of fixture files to serve instead of the embedded ones")
	wall := fl.Bool("wall-clock", false, "use the wall clock instead of the virtual clock that starts at 2026-01-01T00:00:00Z")
	quiet := fl.Bool("quiet", false, "do not log requests")
	stdinEOF := fl.Bool("exit-on-stdin-eof", false, "shut down gracefully when standard input reaches its end, as a pipe does when the process holding its other end exits however it exits (a test helper's lifeline; with stdin from /dev/null it stops at once)")
	rateLimits := fl.Bool("rate-limits", false, "enforce the organizations' and workspaces' rate limits on Messages, count_tokens and Completions, with the rate-limit headers and 429s (PUT /_fake/rate_limits turns them on and off per namespace)")
	retryScale := fl.Float64("retry-after-scale", 1, "what 429s and 529s ask clients to wait, as a fraction of the wait on the virtual clock (0.001: 30 s is 30 ms); an official SDK's retry then moves the virtual clock by the true wait (PUT /_fake/retry_after sets it per namespace)")
	maxNS := fl.Int("max-namespaces", fake.DefaultMaxNamespaces, "how many namespaces (/ns/<name>/ or the Fake-Namespace header) to keep; creating one more drops the least recently used")
	readHeader := fl.Duration("read-header-timeout", 10*time.Second, "longest time to read a request's headers")
	read := fl.Duration("read-timeout", 60*time.Second, "longest time to read a whole request, headers and body (answering it is not bounded)")
	idle := fl.Duration("idle-timeout", 60*time.Second, "how long a keep-alive connection may wait for its next request before it is closed")
	maxConns := fl.Int("max-conns", 512, "most connections served at once; more wait to be accepted")
	grace := fl.Duration("shutdown-grace", 5*time.Second, "on SIGINT or SIGTERM, how long requests in flight may run on before they are cut and the exit files written")
	// Snapshots: save the world on shutdown, and where POST /_fake/snapshot/save may write.
	snapshotTo := fl.String("snapshot-to", "", "on shutdown, write the default server's world as a fixture directory here (load it with -fixtures)")
	snapshotDir := fl.String("snapshot-dir", "", "directory under which POST /_fake/snapshot/save may write snapshots (one subdirectory per name)")
	coverageFile := fl.String("coverage-on-exit", "", "when it stops, write the coverage of the whole server (GET /_fake/coverage?all=true) to this JSON file")
	// Record and replay of the inference routes.
	var tape fake.TapeConfig
	fl.StringVar(&tape.Upstream, "upstream", "", "base URL of the deployment to record from (with -record, or -replay and -on-miss upstream)")
	fl.StringVar(&tape.Record, "record", "", "forward the inference requests no stub answers to -upstream and record each answer in this directory")
	fl.BoolVar(&tape.RecordErrors, "record-errors", false, "record error answers too (status 400 or more, streams that end in an error event)")
	fl.StringVar(&tape.Replay, "replay", "", "answer the inference requests from the recordings in this directory")
	fl.Float64Var(&tape.Speed, "replay-speed", 0, "pace of replayed streams: 0 as fast as possible, 1 as recorded, 2 twice as fast")
	onMiss := fl.String("on-miss", string(fake.OnMissModel), "with -replay, what answers a request no recording matches: model (the scripted model), error (a 404 naming the recording expected), or upstream (forward to -upstream and record)")
	if err := fl.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			// Asked for: the usage goes to stdout, and it is no failure.
			fmt.Fprint(stdout, usageHead)
			fl.SetOutput(stdout)
			fl.PrintDefaults()
			return nil
		}
		fmt.Fprintln(stderr, "usage: platformfake [flags]; platformfake -h lists them")
		return errUsage
	}
	if *showVersion {
		fmt.Fprintln(stdout, version.Line("platformfake"))
		return nil
	}
	if fl.NArg() > 0 {
		return fmt.Errorf("unexpected arguments: %v", fl.Args())
	}
	if *maxNS < 1 {
		return fmt.Errorf("-max-namespaces: want at least 1, got %d", *maxNS)
	}
	if err := fake.CheckRetryAfterScale(*retryScale); err != nil {
		return fmt.Errorf("-retry-after-scale: %v", err)
	}
	if *wall && *retryScale != 1 {
		return fmt.Errorf("-retry-after-scale: a server on the wall clock sends the true waits (its clients' waits are real time): drop -wall-clock or the scale")
	}
	if *maxConns < 1 {
		return fmt.Errorf("-max-conns: want at least 1, got %d", *maxConns)
	}
	for name, d := range map[string]time.Duration{"read-header-timeout": *readHeader, "read-timeout": *read, "idle-timeout": *idle, "shutdown-grace": *grace} {
		if d <= 0 {
			return fmt.Errorf("-%s: want a positive duration such as 30s, got %v", name, d)
		}
	}

	if *coverageFile != "" {
		// Refused now rather than found out at exit, after the run whose coverage it was to hold.
		if st, err := os.Stat(filepath.Dir(*coverageFile)); err != nil || !st.IsDir() {
			return fmt.Errorf("-coverage-on-exit: the directory of %s does not exist", *coverageFile)
		}
	}
	if *snapshotTo != "" {
		// A folder of other files (recordings, notes) is refused now, not at exit.
		if err := fake.CheckSnapshotDir(*snapshotTo); err != nil {
			return fmt.Errorf("-snapshot-to: %w", err)
		}
	}
	tapeOpts, err := tapeOptions(fl, tape, *onMiss)
	if err != nil {
		return err
	}

	fx, err := fake.DefaultFixtures()
	if *dir != "" {
		fx, err = fake.FixturesDir(*dir)
	}
	if err != nil {
		return err
	}
	opts := append([]fake.Option{fake.WithFixtures(fx), fake.WithMaxNamespaces(*maxNS)}, tapeOpts...)
	if *snapshotDir != "" {
		opts = append(opts, fake.WithSnapshotDir(*snapshotDir))
	}
	if *wall {
		opts = append(opts, fake.WithWallClock())
	}
	if *rateLimits {
		opts = append(opts, fake.WithRateLimits())
	}
	if *retryScale != 1 {
		opts = append(opts, fake.WithRetryAfterScale(*retryScale))
	}
	if !*quiet {
		opts = append(opts, fake.WithLogger(slog.New(slog.NewTextHandler(stderr, nil))))
	}

	ln, err := net.Listen("tcp", *addr)
	if errors.Is(err, syscall.EADDRINUSE) {
		return fmt.Errorf("%w: another server (another platformfake?) holds it; -addr 127.0.0.1:0 picks a free port (with make run: ADDR=127.0.0.1:0)", err)
	}
	if err != nil {
		return err
	}
	fk := fake.New(opts...)
	srv := &http.Server{
		Handler:           fk,
		ReadHeaderTimeout: *readHeader,
		ReadTimeout:       *read,
		IdleTimeout:       *idle,
	}
	fmt.Fprintf(stdout, "listening on http://%s\n", ln.Addr())
	if *stdinEOF {
		var stopOnEOF context.CancelFunc
		ctx, stopOnEOF = context.WithCancel(ctx)
		defer stopOnEOF()
		// A read error (stdin closed under it) ends the lifeline as EOF does.
		go func(in io.Reader) { _, _ = io.Copy(io.Discard, in); stopOnEOF() }(stdin)
	}

	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(netutil.LimitListener(ln, *maxConns)) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	// Stop accepting, let the requests in flight finish within the grace, then cut those still
	// running (a stream, a latency fault, a body still arriving): whatever they do, the files
	// below are written, and the exit is 0 unless writing them failed.
	shutdown, cancel := context.WithTimeout(context.Background(), *grace)
	defer cancel()
	if err := srv.Shutdown(shutdown); err != nil {
		srv.Close()
		fmt.Fprintf(stderr, "platformfake: requests still running after the %v grace (-shutdown-grace) were cut\n", *grace)
	}
	if err := <-errc; !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return writeOnExit(fk, *snapshotTo, *coverageFile, stdout)
}

// writeOnExit writes -snapshot-to and -coverage-on-exit, each whatever became of the other: one
// that fails does not cost the other its file.
func writeOnExit(fk *fake.Server, snapshotTo, coverageFile string, stdout io.Writer) error {
	var errs []error
	if snapshotTo != "" {
		snap, err := fk.Snapshot()
		if err == nil {
			err = snap.WriteDir(snapshotTo)
		}
		if err != nil {
			errs = append(errs, fmt.Errorf("-snapshot-to: %w", err))
		} else {
			fmt.Fprintf(stdout, "snapshot written to %s\n", snapshotTo)
		}
	}
	if coverageFile != "" {
		errs = append(errs, writeCoverage(coverageFile, fk.ServerCoverage()))
	}
	return errors.Join(errs...)
}

// writeCoverage writes c to file through a temporary file in the same directory, so that a
// reader never sees half of it.
func writeCoverage(file string, c fake.Coverage) error {
	data, err := json.MarshalIndent(c, "", "  ")
	if err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(file), ".coverage-*.json")
	if err != nil {
		return fmt.Errorf("-coverage-on-exit: %w", err)
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(append(data, '\n')); err != nil {
		tmp.Close()
		return fmt.Errorf("-coverage-on-exit: %w", err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("-coverage-on-exit: %w", err)
	}
	if err := os.Rename(tmp.Name(), file); err != nil {
		return fmt.Errorf("-coverage-on-exit: %w", err)
	}
	return nil
}

// tapeOptions opens the tape the record and replay flags ask for: none when neither -record nor
// -replay is given, in which case the flags that only mean something with one of them are an
// error rather than silently ignored.
func tapeOptions(fl *flag.FlagSet, cfg fake.TapeConfig, onMiss string) ([]fake.Option, error) {
	if cfg.Record == "" && cfg.Replay == "" {
		for _, name := range []string{"upstream", "record-errors", "replay-speed", "on-miss"} {
			if f := fl.Lookup(name); f.Value.String() != f.DefValue {
				return nil, fmt.Errorf("-%s: only with -record or -replay", name)
			}
		}
		return nil, nil
	}
	if cfg.Record != "" && onMiss != string(fake.OnMissModel) {
		return nil, fmt.Errorf("-on-miss: only with -replay; -record forwards every request no stub answers")
	}
	if cfg.Replay != "" {
		cfg.OnMiss = fake.OnMiss(onMiss)
	}
	t, err := fake.OpenTape(cfg)
	if err != nil {
		return nil, err
	}
	return []fake.Option{fake.WithTape(t)}, nil
}
