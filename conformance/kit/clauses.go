package kit

import (
	"sort"
	"strconv"
	"strings"
)

// Clauses is every clause a check may name, with its title. There are three kinds:
//
//   - "1" to "9" with subsections ("4.7"): sections of the Platform API reference, the statements
//     every deployment must satisfy;
//   - "gaps §1" to "gaps §10": the project's decisions where the reference is silent (listed in
//     conformance/EXTENSIONS.md); checks of them carry the extension label, since a deployment that
//     decided otherwise is different, not wrong;
//   - "fake": the fake's own contract beyond the reference (tenancy, its control API,
//     determinism); checks of its control API are fake-only.
//
// TestChecksAreWellFormed keeps checks to this list, and conformance/CHECKS.md lists the checks of
// each clause.
var Clauses = map[string]string{
	"1": "What the service does", "2.1": "Pagination shapes", "2.2": "Chat (list item)",
	"2.3": "Chat with messages", "2.4": "File metadata", "2.5": "Generated-file metadata",
	"2.6": "Project", "2.7": "Deletion confirmations (compliance)", "2.8": "Completion (legacy)",
	"2.9": "Message", "2.10": "Model info", "2.11": "Organization, invite, user, workspace",
	"2.12": "Rate-limit entries", "2.13": "Memory store", "2.14": "Memory", "2.15": "Memory version",
	"2.16": "Work item", "2.17": "Tunnel, tunnel token, tunnel certificate",
	"3.1": "Work item states", "3.2": "Invite states", "3.3": "Tunnel states",
	"3.4": "Tunnel certificate states", "3.5": "Memory and memory store",
	"4.1": "Compliance: chats", "4.2": "Compliance: files and generated files",
	"4.3": "Compliance: projects", "4.4": "Messages and completions", "4.5": "Models",
	"4.6": "Administration", "4.7": "Memory stores", "4.8": "Work queue",
	"4.9": "Tunnels and tunnel certificates", "5": "Authentication", "6": "Events", "7": "Errors",
	"8": "Limits", "9": "Versioning",
	"gaps §1": "Errors and response headers", "gaps §2": "What a well-behaved client sends",
	"gaps §3": "Pagination", "gaps §4": "Messages", "gaps §4b": "Messages: the official SDKs' request and response surface",
	"gaps §5":  "Legacy completions",
	"gaps §5b": "Models", "gaps §6": "Administration", "gaps §7": "Memory stores",
	"gaps §8": "Environments and the work queue", "gaps §9": "Tunnels", "gaps §10": "Compliance",
	"gaps §12": "Files", "gaps §13": "Message batches",
	ClauseFake: "The fake's contract: tenancy, control API, determinism, scripted answers",
}

// ClauseFake is the clause of checks of the fake's own contract rather than of the API.
const ClauseFake = "fake"

// ClauseIDs returns the keys of Clauses in reading order: the reference's sections numerically
// ("2.2" before "2.10"), then the decisions ("gaps §5" before "gaps §5b" before "gaps §6"), then
// the fake's contract.
func ClauseIDs() []string {
	ids := make([]string, 0, len(Clauses))
	for id := range Clauses {
		ids = append(ids, id)
	}
	sort.Slice(ids, func(i, j int) bool { return clauseLess(ids[i], ids[j]) })
	return ids
}

func clauseLess(a, b string) bool {
	ka, kb := clauseKey(a), clauseKey(b)
	for i := 0; i < len(ka) && i < len(kb); i++ {
		if ka[i] != kb[i] {
			return ka[i] < kb[i]
		}
	}
	if len(ka) != len(kb) {
		return len(ka) < len(kb)
	}
	return a < b
}

// clauseKey is a sort key: the kind (reference, decision, fake) then each number of the clause; a
// letter suffix ("5b") sorts after its number and before the next.
func clauseKey(id string) []int {
	kind, rest := 0, id
	switch {
	case id == ClauseFake:
		return []int{2}
	case strings.HasPrefix(id, "gaps §"):
		kind, rest = 1, strings.TrimPrefix(id, "gaps §")
	}
	key := []int{kind}
	for _, part := range strings.Split(rest, ".") {
		digits := strings.TrimRight(part, "abcdefghijklmnopqrstuvwxyz")
		n, _ := strconv.Atoi(digits)
		suffix := 0
		if len(digits) < len(part) {
			suffix = int(part[len(digits)]-'a') + 1
		}
		key = append(key, n, suffix)
	}
	return key
}
