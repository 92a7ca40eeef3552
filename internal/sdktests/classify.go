package main

import (
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/platformkit/platformkit/internal/refusal"
)

// Categories of a failed generated test.
const (
	// catNotServed: 404 "no route" on a family of routes the fake does not implement at all
	// (refusal.Unserved lists each, with why). Reported once per family, not as a failure.
	catNotServed = "a"
	// catPlaceholder: the fake refused a placeholder the generator wrote, correctly: an ID that
	// names no record (404), or a value the API's rules refuse (placeholders lists each rule).
	catPlaceholder = "b"
	// catDrift: the fake was wrong: an answer the SDK's strict validation rejects, a refused
	// version, key, beta or field, no route on a route the fake serves the family of, or a 400
	// for a body that no listed rule refuses.
	catDrift = "c"
)

// rule is a refusal of a placeholder value that is right: the API's rules refuse the value the
// generator wrote, whatever the SDK's types let through.
type rule struct {
	message *regexp.Regexp
	reason  string
}

// placeholders are the 400s that are right for the generated tests' placeholder values, each
// with the rule that refuses it. A 400 that none matches is drift. Keep the list short and each
// reason checkable: the reference, the SDK's own documentation of the field, or the contract.
var placeholders = []rule{
	ph(`^limit: must be an integer from 1 to \d+, got "0"$`, "limit=0: every list's limit starts at 1 (the reference's ranges)"),
	ph(`^(agent_)?version: must be an integer from 1 to \d+, got "0"$`, "version=0, agent_version=0: versions are numbered from 1"),
	ph(`^after_id and before_id: give at most one of them$`, "both cursors at once: a list pages one way (the reference's cursor pages)"),
	ph(`^page: not a page token of this list`, `page="page": a page token is opaque, only a previous answer's next_page`),
	ph(`^anthropic-workspace-id: (.* is not the workspace of this API key|the organization has no workspace )`,
		"a workspace ID of no workspace of the key: the SDK documents that, if sent, it must match the credential's workspace"),
	ph(`^[a-z_.0-9]+: [a-zA-Z ]+ ".*" (was not found|does not exist)`, "a placeholder ID in the body, naming no record"),
	ph(`^email: .* already has a pending invite`, "state, not the body: an earlier test of the run invited the same address, and the fake refuses a second pending invite (its extension, check admin/invite-duplicate-refused)"),
	ph(`^ca_certificate_pem: no PEM CERTIFICATE block found`, "a placeholder string where a PEM certificate is required"),
	ph(`^inference_data_privacy: requires the anthropic-beta value "efs-2026-10-01"$`, "the SDK documents that the field requires the efs-2026-10-01 beta; the test sends another beta"),
	ph(`^diagnostics\.previous_message_id: does not match pattern '\^msg_'$`, "the SDK documents previous_message_id as the id (msg_...) of a previous response"),
	ph(`^mcp_servers\.\d+\.url: does not match pattern '\^https\?://'$`, `url="url": not a URL`),
	ph(`^desired_ttl_seconds: must be a finite number greater than 0`, "desired_ttl_seconds=0: a lease of no time"),
	ph(`^path_prefix: must start and end with "/"`, `path_prefix="path_prefix": the SDK documents a prefix such as /notes/`),
	ph(`^expected_content_sha256: must be 64 lowercase hex characters|^precondition\.content_sha256: does not match pattern '\^\[0-9a-f\]\{64\}\$'$`, "a content_sha256 the SDK documents as 64 lowercase hexadecimal characters"),
	ph(`^path: must start with "/"`, `path="xx": the SDK documents that a memory's path starts with "/"`),
	ph(`^tools\.\d+\.input_schema\.properties\.[^:]+: must be a schema`, `a property of input_schema given as the string "bar", not a JSON Schema`),
	ph(`citations: text blocks of user messages cannot carry citations at API version 2026-10-21`, "citations in a user message: refused at 2026-10-21 (the version's migration notes)"),
	ph(`^mcp_servers\.\d+: the MCP server ".*" is not used by any mcp_toolset`, "the SDK documents that each MCP server must be referenced by an mcp_toolset; unreferenced servers are rejected"),
	ph(`^vault_ids: changing a session's vaults is not yet supported`, "the SDK documents vault_ids on a session's update: not yet supported, requests setting it are rejected"),
	ph(`^vault_ids\.\d+: does not match pattern '\^vlt_`, `vault_ids=["string"]: a placeholder where a vault ID (vlt_...) goes`),
	ph(`^source: must be one of custom, vendor, anthropic, got "source"$`, `source="source": the SDK documents the skills filter as custom or anthropic`),
	ph(`^files\.\d+: the part has no filename`, "a skill's file sent without its path: the SDK documents that every file is in one top-level directory with a SKILL.md at its root"),
}

func ph(pattern, reason string) rule { return rule{regexp.MustCompile(pattern), reason} }

// verdict is the classification of one failed test.
type verdict struct {
	cat    string // catNotServed, catPlaceholder or catDrift
	group  string // the family (catNotServed) or the rule (catPlaceholder); "" for drift
	detail string // the fake's answer, or what failed
}

// classify judges a failed test by its outputs, one per key run that failed it: the output
// whose answer did not refuse the key is the one judged.
func classify(answers [][]refusal.Answer, texts []string) verdict {
	best := -1
	for i, as := range answers {
		if len(as) > 0 && (best < 0 || (isKey(answers[best]) && !isKey(as))) {
			best = i
		}
	}
	if best < 0 || isKey(answers[best]) && slices.ContainsFunc(answers, func(as []refusal.Answer) bool { return len(as) == 0 }) {
		// No HTTP answer at all (e.g. strict validation rejected an answer, or a stream broke) in
		// a run that took the key: that run says what failed.
		for i, as := range answers {
			if len(as) == 0 {
				return verdict{cat: catDrift, detail: firstText(texts[i:])}
			}
		}
		return verdict{cat: catDrift, detail: firstText(texts)}
	}
	a := answers[best][0]
	switch a.Class() {
	case refusal.Route:
		if f, ok := refusal.UnservedFamily(a.Path()); ok {
			return verdict{cat: catNotServed, group: f.Name + ": " + f.Reason}
		}
		return verdict{cat: catDrift, detail: a.Message}
	case refusal.Absent:
		return verdict{cat: catPlaceholder, group: "a placeholder ID, naming no record (404)", detail: a.Message}
	case refusal.Other:
		if a.Status == 400 {
			for _, r := range placeholders {
				if r.message.MatchString(a.Message) {
					return verdict{cat: catPlaceholder, group: r.reason, detail: a.Message}
				}
			}
		}
	}
	return verdict{cat: catDrift, detail: fmt.Sprintf("%d %s", a.Status, a.Message)}
}

func isKey(as []refusal.Answer) bool { return as[0].Class() == refusal.Key }

func firstText(texts []string) string {
	for _, t := range texts {
		if t = strings.TrimSpace(t); t != "" {
			return t
		}
	}
	return "failed without an answer of the fake"
}
