package main

import (
	"archive/zip"
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestPEP440(t *testing.T) {
	for in, want := range map[string]string{
		"1.2.3":         "1.2.3",
		"0.1.0-dev.0":   "0.1.0.dev0",
		"1.0.0-alpha.2": "1.0.0a2",
		"1.0.0-beta.1":  "1.0.0b1",
		"2.0.0-rc.10":   "2.0.0rc10",
	} {
		if got, err := pep440(in); err != nil || got != want {
			t.Errorf("pep440(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	for _, bad := range []string{"v1.2.3", "1.2", "1.2.3-pre.1", "1.2.3-rc1", "1.2.3+build"} {
		if _, err := pep440(bad); err == nil {
			t.Errorf("pep440(%q): no error, want one (npm and Python would not order it alike)", bad)
		}
	}
}

func TestWheelNames(t *testing.T) {
	want := map[string]string{
		"linux/amd64":   "platformkit_fake-1.2.3-py3-none-manylinux_2_17_x86_64.manylinux2014_x86_64.musllinux_1_1_x86_64.whl",
		"linux/arm64":   "platformkit_fake-1.2.3-py3-none-manylinux_2_17_aarch64.manylinux2014_aarch64.musllinux_1_1_aarch64.whl",
		"darwin/amd64":  "platformkit_fake-1.2.3-py3-none-macosx_12_0_x86_64.whl",
		"darwin/arm64":  "platformkit_fake-1.2.3-py3-none-macosx_12_0_arm64.whl",
		"windows/amd64": "platformkit_fake-1.2.3-py3-none-win_amd64.whl",
		"windows/arm64": "platformkit_fake-1.2.3-py3-none-win_arm64.whl",
	}
	if len(Platforms) != len(want) {
		t.Fatalf("%d platforms, want %d", len(Platforms), len(want))
	}
	for _, p := range Platforms {
		if got := wheelName("1.2.3", p); got != want[p.GOOS+"/"+p.GOARCH] {
			t.Errorf("%s/%s: wheel %q, want %q", p.GOOS, p.GOARCH, got, want[p.GOOS+"/"+p.GOARCH])
		}
	}
}

// The wheel is a zip whose RECORD lists every other file with its hash and size, the binary is
// executable, and the entry points register the plugin and the command.
func TestWheelContents(t *testing.T) {
	out := t.TempDir()
	p := Platforms[0]
	bin := []byte("#!/bin/sh\necho fake binary\n")
	if err := os.MkdirAll(filepath.Join(out, "bin"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(binary(out, p), bin, 0o755); err != nil {
		t.Fatal(err)
	}
	lic, err := readLicense(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	if err := wheel(filepath.Join("..", ".."), out, "1.2.3", lic, p); err != nil {
		t.Fatal(err)
	}
	zr, err := zip.OpenReader(filepath.Join(out, "python", wheelName("1.2.3", p)))
	if err != nil {
		t.Fatal(err)
	}
	defer zr.Close()
	files := map[string][]byte{}
	modes := map[string]os.FileMode{}
	for _, f := range zr.File {
		rc, err := f.Open()
		if err != nil {
			t.Fatal(err)
		}
		files[f.Name], _ = io.ReadAll(rc)
		rc.Close()
		modes[f.Name] = f.Mode()
	}
	if got := files["platformkit_fake/bin/platformfake"]; !bytes.Equal(got, bin) {
		t.Errorf("the binary in the wheel = %q, want %q", got, bin)
	}
	if modes["platformkit_fake/bin/platformfake"]&0o111 == 0 {
		t.Errorf("the binary's mode is %v: pip would install it not executable", modes["platformkit_fake/bin/platformfake"])
	}
	for _, name := range []string{"platformkit_fake/__init__.py", "platformkit_fake/pytest_plugin.py", "platformkit_fake/__main__.py"} {
		if len(files[name]) == 0 {
			t.Errorf("the wheel lacks %s", name)
		}
	}
	info := "platformkit_fake-1.2.3.dist-info/"
	for name, want := range map[string]string{
		info + "WHEEL":            "Root-Is-Purelib: false\nTag: py3-none-manylinux_2_17_x86_64.manylinux2014_x86_64.musllinux_1_1_x86_64\n",
		info + "METADATA":         "Metadata-Version: 2.1\nName: platformkit-fake\nVersion: 1.2.3\n",
		info + "LICENSE":          "MIT License\n",
		info + "entry_points.txt": "[pytest11]\nplatformkit_fake = platformkit_fake.pytest_plugin\n",
	} {
		if !strings.Contains(string(files[name]), want) {
			t.Errorf("%s = %q, want it to contain %q", name, files[name], want)
		}
	}
	// The licence the metadata declares is the one LICENSE holds.
	if !strings.Contains(string(files[info+"METADATA"]), "\nLicense: MIT\n") {
		t.Errorf("METADATA declares no License: MIT:\n%s", files[info+"METADATA"])
	}
	if !strings.Contains(string(files[info+"entry_points.txt"]), "platformfake = platformkit_fake.__main__:main") {
		t.Errorf("entry_points.txt has no platformfake console script: %q", files[info+"entry_points.txt"])
	}
	record := strings.Split(strings.TrimSpace(string(files[info+"RECORD"])), "\n")
	if len(record) != len(files) {
		t.Errorf("RECORD has %d lines for %d files", len(record), len(files))
	}
	for _, line := range record {
		name, rest, _ := strings.Cut(line, ",")
		if name == info+"RECORD" {
			if rest != "," {
				t.Errorf("RECORD's own line = %q, want no hash and no size", line)
			}
			continue
		}
		sum := sha256.Sum256(files[name])
		if want := fmt.Sprintf("sha256=%s,%d", base64.RawURLEncoding.EncodeToString(sum[:]), len(files[name])); rest != want {
			t.Errorf("RECORD: %s has %q, want %q", name, rest, want)
		}
	}
}

// A version npm and Python would not order alike is refused before anything is built.
func TestBuildRefusesABadVersion(t *testing.T) {
	out := filepath.Join(t.TempDir(), "dist")
	err := build(filepath.Join("..", ".."), out, "not-a-version", true, false, io.Discard)
	if err == nil || !strings.Contains(err.Error(), "not-a-version") {
		t.Errorf("build with a bad version: err = %v, want it named", err)
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Errorf("build with a bad version wrote %s", out)
	}
}

// A release's binaries are static and carry no path of the machine that built them; -cached
// drops both settings (they rebuild every package) and keeps the release's link flags.
func TestGoBuildSettings(t *testing.T) {
	p := Platform{GOOS: "linux", GOARCH: "arm64"}
	for _, c := range []struct {
		cached bool
		args   string
		env    string
	}{
		{false, "go build -trimpath -ldflags -s -w -X github.com/platformkit/platformkit/internal/version.stamp=1.2.3 -o /out/pf ./fake/cmd/platformfake", "GOOS=linux GOARCH=arm64 CGO_ENABLED=0"},
		{true, "go build -ldflags -s -w -X github.com/platformkit/platformkit/internal/version.stamp=1.2.3 -o /out/pf ./fake/cmd/platformfake", "GOOS=linux GOARCH=arm64"},
	} {
		cmd := goBuild("/root", "/out/pf", "./fake/cmd/platformfake", "1.2.3", p, c.cached)
		if got := strings.Join(cmd.Args, " "); got != c.args {
			t.Errorf("cached=%v: %s, want %s", c.cached, got, c.args)
		}
		if got := strings.Join(cmd.Env[len(cmd.Env)-len(strings.Fields(c.env)):], " "); got != c.env {
			t.Errorf("cached=%v: environment ends %s, want %s", c.cached, got, c.env)
		}
		if cmd.Dir != "/root" {
			t.Errorf("cached=%v: runs in %s, want /root", c.cached, cmd.Dir)
		}
	}
}
