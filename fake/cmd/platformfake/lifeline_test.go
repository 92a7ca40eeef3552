package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"
)

// The test binary doubles as platformfake and as a parent that starts it, so that a test can
// kill the parent with SIGKILL and watch the fake stop: LIFELINE_TEST_ROLE picks the role.
func TestMain(m *testing.M) {
	switch os.Getenv("LIFELINE_TEST_ROLE") {
	case "fake":
		main()
		os.Exit(0)
	case "parent":
		// Start the fake as the helpers do: its stdin a pipe whose other end only this process
		// holds, its first line passed on; then wait to be killed.
		cmd := exec.Command(os.Args[0], "-addr", "127.0.0.1:0", "-quiet", "-exit-on-stdin-eof")
		cmd.Env = append(os.Environ(), "LIFELINE_TEST_ROLE=fake")
		lifeline, err := cmd.StdinPipe()
		if err != nil {
			panic(err)
		}
		out, err := cmd.StdoutPipe()
		if err != nil {
			panic(err)
		}
		if err := cmd.Start(); err != nil {
			panic(err)
		}
		line, _ := bufio.NewReader(out).ReadString('\n')
		fmt.Printf("%d %s", cmd.Process.Pid, line) // the pid, for the test to clean up after a failure

		_ = lifeline // held open until this process dies
		select {}
	}
	os.Exit(m.Run())
}

// TestStdinEOFStopsTheServer: with -exit-on-stdin-eof, closing the pipe to stdin shuts the
// server down gracefully (run returns nil, the port is closed).
func TestStdinEOFStopsTheServer(t *testing.T) {
	pr, pw := io.Pipe()
	stdin = pr
	t.Cleanup(func() { stdin = os.Stdin })
	base, done := startCtx(t, context.Background(), "-exit-on-stdin-eof")
	addr := strings.TrimPrefix(base, "http://")
	if c, err := net.Dial("tcp", addr); err != nil {
		t.Fatalf("the server does not serve: %v", err)
	} else {
		c.Close()
	}
	pw.Close()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("run: %v", err)
		}
	case <-time.After(time.Second):
		t.Fatal("the server still runs a second after its stdin ended")
	}
	if c, err := net.Dial("tcp", addr); err == nil {
		c.Close()
		t.Fatal("the port still accepts connections")
	}
}

// TestKilledParentStopsTheFake: kill -9 of the process that started the fake with its stdin as
// a pipe (as the npm and Python helpers do) closes the fake's port within a second.
func TestKilledParentStopsTheFake(t *testing.T) {
	parent := exec.Command(os.Args[0], "-test.run=^$")
	parent.Env = append(os.Environ(), "LIFELINE_TEST_ROLE=parent")
	out, err := parent.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := parent.Start(); err != nil {
		t.Fatal(err)
	}
	line, err := bufio.NewReader(out).ReadString('\n')
	pid, listening, _ := strings.Cut(strings.TrimSpace(line), " ")
	if n, err := strconv.Atoi(pid); err == nil {
		t.Cleanup(func() { // a fake that outlived the test (it failed) is stopped
			if p, err := os.FindProcess(n); err == nil && t.Failed() {
				p.Kill()
			}
		})
	}
	addr, ok := strings.CutPrefix(listening, "listening on http://")
	if err != nil || !ok {
		parent.Process.Kill()
		t.Fatalf("the parent passed on %q (%v), want the fake's listening line", line, err)
	}
	if err := parent.Process.Kill(); err != nil { // SIGKILL: the parent runs no code of its own
		t.Fatal(err)
	}
	parent.Wait()
	killed := time.Now()
	for {
		c, err := net.DialTimeout("tcp", addr, 100*time.Millisecond)
		if err != nil {
			t.Logf("port %s closed %v after the parent was killed", addr, time.Since(killed).Round(time.Millisecond))
			return
		}
		c.Close()
		if time.Since(killed) > time.Second {
			t.Fatalf("the fake at %s still accepts connections a second after its parent was killed", addr)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
