// Package version names the build of platformkit's commands: the release version stamped at link
// time by `make dist`, else the module version `go install ...@vX` records, else the VCS revision
// of a local build. One package for every command, so that the fake and the conformance suite
// name their builds the same way.
package version

import (
	"runtime"
	"runtime/debug"
)

// stamp is set at link time: go build -ldflags "-X github.com/platformkit/platformkit/internal/version.stamp=1.2.3".
var stamp string

// String is the version of the running build: "1.2.3" when stamped, "v1.2.3" when installed with
// go install at a tag, "devel+<revision>[-dirty]" for a local build, or "devel" when the build
// recorded nothing.
func String() string {
	info, _ := debug.ReadBuildInfo()
	return from(stamp, info)
}

// from is String with its inputs given, so that every case can be tested.
func from(stamp string, info *debug.BuildInfo) string {
	if stamp != "" {
		return stamp
	}
	if info == nil {
		return "devel"
	}
	if v := info.Main.Version; v != "" && v != "(devel)" {
		return v
	}
	rev, modified := Revision(info)
	if rev == "" {
		return "devel"
	}
	dirty := ""
	if modified {
		dirty = "-dirty"
	}
	return "devel+" + rev[:min(12, len(rev))] + dirty
}

// Revision is the VCS revision a build recorded and whether its checkout had uncommitted
// changes; "" when it recorded none (a test binary, or a build outside a checkout).
func Revision(info *debug.BuildInfo) (rev string, modified bool) {
	if info == nil {
		return "", false
	}
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			modified = s.Value == "true"
		}
	}
	return rev, modified
}

// Line is what a command's -version prints: its name, its version and the Go release and platform
// it was built for, e.g. "platformfake 1.2.3 (go1.26.0 linux/amd64)".
func Line(command string) string {
	return command + " " + String() + " (" + runtime.Version() + " " + runtime.GOOS + "/" + runtime.GOARCH + ")"
}
