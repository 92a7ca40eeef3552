package conformance

// Clauses is every clause a check may name: the sections of the Platform API reference and the
// decisions of EXTENSIONS.md ("gaps §N"), where the reference is silent. TestChecksAreWellFormed keeps checks to it, and
// `go test -run TestCoverage -v ./conformance` prints which checks verify each clause.
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
	"gaps §3": "Pagination", "gaps §4": "Messages", "gaps §5": "Legacy completions",
	"gaps §5b": "Models", "gaps §6": "Administration", "gaps §7": "Memory stores",
	"gaps §8": "Environments and the work queue", "gaps §9": "Tunnels", "gaps §10": "Compliance",
	"DESIGN": "The fake's contract (README): control API, determinism",
}
