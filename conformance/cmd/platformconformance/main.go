// Command platformconformance runs the conformance suite against a deployment of the Platform
// API, as one binary with its checks and schemas built in: copy it to a host that reaches the
// deployment, and run it there without Go or this repository.
//
//	CONFORMANCE_BASE_URL=https://api.example.com CONFORMANCE_API_KEY=... platformconformance [-reports DIR] [-ginkgo.label-filter EXPR] ...
//	platformconformance -version
//	platformconformance compare [-rerun] a/conformance-results.json b/conformance-results.json
//
// It is configured by the same environment as `make conformance` (CONFORMANCE_*; with
// CONFORMANCE_BASE_URL unset it runs against an in-process fake), takes ginkgo's -ginkgo.*
// flags, prints what `go test -run TestConformance` prints, and exits 0 when the target
// conformed, 1 when it did not, 2 on a bad command line. Its compare subcommand is
// conformance-compare, for an operator without Go.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

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
JUnit, JSON, Markdown and HTML reports (conformance-junit.xml, conformance-results.json,
conformance-report.md, conformance-report.html).

Usage: CONFORMANCE_BASE_URL=https://... CONFORMANCE_API_KEY=... platformconformance [flags]
       platformconformance compare [-rerun] RESULTS.json RESULTS.json [...]   (compare -h says more)

The environment:
  CONFORMANCE_BASE_URL            the API's root, http(s)://host[:port]; unset: an in-process fake
  CONFORMANCE_API_KEY             the API key (models, messages, memory, work)
  CONFORMANCE_ADMIN_API_KEY       an admin key (the Admin API)
  CONFORMANCE_COMPLIANCE_API_KEY  a compliance key (the Compliance API)
  CONFORMANCE_BEARER_TOKEN        a workload-identity token (MCP tunnels)
  CONFORMANCE_ENVIRONMENT_KEY     an environment key (the work queue)
      A credential not set is the fake's against the fake; against a deployment the checks of
      its interface are not configured, and the run says so, one line per interface.
  CONFORMANCE_API_KEY_2, CONFORMANCE_ADMIN_API_KEY_2, CONFORMANCE_COMPLIANCE_API_KEY_2,
  CONFORMANCE_BEARER_TOKEN_2      a second organization's, for the tenancy checks (unset: disabled)
  CONFORMANCE_DESTRUCTIVE=1       run the checks that delete pre-existing data
  CONFORMANCE_SLOW=1              run the checks that wait minutes of real time (label slow)
  CONFORMANCE_STRICT=1            an unsupported check fails the run (as -conformance.strict)
  CONFORMANCE_AS_DEPLOYMENT=1     treat the fake as a deployment: no control API, only the
                                  credentials exported (as -conformance.as-deployment)
  CONFORMANCE_TIMEOUT             per request, e.g. 90s or 2m (default 60s)
  CONFORMANCE_API_VERSION         the API version sent (as -api-version)
  CONFORMANCE_VERSION_HEADER      vendor-version or anthropic-version (unset: the one the
                                  deployment reads, found by the preflight)
  CONFORMANCE_KEY_HEADER          x-api-key or authorization (the key as a bearer token; unset:
                                  the one the deployment takes)
  CONFORMANCE_MODEL               the model the Messages checks talk to (unset: the newest listed;
                                  needed when the deployment serves no GET /v1/models)
  CONFORMANCE_WORK_ENQUEUE        a command that enqueues one work item in the environment
                                  $CONFORMANCE_ENVIRONMENT_ID and prints its ID
  CONFORMANCE_REPORTS             the reports' directory (as -reports)
  CONFORMANCE_RERUN               a results file: run only its checks that did not pass
  NO_COLOR                        no colour, even on a terminal

Flags:
`

// ginkgoHead introduces ginkgo's own flags, which -h lists after the suite's.
const ginkgoHead = `
Ginkgo's flags (select checks with -ginkgo.label-filter, -ginkgo.focus; -ginkgo.v for detail):
`

// run runs the suite with the command line args and answers the exit status.
func run(args []string, getenv func(string) string, stdout *os.File, stderr io.Writer) int {
	if len(args) > 0 && args[0] == "compare" {
		return conformance.CompareMain("platformconformance compare", args[1:], stdout, stderr)
	}
	fl := flag.NewFlagSet("platformconformance", flag.ContinueOnError)
	// The suite's own flags, which -h lists first, then ginkgo's.
	own := flag.NewFlagSet("platformconformance", flag.ContinueOnError)
	showVersion := own.Bool("version", false, "print the version and exit")
	apiVersion := own.String("api-version", getenv("CONFORMANCE_API_VERSION"), "the API version the suite sends (default $CONFORMANCE_API_VERSION, else "+conformance.DefaultAPIVersion+")")
	reports := own.String("reports", getenv("CONFORMANCE_REPORTS"), "directory to write the reports to (default $CONFORMANCE_REPORTS; none when empty)")
	own.VisitAll(func(f *flag.Flag) { fl.Var(f.Value, f.Name, f.Usage) })
	// Ginkgo's flags (and -conformance.strict) are on the command line's flag set, bound to the
	// configuration RunSuite reads: the same flags here set the same values.
	ginkgoFlags := flag.NewFlagSet("ginkgo", flag.ContinueOnError)
	flag.CommandLine.VisitAll(func(f *flag.Flag) {
		fl.Var(f.Value, f.Name, f.Usage)
		if strings.HasPrefix(f.Name, "ginkgo.") {
			ginkgoFlags.Var(f.Value, f.Name, f.Usage)
		} else if !strings.HasPrefix(f.Name, "test.") {
			own.Var(f.Value, f.Name, f.Usage)
		}
	})
	fl.SetOutput(stderr)
	fl.Usage = func() {}
	if err := fl.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fmt.Fprint(stdout, usageHead)
			own.SetOutput(stdout)
			own.PrintDefaults()
			fmt.Fprint(stdout, ginkgoHead)
			ginkgoFlags.SetOutput(stdout)
			ginkgoFlags.PrintDefaults()
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
