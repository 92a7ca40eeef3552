package kit

import (
	"fmt"
	"net/url"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/platformkit/platformkit/fake"
)

// Config selects the target and the credentials the checks use (docs/operators.md: running the
// conformance suite against a deployment).
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
	//
	// Every credential is empty when its variable is not set; against the fake, Open fills it
	// with the fake's default (WithFakeCredentials). An empty credential makes every check that
	// needs it unsupported, naming the variable (Target.missingCredential).
	APIKey2, AdminKey2, ComplianceKey2, BearerToken2 string

	// Strict makes any unsupported check fail the run (CONFORMANCE_STRICT=1, or the test flag
	// -conformance.strict): for an operator who requires the deployment to hold what every check
	// needs. A run against the in-process fake is always strict: the fake holds it all.
	Strict bool

	// Destructive allows checks that irreversibly delete pre-existing data
	// (CONFORMANCE_DESTRUCTIVE=1). Always on against the fake.
	Destructive bool

	// AsDeployment treats the target as a deployment even when it is the fake
	// (CONFORMANCE_AS_DEPLOYMENT=1, or the test flag -conformance.as-deployment): Open does not ask
	// GET /_fake/health, so the control API is never used (fake-only checks are disabled), the
	// credentials are exactly those exported (an unset one leaves its checks unsupported), the
	// schemas are read leniently and destructive checks need CONFORMANCE_DESTRUCTIVE=1, as against
	// any deployment. It lets an operator rehearse a deployment run against a local fake, and
	// the kit's own tests run the suite that way.
	AsDeployment bool

	// Slow allows the checks that wait minutes of real time (CONFORMANCE_SLOW=1; label slow).
	Slow bool

	// Timeout bounds each request, from sending it to the end of its answer
	// (CONFORMANCE_TIMEOUT: a Go duration such as 90s or 2m, or a number of seconds; default
	// DefaultTimeout).
	Timeout time.Duration

	// APIVersion is the API version every request names in vendor-version
	// (CONFORMANCE_API_VERSION, or the binary's -api-version flag; default DefaultAPIVersion).
	// The checks whose rule differs by version run only at theirs.
	APIVersion string

	// VersionHeader is the header the API version is sent in: vendor-version (the reference's
	// name) or anthropic-version (the maker's, which real deployments and the official SDKs use).
	// CONFORMANCE_VERSION_HEADER sets it; when empty, the preflight finds the one the deployment
	// reads (Target.discover). Beta values go in the matching vendor-beta or anthropic-beta.
	VersionHeader string

	// KeyHeader is the header the API key is sent in: x-api-key (the reference's) or
	// authorization (as "Bearer <key>"). CONFORMANCE_KEY_HEADER sets it; when empty, the
	// preflight finds the one the deployment takes.
	KeyHeader string

	// Model is the model the Messages checks talk to (CONFORMANCE_MODEL); when empty, the newest
	// model the deployment lists. Without a model list (no GET /v1/models), it is what lets the
	// Messages checks run.
	Model string

	// invalid holds one line per variable that could not be read; the preflight reports them and
	// runs nothing, rather than running with a value the operator did not mean.
	invalid []string
}

// InvalidSettings are the lines of the variables ConfigFromEnv could not read, which the
// preflight reports.
func (c Config) InvalidSettings() []string { return c.invalid }

// DefaultTimeout is the request timeout when CONFORMANCE_TIMEOUT is not set: long enough for the
// slowest answer of the API (a long message), short enough that a target that never answers is
// named within a minute.
const DefaultTimeout = 60 * time.Second

// DefaultAPIVersion is the version the suite sends when CONFORMANCE_API_VERSION is not set:
// 2023-06-01, the version every deployment already served and every run before the setting
// existed sent, so an operator's run keeps asking what it asked; 2026-10-21 is opt-in.
const DefaultAPIVersion = fake.APIVersion

// maxTimeout bounds CONFORMANCE_TIMEOUT: a longer one is a typo (90000 for 90s), not a wish.
const maxTimeout = time.Hour

