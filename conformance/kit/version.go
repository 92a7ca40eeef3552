package kit

import (
	"context"
	"os/exec"
	"runtime/debug"
	"strings"
	"sync"
	"time"

	"github.com/platformkit/platformkit/internal/version"
)

// Version is the suite's version: the version make dist stamped into the binary, else the module
// version it was built at (v1.2.0 when built from a published module), or "devel" when built from
// a checkout. Reports record it, with Commit, so
// that an archived report says which suite produced it.
func Version() string { return buildInfo().version }

// Commit is the VCS revision the suite was built from, with "+dirty" when the checkout had
// uncommitted changes, or "unknown". A binary built with go build carries it in its build
// information; a test binary (go test, make conformance) does not, so it is asked of git in the
// working directory, the package's, when git is installed.
func Commit() string { return buildInfo().commit }

type suiteBuild struct{ version, commit string }

var buildInfo = sync.OnceValue(func() suiteBuild {
	b := suiteBuild{version: "devel", commit: "unknown"}
	// The version make dist stamps, else the module version go install records.
	if v := version.String(); !strings.HasPrefix(v, "devel") {
		b.version = v
	}
	info, _ := debug.ReadBuildInfo()
	rev, modified := version.Revision(info)
	if rev == "" {
		rev, modified = gitRevision()
	}
	if rev != "" {
		b.commit = rev
		if modified {
			b.commit += "+dirty"
		}
	}
	return b
})

// gitRevision asks git for the checkout's revision and whether it has changes; "" when git is
// missing or this is no checkout. Bounded: a report must not wait on a hung git.
func gitRevision() (rev string, modified bool) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, "git", "rev-parse", "HEAD").Output()
	if err != nil {
		return "", false
	}
	rev = strings.TrimSpace(string(out))
	// Only tracked files: the reports directory and build outputs are not the suite's changes.
	status, err := exec.CommandContext(ctx, "git", "status", "--porcelain", "--untracked-files=no").Output()
	if err == nil && len(strings.TrimSpace(string(status))) > 0 {
		modified = true
	}
	return rev, modified
}
