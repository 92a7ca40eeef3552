package fake

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing/fstest"
	"time"

	"github.com/platformkit/platformkit/schemas"
)

// Snapshots: a server's world saved as a data set of the shape of package fixtures, which any
// server loads (LoadSnapshot, WithFixtures, the binary's -fixtures) to continue exactly where the
// world stood. Each area writes its own files from its state (snapshot_areas.go); an area no
// request has built is still exactly its fixtures, so its files are copied as they were loaded.
// snapshot.json holds what no fixture file does: the clock and the ID counters.

// snapshotFile is the file of a snapshot that holds the clock and the counters (schema
// fixtures/snapshot).
const snapshotFile = "snapshot.json"

// snapshotBodyLimit bounds POST /_fake/snapshot: a world of a few thousand records of every kind
// is a few MB, and the limit keeps a wrong upload from holding the process's memory.
const snapshotBodyLimit = 64 << 20

// Snapshot is a data set: file name ("users.json") → the file's content, exactly as it would be
// on disk. GET /_fake/snapshot answers it as one JSON object; WriteDir writes it as a directory.
type Snapshot map[string]string

// worldStart is snapshot.json: where a loaded world's clock and counters stand. The zero value
// is a data set without the file: the clock at Epoch and every counter at zero.
type worldStart struct {
	Now    time.Time `json:"now"`
	Issued struct {
		API      uint64            `json:"api"`
		Requests uint64            `json:"requests"`
		Control  map[string]uint64 `json:"control"`
	} `json:"issued"`
}

func (w worldStart) now() time.Time {
	if w.Now.IsZero() {
		return epoch
	}
	return w.Now
}

// loadSnapshotState reads snapshot.json, if present, into fx.start.
func loadSnapshotState(fsys fs.FS, fx *Fixtures) error {
	_, err := readFixture(fsys, snapshotFile, &fx.start)
	return err
}

// readFixtureFiles keeps the bytes of every JSON file of fsys, so that a snapshot copies the
// files of the areas no request changed as they are.
func readFixtureFiles(fsys fs.FS, fx *Fixtures) error {
	entries, err := fs.ReadDir(fsys, ".")
	if err != nil {
		return err
	}
	fx.files = map[string][]byte{}
	for _, e := range entries {
		if name := e.Name(); !e.IsDir() && filepath.Ext(name) == ".json" {
			if fx.files[name], err = fs.ReadFile(fsys, name); err != nil {
				return err
			}
		}
	}
	return nil
}

// snapshotArea is one area's part of a snapshot. lock locks the area's state if a request built
// it, and reports whether it did; export (called with the lock held) adds the area's files.
type snapshotArea struct {
	lock   func(st *state) (unlock func(), built bool)
	export func(st *state, out map[string]any) error
}

// lockArea adapts a lazily built store whose mutex mu guards everything a snapshot reads.
func lockArea[T any](store slot[lazy[T]], mu func(*T) *sync.Mutex) func(st *state) (func(), bool) {
	return func(st *state) (func(), bool) {
		v := store.in(st.stores).built()
		if v == nil {
			return nil, false
		}
		m := mu(v)
		m.Lock()
		return m.Unlock, true
	}
}

// Snapshot returns the server's world (a namespace's, when s is one) as a data set of the shape
// of package fixtures: the files of every area, formatted like them (two-space indents, fields
// in schema order, records in list order), and snapshot.json with the clock and the counters.
// A server that loads it answers every read byte-identically and hands the next write the same
// ID, timestamp and request-id. Every area is locked for the length of the export, so the set is
// one moment of the world; a write still in flight may have taken its ID without its record.
// Journal, faults and message stubs are the test's configuration, not the world: they are not
// in a snapshot.
func (s *Server) Snapshot() (Snapshot, error) {
	st := s.state()
	var built []*snapshotArea
	for _, area := range areaList {
		a := area.snapshot
		if a == nil {
			continue
		}
		if unlock, ok := a.lock(st); ok {
			defer unlock()
			built = append(built, a)
		}
	}
	out := Snapshot{}
	for name, raw := range st.fx.files {
		out[name] = string(raw)
	}
	files := map[string]any{}
	for _, a := range built {
		if err := a.export(st, files); err != nil {
			return nil, err
		}
	}
	var w worldStart
	w.Now = s.clock.Now()
	w.Issued.API, w.Issued.Requests, w.Issued.Control = s.ids.n.Load(), s.reqIDs.n.Load(), s.ctlIDs.issued()
	if w.Issued.Control == nil {
		w.Issued.Control = map[string]uint64{}
	}
	files[snapshotFile] = w
	for name, v := range files {
		data, err := indentedJSON(v)
		if err != nil {
			return nil, fmt.Errorf("snapshot: %s: %w", name, err)
		}
		out[name] = string(data)
	}
	return out, nil
}

