//go:build linux

package proc

import (
	"os"
	"os/exec"
	"runtime"
	"syscall"
	"testing"
	"time"
)

// The main goroutine keeps the main thread, so that the spinning thread below is another one:
// the one a CPU that read only the process's main thread would miss.
func init() { runtime.LockOSThread() }

// rusageThread is Linux's RUSAGE_THREAD: the calling thread's own usage (syscall does not name it).
const rusageThread = 1

// threadCPU is the calling thread's CPU time; 0 if it cannot be read.
func threadCPU() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(rusageThread, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// CPU counts the time every thread of the process ran, once: a thread of its own spins until
// the kernel's own account of that thread (getrusage) shows 100 ms, and the process's CPU rises
// by that much, give or take what the idle other threads ran. A spin timed by the wall clock
// would not do: on a busy machine the thread runs for less of it.
func TestCPUCountsEveryThread(t *testing.T) {
	p := &Process{Cmd: &exec.Cmd{Process: &os.Process{Pid: os.Getpid()}}}
	before, t0 := p.CPU(), time.Now()
	spun := make(chan time.Duration)
	go func() {
		runtime.LockOSThread() // a thread of its own, given back after: one that exits uncounts itself
		defer runtime.UnlockOSThread()
		start := threadCPU()
		for threadCPU()-start < 100*time.Millisecond && time.Since(t0) < 10*time.Second {
		}
		spun <- threadCPU() - start
	}()
	thread := <-spun
	used, wall := p.CPU()-before, time.Since(t0)
	if thread < 100*time.Millisecond {
		t.Fatalf("the spinning thread ran %v in 10s (getrusage could not be read?)", thread)
	}
	// The other threads are idle but for the runtime's own work: 50 ms is far more than that,
	// and half of what counting the spinning thread twice would add.
	if used < thread-time.Millisecond || used > thread+50*time.Millisecond {
		t.Errorf("CPU rose by %v over %v while one thread ran %v", used, wall, thread)
	}
}