// The fake's default credentials: the defaults for every credential that is not set, when the
// target is the fake (WithFakeCredentials).
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
		APIKey:         or("CONFORMANCE_API_KEY", ""),
		AdminKey:       or("CONFORMANCE_ADMIN_API_KEY", ""),
		ComplianceKey:  or("CONFORMANCE_COMPLIANCE_API_KEY", ""),
		BearerToken:    or("CONFORMANCE_BEARER_TOKEN", ""),
		EnvironmentKey: or("CONFORMANCE_ENVIRONMENT_KEY", ""),
		APIKey2:        or("CONFORMANCE_API_KEY_2", ""),
		AdminKey2:      or("CONFORMANCE_ADMIN_API_KEY_2", ""),
		ComplianceKey2: or("CONFORMANCE_COMPLIANCE_API_KEY_2", ""),
		BearerToken2:   or("CONFORMANCE_BEARER_TOKEN_2", ""),
		WorkEnqueue:    or("CONFORMANCE_WORK_ENQUEUE", ""),
		Destructive:    or("CONFORMANCE_DESTRUCTIVE", "") == "1",
		Strict:         or("CONFORMANCE_STRICT", "") == "1",
		AsDeployment:   or("CONFORMANCE_AS_DEPLOYMENT", "") == "1",
		Slow:           or("CONFORMANCE_SLOW", "") == "1",
		Timeout:        DefaultTimeout,
		APIVersion:     or("CONFORMANCE_API_VERSION", DefaultAPIVersion),
		VersionHeader:  strings.ToLower(or("CONFORMANCE_VERSION_HEADER", "")),
		KeyHeader:      strings.ToLower(or("CONFORMANCE_KEY_HEADER", "")),
		Model:          or("CONFORMANCE_MODEL", ""),
	}
	if v := c.VersionHeader; v != "" && v != VendorVersion && v != MakerVersion {
		c.invalid = append(c.invalid, fmt.Sprintf("CONFORMANCE_VERSION_HEADER=%q: want %s or %s", v, VendorVersion, MakerVersion))
	}
	if v := c.KeyHeader; v != "" && v != KeyInXAPIKey && v != KeyInAuthorization {
		c.invalid = append(c.invalid, fmt.Sprintf("CONFORMANCE_KEY_HEADER=%q: want %s or %s (as Bearer)", v, KeyInXAPIKey, KeyInAuthorization))
	}
	if !slices.Contains(fake.APIVersions(), c.APIVersion) {
		c.invalid = append(c.invalid, fmt.Sprintf("CONFORMANCE_API_VERSION=%q: not an API version the suite knows; want one of %s",
			c.APIVersion, strings.Join(fake.APIVersions(), ", ")))
	}
	if v := or("CONFORMANCE_TIMEOUT", ""); v != "" {
		d, err := parseTimeout(v)
		if err != nil {
			c.invalid = append(c.invalid, fmt.Sprintf("CONFORMANCE_TIMEOUT=%q: %v", v, err))
		} else {
			c.Timeout = d
		}
	}
	return c
}

// WithFakeCredentials is c with every credential that is not set at the fake's default, which only
// the fake knows: Open applies it once the target answered as the fake, and never against a
// deployment, where an unset credential leaves the checks of its interface unsupported instead of
// sending a key the deployment can only refuse. The second organization's fake keys are defaults
// only when the first's are the fake's too.
func (c Config) WithFakeCredentials() Config {
	fill := func(first, second *string, def string) {
		if *first != "" {
			return
		}
		*first = def
		if second != nil && *second == "" {
			*second = def + "-2"
		}
	}
	fill(&c.APIKey, &c.APIKey2, FakeAPIKey)
	fill(&c.AdminKey, &c.AdminKey2, FakeAdminKey)
	fill(&c.ComplianceKey, &c.ComplianceKey2, FakeComplianceKey)
	fill(&c.BearerToken, &c.BearerToken2, FakeBearerToken)
	fill(&c.EnvironmentKey, nil, FakeEnvironmentKey)
	return c
}

// parseTimeout reads CONFORMANCE_TIMEOUT: a Go duration ("90s", "2m") or a bare number of seconds
// ("90", "1.5"), as operators write it either way.
func parseTimeout(v string) (time.Duration, error) {
	d, err := time.ParseDuration(v)
	if err != nil {
		secs, nerr := strconv.ParseFloat(v, 64)
		if nerr != nil {
			return 0, fmt.Errorf("want a duration such as 90s or 2m, or a number of seconds")
		}
		// Bounded before converting: a float beyond a Duration (or NaN) has no defined conversion.
		if !(secs > 0 && secs <= maxTimeout.Seconds()) {
			return 0, fmt.Errorf("want a duration above 0 and at most %s", maxTimeout)
		}
		d = time.Duration(secs * float64(time.Second))
	}
	if d <= 0 || d > maxTimeout {
		return 0, fmt.Errorf("want a duration above 0 and at most %s", maxTimeout)
	}
	return d, nil
}

// checkBaseURL says what is wrong with CONFORMANCE_BASE_URL, or nil: it must be the API's root as
// http(s)://host[:port][/path]. Without a scheme Go's URL parser answers with errors about "first
// path segment" or takes the host for a scheme, which tell an operator nothing.
func checkBaseURL(base string) error {
	u, err := url.Parse(base)
	if err == nil && (u.Scheme == "http" || u.Scheme == "https") && u.Host != "" && u.RawQuery == "" && u.Fragment == "" && u.User == nil {
		return nil
	}
	shown := base
	if err == nil && u.User != nil {
		shown = u.Redacted()
	}
	msg := fmt.Sprintf("CONFORMANCE_BASE_URL=%q is not a URL of the form http(s)://host[:port]", shown)
	lower := strings.ToLower(base)
	switch {
	case err == nil && u.User != nil:
		return fmt.Errorf("%s: it carries user information; credentials go in the CONFORMANCE_*KEY and CONFORMANCE_BEARER_TOKEN variables", msg)
	case !strings.Contains(base, "://") && !strings.HasPrefix(lower, "http:") && !strings.HasPrefix(lower, "https:"):
		return fmt.Errorf("%s: add the scheme, as in http://%s", msg, base)
	case err == nil && (u.RawQuery != "" || u.Fragment != ""):
		return fmt.Errorf("%s: it has a query or fragment; give the API's root", msg)
	}
	return fmt.Errorf("%s", msg)
}
