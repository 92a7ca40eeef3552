package fake

import (
	"io/fs"

	"github.com/platformkit/platformkit/fake/internal/core"
)

// Fixtures is a parsed data set: the organizations with their credentials and every area's
// initial data. It is immutable once loaded, and every server built from it copies what it
// changes, so one Fixtures serves any number of servers.
type Fixtures struct{ fx *core.Fixtures }

// wrapFixtures is the face of fx, or an error.
func wrapFixtures(fx *core.Fixtures, err error) (*Fixtures, error) {
	if err != nil {
		return nil, err
	}
	return &Fixtures{fx: fx}, nil
}

// LoadFixtures parses a data set of the shape of package fixtures. Every JSON file must be one
// the fake knows (fixtures/X.json is described by the schema "fixtures/X"), must be valid JSON
// (the error names the file, line and column) and must conform to its schema (the error names the
// file and the field). Every "id" in the data set must be unique across all its files: a
// duplicate is refused with both places. organizations.json is required, since without it no
// credential is known and every API request would answer 401; any other file may be missing,
// which leaves its area empty.
func LoadFixtures(fsys fs.FS) (*Fixtures, error) { return wrapFixtures(core.LoadFixtures(fsys)) }

// DefaultFixtures returns the embedded data set, parsed on first use and shared afterwards. It is
// not checked against the schemas here: that would compile them and cost most of the binary's
// start-up, and TestEmbeddedFixturesConform proves the embedded files conform.
func DefaultFixtures() (*Fixtures, error) { return wrapFixtures(core.DefaultFixtures()) }

// FixturesDir loads the data set in dir, for the binary's -fixtures flag.
func FixturesDir(dir string) (*Fixtures, error) { return wrapFixtures(core.FixturesDir(dir)) }

// Snapshot is a data set: file name ("users.json") → the file's content, exactly as it would be
// on disk. GET /_fake/snapshot answers it as one JSON object; WriteDir writes it as a directory.
type Snapshot map[string]string

// Fixtures checks and parses the snapshot as LoadFixtures checks any data set: a file the fake
// does not know, a file that is not valid JSON (with its line and column), one that does not
// conform to its schema (with the field) or does not hold together (with the record) refuses
// the whole snapshot.
func (snap Snapshot) Fixtures() (*Fixtures, error) {
	return wrapFixtures(core.Snapshot(snap).Fixtures())
}

// WriteDir writes the snapshot's files into dir, creating it if needed, so that -fixtures DIR
// and FixturesDir load it. It deletes nothing it would not write itself: the fixture files the
// snapshot does not hold (which the loader would otherwise mix into its world) are removed, files
// the loader skips (not .json, subdirectories) are left alone, and a dir holding any other .json
// file (notes.json, a recording), or a fixture file that is not a regular file, is refused whole,
// naming it, before anything is written (CheckSnapshotDir).
func (snap Snapshot) WriteDir(dir string) error { return core.Snapshot(snap).WriteDir(dir) }
