// Command dist builds platformkit's release artifacts into one directory: the platformfake and
// platformconformance binaries for every platform, the npm packages of the fake, its Python
// wheels, and a SHA256SUMS file over all of them. `make dist` runs it for every platform; the
// packaging tests run it with -host to build only what the machine they run on can use, and with
// -cached to build the binary from the packages an earlier `go build` left in the build cache.
//
//	go run ./internal/dist [-out dist] [-version 0.1.0] [-host] [-cached] [-install-commands]
//
// -install-commands (make host-packages) ends by printing the commands that install what it
// built into a user's project, each by absolute path, since the packages are not on the
// registries yet.
//
// The binaries and the wheels need only the Go toolchain. The npm tarballs are made by `npm pack`
// from the package directories it writes under npm/; without npm it says so, and the
// directories are still there to pack elsewhere.
package main

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"sort"
	"strings"
)

func main() {
	out := flag.String("out", "dist", "directory to write the artifacts to (emptied first)")
	ver := flag.String("version", "0.1.0-dev.0", "release version, semver: X.Y.Z or X.Y.Z-{dev,alpha,beta,rc}.N")
	host := flag.Bool("host", false, "build only for the platform this runs on, and only what the packages carry (platformfake)")
	root := flag.String("root", ".", "the repository's root")
	cached := flag.Bool("cached", false, "build the binaries as a plain `go build` does (no -trimpath, cgo as the machine has it), from what the build cache already holds; not for a release")
	install := flag.Bool("install-commands", false, "after building, print the commands that install the packages built, by absolute path")
	flag.Parse()
	if err := build(*root, *out, *ver, *host, *cached, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "dist:", err)
		os.Exit(1)
	}
	if *install {
		if err := installCommands(*root, *out, os.Stdout); err != nil {
			fmt.Fprintln(os.Stderr, "dist:", err)
			os.Exit(1)
		}
	}
}

// installCommands prints how to install, into a user's own project, the packages build wrote to
// out: the npm tarballs and the wheels by absolute path (the registries do not have them yet),
// go install from the checkout, and the Java helper's make target.
func installCommands(root, out string, w io.Writer) error {
	absRoot, err := filepath.Abs(root)
	if err != nil {
		return err
	}
	absOut, err := filepath.Abs(out)
	if err != nil {
		return err
	}
	tgz, _ := filepath.Glob(filepath.Join(absOut, "npm", "*.tgz"))
	whl, _ := filepath.Glob(filepath.Join(absOut, "python", "*.whl"))
	sort.Strings(tgz)
	fmt.Fprintf(w, "\nInstall them into your own project (the packages are not on npm, PyPI or Maven Central yet):\n")
	if len(tgz) > 0 {
		fmt.Fprintf(w, "  npm install --save-dev %s\n", strings.Join(tgz, " "))
	} else {
		fmt.Fprintf(w, "  (npm is not installed: no npm tarballs were packed)\n")
	}
	for _, f := range whl {
		fmt.Fprintf(w, "  pip install %s\n", f)
	}
	fmt.Fprintf(w, "  cd %s && go install ./fake/cmd/platformfake     # the binary alone, into $(go env GOPATH)/bin\n", absRoot)
	fmt.Fprintf(w, "  make -C %s java-helper                         # Java: the JUnit 5 extension, into ~/.m2\n", absRoot)
	if len(whl) == 0 {
		return errors.New("no wheel was built")
	}
	return nil
}

// Platform is one operating system and architecture a release supports, named as each ecosystem
// names it.
type Platform struct {
	GOOS, GOARCH string
	// NodeOS and NodeCPU are process.platform and process.arch, the os and cpu fields of the
	// platform's npm package.
	NodeOS, NodeCPU string
	// WheelTag is the wheel's platform tag (PEP 425): which interpreters' platforms pip installs it
	// on. Go's binaries are static, so the Linux ones run on any glibc (manylinux) or musl
	// (musllinux) system; macOS needs 12 (Go 1.25's minimum).
	WheelTag string
}

