package core

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
// world stood. Each area writes its own files from its state (its snapshot.go, Area.Snapshot); an area no
// request has built is still exactly its fixtures, so its files are copied as they were loaded.
// snapshot.json holds what no fixture file does: the clock and the ID counters.

// SnapshotFile is the file of a snapshot that holds the clock and the counters (schema
// fixtures/snapshot).
const SnapshotFile = "snapshot.json"

// SnapshotBodyLimit bounds POST /_fake/snapshot: a world of a few thousand records of every kind
// is a few MB, and the limit keeps a wrong upload from holding the process's memory.
const SnapshotBodyLimit = 64 << 20

// Snapshot is the face's Snapshot (package fake), which documents it.
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
	_, err := ReadFixture(fsys, SnapshotFile, &fx.start)
	return err
}

// readFixtureFiles keeps the bytes of every JSON file of fsys, so that a snapshot copies the
// files of the areas no request changed as they are.
func readFixtureFiles(fsys fs.FS, fx *Fixtures) error {
	entries, err := fs.ReadDir(fsys, ".")
	if err != nil {
		return err
	}
	fx.Files = map[string][]byte{}
	for _, e := range entries {
		if name := e.Name(); !e.IsDir() && filepath.Ext(name) == ".json" {
			if fx.Files[name], err = fs.ReadFile(fsys, name); err != nil {
				return err
			}
		}
	}
	return nil
}

// SnapshotArea is one area's part of a snapshot. lock locks the area's state if a request built
// it, and reports whether it did; export (called with the lock held) adds the area's files.
type SnapshotArea struct {
	Lock   func(st *State) (unlock func(), built bool)
	Export func(st *State, out map[string]any) error
}

// LockArea adapts a lazily built store whose mutex mu guards everything a snapshot reads.
func LockArea[T any](store slot[lazy[T]], mu func(*T) *sync.Mutex) func(st *State) (func(), bool) {
	return func(st *State) (func(), bool) {
		v := store.In(st.Stores).Built()
		if v == nil {
			return nil, false
		}
		m := mu(v)
		m.Lock()
		return m.Unlock, true
	}
}

// Snapshot is the face's Server.Snapshot (package fake), which documents it.
func (s *Server) Snapshot() (Snapshot, error) {
	st := s.State()
	var built []*SnapshotArea
	// Locked last area first: an area calls the areas before it while holding its own lock (a
	// session's send asks the work area of its item, a turn the files area), never the areas
	// after it, so this order can wait for no request that waits for a lock held here.
	for _, area := range slices.Backward(areaList) {
		a := area.Snapshot
		if a == nil {
			continue
		}
		if unlock, ok := a.Lock(st); ok {
			defer unlock()
			built = append(built, a)
		}
	}
	out := Snapshot{}
	for name, raw := range st.Fx.Files {
		out[name] = string(raw)
	}
	files := map[string]any{}
	for _, a := range built {
		if err := a.Export(st, files); err != nil {
			return nil, err
		}
	}
	var w worldStart
	w.Now = s.Clock.Now()
	w.Issued.API, w.Issued.Requests, w.Issued.Control = s.IDs.N.Load(), s.reqIDs.N.Load(), s.CtlIDs.issued()
	if w.Issued.Control == nil {
		w.Issued.Control = map[string]uint64{}
	}
	files[SnapshotFile] = w
	for name, v := range files {
		if f, ok := v.(EncodedFile); ok {
			out[name] = string(f)
			continue
		}
		data, err := indentedJSON(v)
		if err != nil {
			return nil, fmt.Errorf("snapshot: %s: %w", name, err)
		}
		out[name] = string(data)
	}
	return out, nil
}

// EncodedFile is a file an area's export wrote itself, formatted exactly as indentedJSON would
// format its value: Snapshot takes it as it is. For a file too large to encode as a value, which
// would hold it several times over while it is indented (the results of message batches).
type EncodedFile []byte

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

// Fixtures is the face's Snapshot.Fixtures (package fake), which documents it.
func (snap Snapshot) Fixtures() (*Fixtures, error) {
	fsys := fstest.MapFS{}
	for name, content := range snap {
		if !validFixtureName(name) {
			return nil, fmt.Errorf("fixtures: %s: a file of a snapshot is named like users.json: lower-case letters and _, then .json", Quoted(name, MaxExcerpt))
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

// WriteDir is the face's Snapshot.WriteDir (package fake), which documents it.
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

// CheckSnapshotDir is the face's CheckSnapshotDir (package fake), which documents it.
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
			return fmt.Errorf("snapshot: %s is not a fixture file name", Quoted(name, MaxExcerpt))
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

// LoadSnapshot is the face's Server.LoadSnapshot (package fake), which documents it.
func (s *Server) LoadSnapshot(snap Snapshot) error {
	fx, err := snap.Fixtures()
	if err != nil {
		return Invalid("%v", err)
	}
	s.restart(fx)
	return nil
}

// Control calls: GET /_fake/snapshot and POST /_fake/snapshot.

func (s *Server) getSnapshot(c *Call) (any, error) {
	return s.Snapshot()
}

func (s *Server) loadSnapshot(c *Call) (any, error) {
	var snap Snapshot
	if err := c.BindValid(&snap); err != nil {
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
func (s *Server) saveSnapshot(c *Call) (any, error) {
	var req struct {
		Name string `json:"name"`
	}
	if err := c.BindValid(&req); err != nil {
		return nil, err
	}
	if s.Cfg.SnapshotDir == "" {
		return nil, Invalid("this server may not write snapshots: start it with -snapshot-dir DIR (WithSnapshotDir in Go), or read the snapshot with GET /_fake/snapshot")
	}
	if !ValidNamespaceName(req.Name) {
		return nil, InvalidField("name", "%s: a snapshot's directory name is 1 to 64 of the characters A-Z a-z 0-9 . _ - (and neither \".\" nor \"..\")", Quoted(req.Name, MaxExcerpt))
	}
	snap, err := s.Snapshot()
	if err != nil {
		return nil, err
	}
	dir := filepath.Join(s.Cfg.SnapshotDir, req.Name)
	// Through a root at the operator's directory, so that no link leads a write out of it; the
	// snapshot's own directory may not be a link at all, even to a place under the root.
	root, err := os.OpenRoot(s.Cfg.SnapshotDir)
	if err != nil {
		return nil, NewError(ErrAPI, "snapshot: %v", err)
	}
	defer root.Close()
	switch st, err := root.Lstat(req.Name); {
	case errors.Is(err, fs.ErrNotExist):
		if err := root.Mkdir(req.Name, 0o755); err != nil {
			return nil, NewError(ErrAPI, "snapshot: %v", err)
		}
	case err != nil:
		return nil, NewError(ErrAPI, "snapshot: %v", err)
	case st.Mode()&fs.ModeSymlink != 0:
		return nil, InvalidField("name", "%s is a symbolic link; a snapshot is saved only into a directory of -snapshot-dir itself, never through a link", dir)
	case !st.IsDir():
		return nil, InvalidField("name", "%s is a file, not a directory", dir)
	}
	sub, err := root.OpenRoot(req.Name)
	if err != nil {
		return nil, NewError(ErrAPI, "snapshot: %v", err)
	}
	defer sub.Close()
	if err := snap.writeRoot(sub, dir); err != nil {
		if fe := (*foreignFileError)(nil); errors.As(err, &fe) {
			return nil, InvalidField("name", "%s %s", fe.file, fe.reason)
		}
		return nil, NewError(ErrAPI, "%v", err)
	}
	return savedSnapshot{Path: dir, Files: len(snap)}, nil
}
