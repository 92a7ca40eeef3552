package fake

import (
	"encoding/json"
	"strings"
)

// /v1/tunnels: the tunnels interface the official SDKs call (anthropic-sdk-go v1.84.0,
// BetaTunnelService and BetaTunnelCertificateService, beta TunnelsAPIBeta). It serves the same
// tunnels, from the same state, as /v1/organizations/tunnels (tunnels.go), whose handlers it
// shares; it adds create and update, and the SDKs' optional workspace header, which scopes a
// request to one workspace's tunnels.

// headerWorkspaceID is the SDKs' optional workspace header (anthropic-workspace-id in their
// spelling): create puts the tunnel in that workspace, the list shows only its tunnels, and a
// tunnel of another workspace is not found.
const headerWorkspaceID = "Vendor-Workspace-ID"

// sdkHeaderWorkspaceID is the name the official SDKs send it under; headerWorkspaceID decides when
// both are sent.
const sdkHeaderWorkspaceID = "Anthropic-Workspace-ID"

// hTunnelWorkspace declares the header on every /v1/tunnels route.
var hTunnelWorkspace = []param{{name: headerWorkspaceID, kind: pString,
	doc: "Scope the request to this workspace (wrkspc_...): create puts the tunnel there, the list shows only its tunnels, and a tunnel of another workspace is not found."},
	{name: sdkHeaderWorkspaceID, kind: pString, doc: "The same as " + headerWorkspaceID + ", under the name the official SDKs send; " + headerWorkspaceID + " decides when both are sent."}}

// tunnelWorkspace is the workspace a /v1/tunnels request is scoped to, "" when none (and on
// /v1/organizations/tunnels, whose routes do not read the header); a malformed one is a 400
// naming the header.
func tunnelWorkspace(c *call) (string, error) {
	if c.route.ifc != ifTunnelsAPI {
		return "", nil
	}
	ws := strings.TrimSpace(c.declaredHeader(headerWorkspaceID))
	if ws == "" {
		ws = strings.TrimSpace(c.declaredHeader(sdkHeaderWorkspaceID))
	}
	if ws != "" && !workspaceIDPattern.MatchString(ws) {
		return "", invalidField(tunnelWorkspaceHeader(c), "must be a workspace ID starting with \"wrkspc_\", or absent for every workspace, got %s", quoted(ws, maxExcerpt))
	}
	return ws, nil
}

// tunnelWorkspaceHeader names the workspace header a refusal is about as the request sent it:
// anthropic-workspace-id from the official SDKs, vendor-workspace-id otherwise.
func tunnelWorkspaceHeader(c *call) string {
	if strings.TrimSpace(c.declaredHeader(headerWorkspaceID)) == "" && strings.TrimSpace(c.declaredHeader(sdkHeaderWorkspaceID)) != "" {
		return strings.ToLower(sdkHeaderWorkspaceID)
	}
	return strings.ToLower(headerWorkspaceID)
}

// listTunnelsAPI serves GET /v1/tunnels: the caller's tunnels, newest first, of the request's
// workspace when it names one.
func listTunnelsAPI(s *Server, c *call) (any, error) {
	ws, err := tunnelWorkspace(c)
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
func readTunnelChange(c *call) (tunnelChange, error) {
	var req struct {
		DisplayName json.RawMessage `json:"display_name"`
	}
	if err := c.bindValid(&req); err != nil {
		return tunnelChange{}, err
	}
	ch := tunnelChange{set: req.DisplayName != nil}
	if ch.set && string(req.DisplayName) != "null" {
		var name string
		if err := json.Unmarshal(req.DisplayName, &name); err != nil {
			return ch, invalidField("display_name", "must be a string or null")
		}
		ch.displayName = &name
	}
	return ch, nil
}

// createTunnelAPI serves POST /v1/tunnels: a tunnel of the caller's organization, in the
// request's workspace (which must be one of the organization's, not archived) or the default
// workspace, with a domain no tunnel has had.
func createTunnelAPI(s *Server, c *call) (any, error) {
	ch, err := readTunnelChange(c)
	if err != nil {
		return nil, err
	}
	ws, err := tunnelWorkspace(c)
	if err != nil {
		return nil, err
	}
	t := Tunnel{Type: "tunnel", DisplayName: ch.displayName}
	if ws != "" {
		a := admin(s, c)
		a.mu.Lock()
		w, err := a.findWorkspace(c.org, ws)
		archived := err == nil && w.ArchivedAt != nil
		a.mu.Unlock()
		switch {
		case err != nil:
			return nil, invalidField(tunnelWorkspaceHeader(c), "the organization has no workspace %s", quoted(ws, maxExcerpt))
		case archived:
			return nil, invalidField(tunnelWorkspaceHeader(c), "workspace %s is archived; it takes no new tunnels", ws)
		}
		t.WorkspaceID = &ws
	}
	return addTunnel(s, tunnels(s, c.st), c.org, t), nil
}

// updateTunnelAPI serves POST /v1/tunnels/{tunnel_id}: display_name is set, or cleared by null;
// a body without it changes nothing. An archived tunnel is read-only (spec 3.3: archival is
// final).
func updateTunnelAPI(s *Server, c *call) (any, error) {
	ch, err := readTunnelChange(c)
	if err != nil {
		return nil, err
	}
	return withTunnel(s, c, func(_ *tunnelStore, rec *tunnelRec) (any, error) {
		if err := rec.live("it can no longer be changed"); err != nil {
			return nil, err
		}
		if ch.set {
			rec.DisplayName = ch.displayName
			rec.encoded.drop()
		}
		return rec.json()
	})
}

// The operations /v1/tunnels shares with /v1/organizations/tunnels, under names of their own:
// the OpenAPI documents name each operation after its handler, and an operationId is unique.

func getTunnelAPI(s *Server, c *call) (any, error)         { return getTunnel(s, c) }
func revealTunnelTokenAPI(s *Server, c *call) (any, error) { return revealTunnelToken(s, c) }
func rotateTunnelTokenAPI(s *Server, c *call) (any, error) { return rotateTunnelToken(s, c) }
func archiveTunnelAPI(s *Server, c *call) (any, error)     { return archiveTunnel(s, c) }
func createTunnelCertificateAPI(s *Server, c *call) (any, error) {
	return createTunnelCertificate(s, c)
}
func listTunnelCertificatesAPI(s *Server, c *call) (any, error) { return listTunnelCertificates(s, c) }
func getTunnelCertificateAPI(s *Server, c *call) (any, error)   { return getTunnelCertificate(s, c) }
func archiveTunnelCertificateAPI(s *Server, c *call) (any, error) {
	return archiveTunnelCertificate(s, c)
}