// Platforms are the six of a release: linux, darwin and windows on amd64 and arm64.
var Platforms = []Platform{
	{"linux", "amd64", "linux", "x64", "manylinux_2_17_x86_64.manylinux2014_x86_64.musllinux_1_1_x86_64"},
	{"linux", "arm64", "linux", "arm64", "manylinux_2_17_aarch64.manylinux2014_aarch64.musllinux_1_1_aarch64"},
	{"darwin", "amd64", "darwin", "x64", "macosx_12_0_x86_64"},
	{"darwin", "arm64", "darwin", "arm64", "macosx_12_0_arm64"},
	{"windows", "amd64", "win32", "x64", "win_amd64"},
	{"windows", "arm64", "win32", "arm64", "win_arm64"},
}

// exe is the file name of a command on p.
func (p Platform) exe(name string) string {
	if p.GOOS == "windows" {
		return name + ".exe"
	}
	return name
}

// Commands are the binaries a release ships, by name and package.
var Commands = []struct{ Name, Pkg string }{
	{"platformfake", "./fake/cmd/platformfake"},
	{"platformconformance", "./conformance/cmd/platformconformance"},
}

const versionVar = "github.com/platformkit/platformkit/internal/version.stamp"

var semverRE = regexp.MustCompile(`^(\d+)\.(\d+)\.(\d+)(?:-(dev|alpha|beta|rc)\.(\d+))?$`)

// pep440 is the Python spelling of a release version: 1.2.3-rc.1 is 1.2.3rc1, 1.2.3-dev.0 is
// 1.2.3.dev0. Only the versions both ecosystems order the same way are accepted.
func pep440(semver string) (string, error) {
	m := semverRE.FindStringSubmatch(semver)
	if m == nil {
		return "", fmt.Errorf("version %q: want X.Y.Z or X.Y.Z-{dev,alpha,beta,rc}.N (one spelling npm and Python order alike)", semver)
	}
	v := m[1] + "." + m[2] + "." + m[3]
	switch m[4] {
	case "dev":
		v += ".dev" + m[5]
	case "alpha":
		v += "a" + m[5]
	case "beta":
		v += "b" + m[5]
	case "rc":
		v += "rc" + m[5]
	}
	return v, nil
}

// goBuild is the command that builds pkg for p into dst. A release build is static
// (CGO_ENABLED=0: it runs on any libc, and needs no C cross-compiler) and reproducible
// (-trimpath: no path of the machine that built it). Both settings change how every package is
// compiled, the standard library's included (net is compiled without cgo, and all that imports
// it after it), so no package a plain `go build` or `go test` compiled can serve them: cached
// (the packaging tests in make test) keeps go's defaults, so that the build is a link of packages
// the earlier targets compiled. What those tests check (the packages' contents, their install,
// their helpers starting the binary) does not depend on either setting; the -ldflags, which only
// the link reads, are a release's in both.
func goBuild(root, dst, pkg, ver string, p Platform, cached bool) *exec.Cmd {
	args := []string{"build", "-trimpath", "-ldflags", "-s -w -X " + versionVar + "=" + ver, "-o", dst, pkg}
	env := []string{"GOOS=" + p.GOOS, "GOARCH=" + p.GOARCH, "CGO_ENABLED=0"}
	if cached {
		args = append(args[:1], args[2:]...)
		env = env[:2]
	}
	cmd := exec.Command("go", args...)
	cmd.Dir = root
	cmd.Env = append(os.Environ(), env...)
	return cmd
}

