package fake

// tunnelsArea is the area of tunnels and their certificates, under /v1/organizations/tunnels and /v1/tunnels.
var tunnelsArea = &area{routes: tunnelRoutes, load: loadTunnels, snapshot: tunnelsSnapshot}

var (
	tunnelsSection = newSection[[]fixtureTunnel]()
	tunnelStores   = newStore[tunnelStore]()
)

func tunnelRoutes() []*route {
	return []*route{
		// Tunnels and tunnel certificates (spec 2.17, 3.3, 3.4, 4.9, gaps §9).
		{get, "/v1/organizations/tunnels", ifTunnels, in{query: query(qTunnelList, strParam("workspace_id", "Only the tunnels of this workspace (wrkspc_...)."))}, "tunnels/tunnel_list", listTunnels},
		{get, "/v1/organizations/tunnels/:tunnel_id", ifTunnels, in{}, "tunnels/tunnel", getTunnel},
		{post, "/v1/organizations/tunnels/:tunnel_id/reveal_token", ifTunnels, in{}, "tunnels/tunnel_token", revealTunnelToken},
		{post, "/v1/organizations/tunnels/:tunnel_id/rotate_token", ifTunnels, in{body: "tunnels/rotate_token_request"}, "tunnels/tunnel_token", rotateTunnelToken},
		{post, "/v1/organizations/tunnels/:tunnel_id/archive", ifTunnels, in{}, "tunnels/tunnel", archiveTunnel},
		{post, "/v1/organizations/tunnels/:tunnel_id/certificates", ifTunnels, in{body: "tunnels/certificate_create_request"}, "tunnels/certificate", createTunnelCertificate},
		{get, "/v1/organizations/tunnels/:tunnel_id/certificates", ifTunnels, in{query: qTunnelList}, "tunnels/certificate_list", listTunnelCertificates},
		{get, "/v1/organizations/tunnels/:tunnel_id/certificates/:certificate_id", ifTunnels, in{}, "tunnels/certificate", getTunnelCertificate},
		{post, "/v1/organizations/tunnels/:tunnel_id/certificates/:certificate_id/archive", ifTunnels, in{}, "tunnels/certificate", archiveTunnelCertificate},
		// The same tunnels under /v1/tunnels, as the official SDKs call them (tunnels_api.go).
		{get, "/v1/tunnels", ifTunnelsAPI, in{query: qTunnelList, headers: hTunnelWorkspace}, "tunnels/tunnel_list", listTunnelsAPI},
		{post, "/v1/tunnels", ifTunnelsAPI, in{headers: hTunnelWorkspace, body: "tunnels/tunnel_create_request"}, "tunnels/tunnel", createTunnelAPI},
		{get, "/v1/tunnels/:tunnel_id", ifTunnelsAPI, in{headers: hTunnelWorkspace}, "tunnels/tunnel", getTunnelAPI},
		{post, "/v1/tunnels/:tunnel_id", ifTunnelsAPI, in{headers: hTunnelWorkspace, body: "tunnels/tunnel_update_request"}, "tunnels/tunnel", updateTunnelAPI},
		{post, "/v1/tunnels/:tunnel_id/reveal_token", ifTunnelsAPI, in{headers: hTunnelWorkspace}, "tunnels/tunnel_token", revealTunnelTokenAPI},
		{post, "/v1/tunnels/:tunnel_id/rotate_token", ifTunnelsAPI, in{headers: hTunnelWorkspace, body: "tunnels/rotate_token_request"}, "tunnels/tunnel_token", rotateTunnelTokenAPI},
		{post, "/v1/tunnels/:tunnel_id/archive", ifTunnelsAPI, in{headers: hTunnelWorkspace}, "tunnels/tunnel", archiveTunnelAPI},
		{post, "/v1/tunnels/:tunnel_id/certificates", ifTunnelsAPI, in{headers: hTunnelWorkspace, body: "tunnels/certificate_create_request"}, "tunnels/certificate", createTunnelCertificateAPI},
		{get, "/v1/tunnels/:tunnel_id/certificates", ifTunnelsAPI, in{query: qTunnelList, headers: hTunnelWorkspace}, "tunnels/certificate_list", listTunnelCertificatesAPI},
		{get, "/v1/tunnels/:tunnel_id/certificates/:certificate_id", ifTunnelsAPI, in{headers: hTunnelWorkspace}, "tunnels/certificate", getTunnelCertificateAPI},
		{post, "/v1/tunnels/:tunnel_id/certificates/:certificate_id/archive", ifTunnelsAPI, in{headers: hTunnelWorkspace}, "tunnels/certificate", archiveTunnelCertificateAPI},
		{post, "/_fake/tunnels", nil, in{body: "tunnels/control_create_tunnel_request"}, "tunnels/tunnel", controlCreateTunnel},
		{post, "/_fake/tunnels/token_check", nil, in{body: "tunnels/control_token_check_request"}, "tunnels/control_token_check", controlCheckTunnelToken},
		{post, "/_fake/tunnels/:tunnel_id/gateway_check", nil, in{body: "tunnels/control_gateway_check_request"}, "tunnels/control_gateway_check", controlCheckGateway},
	}
}

var (
	qTunnelList = query(boolParam("include_archived", false, "Include archived items."), tokenParams(20, 1000))
)
