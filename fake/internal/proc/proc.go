// Package proc starts the fake's binary for the tools that measure it (loadtest, soak): on a
// loopback port it picks itself, read back from the line it prints first.
package proc

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// Process is a running server.
type Process struct {
	Cmd  *exec.Cmd
	Base string // http://127.0.0.1:PORT
}

// Start runs a server that prints "listening on http://ADDR" first, and waits for that line.
func Start(bin string, args ...string) (*Process, error) {
	cmd := exec.Command(bin, args...)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	p := &Process{Cmd: cmd}
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil {
		p.Stop()
		return nil, fmt.Errorf("%s: reading the listening line: %w", filepath.Base(bin), err)
	}
	base, ok := strings.CutPrefix(strings.TrimSpace(line), "listening on ")
	if !ok || !strings.HasPrefix(base, "http://127.0.0.1:") {
		p.Stop()
		return nil, fmt.Errorf("%s: unexpected first line %q", filepath.Base(bin), line)
	}
	p.Base = base
	go func() { _, _ = io.Copy(io.Discard, stdout) }()
	return p, nil
}

// Stop interrupts the server and waits for it, killing it after 15 s (its shutdown grace is 5 s,
// and a soaked server may have a large snapshot or coverage to write).
func (p *Process) Stop() {
	_ = p.Cmd.Process.Signal(os.Interrupt)
	done := make(chan struct{})
	go func() { _ = p.Cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(15 * time.Second):
		_ = p.Cmd.Process.Kill()
		<-done
	}
}

// CPU is the CPU time the process has used so far, user and system, to the nanosecond: the sum
// of the scheduler's accounting of each of its threads (/proc/PID/task/*/schedstat), rather than
// /proc/PID/stat's ticks of 10 ms, which is a round of a load's whole CPU. It is 0 where that
// cannot be read (not Linux). A thread that has exited is no longer counted; the Go runtime
// keeps its threads.
func (p *Process) CPU() time.Duration {
	dir := fmt.Sprintf("/proc/%d/task", p.Cmd.Process.Pid)
	tasks, err := os.ReadDir(dir)
	if err != nil {
		return 0
	}
	var sum time.Duration
	for _, t := range tasks {
		data, err := os.ReadFile(filepath.Join(dir, t.Name(), "schedstat"))
		if err != nil {
			continue // the thread exited since the listing
		}
		first, _, _ := strings.Cut(string(data), " ")
		ns, _ := strconv.ParseInt(first, 10, 64)
		sum += time.Duration(ns)
	}
	return sum
}