func build(root, out, ver string, hostOnly, cached bool, log io.Writer) error {
	pyVer, err := pep440(ver)
	if err != nil {
		return err
	}
	platforms, commands := Platforms, Commands
	if hostOnly {
		commands = Commands[:1] // platformfake: the packages' tests need nothing else
		platforms = nil
		for _, p := range Platforms {
			if p.GOOS == runtime.GOOS && p.GOARCH == runtime.GOARCH {
				platforms = append(platforms, p)
			}
		}
		if platforms == nil {
			return fmt.Errorf("no release platform is %s/%s", runtime.GOOS, runtime.GOARCH)
		}
	}
	if err := os.RemoveAll(out); err != nil {
		return err
	}
	binDir := filepath.Join(out, "bin")
	if err := os.MkdirAll(binDir, 0o755); err != nil {
		return err
	}
	for _, p := range platforms {
		for _, c := range commands {
			dst, _ := filepath.Abs(filepath.Join(binDir, p.exe(c.Name+"-"+p.GOOS+"-"+p.GOARCH)))
			if b, err := goBuild(root, dst, c.Pkg, ver, p, cached).CombinedOutput(); err != nil {
				return fmt.Errorf("go build %s for %s/%s: %v\n%s", c.Pkg, p.GOOS, p.GOARCH, err, b)
			}
		}
	}
	lic, err := readLicense(root)
	if err != nil {
		return err
	}
	if err := npmPackages(root, out, ver, lic, platforms, log); err != nil {
		return err
	}
	for _, p := range platforms {
		if err := wheel(root, out, pyVer, lic, p); err != nil {
			return err
		}
	}
	return checksums(out, log)
}

// binary is where build wrote p's platformfake.
func binary(out string, p Platform) string {
	return filepath.Join(out, "bin", p.exe("platformfake-"+p.GOOS+"-"+p.GOARCH))
}

// checksums writes SHA256SUMS (the format sha256sum -c reads) over every artifact, and lists them
// with their sizes.
func checksums(out string, log io.Writer) error {
	var files []string
	err := filepath.WalkDir(out, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(out, path)
		rel = filepath.ToSlash(rel)
		// The npm package directories are what the tarballs were packed from, not artifacts.
		if d.IsDir() && strings.HasPrefix(rel, "npm/") {
			return fs.SkipDir
		}
		if !d.IsDir() {
			files = append(files, rel)
		}
		return nil
	})
	if err != nil {
		return err
	}
	sort.Strings(files)
	var sums strings.Builder
	for _, f := range files {
		b, err := os.ReadFile(filepath.Join(out, filepath.FromSlash(f)))
		if err != nil {
			return err
		}
		h := sha256.Sum256(b)
		fmt.Fprintf(&sums, "%s  %s\n", hex.EncodeToString(h[:]), f)
		fmt.Fprintf(log, "%10s  %s\n", size(len(b)), f)
	}
	if len(files) == 0 {
		return errors.New("nothing was built")
	}
	return os.WriteFile(filepath.Join(out, "SHA256SUMS"), []byte(sums.String()), 0o644)
}

// copyFile copies src to dst with mode.
func copyFile(src, dst string, mode fs.FileMode) error {
	b, err := os.ReadFile(src)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return err
	}
	return os.WriteFile(dst, b, mode)
}

// size is n bytes for a person: "17.3 MB", "9.0 kB".
func size(n int) string {
	if n < 1e6 {
		return fmt.Sprintf("%.1f kB", float64(n)/1e3)
	}
	return fmt.Sprintf("%.1f MB", float64(n)/1e6)
}

// license is the repository's LICENSE, which every package carries, and its SPDX identifier,
// which every package's metadata declares: both from the one file, so they cannot disagree.
type license struct {
	text []byte
	spdx string
}

// spdxByTitle maps a licence text's first line to its SPDX identifier.
var spdxByTitle = map[string]string{"MIT License": "MIT", "Apache License": "Apache-2.0"}

func readLicense(root string) (license, error) {
	b, err := os.ReadFile(filepath.Join(root, "LICENSE"))
	if err != nil {
		return license{}, err
	}
	title, _, _ := strings.Cut(string(b), "\n")
	id, ok := spdxByTitle[strings.TrimSpace(title)]
	if !ok {
		return license{}, fmt.Errorf("LICENSE: its first line %q names no licence dist knows (add it to spdxByTitle)", title)
	}
	return license{b, id}, nil
}
