package refusal

import "regexp"

// Family is a group of routes the official SDKs have and the fake does not implement at all.
type Family struct {
	Pattern *regexp.Regexp // matches the paths of the family
	Name    string         // the family, as a report names it
	Reason  string         // why the fake does not serve it
}

// Unserved are the route families the fake does not serve at all. A "no route" answer on a path
// none of them matches is a route missing from a family the fake serves: the proofs that run the
// SDKs' own generated suites (examples/go-sdk/v2/sdksuite, make sdk-tests) fail on it.
var Unserved = []Family{
	family(`^/v1/deployments(/|$)`, "/v1/deployments", "agent deployments: not part of the Platform API the fake implements"),
	family(`^/v1/deployment_runs(/|$)`, "/v1/deployment_runs", "agent deployment runs: not part of the Platform API the fake implements"),
	family(`^/v1/dreams(/|$)`, "/v1/dreams", "dreams: not part of the Platform API the fake implements"),
	family(`^/v1/webhooks(/|$)`, "/v1/webhooks", "webhooks: not part of the Platform API the fake implements"),
	family(`^/v1/user_profiles(/|$)`, "/v1/user_profiles", "user profiles: not part of the Platform API the fake implements (a user_profile_id on a workspace or a request is taken as given)"),
	family(`^/v1/compliance/review(/|$)`, "/v1/compliance/review", "compliance review cases: not in the Platform API reference (the fake serves /v1/compliance/apps/..., which the SDKs have no methods for)"),
	family(`^/v1/organizations/(api_keys|service_accounts|rbac_groups|rbac_roles|federation_issuers|federation_rules|external_keys|external_storage|spend_limits?|spend_limit_increase_requests|telemetry_destinations|webhooks|plugins|plugin_marketplaces|compliance_settings|claude_code|claude_tag|analytics|usage_report|cost_report|providers)(/|$)`,
		"/v1/organizations/{api_keys, service_accounts, rbac_*, federation_*, external_*, spend_limit*, telemetry_destinations, webhooks, plugin*, compliance_settings, claude_code, claude_tag, analytics, *_report, providers}",
		"administration resources the Platform API reference does not describe: the fake serves the organization, invites, users, workspaces, rate limits and tunnels"),
	family(`^/v1/organizations/workspaces/[^/]+/(members|service_accounts)(/|$)`, "/v1/organizations/workspaces/{id}/{members, service_accounts}",
		"workspace members and service accounts: not in the Platform API reference"),
}

func family(pattern, name, reason string) Family {
	return Family{regexp.MustCompile(pattern), name, reason}
}

// UnservedFamily returns the family of Unserved that path belongs to, if any.
func UnservedFamily(path string) (Family, bool) {
	for _, f := range Unserved {
		if f.Pattern.MatchString(path) {
			return f, true
		}
	}
	return Family{}, false
}
