package tunnels

import (
	"encoding/json"

	"github.com/platformkit/platformkit/fake/internal/areas/admin"

	"github.com/platformkit/platformkit/fake/internal/core"
)

// /v1/tunnels: the tunnels interface the official SDKs call (anthropic-sdk-go v1.84.0,
// BetaTunnelService and BetaTunnelCertificateService, beta TunnelsAPIBeta). It serves the same
// tunnels, from the same state, as /v1/organizations/tunnels (tunnels.go), whose handlers it
// shares; it adds create and update, and the SDKs' optional workspace header, which scopes a
// request to one workspace's tunnels.

// hTunnelWorkspace declares the header on every /v1/tunnels route.
var hTunnelWorkspace = core.WorkspaceParams("Scope the request to this workspace (wrkspc_...): create puts the tunnel there, the list shows only its tunnels, and a tunnel of another workspace is not found.")

// tunnelWorkspace is the workspace a /v1/tunnels request is scoped to, "" when none (and on
// /v1/organizations/tunnels, whose routes do not read the header), with the header's name as
// sent; a malformed one is a 400 naming the header.
func tunnelWorkspace(c *core.Call) (ws, header string, err error) {
	if c.Route.Ifc != core.IfTunnelsAPI {
		return "", "", nil
	}
	return c.Workspace()
}

// listTunnelsAPI serves GET /v1/tunnels: the caller's tunnels, newest first, of the request's
// workspace when it names one.
func listTunnelsAPI(s *core.Server, c *core.Call) (any, error) {
	ws, _, err := tunnelWorkspace(c)
	if err != nil {
		return nil, err
	}
	return tunnelPage(s, c, ws, ws != "")
}

// tunnelChange is a create or update body: display_name, 1 to 255 characters (set tells a null,
// which clears it on update, from an absent field, which changes nothing).
type tunnelChange struct {
	set         bool
	displayName *string
}

// readTunnelChange validates the body against the route's schema (which bounds display_name
// to 1 to 255 characters, as spec 2.17 counts them) and decodes it.
func readTunnelChange(c *core.Call) (tunnelChange, error) {
	var req struct {
		DisplayName json.RawMessage `json:"display_name"`
	}
	if err := c.BindValid(&req); err != nil {
		return tunnelChange{}, err
	}
	ch := tunnelChange{set: req.DisplayName != nil}
	if ch.set && string(req.DisplayName) != "null" {
		var name string
		if err := json.Unmarshal(req.DisplayName, &name); err != nil {
			return ch, core.InvalidField("display_name", "must be a string or null")
		}
		ch.displayName = &name
	}
	return ch, nil
}

// createTunnelAPI serves POST /v1/tunnels: a tunnel of the caller's organization, in the
// request's workspace (which must be one of the organization's, not archived) or the default
// workspace, with a domain no tunnel has had.
func createTunnelAPI(s *core.Server, c *core.Call) (any, error) {
	ch, err := readTunnelChange(c)
	if err != nil {
		return nil, err
	}
	ws, header, err := tunnelWorkspace(c)
	if err != nil {
		return nil, err
	}
	t := Tunnel{Type: "tunnel", DisplayName: ch.displayName}
	if ws != "" {
		a := admin.StoreOf(s, c)
		a.Mu.Lock()
		w, err := a.FindWorkspace(c.Org, ws)
		archived := err == nil && w.ArchivedAt != nil
		a.Mu.Unlock()
		switch {
		case err != nil:
			return nil, core.InvalidField(header, "the organization has no workspace %s", core.Quoted(ws, core.MaxExcerpt))
		case archived:
			return nil, core.InvalidField(header, "workspace %s is archived; it takes no new tunnels", ws)
		}
		t.WorkspaceID = &ws
	}
	return addTunnel(s, StoreOf(s, c.St), c.Org, t), nil
}

// updateTunnelAPI serves POST /v1/tunnels/{tunnel_id}: display_name is set, or cleared by null;
// a body without it changes nothing. An archived tunnel is read-only (spec 3.3: archival is
// final).
func updateTunnelAPI(s *core.Server, c *core.Call) (any, error) {
	ch, err := readTunnelChange(c)
	if err != nil {
		return nil, err
	}
	return withTunnel(s, c, func(_ *Store, rec *TunnelRec) (any, error) {
		if err := rec.live("it can no longer be changed"); err != nil {
			return nil, err
		}
		if ch.set {
			rec.DisplayName = ch.displayName
			rec.encoded.Drop()
		}
		return rec.json()
	})
}

// The operations /v1/tunnels shares with /v1/organizations/tunnels, under names of their own:
// the OpenAPI documents name each operation after its handler, and an operationId is unique.

func getTunnelAPI(s *core.Server, c *core.Call) (any, error)         { return getTunnel(s, c) }
func revealTunnelTokenAPI(s *core.Server, c *core.Call) (any, error) { return revealTunnelToken(s, c) }
func rotateTunnelTokenAPI(s *core.Server, c *core.Call) (any, error) { return rotateTunnelToken(s, c) }
func archiveTunnelAPI(s *core.Server, c *core.Call) (any, error)     { return archiveTunnel(s, c) }
func createTunnelCertificateAPI(s *core.Server, c *core.Call) (any, error) {
	return createTunnelCertificate(s, c)
}
func listTunnelCertificatesAPI(s *core.Server, c *core.Call) (any, error) {
	return listTunnelCertificates(s, c)
}
func getTunnelCertificateAPI(s *core.Server, c *core.Call) (any, error) {
	return getTunnelCertificate(s, c)
}
func archiveTunnelCertificateAPI(s *core.Server, c *core.Call) (any, error) {
	return archiveTunnelCertificate(s, c)
}
