package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestPrepareWorkdir: a missing folder is made (and the caller removes it), an existing one is
// used as it is, and one that cannot be made is a reason to skip, never a failure of the run.
func TestPrepareWorkdir(t *testing.T) {
	tmp := t.TempDir()
	if made, err := prepareWorkdir(tmp); made || err != nil {
		t.Errorf("an existing folder: made %v, %v; want false, nil", made, err)
	}
	missing := filepath.Join(tmp, "workspace")
	if made, err := prepareWorkdir(missing); !made || err != nil {
		t.Errorf("a missing folder: made %v, %v; want true, nil", made, err)
	}
	if info, err := os.Stat(missing); err != nil || !info.IsDir() {
		t.Errorf("the missing folder was not made: %v", err)
	}
	file := filepath.Join(tmp, "file")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := prepareWorkdir(file); err == nil || !strings.Contains(err.Error(), "is not a folder") {
		t.Errorf("a file: %v; want it is not a folder", err)
	}
	if _, err := prepareWorkdir(filepath.Join(file, "workspace")); err == nil || !strings.Contains(err.Error(), "which this user cannot use (not a directory)") {
		t.Errorf("a folder under a file: %v; want this user cannot use it", err)
	}
}

// TestPrepareWorkdirUnprivileged: a user who may not write in / is told why the example that
// works in /workspace is skipped. Root may write anywhere: the case is for other users.
func TestPrepareWorkdirUnprivileged(t *testing.T) {
	if os.Geteuid() == 0 {
		t.Skip("root may make any folder")
	}
	dir := "/platformkit-sdktests-workdir"
	made, err := prepareWorkdir(dir)
	if made {
		os.Remove(dir)
	}
	if err == nil || !strings.Contains(err.Error(), "which this user cannot make (permission denied)") {
		t.Errorf("prepareWorkdir(%s) = %v, %v; want an error saying this user cannot make it", dir, made, err)
	}
}
