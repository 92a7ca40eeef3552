package tunnels

import "github.com/platformkit/platformkit/fake/internal/core"

// Area is the area of tunnels and their certificates, under /v1/organizations/tunnels and /v1/tunnels.
var Area = &core.Area{Routes: tunnelRoutes, Load: loadTunnels, Snapshot: tunnelsSnapshot}

var (
	TunnelsSection = core.NewSection[[]FixtureTunnel]()
	tunnelStores   = core.NewStore[Store]()
)

func tunnelRoutes() []*core.Route {
	return []*core.Route{
		// Tunnels and tunnel certificates (spec 2.17, 3.3, 3.4, 4.9, gaps §9).
		core.Line(core.Get, "/v1/organizations/tunnels", core.IfTunnels, core.In{Query: core.Query(qTunnelList, core.StrParam("workspace_id", "Only the tunnels of this workspace (wrkspc_...)."))}, "tunnels/tunnel_list", listTunnels),
		core.Line(core.Get, "/v1/organizations/tunnels/:tunnel_id", core.IfTunnels, core.In{}, "tunnels/tunnel", getTunnel),
		core.Line(core.Post, "/v1/organizations/tunnels/:tunnel_id/reveal_token", core.IfTunnels, core.In{}, "tunnels/tunnel_token", revealTunnelToken),
		core.Line(core.Post, "/v1/organizations/tunnels/:tunnel_id/rotate_token", core.IfTunnels, core.In{Body: "tunnels/rotate_token_request"}, "tunnels/tunnel_token", rotateTunnelToken),
		core.Line(core.Post, "/v1/organizations/tunnels/:tunnel_id/archive", core.IfTunnels, core.In{}, "tunnels/tunnel", archiveTunnel),
		core.Line(core.Post, "/v1/organizations/tunnels/:tunnel_id/certificates", core.IfTunnels, core.In{Body: "tunnels/certificate_create_request"}, "tunnels/certificate", createTunnelCertificate),
		core.Line(core.Get, "/v1/organizations/tunnels/:tunnel_id/certificates", core.IfTunnels, core.In{Query: qTunnelList}, "tunnels/certificate_list", listTunnelCertificates),
		core.Line(core.Get, "/v1/organizations/tunnels/:tunnel_id/certificates/:certificate_id", core.IfTunnels, core.In{}, "tunnels/certificate", getTunnelCertificate),
		core.Line(core.Post, "/v1/organizations/tunnels/:tunnel_id/certificates/:certificate_id/archive", core.IfTunnels, core.In{}, "tunnels/certificate", archiveTunnelCertificate),
		// The same tunnels under /v1/tunnels, as the official SDKs call them (tunnels_api.go).
		core.Line(core.Get, "/v1/tunnels", core.IfTunnelsAPI, core.In{Query: qTunnelList, Headers: hTunnelWorkspace}, "tunnels/tunnel_list", listTunnelsAPI),
		core.Line(core.Post, "/v1/tunnels", core.IfTunnelsAPI, core.In{Headers: hTunnelWorkspace, Body: "tunnels/tunnel_create_request"}, "tunnels/tunnel", createTunnelAPI),
		core.Line(core.Get, "/v1/tunnels/:tunnel_id", core.IfTunnelsAPI, core.In{Headers: hTunnelWorkspace}, "tunnels/tunnel", getTunnelAPI),
		core.Line(core.Post, "/v1/tunnels/:tunnel_id", core.IfTunnelsAPI, core.In{Headers: hTunnelWorkspace, Body: "tunnels/tunnel_update_request"}, "tunnels/tunnel", updateTunnelAPI),
		core.Line(core.Post, "/v1/tunnels/:tunnel_id/reveal_token", core.IfTunnelsAPI, core.In{Headers: hTunnelWorkspace}, "tunnels/tunnel_token", revealTunnelTokenAPI),
		core.Line(core.Post, "/v1/tunnels/:tunnel_id/rotate_token", core.IfTunnelsAPI, core.In{Headers: hTunnelWorkspace, Body: "tunnels/rotate_token_request"}, "tunnels/tunnel_token", rotateTunnelTokenAPI),
		core.Line(core.Post, "/v1/tunnels/:tunnel_id/archive", core.IfTunnelsAPI, core.In{Headers: hTunnelWorkspace}, "tunnels/tunnel", archiveTunnelAPI),
		core.Line(core.Post, "/v1/tunnels/:tunnel_id/certificates", core.IfTunnelsAPI, core.In{Headers: hTunnelWorkspace, Body: "tunnels/certificate_create_request"}, "tunnels/certificate", createTunnelCertificateAPI),
		core.Line(core.Get, "/v1/tunnels/:tunnel_id/certificates", core.IfTunnelsAPI, core.In{Query: qTunnelList, Headers: hTunnelWorkspace}, "tunnels/certificate_list", listTunnelCertificatesAPI),
		core.Line(core.Get, "/v1/tunnels/:tunnel_id/certificates/:certificate_id", core.IfTunnelsAPI, core.In{Headers: hTunnelWorkspace}, "tunnels/certificate", getTunnelCertificateAPI),
		core.Line(core.Post, "/v1/tunnels/:tunnel_id/certificates/:certificate_id/archive", core.IfTunnelsAPI, core.In{Headers: hTunnelWorkspace}, "tunnels/certificate", archiveTunnelCertificateAPI),
		core.Line(core.Post, "/_fake/tunnels", nil, core.In{Body: "tunnels/control_create_tunnel_request"}, "tunnels/tunnel", controlCreateTunnel),
		core.Line(core.Post, "/_fake/tunnels/token_check", nil, core.In{Body: "tunnels/control_token_check_request"}, "tunnels/control_token_check", controlCheckTunnelToken),
		core.Line(core.Post, "/_fake/tunnels/:tunnel_id/gateway_check", nil, core.In{Body: "tunnels/control_gateway_check_request"}, "tunnels/control_gateway_check", controlCheckGateway),
	}
}

var (
	qTunnelList = core.Query(core.BoolParam("include_archived", false, "Include archived items."), core.TokenParams(20, 1000))
)
