package fake

import (
	"io"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// saveAs posts POST /_fake/snapshot/save with body, and returns the status and the answer.
func saveAs(t *testing.T, ts *TestServer, body string) (int, string) {
	t.Helper()
	resp, err := http.Post(ts.URL+"/_fake/snapshot/save", "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

func writeFiles(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, content := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// tree lists every file under dir (relative paths, sorted), links as "name -> target".
func tree(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || p == dir || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		if d.Type()&os.ModeSymlink != 0 {
			target, _ := os.Readlink(p)
			rel += " -> " + target
		}
		out = append(out, rel)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(out)
	return out
}

// TestSnapshotSaveTouchesOnlyItsOwnFiles: saving under the name of a folder that holds
// recordings and a notes.json is refused, naming a file, and deletes or writes nothing; a folder
// of an earlier snapshot is replaced, its other files kept.
func TestSnapshotSaveTouchesOnlyItsOwnFiles(t *testing.T) {
	under := t.TempDir()
	ts := NewTestServer(t, WithSnapshotDir(under))
	writeFiles(t, filepath.Join(under, "recordings"), map[string]string{
		"messages-hello-0123456789abcdef.json": `{"request": {}}`,
		"notes.json":                           `{"why": "kept by hand"}`,
	})
	status, body := saveAs(t, ts, `{"name":"recordings"}`)
	if status != 400 || !strings.Contains(body, `recordings/messages-hello-0123456789abcdef.json is not a file of a snapshot`) || !strings.Contains(body, `"name`) {
		t.Errorf("save into a folder of recordings: %d %s; want 400 naming the recording", status, body)
	}
	want := []string{"recordings/messages-hello-0123456789abcdef.json", "recordings/notes.json"}
	if got := tree(t, under); !slices.Equal(got, want) {
		t.Errorf("after the refused save: %q; want exactly %q", got, want)
	}

	// notes.json alone is refused too: the loader would read it as part of the world.
	writeFiles(t, filepath.Join(under, "notes"), map[string]string{"notes.json": `{}`})
	if status, body := saveAs(t, ts, `{"name":"notes"}`); status != 400 || !strings.Contains(body, "notes/notes.json is not a file of a snapshot") {
		t.Errorf("save beside notes.json: %d %s", status, body)
	}

	// An earlier snapshot's folder: its fixture files are replaced, a stale half-written file of
	// its own removed, and what the loader skips (a README, a subfolder) left alone.
	writeFiles(t, filepath.Join(under, "w1"), map[string]string{
		"users.json":           `{"stale": true}`,
		".tunnels.json.tmp":    `half`,
		"README.md":            "# our world\n",
		"namespace/notes.json": `{}`,
	})
	if status, body := saveAs(t, ts, `{"name":"w1"}`); status != 200 {
		t.Fatalf("save over an earlier snapshot: %d %s", status, body)
	}
	got := tree(t, filepath.Join(under, "w1"))
	for _, name := range []string{"README.md", "namespace/notes.json", "snapshot.json", "users.json", "organizations.json"} {
		if !slices.Contains(got, name) {
			t.Errorf("after the save w1 holds %q; want %s among them", got, name)
		}
	}
	if slices.Contains(got, ".tunnels.json.tmp") {
		t.Errorf("after the save w1 holds %q; want the stale temporary file gone", got)
	}
	if data, _ := os.ReadFile(filepath.Join(under, "w1", "users.json")); strings.Contains(string(data), "stale") {
		t.Errorf("users.json kept the stale content: %s", data)
	}
	if data, _ := os.ReadFile(filepath.Join(under, "w1", "README.md")); string(data) != "# our world\n" {
		t.Errorf("README.md = %q; want it untouched", data)
	}
}

// TestSnapshotSaveFollowsNoLink: a name that is a link (to a folder outside -snapshot-dir, or
// inside it), or a folder whose fixture file is a link to a file outside, is refused, and the
// place the link leads to is left as it was.
func TestSnapshotSaveFollowsNoLink(t *testing.T) {
	under, outside := t.TempDir(), t.TempDir()
	ts := NewTestServer(t, WithSnapshotDir(under))
	writeFiles(t, outside, map[string]string{"users.json": `{"theirs": true}`})
	if err := os.Symlink(outside, filepath.Join(under, "out")); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(under, "real"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("real", filepath.Join(under, "alias")); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(under, "linked"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(outside, "users.json"), filepath.Join(under, "linked", "users.json")); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ name, want string }{
		{"out", "out is a symbolic link"},
		{"alias", "alias is a symbolic link"},
		{"linked", "linked/users.json is not a regular file"},
	} {
		status, body := saveAs(t, ts, `{"name":"`+c.name+`"}`)
		if status != 400 || !strings.Contains(body, c.want) {
			t.Errorf("save %q: %d %s; want 400 with %q", c.name, status, body, c.want)
		}
	}
	if got := tree(t, outside); !slices.Equal(got, []string{"users.json"}) {
		t.Errorf("outside -snapshot-dir: %q; want users.json alone", got)
	}
	if data, _ := os.ReadFile(filepath.Join(outside, "users.json")); string(data) != `{"theirs": true}` {
		t.Errorf("the linked file was changed: %s", data)
	}
	if got := tree(t, filepath.Join(under, "real")); len(got) != 0 {
		t.Errorf("the folder a link names was written: %q", got)
	}
}

// TestSnapshotSaveRefusesNamesOfOtherPlaces: every name that is not one folder of -snapshot-dir
// is a 400 naming the field, and nothing is written.
func TestSnapshotSaveRefusesNamesOfOtherPlaces(t *testing.T) {
	under := t.TempDir()
	ts := NewTestServer(t, WithSnapshotDir(under))
	for _, name := range []string{"..", ".", "", "/tmp/x", "../x", "a/b", `a\\b`, "x\\u0000y", strings.Repeat("a", 65)} {
		status, body := saveAs(t, ts, `{"name":"`+name+`"}`)
		if status != 400 || !strings.Contains(body, "name") {
			t.Errorf("save %q: %d %s; want 400 naming the field", name, status, body)
		}
	}
	if got := tree(t, under); len(got) != 0 {
		t.Errorf("-snapshot-dir after refused names: %q; want it empty", got)
	}
	if status, body := saveAs(t, ts, `{"name":"fresh"}`); status != 200 || !strings.Contains(body, `"files":`) {
		t.Errorf("save into a new folder: %d %s", status, body)
	}
}