// indentedJSON encodes v as fixture files and the OpenAPI documents are written: two-space
// indents, no HTML escaping (text holds <, > and & as they are), and a final newline.
func indentedJSON(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// Fixtures checks and parses the snapshot as LoadFixtures checks any data set: a file the fake
// does not know, a file that is not valid JSON (with its line and column), one that does not
// conform to its schema (with the field) or does not hold together (with the record) refuses
// the whole snapshot.
func (snap Snapshot) Fixtures() (*Fixtures, error) {
	fsys := fstest.MapFS{}
	for name, content := range snap {
		if !validFixtureName(name) {
			return nil, fmt.Errorf("fixtures: %s: a file of a snapshot is named like users.json: lower-case letters and _, then .json", quoted(name, maxExcerpt))
		}
		fsys[name] = &fstest.MapFile{Data: []byte(content), Mode: 0o644}
	}
	return LoadFixtures(fsys)
}

// validFixtureName reports whether name can be a fixture file: no directory, nothing a file
// system would treat specially.
func validFixtureName(name string) bool {
	base, ok := strings.CutSuffix(name, ".json")
	return ok && base != "" && strings.Trim(base, "abcdefghijklmnopqrstuvwxyz_") == ""
}

// WriteDir writes the snapshot's files into dir, creating it if needed, so that -fixtures DIR
// and FixturesDir load it. It deletes nothing it would not write itself: the fixture files the
// snapshot does not hold (which the loader would otherwise mix into its world) are removed, files
// the loader skips (not .json, subdirectories) are left alone, and a dir holding any other .json
// file (notes.json, a recording), or a fixture file that is not a regular file, is refused whole,
// naming it, before anything is written (CheckSnapshotDir).
func (snap Snapshot) WriteDir(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("snapshot: %w", err)
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		return fmt.Errorf("snapshot: %w", err)
	}
	defer root.Close()
	return snap.writeRoot(root, dir)
}

// CheckSnapshotDir reports whether WriteDir may write into dir: it is absent, or holds no file
// that WriteDir would have to delete or overwrite without having written it. The error names the
// file.
func CheckSnapshotDir(dir string) error {
	root, err := os.OpenRoot(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("snapshot: %w", err)
	}
	defer root.Close()
	_, err = snapshotFilesIn(root, dir)
	return err
}

// snapshotFilesIn lists the files of root a snapshot wrote or may replace (fixture files and its
// own temporary files), and refuses a directory holding another .json file, or a fixture name
// that is not a regular file (a link is never followed, nor replaced).
func snapshotFilesIn(root *os.Root, dir string) ([]string, error) {
	d, err := root.Open(".")
	if err != nil {
		return nil, fmt.Errorf("snapshot: %w", err)
	}
	entries, err := d.ReadDir(-1)
	d.Close()
	if err != nil {
		return nil, fmt.Errorf("snapshot: %w", err)
	}
	slices.SortFunc(entries, func(a, b fs.DirEntry) int { return strings.Compare(a.Name(), b.Name()) }) // the same file named every time
	var own []string
	for _, e := range entries {
		name := e.Name()
		fixture := isSnapshotFile(name)
		if tmp, ok := strings.CutPrefix(name, "."); ok {
			if base, ok := strings.CutSuffix(tmp, ".tmp"); ok && isSnapshotFile(base) {
				fixture = true // a write of an earlier save that did not finish
			}
		}
		switch {
		case fixture && !e.Type().IsRegular():
			return nil, &foreignFileError{filepath.Join(dir, name), "is not a regular file (a link or a directory); a snapshot writes only regular files and follows no link"}
		case fixture:
			own = append(own, name)
		case path.Ext(name) == ".json" && !e.IsDir():
			return nil, &foreignFileError{filepath.Join(dir, name), "is not a file of a snapshot, and the fixtures loader would read it with the world; save into an empty or new directory, or move the file"}
		}
	}
	return own, nil
}

// foreignFileError is a directory WriteDir refuses: it holds file, which a snapshot did not write
// and must not touch.
type foreignFileError struct{ file, reason string }

func (e *foreignFileError) Error() string { return "snapshot: " + e.file + " " + e.reason }

// isSnapshotFile reports whether name is a file a snapshot writes: a fixture file the fake knows,
// or snapshot.json.
func isSnapshotFile(name string) bool {
	base, ok := strings.CutSuffix(name, ".json")
	if !ok || !validFixtureName(name) {
		return false
	}
	_, known := slices.BinarySearch(schemas.Names(), "fixtures/"+base)
	return known
}

