// Package platformkit_test holds the tests of the repository as a whole.
package platformkit_test

import (
	"bytes"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// outsideDocuments are names of documents that are not part of the repository. A user of
// platformkit has none of them, so no file may send a reader there: the project explains itself
// (README.md, conformance/EXTENSIONS.md, the package documentation). The names are assembled
// here so that this file does not match them itself.
var outsideDocuments = []string{
	"spec/" + "platform-api" + ".md",
	"platform-api" + ".md",
	"spec/" + "gaps" + ".md",
	"gaps" + ".md",
	"DESIGN" + ".md",
	"DESIGN" + ":", // a section of the outside design document, cited by name
	"DESIGN" + " §",
	"STYLE" + ".md",
	"../" + "shared",
}

// TestNoReferenceToOutsideDocuments fails when a file of the repository names a document that
// lives outside it.
func TestNoReferenceToOutsideDocuments(t *testing.T) {
	files := repositoryFiles(t)
	if len(files) < 50 {
		t.Fatalf("found only %d files: the test is not looking at the repository", len(files))
	}
	for _, name := range files {
		data, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		for i, line := range bytes.Split(data, []byte("\n")) {
			for _, doc := range outsideDocuments {
				if bytes.Contains(line, []byte(doc)) {
					t.Errorf("%s:%d refers to %s, which is not part of the repository; say it in the project's own words", name, i+1, doc)
					break // the longer names come first; one message per line is enough
				}
			}
		}
	}
}

// repositoryFiles lists the files git tracks (and those it would track: new, not ignored), or,
// outside a git checkout, every file but hidden directories, build output and dependencies.
func repositoryFiles(t *testing.T) []string {
	t.Helper()
	out, err := exec.Command("git", "ls-files", "--cached", "--others", "--exclude-standard").Output()
	if err == nil {
		var files []string
		for _, f := range strings.Split(strings.TrimSpace(string(out)), "\n") {
			if _, err := os.Stat(f); err == nil { // deleted but not yet staged
				files = append(files, f)
			}
		}
		return files
	}
	var files []string
	err = filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if path != "." && (strings.HasPrefix(d.Name(), ".") || d.Name() == "node_modules" || d.Name() == "bin" || d.Name() == "reports") {
				return filepath.SkipDir
			}
			return nil
		}
		files = append(files, path)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}
