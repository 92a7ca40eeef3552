// Command platformconformance runs the conformance suite against a deployment of the Platform
// API, as one binary with its checks and schemas built in: copy it to a host that reaches the
// deployment, and run it there without Go or this repository.
//
//	CONFORMANCE_BASE_URL=https://api.example.com CONFORMANCE_API_KEY=... platformconformance [-reports DIR] [-ginkgo.label-filter EXPR] ...
//	platformconformance -version
//
// It is configured by the same environment as `make conformance` (CONFORMANCE_*; with
// CONFORMANCE_BASE_URL unset it runs against an in-process fake), takes ginkgo's -ginkgo.*
// flags, prints what `go test -run TestConformance` prints, and exits 0 when the target
// conformed, 1 when it did not, 2 on a bad command line.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/platformkit/platformkit/conformance"
	"github.com/platformkit/platformkit/internal/version"
)

func main() {
	os.Exit(run(os.Args[1:], os.Getenv, os.Stdout, os.Stderr))
}

// failer stands for *testing.T: ginkgo needs only to be told that a spec failed.
type failer struct{ failed bool }

func (f *failer) Fail() { f.failed = true }

const usageHead = `platformconformance checks a deployment of the Platform API against the reference, and writes
JUnit, JSON and Markdown reports.

Usage: CONFORMANCE_BASE_URL=https://... CONFORMANCE_API_KEY=... platformconformance [flags]

The environment: CONFORMANCE_BASE_URL (unset: an in-process fake), the credentials
CONFORMANCE_API_KEY, CONFORMANCE_ADMIN_API_KEY, CONFORMANCE_COMPLIANCE_API_KEY,
CONFORMANCE_BEARER_TOKEN, CONFORMANCE_ENVIRONMENT_KEY (and their _2 variants for a second
organization), CONFORMANCE_DESTRUCTIVE=1, CONFORMANCE_WORK_ENQUEUE, CONFORMANCE_REPORTS,
CONFORMANCE_TIMEOUT, CONFORMANCE_API_VERSION.

Flags (and ginkgo's -ginkgo.label-filter, -ginkgo.focus, -ginkgo.v, ...; -h lists them all):
`

// run runs the suite with the command line args and answers the exit status.
func run(args []string, getenv func(string) string, stdout *os.File, stderr io.Writer) int {
	fl := flag.NewFlagSet("platformconformance", flag.ContinueOnError)
	// Ginkgo's flags are on the command line's flag set, bound to the configuration RunSuite
	// reads: the same flags here set the same values.
	flag.CommandLine.VisitAll(func(f *flag.Flag) { fl.Var(f.Value, f.Name, f.Usage) })
	fl.SetOutput(stderr)
	fl.Usage = func() {}
	showVersion := fl.Bool("version", false, "print the version and exit")
	apiVersion := fl.String("api-version", getenv("CONFORMANCE_API_VERSION"), "the API version the suite sends (default $CONFORMANCE_API_VERSION, else "+conformance.DefaultAPIVersion+")")
	reports := fl.String("reports", getenv("CONFORMANCE_REPORTS"), "directory to write the reports to (default $CONFORMANCE_REPORTS; none when empty)")
	if err := fl.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fmt.Fprint(stdout, usageHead)
			fl.SetOutput(stdout)
			fl.PrintDefaults()
			return 0
		}
		fmt.Fprintln(stderr, "usage: platformconformance [flags]; platformconformance -h lists them")
		return 2
	}
	if *showVersion {
		fmt.Fprintln(stdout, version.Line("platformconformance"))
		return 0
	}
	if fl.NArg() > 0 {
		fmt.Fprintf(stderr, "platformconformance: unexpected arguments %v: the target is set by CONFORMANCE_BASE_URL\n", fl.Args())
		return 2
	}
	fmt.Fprintln(stdout, "conformance: "+version.Line("platformconformance"))
	t := &failer{}
	// The flag is the variable: the suite reads it through the environment it is given.
	env := func(name string) string {
		if name == "CONFORMANCE_API_VERSION" {
			return *apiVersion
		}
		return getenv(name)
	}
	r, err := conformance.RunSuite(t, stdout, env, *reports)
	fmt.Fprintln(stdout, r.Summary())
	if err != nil {
		fmt.Fprintln(stderr, "platformconformance:", err)
		return 1
	}
	if t.failed {
		return 1
	}
	return 0
}
