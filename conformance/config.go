// Package conformance is a contract test suite for the Platform API: checks that any deployment
// (or the fake) must pass, each naming the clause of the specification it verifies. The ginkgo
// suite in this directory runs them; see the README for the environment variables.
package conformance

import (
	"os"
	"strings"

	"github.com/platformkit/platformkit/fake"
)

// Config selects the target and the credentials the checks use (README: Running the conformance
// suite against a deployment).
type Config struct {
	BaseURL        string // CONFORMANCE_BASE_URL; empty: the suite starts an in-process fake
	APIKey         string // CONFORMANCE_API_KEY
	AdminKey       string // CONFORMANCE_ADMIN_API_KEY
	ComplianceKey  string // CONFORMANCE_COMPLIANCE_API_KEY
	BearerToken    string // CONFORMANCE_BEARER_TOKEN
	EnvironmentKey string // CONFORMANCE_ENVIRONMENT_KEY: a work-queue key of one environment
	// WorkEnqueue is CONFORMANCE_WORK_ENQUEUE: a shell command that enqueues one work item in the
	// environment $CONFORMANCE_ENVIRONMENT_ID and prints its ID (the contract is in enqueue.go).
	// Without it, the work-item lifecycle checks are unsupported against a deployment.
	WorkEnqueue string

	// Credentials of a second organization, for tenancy checks (CONFORMANCE_API_KEY_2, ...).
	// Checks that need them are disabled when they are empty.
	APIKey2, AdminKey2, ComplianceKey2, BearerToken2 string

	// Strict makes any unsupported check fail the run (CONFORMANCE_STRICT=1, or the test flag
	// -conformance.strict): for an operator who requires the deployment to hold what every check
	// needs. A run against the in-process fake is always strict: the fake holds it all.
	Strict bool

	// Destructive allows checks that irreversibly delete pre-existing data
	// (CONFORMANCE_DESTRUCTIVE=1). Always on against the fake.
	Destructive bool
}

// The fake's default credentials: the defaults for every credential that is not set.
const (
	FakeAPIKey         = fake.DefaultAPIKey
	FakeAdminKey       = fake.DefaultAdminKey
	FakeComplianceKey  = fake.DefaultComplianceKey
	FakeBearerToken    = fake.DefaultBearerToken
	FakeEnvironmentKey = fake.DefaultEnvironmentKey
)

// ConfigFromEnv reads the configuration from the environment through getenv (os.Getenv when nil).
func ConfigFromEnv(getenv func(string) string) Config {
	if getenv == nil {
		getenv = os.Getenv
	}
	or := func(name, def string) string {
		if v := strings.TrimSpace(getenv(name)); v != "" {
			return v
		}
		return def
	}
	c := Config{
		BaseURL:        strings.TrimRight(or("CONFORMANCE_BASE_URL", ""), "/"),
		APIKey:         or("CONFORMANCE_API_KEY", FakeAPIKey),
		AdminKey:       or("CONFORMANCE_ADMIN_API_KEY", FakeAdminKey),
		ComplianceKey:  or("CONFORMANCE_COMPLIANCE_API_KEY", FakeComplianceKey),
		BearerToken:    or("CONFORMANCE_BEARER_TOKEN", FakeBearerToken),
		EnvironmentKey: or("CONFORMANCE_ENVIRONMENT_KEY", FakeEnvironmentKey),
		WorkEnqueue:    or("CONFORMANCE_WORK_ENQUEUE", ""),
		Destructive:    or("CONFORMANCE_DESTRUCTIVE", "") == "1",
		Strict:         or("CONFORMANCE_STRICT", "") == "1",
	}
	// The second organization's fake keys are defaults only when the first's are the fake's too:
	// a deployment never has them.
	second := func(name, first, fakeFirst string) string {
		if first == fakeFirst {
			return or(name, fakeFirst+"-2")
		}
		return or(name, "")
	}
	c.APIKey2 = second("CONFORMANCE_API_KEY_2", c.APIKey, FakeAPIKey)
	c.AdminKey2 = second("CONFORMANCE_ADMIN_API_KEY_2", c.AdminKey, FakeAdminKey)
	c.ComplianceKey2 = second("CONFORMANCE_COMPLIANCE_API_KEY_2", c.ComplianceKey, FakeComplianceKey)
	c.BearerToken2 = second("CONFORMANCE_BEARER_TOKEN_2", c.BearerToken, FakeBearerToken)
	return c
}
