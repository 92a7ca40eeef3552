package fake

import (
	"net/http"
	"strings"
)

// The default credentials: those of the first organization of the embedded fixtures
// (fixtures/organizations.json), one per kind. The second organization's are the same with
// SecondOrganizationSuffix appended ("test-api-key-2"); a key sees only its own organization's data.
const (
	// DefaultAPIKey goes in X-Api-Key for messages, completions, models, memory stores,
	// environments and the work queue.
	DefaultAPIKey = "test-api-key"
	// DefaultAdminKey goes in X-Api-Key for the administration interface.
	DefaultAdminKey = "test-admin-key"
	// DefaultComplianceKey goes in "Authorization: Bearer" for the compliance interface.
	DefaultComplianceKey = "test-compliance-key"
	// DefaultBearerToken is the workload-identity token of the tunnels interface, sent as
	// "Authorization: Bearer" together with "vendor-beta: " + TunnelsBeta.
	DefaultBearerToken = "test-bearer-token"
	// DefaultEnvironmentKey goes in "Authorization: Bearer" for the work endpoints of the
	// environment DefaultEnvironmentID only.
	DefaultEnvironmentKey = "test-environment-key"
	// DefaultEnvironmentID is the environment of DefaultEnvironmentKey, the first organization's
	// primary environment; it starts with queued work.
	DefaultEnvironmentID = "env_01AcmePrimary000000000001"
	// SecondOrganizationSuffix turns a default credential into the second organization's.
	SecondOrganizationSuffix = "-2"
)

// TunnelsBeta is the vendor-beta value every request of the tunnels interface carries.
const TunnelsBeta = "mcp-tunnels-2026-05-19"

// credKind is the kind of a credential (spec 5; the credential table of the README).
type credKind string

const (
	kindAPIKey         credKind = "api_key"
	kindAdminKey       credKind = "admin_key"
	kindComplianceKey  credKind = "compliance_key"
	kindBearerToken    credKind = "bearer_token"    // workload-identity token (tunnels)
	kindEnvironmentKey credKind = "environment_key" // one environment's work endpoints
)

var kindNames = map[credKind]string{
	kindAPIKey:         "an API key",
	kindAdminKey:       "an admin API key",
	kindComplianceKey:  "a compliance API key",
	kindBearerToken:    "a workload-identity bearer token",
	kindEnvironmentKey: "an environment key",
}

// credential is a fixture secret and what it grants.
type credential struct {
	ID            string   `json:"id"` // the key's ID, recorded when writes are attributed to it
	Kind          credKind `json:"kind"`
	Name          string   `json:"name"`
	Secret        string   `json:"secret"`
	EnvironmentID string   `json:"environment_id"` // environment keys only
	org           *org
}

const (
	headerAPIKey        = "X-Api-Key"
	headerAuthorization = "Authorization"
)

// accept is one way an interface takes a credential: this kind, in this header.
type accept struct {
	header string
	kind   credKind
}

// iface is one interface of spec section 5: how its requests authenticate and which headers of
// section 9 they carry.
type iface struct {
	name      string
	accepts   []accept
	version   bool   // vendor-version is required (spec 9.1)
	beta      string // a vendor-beta value every request must carry (spec 9.4), or ""
	bodyLimit int64  // largest JSON body accepted (gaps §1)
}

const (
	defaultBodyLimit  = 1 << 20  // 1 MB: every JSON body but Messages (gaps §1)
	messagesBodyLimit = 32 << 20 // 32 MB
)

// The interfaces. Routes name one each; nothing else decides how a request authenticates.
var (
	ifCompliance = &iface{name: "compliance", accepts: []accept{{headerAuthorization, kindComplianceKey}}, bodyLimit: defaultBodyLimit}
	ifAdmin      = &iface{name: "administration", accepts: []accept{{headerAPIKey, kindAdminKey}}, version: true, bodyLimit: defaultBodyLimit}
	ifMessages   = &iface{name: "messages", accepts: []accept{{headerAPIKey, kindAPIKey}}, version: true, bodyLimit: messagesBodyLimit}
	ifModels     = &iface{name: "models", accepts: []accept{{headerAPIKey, kindAPIKey}}, version: true, bodyLimit: defaultBodyLimit}
	ifMemory     = &iface{name: "memory stores", accepts: []accept{{headerAPIKey, kindAPIKey}}, version: true, bodyLimit: defaultBodyLimit}
	ifWork       = &iface{name: "work queue", accepts: []accept{{headerAPIKey, kindAPIKey}, {headerAuthorization, kindEnvironmentKey}}, version: true, bodyLimit: defaultBodyLimit}
	ifTunnels    = &iface{name: "tunnels", accepts: []accept{{headerAuthorization, kindBearerToken}}, version: true, beta: TunnelsBeta, bodyLimit: defaultBodyLimit}
)

// ifEnvironments is environment management (gaps §8): the API key only, since an environment key
// reaches no more than its own environment's work endpoints.
var ifEnvironments = &iface{name: "environments", accepts: []accept{{headerAPIKey, kindAPIKey}}, version: true, bodyLimit: defaultBodyLimit}

// presented returns the secret a request carries in header: the X-Api-Key value, or the token of
// "Authorization: Bearer <token>".
func presented(r *http.Request, header string) string {
	v := strings.TrimSpace(r.Header.Get(header))
	if header == headerAuthorization {
		scheme, token, ok := strings.Cut(v, " ")
		if !ok || !strings.EqualFold(scheme, "Bearer") {
			return ""
		}
		return strings.TrimSpace(token)
	}
	return v
}

// authenticate finds the credential a request presents to an interface. It returns
// authentication_error (401) when no credential the interface accepts is present or the secret
// is unknown, and permission_error (403) when the request carries a valid credential of another
// kind. A request may carry both headers; the interface reads the one it expects first.
func (fx *Fixtures) authenticate(r *http.Request, ifc *iface) (*credential, error) {
	for _, a := range ifc.accepts {
		if c := fx.creds[presented(r, a.header)]; c != nil && c.Kind == a.kind {
			return c, nil
		}
	}
	for _, h := range []string{headerAPIKey, headerAuthorization} {
		if c := fx.creds[presented(r, h)]; c != nil {
			if ifc.takes(c.Kind) {
				return nil, permissionDenied("%s goes in another header here; use %s", kindNames[c.Kind], ifc.expects())
			}
			return nil, permissionDenied("the %s interface does not accept %s; use %s", ifc.name, kindNames[c.Kind], ifc.expects())
		}
	}
	for _, a := range ifc.accepts {
		if r.Header.Get(a.header) != "" {
			return nil, unauthenticated("invalid %s: the credential is not known; use %s", strings.ToLower(a.header), ifc.expects())
		}
	}
	return nil, unauthenticated("missing credential: the %s interface needs %s", ifc.name, ifc.expects())
}

// takes reports whether the interface accepts credentials of the kind (in some header).
func (ifc *iface) takes(k credKind) bool {
	for _, a := range ifc.accepts {
		if a.kind == k {
			return true
		}
	}
	return false
}

// expects describes how the interface wants to be called, for error messages.
func (ifc *iface) expects() string {
	var ways []string
	for _, a := range ifc.accepts {
		if a.header == headerAuthorization {
			ways = append(ways, "the header \"Authorization: Bearer <token>\" with "+kindNames[a.kind])
		} else {
			ways = append(ways, "the header \""+a.header+"\" with "+kindNames[a.kind])
		}
	}
	return strings.Join(ways, " or ")
}
