// Command platformfake serves the fake Platform API on a local address.
//
//	platformfake [-addr 127.0.0.1:4010] [-fixtures DIR] [-wall-clock] [-max-namespaces N] [-quiet]
//	             [-read-header-timeout 10s] [-read-timeout 60s] [-idle-timeout 60s] [-max-conns 512]
//	platformfake -version
//	platformfake -h
//
// It prints "listening on http://ADDR" once it serves, and shuts down gracefully on SIGINT or
// SIGTERM, letting requests in flight finish.
//
// The timeouts bound what a client can hold: reading a request's headers, reading the whole
// request, and a keep-alive connection left idle. Nothing bounds writing an answer (net/http lifts
// the read deadline once the request is read), so a long stream, a block_ms poll or a latency
// fault (up to 10 minutes) runs as long as it needs; the connection cap bounds how many
// connections are held at once instead.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
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

// errUsage is a command line the flag package refused; it has already said why, with the usage,
// so main exits 2 (the convention for a usage error) without saying it again.
var errUsage = errors.New("usage error")

const usageHead = `platformfake serves the fake Platform API: in memory, deterministic (a virtual clock,
per-server IDs), with a test-control API under /_fake/ and a namespace per test under /ns/<name>/.

Usage: platformfake [flags]

It prints "listening on http://ADDR" once it serves; SIGINT or SIGTERM stops it gracefully.

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
	maxNS := fl.Int("max-namespaces", fake.DefaultMaxNamespaces, "how many namespaces (/ns/<name>/ or the Fake-Namespace header) to keep; creating one more drops the least recently used")
	readHeader := fl.Duration("read-header-timeout", 10*time.Second, "longest time to read a request's headers")
	read := fl.Duration("read-timeout", 60*time.Second, "longest time to read a whole request, headers and body (answering it is not bounded)")
	idle := fl.Duration("idle-timeout", 60*time.Second, "how long a keep-alive connection may wait for its next request before it is closed")
	maxConns := fl.Int("max-conns", 512, "most connections served at once; more wait to be accepted")
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
	if *maxConns < 1 {
		return fmt.Errorf("-max-conns: want at least 1, got %d", *maxConns)
	}
	for name, d := range map[string]time.Duration{"read-header-timeout": *readHeader, "read-timeout": *read, "idle-timeout": *idle} {
		if d <= 0 {
			return fmt.Errorf("-%s: want a positive duration such as 30s, got %v", name, d)
		}
	}

	fx, err := fake.DefaultFixtures()
	if *dir != "" {
		fx, err = fake.FixturesDir(*dir)
	}
	if err != nil {
		return err
	}
	opts := []fake.Option{fake.WithFixtures(fx), fake.WithMaxNamespaces(*maxNS)}
	if *wall {
		opts = append(opts, fake.WithWallClock())
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
	srv := &http.Server{
		Handler:           fake.New(opts...),
		ReadHeaderTimeout: *readHeader,
		ReadTimeout:       *read,
		IdleTimeout:       *idle,
	}
	fmt.Fprintf(stdout, "listening on http://%s\n", ln.Addr())

	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(netutil.LimitListener(ln, *maxConns)) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	shutdown, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := srv.Shutdown(shutdown); err != nil {
		return err
	}
	if err := <-errc; !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}
