package proc

import (
	"os"
	"os/exec"
	"runtime"
	"testing"
	"time"
)

// CPU counts the time the process's threads ran, whichever thread ran it: 100 ms of spinning in
// a goroutine of this process, on a thread of its own, adds at least 90 ms and, on one thread,
// at most the wall time that passed.
func TestCPUCountsEveryThread(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("CPU reads /proc")
	}
	p := &Process{Cmd: &exec.Cmd{Process: &os.Process{Pid: os.Getpid()}}}
	before, t0 := p.CPU(), time.Now()
	done := make(chan struct{})
	go func() {
		defer close(done)
		runtime.LockOSThread() // a thread of its own, given back after: one that exits uncounts itself
		defer runtime.UnlockOSThread()
		for start := time.Now(); time.Since(start) < 100*time.Millisecond; {
		}
	}()
	<-done
	used, wall := p.CPU()-before, time.Since(t0)
	if used < 90*time.Millisecond || used > wall+50*time.Millisecond {
		t.Errorf("CPU rose by %v over %v of wall time spent spinning for 100ms", used, wall)
	}
}
