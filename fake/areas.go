package fake

import (
	"github.com/platformkit/platformkit/fake/internal/areas/agents"
	"github.com/platformkit/platformkit/fake/internal/areas/compliance"
	"github.com/platformkit/platformkit/fake/internal/areas/memory"
	"github.com/platformkit/platformkit/fake/internal/areas/sessions"
	"github.com/platformkit/platformkit/fake/internal/areas/work"
	"github.com/platformkit/platformkit/fake/internal/core"
)

// The areas of the API, in order: the route table lists their lines in this order, the fixtures
// load in it, and a snapshot writes their parts in it. A new area is a line here (ARCHITECTURE.md).
func init() {
	core.RegisterAreas(
		modelsArea,
		adminArea,
		tunnelsArea,
		work.Area,
		compliance.Area,
		memory.Area,
		messagesArea,
		cacheArea,
		rateLimitArea,
		threadsArea,
		stubsArea,
		tapeArea,
		agents.Area,
		sessions.Area,
	)
}