func (snap Snapshot) writeRoot(root *os.Root, dir string) error {
	for _, name := range slices.Sorted(maps.Keys(snap)) {
		if !isSnapshotFile(name) {
			return fmt.Errorf("snapshot: %s is not a fixture file name", quoted(name, maxExcerpt))
		}
	}
	own, err := snapshotFilesIn(root, dir)
	if err != nil {
		return err
	}
	for _, name := range own {
		if _, keep := snap[name]; !keep {
			if err := root.Remove(name); err != nil {
				return fmt.Errorf("snapshot: %w", err)
			}
		}
	}
	for _, name := range slices.Sorted(maps.Keys(snap)) {
		// Write then rename, so that a reader never sees half a file.
		tmp := "." + name + ".tmp"
		if err := root.WriteFile(tmp, []byte(snap[name]), 0o644); err != nil {
			return fmt.Errorf("snapshot: %w", err)
		}
		if err := root.Rename(tmp, name); err != nil {
			return fmt.Errorf("snapshot: %w", err)
		}
	}
	return nil
}

// LoadSnapshot replaces the world of the server (or of the namespace s is) with the snapshot: its
// data, clock and counters, as Reset would with the snapshot for fixtures. It also clears the
// journal, faults and stubs, as Reset does, and Reset afterwards returns to the snapshot. A
// snapshot that does not load is refused whole (see Snapshot.Fixtures) and the server is left as
// it was.
func (s *Server) LoadSnapshot(snap Snapshot) error {
	fx, err := snap.Fixtures()
	if err != nil {
		return invalid("%v", err)
	}
	s.restart(fx)
	return nil
}

// Control calls: GET /_fake/snapshot and POST /_fake/snapshot.

func (s *Server) getSnapshot(c *call) (any, error) {
	return s.Snapshot()
}

func (s *Server) loadSnapshot(c *call) (any, error) {
	var snap Snapshot
	if err := c.bindValid(&snap); err != nil {
		return nil, err
	}
	if err := s.LoadSnapshot(snap); err != nil {
		return nil, err
	}
	return clockBody{s.Now()}, nil
}

type savedSnapshot struct {
	Path  string `json:"path"`
	Files int    `json:"files"`
}

// saveSnapshot writes the snapshot into the named subdirectory of the directory WithSnapshotDir
// allowed. The name follows the grammar of namespace names, so it can name no other place.
func (s *Server) saveSnapshot(c *call) (any, error) {
	var req struct {
		Name string `json:"name"`
	}
	if err := c.bindValid(&req); err != nil {
		return nil, err
	}
	if s.cfg.snapshotDir == "" {
		return nil, invalid("this server may not write snapshots: start it with -snapshot-dir DIR (WithSnapshotDir in Go), or read the snapshot with GET /_fake/snapshot")
	}
	if !validNamespaceName(req.Name) {
		return nil, invalidField("name", "%s: a snapshot's directory name is 1 to 64 of the characters A-Z a-z 0-9 . _ - (and neither \".\" nor \"..\")", quoted(req.Name, maxExcerpt))
	}
	snap, err := s.Snapshot()
	if err != nil {
		return nil, err
	}
	dir := filepath.Join(s.cfg.snapshotDir, req.Name)
	// Through a root at the operator's directory, so that no link leads a write out of it; the
	// snapshot's own directory may not be a link at all, even to a place under the root.
	root, err := os.OpenRoot(s.cfg.snapshotDir)
	if err != nil {
		return nil, newError(errAPI, "snapshot: %v", err)
	}
	defer root.Close()
	switch st, err := root.Lstat(req.Name); {
	case errors.Is(err, fs.ErrNotExist):
		if err := root.Mkdir(req.Name, 0o755); err != nil {
			return nil, newError(errAPI, "snapshot: %v", err)
		}
	case err != nil:
		return nil, newError(errAPI, "snapshot: %v", err)
	case st.Mode()&fs.ModeSymlink != 0:
		return nil, invalidField("name", "%s is a symbolic link; a snapshot is saved only into a directory of -snapshot-dir itself, never through a link", dir)
	case !st.IsDir():
		return nil, invalidField("name", "%s is a file, not a directory", dir)
	}
	sub, err := root.OpenRoot(req.Name)
	if err != nil {
		return nil, newError(errAPI, "snapshot: %v", err)
	}
	defer sub.Close()
	if err := snap.writeRoot(sub, dir); err != nil {
		if fe := (*foreignFileError)(nil); errors.As(err, &fe) {
			return nil, invalidField("name", "%s %s", fe.file, fe.reason)
		}
		return nil, newError(errAPI, "%v", err)
	}
	return savedSnapshot{Path: dir, Files: len(snap)}, nil
}
