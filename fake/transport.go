package fake

import (
	"net/http"
	"strings"
	"sync"

	"github.com/platformkit/platformkit/fake/internal/core"
)

// CredentialTransport is an http.RoundTripper for talking to a fake that serves the default
// fixtures. To each request for a route of the API it adds what that route's interface needs and
// the request does not carry itself:
//
//   - the interface's default credential (DefaultAPIKey, DefaultAdminKey, DefaultComplianceKey
//     or DefaultBearerToken, in the header the interface reads), unless the request already has
//     an X-Api-Key or Authorization header;
//   - vendor-version: APIVersion, where the interface requires it;
//   - vendor-beta: the value the interface requires (TunnelsBeta on /v1/organizations/tunnels,
//     TunnelsAPIBeta on /v1/tunnels), unless the request has a vendor-beta.
//
// Requests for the control API, and for paths the fake does not serve, pass unchanged. A test
// that must send no credential at all uses a client without this transport
// (TestServer.Server.Client()). The zero value is ready to use.
type CredentialTransport struct {
	// Base carries the requests; nil means http.DefaultTransport.
	Base http.RoundTripper
}

// RoundTrip implements http.RoundTripper. It never changes req: it sends a copy.
func (t *CredentialTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	base := t.Base
	if base == nil {
		base = http.DefaultTransport
	}
	ifc := interfaceOfPath(req.URL.Path)
	if ifc == nil {
		return base.RoundTrip(req)
	}
	req = req.Clone(req.Context())
	if req.Header.Get(core.HeaderAPIKey) == "" && req.Header.Get(core.HeaderAuthorization) == "" {
		switch a := ifc.Accepts[0]; a.Header {
		case core.HeaderAuthorization:
			req.Header.Set(core.HeaderAuthorization, "Bearer "+defaultSecrets[a.Kind])
		default:
			req.Header.Set(a.Header, defaultSecrets[a.Kind])
		}
	}
	if ifc.Version && req.Header.Get("vendor-version") == "" {
		req.Header.Set("vendor-version", core.APIVersion)
	}
	if ifc.Beta != "" && len(req.Header.Values("vendor-beta")) == 0 {
		req.Header.Set("vendor-beta", ifc.Beta)
	}
	return base.RoundTrip(req)
}

// defaultSecrets is the default credential of each kind an interface reads first.
var defaultSecrets = map[core.CredKind]string{
	core.KindAPIKey:         core.DefaultAPIKey,
	core.KindAdminKey:       core.DefaultAdminKey,
	core.KindComplianceKey:  core.DefaultComplianceKey,
	core.KindBearerToken:    core.DefaultBearerToken,
	core.KindEnvironmentKey: core.DefaultEnvironmentKey,
}

// routePatterns is the route table's paths split into segments, with the interface of each.
var routePatterns = sync.OnceValue(func() []routePattern {
	var out []routePattern
	for _, rt := range core.Routes() {
		if rt.Ifc != nil {
			out = append(out, routePattern{strings.Split(rt.Path, "/"), rt.Ifc})
		}
	}
	return out
})

type routePattern struct {
	segments []string
	ifc      *core.Iface
}

// interfaceOfPath returns the interface of the API route that serves path (with any method), or
// nil when no route of the API does. Every route sharing a path shape shares its interface, which
// TestInterfaceOfPathFollowsTheRouteTable checks, so the first match is the answer. A path in a
// namespace (/ns/<name>/...) is matched without its prefix, as the server routes it.
func interfaceOfPath(path string) *core.Iface {
	if after, ok := strings.CutPrefix(path, core.NsPrefix); ok {
		if _, rest, ok := strings.Cut(after, "/"); ok {
			path = "/" + rest
		}
	}
	segs := strings.Split(path, "/")
	for _, p := range routePatterns() {
		if matchSegments(p.segments, segs) {
			return p.ifc
		}
	}
	return nil
}

// matchSegments reports whether a path's segments fit a route's, where ":name" fits any
// non-empty segment.
func matchSegments(pattern, segs []string) bool {
	if len(pattern) != len(segs) {
		return false
	}
	for i, p := range pattern {
		if p != segs[i] && (!strings.HasPrefix(p, ":") || segs[i] == "") {
			return false
		}
	}
	return true
}
