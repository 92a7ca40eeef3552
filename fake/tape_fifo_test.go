//go:build unix

package fake

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestReplayRefusesAFIFO: a FIFO named like a recording is refused at once, naming the file; a
// blocking open of it would hang the start until something wrote to it.
func TestReplayRefusesAFIFO(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "x.json")
	if err := syscall.Mkfifo(file, 0o644); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { _, err := OpenTape(TapeConfig{Replay: dir}); done <- err }()
	select {
	case err := <-done:
		if want := file + ": not a regular file (a named pipe); a recording is a JSON file"; err == nil || !strings.HasPrefix(err.Error(), want) {
			t.Errorf("error %v; want one starting %q", err, want)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("loading a FIFO still waits after 5 s")
	}
}

// TestReplayRefusesTooManyRecordings: a directory of more recordings than a replay loads is
// refused before any is read (these are empty, and none is named in the error).
func TestReplayRefusesTooManyRecordings(t *testing.T) {
	dir := t.TempDir()
	for i := range 10_001 {
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("r%05d.json", i)), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	_, err := OpenTape(TapeConfig{Replay: dir})
	if want := dir + ": more than 10000 recordings"; err == nil || !strings.HasPrefix(err.Error(), want) {
		t.Errorf("error %v; want one starting %q", err, want)
	}
}

// TestReplayChecksTheTotalFirst (issue 47, item 15): a directory whose recordings together hold
// more than the 256 MiB a replay loads is refused from their sizes, naming the directory, before
// any is read (these are sparse files of zeros, which a read would refuse as not JSON, naming the
// file; a directory of real recordings was read for 43 s before its refusal).
func TestReplayChecksTheTotalFirst(t *testing.T) {
	dir := t.TempDir()
	const n, size = 9, 30 << 20 // each under a recording file's 32 MiB
	for i := range n {
		file := filepath.Join(dir, fmt.Sprintf("r%d.json", i))
		if err := os.WriteFile(file, nil, 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Truncate(file, size); err != nil {
			t.Fatal(err)
		}
	}
	t0 := time.Now()
	_, err := OpenTape(TapeConfig{Replay: dir})
	want := fmt.Sprintf("%s: its %d recordings hold %d bytes together, more than the %d a replay loads", dir, n, n*size, 256<<20)
	if err == nil || !strings.HasPrefix(err.Error(), want) {
		t.Errorf("error %v; want one starting %q", err, want)
	}
	if d := time.Since(t0); d > time.Second {
		t.Errorf("refused after %v, want within a second", d)
	}
}
