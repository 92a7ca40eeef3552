package packaging

import (
	"archive/zip"
	"bufio"
	"io"
	"net/textproto"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestReleaseDryRunNPM runs the npm step of docs/releasing.md, `npm publish --dry-run --access
// public --tag TAG FILE`, on this machine's tarballs: npm checks each as it would before
// publishing it (name, version, files), offline, with no account.
func TestReleaseDryRunNPM(t *testing.T) {
	t.Parallel()
	npm, err := exec.LookPath("npm")
	if err != nil {
		t.Skip("SKIPPED: npm is needed to dry-run publishing the npm packages, and it is not installed")
	}
	tarballs := globAll(t, filepath.Join(dist(t), "npm", "*.tgz"))
	if len(tarballs) != 2 {
		t.Fatalf("want this machine's two tarballs (the helper, its platform's binary), found %v", tarballs)
	}
	dir := t.TempDir()
	for _, tgz := range tarballs {
		// The dist build is 0.1.0-dev.0, a prerelease, for which npm requires a tag other than latest.
		out := run(t, dir, []string{"npm_config_offline=true", "npm_config_cache=" + filepath.Join(dir, "cache")},
			npm, "publish", "--dry-run", "--access", "public", "--tag", "dev", tgz)
		name := strings.TrimSuffix(filepath.Base(tgz), ".tgz")
		if !regexp.MustCompile(`(?m)^\+ @platformkit/fake(-[a-z0-9]+-[a-z0-9]+)?@`).MatchString(out) {
			t.Errorf("npm publish --dry-run %s did not say what it would publish:\n%s", name, out)
		}
		t.Logf("%s: %s", name, lastLines(out, 2))
	}
}

// TestReleaseDryRunWheel checks what PyPI checks of this machine's wheel before accepting it
// (twine check's checks, without twine, which make test does not pin): the core metadata's
// required fields, a name and version that agree with the file's name, a one-line summary, and
// a Markdown description that is the package's README; and a WHEEL file whose tag is the
// file's.
func TestReleaseDryRunWheel(t *testing.T) {
	t.Parallel()
	wheel := glob(t, filepath.Join(dist(t), "python", "*.whl"))
	m := regexp.MustCompile(`^([A-Za-z0-9_.]+)-([^-]+)-(py3-none-[^-]+)\.whl$`).FindStringSubmatch(filepath.Base(wheel))
	if m == nil {
		t.Fatalf("%s is not a wheel's file name (name-version-python-abi-platform.whl)", filepath.Base(wheel))
	}
	fileName, fileVersion, fileTag := m[1], m[2], m[3]
	z, err := zip.OpenReader(wheel)
	if err != nil {
		t.Fatal(err)
	}
	defer z.Close()
	read := func(suffix string) (textproto.MIMEHeader, string) {
		for _, f := range z.File {
			if strings.HasSuffix(f.Name, ".dist-info/"+suffix) {
				r, err := f.Open()
				if err != nil {
					t.Fatal(err)
				}
				defer r.Close()
				br := bufio.NewReader(r)
				h, err := textproto.NewReader(br).ReadMIMEHeader()
				if err != nil && err != io.EOF {
					t.Fatalf("%s: %v", f.Name, err)
				}
				body, _ := io.ReadAll(br)
				return h, string(body)
			}
		}
		t.Fatalf("the wheel has no .dist-info/%s", suffix)
		return nil, ""
	}
	meta, description := read("METADATA")
	for _, field := range []string{"Metadata-Version", "Name", "Version", "Summary", "License", "Requires-Python", "Description-Content-Type"} {
		if len(meta.Values(field)) != 1 || strings.TrimSpace(meta.Get(field)) == "" {
			t.Errorf("METADATA: want one non-empty %s, have %q", field, meta.Values(field))
		}
	}
	normalize := func(s string) string { return regexp.MustCompile(`[-_.]+`).ReplaceAllString(strings.ToLower(s), "_") }
	if normalize(meta.Get("Name")) != normalize(fileName) {
		t.Errorf("METADATA Name %q is not the file's %q", meta.Get("Name"), fileName)
	}
	if !regexp.MustCompile(`^[A-Za-z0-9]([A-Za-z0-9._-]*[A-Za-z0-9])?$`).MatchString(meta.Get("Name")) {
		t.Errorf("METADATA Name %q is not a valid project name", meta.Get("Name"))
	}
	if meta.Get("Version") != fileVersion {
		t.Errorf("METADATA Version %q is not the file's %q", meta.Get("Version"), fileVersion)
	}
	if strings.Contains(meta.Get("Summary"), "\n") {
		t.Errorf("METADATA Summary spans lines: %q", meta.Get("Summary"))
	}
	if meta.Get("Description-Content-Type") != "text/markdown" {
		t.Errorf("METADATA Description-Content-Type %q, want text/markdown (PyPI renders the README)", meta.Get("Description-Content-Type"))
	}
	readme, err := os.ReadFile(filepath.Join("python", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	if strings.TrimSpace(description) != strings.TrimSpace(string(readme)) {
		t.Errorf("the wheel's description is not packaging/python/README.md")
	}
	wheelInfo, _ := read("WHEEL")
	if tag := wheelInfo.Get("Tag"); tag != fileTag {
		t.Errorf("WHEEL Tag %q is not the file's %q", tag, fileTag)
	}
	if wheelInfo.Get("Root-Is-Purelib") != "false" {
		t.Errorf("WHEEL Root-Is-Purelib %q: a wheel with a binary is platlib", wheelInfo.Get("Root-Is-Purelib"))
	}
}
