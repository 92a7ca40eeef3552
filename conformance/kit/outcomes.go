package kit

import (
	"errors"
	"fmt"
	"net"
	"net/url"
	"os"
)

// Outcomes of a check, as the summary and the reports count them.
const (
	Passed      = "passed"
	Failed      = "failed"
	Unsupported = "unsupported" // the target answered validly that it does not do this
	// Blocked: a precondition failed (a route not served, a model list of another shape), and
	// the message is its cause, which the reports list once with every check it blocked.
	Blocked       = "blocked"
	NotConfigured = "not configured" // a variable the check needs is not set
	Disabled      = "disabled"       // turned off by configuration (or not selected)
	Error         = "error"          // the suite itself broke
)

// interfaces names, by the variable of its credential, what an unset credential leaves unchecked.
var interfaces = map[string]string{
	"CONFORMANCE_API_KEY":              "the API key's interfaces (models, messages, memory, work)",
	"CONFORMANCE_ADMIN_API_KEY":        "the Admin API",
	"CONFORMANCE_COMPLIANCE_API_KEY":   "the Compliance API",
	"CONFORMANCE_BEARER_TOKEN":         "MCP tunnels (a workload-identity token)",
	"CONFORMANCE_ENVIRONMENT_KEY":      "an environment's work queue (an environment key)",
	"CONFORMANCE_API_KEY_2":            "tenancy, with a second organization's API key",
	"CONFORMANCE_ADMIN_API_KEY_2":      "tenancy, with a second organization's admin key",
	"CONFORMANCE_COMPLIANCE_API_KEY_2": "tenancy, with a second organization's compliance key",
	"CONFORMANCE_BEARER_TOKEN_2":       "tenancy, with a second organization's workload-identity token",
}

// notSet is the one line of every check that needs the credential set by variable name, which
// is not set: the same line for each, so that the summary counts them under one.
func notSet(name string) string {
	return fmt.Sprintf("%s is not set: export it to run the checks of %s", name, interfaces[name])
}

// transportCause is the part of a transport error an operator acts on: "connection refused",
// "lookup api.example: no such host", not the Go call that failed.
func transportCause(err error) error {
	var dns *net.DNSError
	var sys *os.SyscallError
	var ue *url.Error
	switch {
	case errors.As(err, &dns):
		return dns
	case errors.As(err, &sys):
		return sys.Err
	case errors.As(err, &ue) && ue.Timeout():
		return errors.New("no answer in time")
	case errors.As(err, &ue):
		return ue.Err
	}
	return err
}
