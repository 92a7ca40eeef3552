package conformance

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
)

// Areas lists the area labels.
var Areas = []Label{Core, Compliance, Messages, Models, Admin, Memory, Work, Tunnels}

var qualifiers = []Label{Destructive, Extension, FakeOnly}
