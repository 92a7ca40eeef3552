package kit

import "github.com/platformkit/platformkit/fake"

// Label is the closed vocabulary checks are labelled with. Select with
// -ginkgo.label-filter, e.g. "models && !destructive".
type Label string

// Areas: one per area of the specification; every check has exactly one.
const (
	Core       Label = "core" // cross-cutting behaviour: credentials, errors, headers
	Compliance Label = "compliance"
	Messages   Label = "messages"
	Models     Label = "models"
	Admin      Label = "admin"
	Memory     Label = "memory"
	Work       Label = "work"
	Tunnels    Label = "tunnels"
	Files      Label = "files"
	Agents     Label = "agents" // managed agents and their sessions, the producer of the work queue
	Vaults     Label = "vaults" // vaults and their credentials, which sessions name
	Skills     Label = "skills" // skills and their versions, which agents mount
)

// Qualifiers.
const (
	// Destructive: irreversibly deletes or changes pre-existing data, or leaves behind data it
	// cannot remove (workspaces can be archived, never deleted); against a deployment it runs
	// only with CONFORMANCE_DESTRUCTIVE=1.
	Destructive Label = "destructive"
	// Extension: behaviour the fake decided where the Platform API reference is silent
	// (EXTENSIONS.md), not behaviour the reference states; a deployment that differs is not
	// wrong, only different.
	Extension Label = "extension"
	// FakeOnly: needs the fake's control API (/_fake/); disabled against other targets.
	FakeOnly Label = "fake-only"
	// Slow: waits minutes of real time against a deployment (T.Wait); it runs only with
	// CONFORMANCE_SLOW=1, or where Target.WaitFunc lets time pass without waiting.
	Slow Label = "slow"
	// Costly: spends, against a deployment, more than the short requests of other checks: a run
	// of a billed server tool (a code execution container). It runs like any check; deselect it
	// with "!costly".
	Costly Label = "costly"
	// API versions: a check of a rule that differs between versions carries its version's label
	// and runs only when the suite sends that version (CONFORMANCE_API_VERSION); at the other it
	// is disabled, saying which version it needs.
	V20230601 Label = "api-2023-06-01"
	V20261021 Label = "api-2026-10-21"
)

// VersionLabels maps each version label to the version it names.
var VersionLabels = map[Label]string{V20230601: fake.APIVersion, V20261021: fake.APIVersion20261021}

// Areas lists the area labels.
var Areas = []Label{Core, Compliance, Messages, Models, Admin, Memory, Work, Tunnels, Files, Agents, Vaults, Skills}

var Qualifiers = []Label{Destructive, Extension, FakeOnly, Slow, Costly, V20230601, V20261021}
