package fake

// The OpenAPI documents are generated from the route table of the registered areas
// (fake/internal/core/openapi.go).
//
//go:generate go test -run ^TestOpenAPIDocumentsAreCurrent$ -update .

import (
	"github.com/platformkit/platformkit/fake/internal/areas/admin"
	"github.com/platformkit/platformkit/fake/internal/areas/agents"
	"github.com/platformkit/platformkit/fake/internal/areas/batches"
	"github.com/platformkit/platformkit/fake/internal/areas/compliance"
	"github.com/platformkit/platformkit/fake/internal/areas/files"
	"github.com/platformkit/platformkit/fake/internal/areas/memory"
	"github.com/platformkit/platformkit/fake/internal/areas/messages"
	"github.com/platformkit/platformkit/fake/internal/areas/messages/cache"
	"github.com/platformkit/platformkit/fake/internal/areas/messages/scenarios"
	"github.com/platformkit/platformkit/fake/internal/areas/messages/stubs"
	"github.com/platformkit/platformkit/fake/internal/areas/messages/tape"
	"github.com/platformkit/platformkit/fake/internal/areas/messages/threads"
	"github.com/platformkit/platformkit/fake/internal/areas/models"
	"github.com/platformkit/platformkit/fake/internal/areas/ratelimit"
	"github.com/platformkit/platformkit/fake/internal/areas/sessions"
	"github.com/platformkit/platformkit/fake/internal/areas/skills"
	"github.com/platformkit/platformkit/fake/internal/areas/tunnels"
	"github.com/platformkit/platformkit/fake/internal/areas/vaults"
	"github.com/platformkit/platformkit/fake/internal/areas/work"
	"github.com/platformkit/platformkit/fake/internal/core"
)

// The areas of the API, in order: the route table lists their lines in this order, the fixtures
// load in it, and a snapshot writes their parts in it. A new area is a line here (ARCHITECTURE.md).
func init() {
	core.RegisterAreas(
		models.Area,
		admin.Area,
		tunnels.Area,
		work.Area,
		compliance.Area,
		memory.Area,
		messages.Area,
		scenarios.Area,
		cache.Area,
		ratelimit.Area,
		threads.Area,
		stubs.Area,
		tape.Area,
		files.Area,
		agents.Area,
		sessions.Area,
		batches.Area,
		vaults.Area,
		skills.Area,
	)
}
