package conformance

import (
	"fmt"
	"os"
	"testing"
)

// TestMain prints the run's summary line after everything else the test binary prints (ginkgo's
// output, the testing package's verdict), so that it is the last line of a run.
func TestMain(m *testing.M) {
	code := m.Run()
	if run != nil {
		fmt.Println(run.Summary())
	}
	os.Exit(code)
}

// TestConformance runs the suite (RunSuite) against the target the environment names;
// CONFORMANCE_REPORTS names a directory for the reports (none when unset).
func TestConformance(t *testing.T) {
	if _, err := RunSuite(t, os.Stdout, os.Getenv, os.Getenv("CONFORMANCE_REPORTS")); err != nil {
		t.Error(err)
	}
}
