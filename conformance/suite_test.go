package conformance

import (
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/platformkit/platformkit/fake"

	"github.com/platformkit/platformkit/conformance/kit"
)

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
