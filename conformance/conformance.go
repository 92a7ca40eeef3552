// Package conformance is a contract test suite for the Platform API: checks that any deployment
// (or the fake) must pass, each naming the clause of the specification it verifies. The ginkgo
// suite in this directory runs them; docs/operators.md lists the environment variables.
//
// This package is the suite's public face: RunSuite, ConfigFromEnv, Checks, RunCheck and the
// types they use, under the names it has always exported. It sits over the framework, package
// kit (whose documentation draws the layers), and imports every package of checks so that they
// are registered; layering_test.go holds each package to its layer. A new area's checks go in a
// new package, conformance/<area>, imported here and named in layering_test.go.
package conformance

import (
	"context"
	"io"
	"os"

	"github.com/onsi/ginkgo/v2"

	"github.com/platformkit/platformkit/conformance/kit"

	// The areas, whose init functions register their checks with kit, and the packages of checks
	// across areas. Checks sorts them by ID, so the order here changes no list or report.
	_ "github.com/platformkit/platformkit/conformance/admin"
	_ "github.com/platformkit/platformkit/conformance/agents"
	_ "github.com/platformkit/platformkit/conformance/batches"
	_ "github.com/platformkit/platformkit/conformance/compliance"
	_ "github.com/platformkit/platformkit/conformance/consistency"
	_ "github.com/platformkit/platformkit/conformance/core"
	_ "github.com/platformkit/platformkit/conformance/files"
	_ "github.com/platformkit/platformkit/conformance/filters"
	_ "github.com/platformkit/platformkit/conformance/memory"
	_ "github.com/platformkit/platformkit/conformance/messages"
	_ "github.com/platformkit/platformkit/conformance/models"
	_ "github.com/platformkit/platformkit/conformance/sdkroutes"
	_ "github.com/platformkit/platformkit/conformance/skills"
	_ "github.com/platformkit/platformkit/conformance/tunnels"
	_ "github.com/platformkit/platformkit/conformance/vaults"
	_ "github.com/platformkit/platformkit/conformance/versions"
	_ "github.com/platformkit/platformkit/conformance/work"
)

// The framework's types, under the names this package has always exported them by.
type (
	Bug           = kit.Bug
	Check         = kit.Check
	Client        = kit.Client
	Config        = kit.Config
	Counts        = kit.Counts
	Cred          = kit.Cred
	Exchange      = kit.Exchange
	Label         = kit.Label
	NoAnswerError = kit.NoAnswerError
	Outcome       = kit.Outcome
	Request       = kit.Request
	Response      = kit.Response
	Result        = kit.Result
	Run           = kit.Run
	T             = kit.T
	Target        = kit.Target
)

// The framework's constants: labels, credentials, outcomes, report files and defaults.
const (
	APIKey             = kit.APIKey
	Admin              = kit.Admin
	AdminKey           = kit.AdminKey
	AreaCred           = kit.AreaCred
	BearerToken        = kit.BearerToken
	ClauseFake         = kit.ClauseFake
	Compliance         = kit.Compliance
	ComplianceKey      = kit.ComplianceKey
	Core               = kit.Core
	DefaultAPIVersion  = kit.DefaultAPIVersion
	DefaultTimeout     = kit.DefaultTimeout
	Destructive        = kit.Destructive
	Disabled           = kit.Disabled
	EnvironmentKey     = kit.EnvironmentKey
	Error              = kit.Error
	Extension          = kit.Extension
	Failed             = kit.Failed
	FakeAPIKey         = kit.FakeAPIKey
	FakeAdminKey       = kit.FakeAdminKey
	FakeBearerToken    = kit.FakeBearerToken
	FakeComplianceKey  = kit.FakeComplianceKey
	FakeEnvironmentKey = kit.FakeEnvironmentKey
	FakeOnly           = kit.FakeOnly
	Files              = kit.Files
	HTMLFile           = kit.HTMLFile
	HumanFile          = kit.HumanFile
	JUnitFile          = kit.JUnitFile
	Memory             = kit.Memory
	Messages           = kit.Messages
	Models             = kit.Models
	NoCred             = kit.NoCred
	Passed             = kit.Passed
	ResultsFile        = kit.ResultsFile
	Tunnels            = kit.Tunnels
	Unsupported        = kit.Unsupported
	V20230601          = kit.V20230601
	V20261021          = kit.V20261021
	Work               = kit.Work
	WorkEnqueueTimeout = kit.WorkEnqueueTimeout
)

// The framework's area list and clause titles (the same slice and map, not copies).
var (
	Areas   = kit.Areas
	Clauses = kit.Clauses
)

// Begin is the framework's Begin (package kit).
func Begin(ctx context.Context, cfg kit.Config, onBug func(string), w io.Writer) *kit.Run {
	return kit.Begin(ctx, cfg, onBug, w)
}

// Checks is the framework's Checks (package kit).
func Checks() []kit.Check { return kit.Checks() }

// ClauseIDs is the framework's ClauseIDs (package kit).
func ClauseIDs() []string { return kit.ClauseIDs() }

// Commit is the framework's Commit (package kit).
func Commit() string { return kit.Commit() }

// Compare is the framework's Compare (package kit).
func Compare(files []string, selectedOnly bool) (page string, differ bool, err error) {
	return kit.Compare(files, selectedOnly)
}

// CompareMain is the framework's CompareMain (package kit).
func CompareMain(name string, args []string, stdout io.Writer, stderr io.Writer) int {
	return kit.CompareMain(name, args, stdout, stderr)
}

// ConfigFromEnv is the framework's ConfigFromEnv (package kit).
func ConfigFromEnv(getenv func(string) string) kit.Config { return kit.ConfigFromEnv(getenv) }

// InterfaceChecks is the framework's InterfaceChecks (package kit).
func InterfaceChecks(area kit.Label, path string, schema string) []kit.Check {
	return kit.InterfaceChecks(area, path, schema)
}

// InterfaceChecksFor is the framework's InterfaceChecksFor (package kit).
func InterfaceChecksFor(area kit.Label, ok func(t *kit.T) kit.Request) []kit.Check {
	return kit.InterfaceChecksFor(area, ok)
}

// Open is the framework's Open (package kit).
func Open(ctx context.Context, cfg kit.Config, onBug func(string)) (*kit.Target, error) {
	return kit.Open(ctx, cfg, onBug)
}

// Register is the framework's Register (package kit).
func Register(checks ...kit.Check) { kit.Register(checks...) }

// RunCheck is the framework's RunCheck (package kit).
func RunCheck(ctx context.Context, tg *kit.Target, c kit.Check) (o kit.Outcome) {
	return kit.RunCheck(ctx, tg, c)
}

// RunSuite is the framework's RunSuite (package kit).
func RunSuite(t ginkgo.GinkgoTestingT, stdout *os.File, getenv func(string) string, reportsDir string) (*kit.Run, error) {
	return kit.RunSuite(t, stdout, getenv, reportsDir)
}

// Version is the framework's Version (package kit).
func Version() string { return kit.Version() }
