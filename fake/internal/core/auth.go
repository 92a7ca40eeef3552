package core

import (
	"net/http"
	"slices"
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

// TunnelsAPIBeta is the vendor-beta value of the tunnels interface the official SDKs call under
// /v1/tunnels (anthropic-sdk-go v1.84.0), which serves the same tunnels as /v1/organizations/tunnels.
const TunnelsAPIBeta = "mcp-tunnels-2026-06-22"

// CredKind is the kind of a credential (spec 5; the credential table of docs/control-api.md).
type CredKind string

const (
	KindAPIKey         CredKind = "api_key"
	KindAdminKey       CredKind = "admin_key"
	KindComplianceKey  CredKind = "compliance_key"
	KindBearerToken    CredKind = "bearer_token"    // workload-identity token (tunnels)
	KindEnvironmentKey CredKind = "environment_key" // one environment's work endpoints
	// KindSessionsToken is the per-item token a polled work item's secret carries: the worker's
	// credential for that item's lease and that session's reads and events. The work area issues
	// and admits it (never a fixture); the areas scope it by WorkID and SessionID.
	KindSessionsToken CredKind = "sessions_token"
)

var KindNames = map[CredKind]string{
	KindAPIKey:         "an API key",
	KindAdminKey:       "an admin API key",
	KindComplianceKey:  "a compliance API key",
	KindBearerToken:    "a workload-identity bearer token",
	KindEnvironmentKey: "an environment key",
	KindSessionsToken:  "a work item's sessions token",
}

// Credential is a fixture secret and what it grants.
type Credential struct {
	ID            string   `json:"id"` // the key's ID, recorded when writes are attributed to it
	Kind          CredKind `json:"kind"`
	Name          string   `json:"name"`
	Secret        string   `json:"secret"`
	EnvironmentID string   `json:"environment_id"` // environment keys only
	// WorkspaceID is the workspace an API key belongs to; "" is the default workspace. The prompt
	// cache is kept per organization and workspace, and the workspace's rate limits apply with the
	// organization's (the default workspace has no limits of its own).
	WorkspaceID string `json:"workspace_id"`
	Org         *Org   `json:"-"`
	// WorkID and SessionID are the work item and session a sessions token was issued for.
	WorkID    string `json:"-"`
	SessionID string `json:"-"`
}

const (
	HeaderAPIKey        = "X-Api-Key"
	HeaderAuthorization = "Authorization"
)

// accept is one way an interface takes a credential: this kind, in this header.
type accept struct {
	Header string
	Kind   CredKind
}

// Iface is one interface of spec section 5: how its requests authenticate and which headers of
// section 9 they carry.
type Iface struct {
	Name      string
	Accepts   []accept
	Version   bool   // vendor-version is required (spec 9.1)
	Beta      string // a vendor-beta value every request must carry (spec 9.4), or ""
	bodyLimit int64  // largest JSON body accepted (gaps §1)
}

const (
	DefaultBodyLimit  = 1 << 20  // 1 MB: every JSON body but Messages (gaps §1)
	MessagesBodyLimit = 32 << 20 // 32 MB
)

// keyed is how an interface of spec 5 that reads X-Api-Key takes its key: in that header first,
// and as "Authorization: Bearer <key>" too, the only way some official SDKs send it (gaps §2).
func keyed(k CredKind) []accept {
	return []accept{{HeaderAPIKey, k}, {HeaderAuthorization, k}}
}

// The interfaces. Routes name one each; nothing else decides how a request authenticates.
var (
	IfCompliance = &Iface{Name: "compliance", Accepts: []accept{{HeaderAuthorization, KindComplianceKey}}, bodyLimit: DefaultBodyLimit}
	IfAdmin      = &Iface{Name: "administration", Accepts: keyed(KindAdminKey), Version: true, bodyLimit: DefaultBodyLimit}
	IfMessages   = &Iface{Name: "messages", Accepts: keyed(KindAPIKey), Version: true, bodyLimit: MessagesBodyLimit}
	IfModels     = &Iface{Name: "models", Accepts: keyed(KindAPIKey), Version: true, bodyLimit: DefaultBodyLimit}
	IfMemory     = &Iface{Name: "memory stores", Accepts: append(keyed(KindAPIKey), accept{HeaderAuthorization, KindSessionsToken}), Version: true, bodyLimit: DefaultBodyLimit}
	IfWork       = &Iface{Name: "work queue", Accepts: append(keyed(KindAPIKey), accept{HeaderAuthorization, KindEnvironmentKey}, accept{HeaderAuthorization, KindSessionsToken}), Version: true, bodyLimit: DefaultBodyLimit}
	IfTunnels    = &Iface{Name: "tunnels", Accepts: []accept{{HeaderAuthorization, KindBearerToken}}, Version: true, Beta: TunnelsBeta, bodyLimit: DefaultBodyLimit}
)

// IfAdminSignOut is the administration interface's user sign-out, a beta the official SDK majors
// of 2026-10-21 call with its beta value.
var IfAdminSignOut = &Iface{Name: "administration (user sign-out)", Accepts: keyed(KindAdminKey), Version: true,
	Beta: "admin-user-sign-out-2026-10-08", bodyLimit: DefaultBodyLimit}

// IfTunnelsAPI is /v1/tunnels, as the official SDKs call it: with the client's credential, which
// for an organization-wide resource is the admin key, in either header an SDK sends a key in, or
// the workload-identity bearer token (as for /v1/organizations/tunnels). It reads X-Api-Key, so
// X-Api-Key decides when both headers are sent, as on every interface that reads it: a wrong
// X-Api-Key is not rescued by a right bearer token.
var IfTunnelsAPI = &Iface{Name: "tunnels API", Accepts: append(keyed(KindAdminKey), accept{HeaderAuthorization, KindBearerToken}),
	Version: true, Beta: TunnelsAPIBeta, bodyLimit: DefaultBodyLimit}

// IfEnvironments is environment management (gaps §8): the API key only, since an environment key
// reaches no more than its own environment's work endpoints.
var IfEnvironments = &Iface{Name: "environments", Accepts: keyed(KindAPIKey), Version: true, bodyLimit: DefaultBodyLimit}

// IfFiles is the files interface (/v1/files): the API key, as for Messages, whose blocks refer to
// the files. Its one body is a multipart upload, bounded by the files area (MultipartReader).
var IfFiles = &Iface{Name: "files", Accepts: keyed(KindAPIKey), Version: true, bodyLimit: DefaultBodyLimit}

// IfSkills is skills (/v1/skills): the API key, as for files (GA, no beta). Its uploads are
// multipart bodies, bounded by the skills area (MultipartReader).
var IfSkills = &Iface{Name: "skills", Accepts: keyed(KindAPIKey), Version: true, bodyLimit: DefaultBodyLimit}

// IfSkillVersions is a skill version's path and its content, which a self-hosted worker reads to
// mount its agent's skills: the API key, an environment key or a work item's sessions token
// (reads only: the area refuses the worker's credentials on the version's deletion).
var IfSkillVersions = &Iface{Name: "skill versions", Accepts: append(keyed(KindAPIKey), accept{HeaderAuthorization, KindEnvironmentKey}, accept{HeaderAuthorization, KindSessionsToken}),
	Version: true, bodyLimit: DefaultBodyLimit}

// IfAgents is managed agents (agents, and the sessions routes only their owner calls): the API key.
var IfAgents = &Iface{Name: "managed agents", Accepts: keyed(KindAPIKey), Version: true, bodyLimit: DefaultBodyLimit}

// IfSessionWorker is the session routes a self-hosted environment's worker calls (read the
// session, send, list and stream its events): the API key, an environment key for the sessions
// of its own environment, or a work item's sessions token for its own session, which the area
// checks.
var IfSessionWorker = &Iface{Name: "sessions", Accepts: append(keyed(KindAPIKey), accept{HeaderAuthorization, KindEnvironmentKey}, accept{HeaderAuthorization, KindSessionsToken}),
	Version: true, bodyLimit: DefaultBodyLimit}

// Presented returns the secret a request carries in header: the X-Api-Key value, or the token of
// "Authorization: Bearer <token>".
func Presented(r *http.Request, header string) string {
	v := strings.TrimSpace(headerOf(r.Header, header))
	if header == HeaderAuthorization {
		scheme, token, ok := strings.Cut(v, " ")
		if !ok || !strings.EqualFold(scheme, "Bearer") {
			return ""
		}
		return strings.TrimSpace(token)
	}
	return v
}

// authenticate finds the credential a request presents to an interface, and the header that
// carried it. The first of the interface's headers that the request carries decides (gaps §2):
// clients pick up keys from their environment and may send both, and a wrong X-Api-Key is not
// rescued by a right bearer token. It returns authentication_error (401) when that header holds
// no known credential, or when no credential is present at all, and permission_error (403) when
// the request carries a valid credential of another kind or in another header.
func (fx *Fixtures) authenticate(r *http.Request, ifc *Iface) (*Credential, string, error) {
	for i, a := range ifc.Accepts { // each header once, in order, as headers lists them
		h := a.Header
		if slices.ContainsFunc(ifc.Accepts[:i], func(b accept) bool { return b.Header == h }) || headerOf(r.Header, h) == "" {
			continue
		}
		secret := Presented(r, h)
		c := fx.Creds[secret]
		switch {
		case secret == "" && h == HeaderAuthorization:
			return nil, "", unauthenticated("authorization: expected \"Bearer <token>\"; use %s", ifc.expects())
		case c == nil:
			return nil, "", unauthenticated("invalid %s: the credential is not known; use %s", strings.ToLower(h), ifc.expects())
		case ifc.acceptsIn(h, c.Kind):
			return c, h, nil
		}
		return nil, "", ifc.refuse(c)
	}
	for _, h := range []string{HeaderAPIKey, HeaderAuthorization} {
		if c := fx.Creds[Presented(r, h)]; c != nil {
			return nil, "", ifc.refuse(c)
		}
	}
	return nil, "", unauthenticated("missing credential: the %s interface needs %s", ifc.Name, ifc.expects())
}

// Refuse is the 403 for a valid credential the interface does not take where it was sent (an
// area's Admit answers it for a credential it issued).
func (ifc *Iface) Refuse(c *Credential) error { return ifc.refuse(c) }

// Takes reports whether the interface accepts credentials of the kind as "Authorization: Bearer".
func (ifc *Iface) Takes(k CredKind) bool { return ifc.acceptsIn(HeaderAuthorization, k) }

// refuse is the 403 for a valid credential the interface does not take where it was sent.
func (ifc *Iface) refuse(c *Credential) error {
	if ifc.takes(c.Kind) {
		return PermissionDenied("%s goes in another header here; use %s", KindNames[c.Kind], ifc.expects())
	}
	return PermissionDenied("the %s interface does not accept %s; use %s", ifc.Name, KindNames[c.Kind], ifc.expects())
}

// Headers lists the headers the interface reads, in the order it reads them.
func (ifc *Iface) Headers() []string {
	var hs []string
	for _, a := range ifc.Accepts {
		if !slices.Contains(hs, a.Header) {
			hs = append(hs, a.Header)
		}
	}
	return hs
}

// acceptsIn reports whether the interface takes credentials of the kind in header h.
func (ifc *Iface) acceptsIn(h string, k CredKind) bool {
	return slices.Contains(ifc.Accepts, accept{h, k})
}

// takes reports whether the interface accepts credentials of the kind (in some header).
func (ifc *Iface) takes(k CredKind) bool {
	for _, a := range ifc.Accepts {
		if a.Kind == k {
			return true
		}
	}
	return false
}

// expects describes how the interface wants to be called, for error messages: each kind it
// takes with the headers that may carry it.
func (ifc *Iface) expects() string {
	var ways []string
	for i := 0; i < len(ifc.Accepts); {
		k := ifc.Accepts[i].Kind
		var forms []string
		for ; i < len(ifc.Accepts) && ifc.Accepts[i].Kind == k; i++ {
			if ifc.Accepts[i].Header == HeaderAuthorization {
				forms = append(forms, "\"Authorization: Bearer <token>\"")
			} else {
				forms = append(forms, "\""+ifc.Accepts[i].Header+": <key>\"")
			}
		}
		ways = append(ways, "the header "+strings.Join(forms, " or ")+" with "+KindNames[k])
	}
	return strings.Join(ways, ", or ")
}
