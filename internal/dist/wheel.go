package main

import (
	"archive/zip"
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"
)

// pyDist is the Python distribution's name, and pyPkg its import package.
const (
	pyDist = "platformkit-fake"
	pyPkg  = "platformkit_fake"
)

// wheelName is the file name of p's wheel (PEP 427): the distribution's name with - as _, the
// version, and the tags: any Python 3 (py3), no ABI (the package is pure Python beside a
// binary it runs), and p's platform.
func wheelName(pyVer string, p Platform) string {
	return strings.ReplaceAll(pyDist, "-", "_") + "-" + pyVer + "-py3-none-" + p.WheelTag + ".whl"
}

// wheel writes p's wheel into out/python/: the package packaging/python/platformkit_fake with
// p's binary in its bin/, its metadata, entry points (the pytest plugin and the platformfake
// command) and RECORD. A wheel is a zip file, so the standard library builds it.
func wheel(root, out, pyVer string, lic license, p Platform) error {
	distInfo := strings.ReplaceAll(pyDist, "-", "_") + "-" + pyVer + ".dist-info"
	type entry struct {
		name string
		data []byte
		mode fs.FileMode
	}
	var entries []entry
	src := filepath.Join(root, "packaging", "python")
	err := fs.WalkDir(os.DirFS(src), pyPkg, func(name string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			if d != nil && d.IsDir() && d.Name() == "__pycache__" {
				return fs.SkipDir
			}
			return err
		}
		if !strings.HasSuffix(name, ".py") {
			return nil
		}
		b, err := os.ReadFile(filepath.Join(src, filepath.FromSlash(name)))
		entries = append(entries, entry{name, b, 0o644})
		return err
	})
	if err != nil {
		return err
	}
	bin, err := os.ReadFile(binary(out, p))
	if err != nil {
		return err
	}
	entries = append(entries, entry{pyPkg + "/bin/" + p.exe("platformfake"), bin, 0o755})

	readme, err := os.ReadFile(filepath.Join(src, "README.md"))
	if err != nil {
		return err
	}
	metadata := "Metadata-Version: 2.1\n" +
		"Name: " + pyDist + "\n" +
		"Version: " + pyVer + "\n" +
		"Summary: The platformkit fake Platform API server, with a pytest plugin: one server per session, one namespace per test\n" +
		"License: " + lic.spdx + "\n" +
		"Requires-Python: >=3.8\n" +
		"Classifier: Framework :: Pytest\n" +
		"Description-Content-Type: text/markdown\n\n" + string(readme)
	entries = append(entries,
		entry{distInfo + "/METADATA", []byte(metadata), 0o644},
		entry{distInfo + "/WHEEL", []byte("Wheel-Version: 1.0\nGenerator: platformkit-dist\nRoot-Is-Purelib: false\nTag: py3-none-" + p.WheelTag + "\n"), 0o644},
		entry{distInfo + "/LICENSE", lic.text, 0o644},
		entry{distInfo + "/entry_points.txt", []byte("[console_scripts]\nplatformfake = " + pyPkg + ".__main__:main\n\n[pytest11]\nplatformkit_fake = " + pyPkg + ".pytest_plugin\n"), 0o644},
	)
	sort.Slice(entries, func(i, j int) bool { return entries[i].name < entries[j].name })

	// RECORD lists every file with its hash (urlsafe base64 of the SHA-256, unpadded) and size;
	// its own line has neither.
	var record strings.Builder
	for _, e := range entries {
		h := sha256.Sum256(e.data)
		fmt.Fprintf(&record, "%s,sha256=%s,%d\n", e.name, base64.RawURLEncoding.EncodeToString(h[:]), len(e.data))
	}
	record.WriteString(distInfo + "/RECORD,,\n")
	entries = append(entries, entry{distInfo + "/RECORD", []byte(record.String()), 0o644})

	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for _, e := range entries {
		// A fixed time: the same sources give the same wheel. pip restores the executable bit
		// from the mode.
		hdr := &zip.FileHeader{Name: e.name, Method: zip.Deflate, Modified: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
		hdr.SetMode(e.mode)
		w, err := zw.CreateHeader(hdr)
		if err != nil {
			return err
		}
		if _, err := w.Write(e.data); err != nil {
			return err
		}
	}
	if err := zw.Close(); err != nil {
		return err
	}
	dst := filepath.Join(out, "python", wheelName(pyVer, p))
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return err
	}
	return os.WriteFile(dst, buf.Bytes(), 0o644)
}
