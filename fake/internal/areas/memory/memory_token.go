package memory

import (
	"net/http"

	"github.com/platformkit/platformkit/fake/internal/core"
)

// A work item's sessions token on the memory routes (the official workers: "the memory_stores
// endpoints accept the per-item sessions token but reject the environment key"): it reads and
// writes the memories of the stores its session mounts, and only those; a store the session does
// not mount is 404 to it, as another organization's is. Writes to a store mounted read_only, the
// store routes themselves (list, create, update, archive, delete) and redaction are 403. Its
// writes are attributed to the session (session_actor).

// tokenScope refuses what a sessions token may not do on the route; nil for other credentials.
// It asks the sessions area, so the caller holds no lock of this area.
func tokenScope(c *core.Call) error {
	if c.Cred.Kind != core.KindSessionsToken {
		return nil
	}
	id := c.Param("memory_store_id")
	path, method := c.Route.Path, c.Request.Method
	switch path {
	case "/v1/memory_stores/:memory_store_id/memories", "/v1/memory_stores/:memory_store_id/memories/:memory_id",
		"/v1/memory_stores/:memory_store_id/memory_versions", "/v1/memory_stores/:memory_store_id/memory_versions/:memory_version_id":
	default:
		return core.PermissionDenied("a work item's sessions token reads and writes the memories of the stores its session mounts; %s %s takes the API key", method, path)
	}
	access, ok := core.MountsOf(c.St, c.Org, c.Cred.SessionID)[id]
	if !ok {
		return core.NotFound("memory store", id)
	}
	if method != http.MethodGet && access == "read_only" {
		return core.PermissionDenied("session %s mounts memory store %s read_only; its sessions token reads the memories and writes none", c.Cred.SessionID, id)
	}
	return nil
}
