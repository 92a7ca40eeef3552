package conformance

import (
	"fmt"
	"os"
	"runtime"
	"strings"
	"testing"

	"github.com/platformkit/platformkit/fake"

	"github.com/platformkit/platformkit/conformance/kit"
)

// The package's tests spend most of their time waiting: on a deployment's wall clock for leases
// to lapse (the work checks against the fake run as a deployment, each of their bugs) and on the
// suite run again as a subprocess. go test runs at most -test.parallel tests at once, by default
// GOMAXPROCS as it stands when the testing package registers its flags, which is after this
// package's init; ginkgo refuses a -test.parallel other than GOMAXPROCS. So, unless GOMAXPROCS is
// set, the waiting tests get eight slots on any machine: on two cores the package took 3m49s
// under -race with two, 2m50s with six.
func init() {
	if os.Getenv("GOMAXPROCS") == "" && runtime.GOMAXPROCS(0) < 8 {
		runtime.GOMAXPROCS(8)
	}
}

// TestMain prints the run's summary line after everything else the test binary prints (ginkgo's
// output, the testing package's verdict), so that it is the last line of a run.
func TestMain(m *testing.M) {
	code := m.Run()
	if run := kit.LastRun(); run != nil {
		fmt.Println(run.Summary())
	}
	os.Exit(code)
}

// TestConformance runs the suite (RunSuite) against the target the environment names;
// CONFORMANCE_REPORTS names a directory for the reports (none when unset).
func TestConformance(t *testing.T) {
	if _, err := kit.RunSuite(t, os.Stdout, os.Getenv, os.Getenv("CONFORMANCE_REPORTS")); err != nil {
		t.Error(err)
	}
}

// TestConformanceAtTheOtherVersions runs the suite against the in-process fake once more for each
// API version TestConformance did not send (it sends CONFORMANCE_API_VERSION, by default
// 2023-06-01), so that go test proves the fake at every version it serves. A run against a
// deployment (CONFORMANCE_BASE_URL) is the operator's, at the version they chose: nothing to add.
func TestConformanceAtTheOtherVersions(t *testing.T) {
	t.Parallel()
	if os.Getenv("CONFORMANCE_BASE_URL") != "" {
		t.Skip("against a deployment the suite runs at the version CONFORMANCE_API_VERSION selects")
	}
	sent := kit.ConfigFromEnv(os.Getenv).APIVersion
	for _, v := range fake.APIVersions() {
		if v == sent {
			continue
		}
		t.Run(v, func(t *testing.T) {
			s := runSuite(t, map[string]string{"CONFORMANCE_API_VERSION": v})
			if s.code != 0 || !strings.Contains(s.lastLine(), " passed, 0 failed, 0 differ on extensions, 0 unsupported, ") {
				t.Errorf("the suite against the fake at %s: exit %d, %s\n%s", v, s.code, s.lastLine(), s.out)
			}
		})
	}
}
