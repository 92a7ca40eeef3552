//go:build unix

package packaging

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// lockDir takes an exclusive lock on the file path (made if missing) for the rest of the test,
// waiting for any other process that holds it.
func lockDir(t *testing.T, path string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX); err != nil {
		f.Close()
		t.Fatalf("lock %s: %v", path, err)
	}
	t.Cleanup(func() { f.Close() }) // closing the file releases the lock
}
