package platformkit_test

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"
)

// maxTrackedFile is the largest file git may track without being on largeFilesAllowed.
const maxTrackedFile = 1 << 20

// largeFilesAllowed are the tracked files that may grow past maxTrackedFile, each with why: data a
// test or a user needs as it is. A binary or any other build output never goes here; it belongs
// in .gitignore (a committed binary is a stale copy that a user might run).
var largeFilesAllowed = map[string]string{
	"schemas/openapi.json":         "generated from the route table and the schemas (go generate ./fake), served and embedded",
	"schemas/openapi-control.json": "generated from the route table and the schemas (go generate ./fake), served and embedded",
	"fixtures/compliance.json":     "the compliance area's default data set, embedded in the fake",
}

// TestNoLargeFilesTracked fails when git tracks a file over 1 MiB that is not on
// largeFilesAllowed, and when an entry of the list is no longer tracked.
func TestNoLargeFilesTracked(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed: cannot list the tracked files")
	}
	if _, err := os.Stat(".git"); err != nil {
		t.Skip("no .git here (a source tarball?): nothing is tracked")
	}
	tracked, over, err := largeTrackedFiles(".", maxTrackedFile)
	if err != nil {
		t.Fatal(err)
	}
	if len(tracked) < 50 {
		t.Fatalf("git lists only %d tracked files: the test is not looking at the repository", len(tracked))
	}
	for _, f := range over {
		if _, ok := largeFilesAllowed[f.path]; !ok {
			t.Errorf("%s is tracked and holds %d bytes (%.1f MiB), over the %d MiB a tracked file may hold: "+
				"a build output or binary goes into .gitignore (and out of the index: git rm --cached); "+
				"data that must be this large goes on largeFilesAllowed in largefiles_test.go, with why",
				f.path, f.size, float64(f.size)/(1<<20), maxTrackedFile>>20)
		}
	}
	for path := range largeFilesAllowed {
		if !slices.Contains(tracked, path) {
			t.Errorf("largeFilesAllowed names %s, which git does not track: remove it from the list", path)
		}
	}
}

// TestLargeTrackedFilesFindsWhatIsOver: in a repository of its own, the files tracked over the
// limit are found, those at it or untracked are not.
func TestLargeTrackedFilesFindsWhatIsOver(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	dir := t.TempDir()
	if out, err := exec.Command("git", "-C", dir, "init", "-q").CombinedOutput(); err != nil {
		t.Skipf("git init: %v: %s", err, out)
	}
	for name, size := range map[string]int{"at-limit.bin": 1000, "over.bin": 1001, "sub dir/over too.json": 5000, "small.txt": 3, "untracked.bin": 9000} {
		path := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, bytes.Repeat([]byte("x"), size), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if out, err := exec.Command("git", "-C", dir, "add", "at-limit.bin", "over.bin", "sub dir/over too.json", "small.txt").CombinedOutput(); err != nil {
		t.Fatalf("git add: %v: %s", err, out)
	}
	tracked, over, err := largeTrackedFiles(dir, 1000)
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"at-limit.bin", "over.bin", "small.txt", "sub dir/over too.json"}; !slices.Equal(tracked, want) {
		t.Errorf("tracked = %q, want %q", tracked, want)
	}
	if got, want := fmt.Sprint(over), "[{over.bin 1001} {sub dir/over too.json 5000}]"; got != want {
		t.Errorf("over the limit = %s, want %s", got, want)
	}
}

type trackedFile struct {
	path string
	size int64
}

// largeTrackedFiles lists the files git tracks in the repository at dir (paths relative to it,
// in git's order) and those of them larger than limit bytes. A tracked file deleted from the
// work tree is left out.
func largeTrackedFiles(dir string, limit int64) (tracked []string, over []trackedFile, err error) {
	out, err := exec.Command("git", "-C", dir, "ls-files", "-z").Output()
	if err != nil {
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			return nil, nil, fmt.Errorf("git ls-files: %v: %s", err, ee.Stderr)
		}
		return nil, nil, fmt.Errorf("git ls-files: %v", err)
	}
	for _, p := range bytes.Split(bytes.TrimSuffix(out, []byte{0}), []byte{0}) {
		path := string(p)
		st, err := os.Lstat(filepath.Join(dir, path))
		if errors.Is(err, os.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, nil, err
		}
		tracked = append(tracked, path)
		if st.Mode().IsRegular() && st.Size() > limit {
			over = append(over, trackedFile{path, st.Size()})
		}
	}
	return tracked, over, nil
}
