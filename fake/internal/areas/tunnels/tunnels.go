package tunnels

import (
	"crypto/hmac"
	"crypto/sha256"
	"crypto/x509"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/platformkit/platformkit/fake/internal/core"
)

// Tunnels and tunnel certificates (spec 2.17, 3.3, 3.4, 4.9, gaps §9). The specified surface has
// no create: tunnels come from fixtures and from the control call POST /_fake/tunnels.
//
// The tunnel token is a secret (spec 5, rule 2). It is never stored in a record that is
// marshalled: it is derived from the tunnel and its rotation count when reveal or rotate asks for
// it, so no other response, log line or error message can carry it by accident.

// Tunnel is the face's Tunnel (package fake), which documents it.
type Tunnel struct {
	ID          string     `json:"id"`
	ArchivedAt  *time.Time `json:"archived_at"`
	CreatedAt   time.Time  `json:"created_at"`
	DisplayName *string    `json:"display_name"`
	Domain      string     `json:"domain"`
	Type        string     `json:"type"`
	WorkspaceID *string    `json:"workspace_id"`
}

// TunnelOptions is the face's TunnelOptions (package fake), which documents it.
type TunnelOptions struct {
	OrganizationID string // org_ ID or UUID; empty: the first fixture organization
	WorkspaceID    string // a wrkspc_ ID; empty: the default workspace
	DisplayName    string // 1 to 255 characters; empty: no display name
}

// TokenRotation is the face's TokenRotation (package fake), which documents it.
type TokenRotation struct {
	TunnelID        string    `json:"-"` // a snapshot lists rotations under their tunnel
	PreviousTokenID string    `json:"previous_token_id"`
	TokenID         string    `json:"token_id"`
	Reason          string    `json:"reason,omitempty"` // "" when the request gave none
	CredentialID    string    `json:"credential_id"`    // the ID of the bearer credential that asked for the rotation
	RotatedAt       time.Time `json:"rotated_at"`
}

// TunnelToken is the tunnel token of spec 2.17. Only reveal_token and rotate_token answer it.
type TunnelToken struct {
	ID          string `json:"id"`
	TunnelToken string `json:"tunnel_token"`
	Type        string `json:"type"`
}

// TunnelCertificate is the tunnel certificate record of spec 2.17.
type TunnelCertificate struct {
	ID          string     `json:"id"`
	ArchivedAt  *time.Time `json:"archived_at"`
	CreatedAt   time.Time  `json:"created_at"`
	ExpiresAt   *time.Time `json:"expires_at"`
	Fingerprint string     `json:"fingerprint"`
	TunnelID    string     `json:"tunnel_id"`
	Type        string     `json:"type"`
	ca          *x509.Certificate
	encoded     core.RecordJSON // the record, encoded once per change; archival drops it
}

// json returns the certificate's record, encoded once per change (recordJSON); the caller holds
// the tunnels' lock.
func (c *TunnelCertificate) json() (json.RawMessage, error) {
	return c.encoded.Get("", func() any { return *c })
}

// TunnelRec is a stored tunnel: the record plus its owner, its rotation count (from which the
// current token is derived) and its certificates in list order (newest first).
type TunnelRec struct {
	Tunnel
	Org       *core.Org
	rotations int
	Certs     []*TunnelCertificate
	encoded   core.RecordJSON // Tunnel, encoded once per change; every change drops it
}

// json returns the tunnel's record, encoded once per change (recordJSON); the caller holds the
// tunnels' lock.
func (t *TunnelRec) json() (json.RawMessage, error) {
	return t.encoded.Get("", func() any { return t.Tunnel })
}

// Store is the tunnels area's state. Tunnels are never deleted, only archived, so the
// domains of the tunnels ever held are exactly the domains that may never be allocated again.
type Store struct {
	mu          sync.Mutex
	list        []*TunnelRec // newest first (created_at descending, ID breaking ties)
	ByID        map[string]*TunnelRec
	Domains     map[string]bool
	domainSeq   int
	rotationLog []TokenRotation
}

// FixtureTunnel is a tunnel of fixtures/tunnels.json, checked and parsed once per process.
type FixtureTunnel struct {
	Tunnel
	Org       *core.Org
	Certs     []TunnelCertificate
	rotations []TokenRotation // oldest first; their number is the tunnel's rotation count
}

// Keys and states of the records: lists are ordered by (created_at, ID); archived_at set means archived.
func tunnelKey(t Tunnel) core.ListKey                 { return core.ListKey{At: t.CreatedAt, ID: t.ID} }
func certificateKey(c TunnelCertificate) core.ListKey { return core.ListKey{At: c.CreatedAt, ID: c.ID} }
func TunnelRecKey(t *TunnelRec) core.ListKey          { return tunnelKey(t.Tunnel) }
func CertRecKey(c *TunnelCertificate) core.ListKey    { return certificateKey(*c) }
func (t *TunnelRec) archived() bool                   { return t.ArchivedAt != nil }
func (c *TunnelCertificate) archived() bool           { return c.ArchivedAt != nil }

const (
	maxDisplayName = 255
	maxActiveCerts = 2 // spec 8: non-archived certificates per tunnel
	DomainSuffix   = ".tunnels.platformkit.test"
)

// loadTunnels reads fixtures/tunnels.json: each tunnel's organization must exist, IDs and
// domains must be unique, every certificate must pass the rules of an upload, and the state must
// be one the API could reach (at most two active certificates, none on an archived tunnel).
func loadTunnels(fsys fs.FS, fx *core.Fixtures) error {
	var file struct {
		Tunnels []struct {
			Tunnel
			OrganizationID string `json:"organization_id"`
			Certificates   []struct {
				ID               string     `json:"id"`
				CreatedAt        time.Time  `json:"created_at"`
				ArchivedAt       *time.Time `json:"archived_at"`
				CACertificatePEM string     `json:"ca_certificate_pem"`
			} `json:"certificates"`
			TokenRotations []TokenRotation `json:"token_rotations"`
		} `json:"tunnels"`
	}
	if _, err := core.ReadFixture(fsys, "tunnels.json", &file); err != nil {
		return err
	}
	domains := map[string]bool{} // lower case: host names do not distinguish case
	for _, ft := range file.Tunnels {
		t := FixtureTunnel{Tunnel: ft.Tunnel, Org: fx.OrgByID(ft.OrganizationID), rotations: ft.TokenRotations}
		t.Type = "tunnel"
		for i := range t.rotations {
			r := &t.rotations[i]
			r.TunnelID = t.ID
			// The token IDs are derived from the tunnel and the count: a snapshot that says
			// otherwise was edited, and its rotation log would contradict what reveal answers.
			if prev, next := currentToken(t.ID, i), currentToken(t.ID, i+1); r.PreviousTokenID != prev.ID || r.TokenID != next.ID {
				return fmt.Errorf("tunnels.json: tunnel %s: token rotation %d names tokens %s and %s; rotation %d of this tunnel replaces %s with %s",
					t.ID, i, r.PreviousTokenID, r.TokenID, i, prev.ID, next.ID)
			}
		}
		switch {
		case t.Org == nil:
			return fmt.Errorf("tunnels.json: tunnel %s names unknown organization %s", t.ID, ft.OrganizationID)
		case domains[strings.ToLower(t.Domain)]:
			return fmt.Errorf("tunnels.json: tunnel %s: domain %s is used twice; domains are never shared or reused", t.ID, t.Domain)
		}
		domains[strings.ToLower(t.Domain)] = true
		active := 0
		for _, fc := range ft.Certificates {
			cc, err := parseCACertificate(fc.CACertificatePEM)
			if err != nil {
				return fmt.Errorf("tunnels.json: certificate %s: %v", fc.ID, err)
			}
			if fc.ArchivedAt == nil {
				active++
			}
			t.Certs = append(t.Certs, TunnelCertificate{ID: fc.ID, ArchivedAt: fc.ArchivedAt, CreatedAt: fc.CreatedAt,
				ExpiresAt: cc.expiresAt, Fingerprint: cc.fingerprint, TunnelID: t.ID, Type: "tunnel_certificate", ca: cc.cert})
		}
		switch {
		case active > maxActiveCerts:
			return fmt.Errorf("tunnels.json: tunnel %s has %d non-archived certificates; at most %d are allowed", t.ID, active, maxActiveCerts)
		case active > 0 && t.ArchivedAt != nil:
			return fmt.Errorf("tunnels.json: archived tunnel %s has non-archived certificates; archival archives them all", t.ID)
		}
		*TunnelsSection.In(fx.Sections) = append(*TunnelsSection.In(fx.Sections), t)
	}
	return nil
}

// newTunnelStore copies the fixture tunnels into a server's own state.
func newTunnelStore(fx *core.Fixtures) *Store {
	st := &Store{ByID: map[string]*TunnelRec{}, Domains: map[string]bool{}}
	for _, ft := range *TunnelsSection.In(fx.Sections) {
		rec := &TunnelRec{Tunnel: ft.Tunnel, Org: ft.Org, rotations: len(ft.rotations)}
		st.rotationLog = append(st.rotationLog, ft.rotations...)
		for _, c := range ft.Certs {
			rec.Certs = core.InsertInOrder(rec.Certs, &c, CertRecKey, core.NewestFirst)
		}
		st.insert(rec)
	}
	return st
}

// insert adds a tunnel in list order and reserves its domain for the life of the server.
func (st *Store) insert(rec *TunnelRec) {
	st.list = core.InsertInOrder(st.list, rec, TunnelRecKey, core.NewestFirst)
	st.ByID[rec.ID] = rec
	st.Domains[strings.ToLower(rec.Domain)] = true
}

// newDomain allocates a hostname no tunnel of this server has had, archived or not.
func (st *Store) newDomain() string {
	for {
		st.domainSeq++
		d := "t" + strconv.Itoa(st.domainSeq) + DomainSuffix
		if !st.Domains[d] {
			return d
		}
	}
}

// Tunnels returns the area's store in st, built from the fixtures on first use.
func StoreOf(s *core.Server, st *core.State) *Store {
	return tunnelStores.In(st.Stores).Get(func() *Store { return newTunnelStore(st.Fx) })
}

// find returns the caller's tunnel; another organization's tunnel is not found, exactly like an
// unknown ID. Call with st.mu held.
func (st *Store) find(o *core.Org, id string) (*TunnelRec, error) {
	rec := st.ByID[id]
	if rec == nil || rec.Org != o {
		return nil, core.NotFound("tunnel", id)
	}
	return rec, nil
}

// tunnelTokenKey keys the derivation of token values and IDs. Values must be the same from run to run
// (responses are deterministic), so the key is fixed; it never appears in a response.
var tunnelTokenKey = []byte("platformkit tunnel tokens v1")

// currentToken derives the token of a tunnel after n rotations: a fresh value and ID per
// rotation, the same ones on every reveal in between (spec 4.9, 3.3).
func currentToken(tunnelID string, n int) TunnelToken {
	derive := func(purpose string) []byte {
		mac := hmac.New(sha256.New, tunnelTokenKey)
		fmt.Fprintf(mac, "%s\x00%s\x00%d", purpose, tunnelID, n)
		return mac.Sum(nil)
	}
	return TunnelToken{
		ID:          "ttkn_" + hex.EncodeToString(derive("id")),
		TunnelToken: "tnltok_" + base64.RawURLEncoding.EncodeToString(derive("value")),
		Type:        "tunnel_token",
	}
}

// withTunnel runs f on the caller's tunnel of the path with the store locked. f must not block.
// Another organization's tunnel, like an unknown ID, is a 404.
func withTunnel(s *core.Server, c *core.Call, f func(st *Store, rec *TunnelRec) (any, error)) (any, error) {
	st := StoreOf(s, c.St)
	st.mu.Lock()
	defer st.mu.Unlock()
	rec, err := st.find(c.Org, c.Param("tunnel_id"))
	if err != nil {
		return nil, err
	}
	if ws, _, err := tunnelWorkspace(c); err != nil {
		return nil, err
	} else if ws != "" && (rec.WorkspaceID == nil || *rec.WorkspaceID != ws) {
		return nil, core.NotFound("tunnel", rec.ID) // outside the workspace the request is scoped to
	}
	return f(st, rec)
}

// live refuses an operation on an archived tunnel (gaps §9): archival is irreversible and
// invalidates the token.
func (t *TunnelRec) live(refusal string) error {
	if t.archived() {
		return core.Invalid("tunnel %s is archived: %s", t.ID, refusal)
	}
	return nil
}

// getTunnel serves GET /v1/organizations/tunnels/{tunnel_id} (spec 4.9).
func getTunnel(s *core.Server, c *core.Call) (any, error) {
	return withTunnel(s, c, func(_ *Store, rec *TunnelRec) (any, error) { return rec.json() })
}

// archivedListQuery is what both lists of the area take: include_archived, limit (gaps §9:
// default 20, at most 1000) and page, a token of the list named scope.
type archivedListQuery struct {
	includeArchived bool
	limit           int
	scope           string
	after           *core.ListKey
}

// tunnelListQuery reads the query of a list of the area; a bad value is a 400 naming it.
func tunnelListQuery(c *core.Call, scope string) (q archivedListQuery, err error) {
	q.scope = scope
	if q.includeArchived, err = c.QueryBool("include_archived"); err != nil {
		return q, err
	}
	if q.limit, _, err = c.QueryInt("limit"); err != nil {
		return q, err
	}
	q.after, err = c.PageToken(scope)
	return q, err
}

// listTunnels serves GET /v1/organizations/tunnels: the caller's tunnels, newest first,
// optionally of one workspace (spec 4.9).
func listTunnels(s *core.Server, c *core.Call) (any, error) {
	workspace, filterWorkspace := c.QueryString("workspace_id")
	if filterWorkspace && !core.WorkspaceIDPattern.MatchString(workspace) {
		return nil, core.InvalidField("workspace_id", "must be a workspace ID starting with \"wrkspc_\" (omit it to list every workspace), got %s", core.Quoted(workspace, core.MaxExcerpt))
	}
	return tunnelPage(s, c, workspace, filterWorkspace)
}

// tunnelPage is a page of the caller's tunnels, newest first, of one workspace when filter is set.
func tunnelPage(s *core.Server, c *core.Call, workspace string, filter bool) (any, error) {
	q, err := tunnelListQuery(c, "tunnels:"+c.Org.ID)
	if err != nil {
		return nil, err
	}
	st := StoreOf(s, c.St)
	st.mu.Lock()
	defer st.mu.Unlock() // until the page is encoded: the records' bytes are guarded by the lock
	// start at the token's position (binary search) and copy only the page and one more item,
	// which tells pageByToken whether a next page exists: the cost follows the page, not the
	// number of tunnels.
	start := 0
	if q.after != nil {
		start = core.SearchAfter(st.list, TunnelRecKey, core.NewestFirst, *q.after)
	}
	matched := make([]*TunnelRec, 0, q.limit+1)
	for _, rec := range st.list[start:] {
		if len(matched) > q.limit {
			break
		}
		if rec.Org != c.Org || (rec.archived() && !q.includeArchived) ||
			(filter && (rec.WorkspaceID == nil || *rec.WorkspaceID != workspace)) {
			continue
		}
		matched = append(matched, rec)
	}
	return core.EncodedTokenPage(core.PageByToken(matched, TunnelRecKey, core.NewestFirst, q.scope, nil, q.limit), (*TunnelRec).json)
}

// revealTunnelToken serves POST .../reveal_token: the current token, the same until rotation.
func revealTunnelToken(s *core.Server, c *core.Call) (any, error) {
	return withTunnel(s, c, func(_ *Store, rec *TunnelRec) (any, error) {
		if err := rec.live("its token was invalidated and can no longer be revealed"); err != nil {
			return nil, err
		}
		return currentToken(rec.ID, rec.rotations), nil
	})
}

// rotateTunnelToken serves POST .../rotate_token: a fresh token and ID; the old token stops
// opening connections, and the rotation is recorded with its reason (spec 3.3, 4.9).
func rotateTunnelToken(s *core.Server, c *core.Call) (any, error) {
	var req struct {
		Reason *string `json:"reason"`
	}
	if err := c.BindValid(&req); err != nil {
		return nil, err
	}
	return withTunnel(s, c, func(st *Store, rec *TunnelRec) (any, error) {
		if err := rec.live("its token cannot be rotated"); err != nil {
			return nil, err
		}
		prev := currentToken(rec.ID, rec.rotations)
		rec.rotations++
		next := currentToken(rec.ID, rec.rotations)
		r := TokenRotation{TunnelID: rec.ID, PreviousTokenID: prev.ID, TokenID: next.ID, CredentialID: c.Cred.ID, RotatedAt: s.Clock.Now()}
		if req.Reason != nil {
			r.Reason = *req.Reason
		}
		st.rotationLog = append(st.rotationLog, r)
		return next, nil
	})
}

// archiveTunnel serves POST .../archive: irreversible, cascades to the certificates, and
// invalidates the token; a retry answers the record unchanged (spec 3.3).
func archiveTunnel(s *core.Server, c *core.Call) (any, error) {
	return withTunnel(s, c, func(_ *Store, rec *TunnelRec) (any, error) {
		if rec.archived() {
			return rec.json() // a retry: the record unchanged (spec 3.3, 7)
		}
		// One instant for the tunnel and the certificates it cascades to: the same operation.
		now := s.Clock.Now()
		rec.ArchivedAt = &now
		rec.encoded.Drop()
		for _, cert := range rec.Certs {
			if !cert.archived() {
				cert.ArchivedAt = &now
				cert.encoded.Drop()
			}
		}
		return rec.json()
	})
}

// createTunnelCertificate serves POST .../certificates: registers a CA certificate while the
// tunnel has fewer than two non-archived ones (spec 3.4, gaps §9).
func createTunnelCertificate(s *core.Server, c *core.Call) (any, error) {
	var req struct {
		CACertificatePEM string `json:"ca_certificate_pem"`
	}
	if err := c.BindValid(&req); err != nil {
		return nil, err
	}
	cc, err := parseCACertificate(req.CACertificatePEM)
	if err != nil {
		return nil, err
	}
	return withTunnel(s, c, func(_ *Store, rec *TunnelRec) (any, error) {
		if err := rec.live("certificates cannot be added to it"); err != nil {
			return nil, err
		}
		active := 0
		for _, cert := range rec.Certs {
			if !cert.archived() {
				active++
			}
		}
		if active >= maxActiveCerts {
			return nil, core.Invalid("tunnel %s already has %d non-archived certificates, the most allowed; archive one before adding another", rec.ID, active)
		}
		cert := &TunnelCertificate{ID: s.IDs.Next("tcrt_"), CreatedAt: s.Clock.Now(), ExpiresAt: cc.expiresAt,
			Fingerprint: cc.fingerprint, TunnelID: rec.ID, Type: "tunnel_certificate", ca: cc.cert}
		rec.Certs = core.InsertInOrder(rec.Certs, cert, CertRecKey, core.NewestFirst)
		return cert.json()
	})
}

// withCertificate runs f on the certificate of the path, of the caller's tunnel of the path, with
// the store locked; a certificate of another tunnel is not found.
func withCertificate(s *core.Server, c *core.Call, f func(cert *TunnelCertificate) (any, error)) (any, error) {
	return withTunnel(s, c, func(_ *Store, rec *TunnelRec) (any, error) {
		id := c.Param("certificate_id")
		for _, cert := range rec.Certs {
			if cert.ID == id {
				return f(cert)
			}
		}
		return nil, core.NotFound("tunnel certificate", id)
	})
}

// getTunnelCertificate serves GET .../certificates/{certificate_id}.
func getTunnelCertificate(s *core.Server, c *core.Call) (any, error) {
	return withCertificate(s, c, func(cert *TunnelCertificate) (any, error) { return cert.json() })
}

// listTunnelCertificates serves GET .../certificates, newest first; archived ones only with
// include_archived.
func listTunnelCertificates(s *core.Server, c *core.Call) (any, error) {
	q, err := tunnelListQuery(c, "tunnel_certificates:"+c.Param("tunnel_id"))
	if err != nil {
		return nil, err
	}
	return withTunnel(s, c, func(_ *Store, rec *TunnelRec) (any, error) {
		// As in listTunnels: from the token's place, only the page and one more item, encoded
		// with the lock held, which guards the records' bytes.
		start := 0
		if q.after != nil {
			start = core.SearchAfter(rec.Certs, CertRecKey, core.NewestFirst, *q.after)
		}
		matched := make([]*TunnelCertificate, 0, q.limit+1)
		for _, cert := range rec.Certs[start:] {
			if len(matched) > q.limit {
				break
			}
			if q.includeArchived || !cert.archived() {
				matched = append(matched, cert)
			}
		}
		return core.EncodedTokenPage(core.PageByToken(matched, CertRecKey, core.NewestFirst, q.scope, nil, q.limit), (*TunnelCertificate).json)
	})
}

// archiveTunnelCertificate serves POST .../certificates/{certificate_id}/archive: the record
// stays, the certificate leaves the trusted set (spec 3.4).
func archiveTunnelCertificate(s *core.Server, c *core.Call) (any, error) {
	return withCertificate(s, c, func(cert *TunnelCertificate) (any, error) {
		if !cert.archived() { // archiving again answers the record unchanged (gaps §9)
			now := s.Clock.Now()
			cert.ArchivedAt = &now
			cert.encoded.Drop()
		}
		return cert.json()
	})
}

// --- Test control ---

// controlCreateTunnel serves POST /_fake/tunnels; see CreateTunnel.
func controlCreateTunnel(s *core.Server, c *core.Call) (any, error) {
	var req struct {
		OrganizationID *string `json:"organization_id"`
		WorkspaceID    *string `json:"workspace_id"`
		DisplayName    *string `json:"display_name"`
	}
	if err := c.BindValid(&req); err != nil {
		return nil, err
	}
	opts := TunnelOptions{}
	if req.OrganizationID != nil {
		opts.OrganizationID = *req.OrganizationID
	}
	if req.WorkspaceID != nil {
		opts.WorkspaceID = *req.WorkspaceID
	}
	if req.DisplayName != nil {
		if *req.DisplayName == "" {
			return nil, core.InvalidField("display_name", "must be 1 to %d characters, or omitted for no display name", maxDisplayName)
		}
		opts.DisplayName = *req.DisplayName
	}
	return CreateTunnel(s, opts)
}

// controlCheckTunnelToken serves POST /_fake/tunnels/token_check; see TunnelForToken. The answer
// names the tunnel, never the token.
func controlCheckTunnelToken(s *core.Server, c *core.Call) (any, error) {
	var req struct {
		TunnelToken string `json:"tunnel_token"`
	}
	if err := c.BindValid(&req); err != nil {
		return nil, err
	}
	id, ok := TunnelForToken(s, req.TunnelToken)
	answer := struct {
		Accepted bool    `json:"accepted"`
		TunnelID *string `json:"tunnel_id"`
	}{Accepted: ok}
	if ok {
		answer.TunnelID = &id
	}
	return answer, nil
}

// controlCheckGateway serves POST /_fake/tunnels/{tunnel_id}/gateway_check; see CheckGateway.
func controlCheckGateway(s *core.Server, c *core.Call) (any, error) {
	var req struct {
		CertificatePEM string `json:"certificate_pem"`
	}
	if err := c.BindValid(&req); err != nil {
		return nil, err
	}
	reason, err := checkGateway(s, c.Param("tunnel_id"), req.CertificatePEM)
	if err != nil {
		return nil, err
	}
	answer := struct {
		Accepted bool    `json:"accepted"`
		Reason   *string `json:"reason"`
	}{Accepted: reason == ""}
	if reason != "" {
		answer.Reason = &reason
	}
	return answer, nil
}

// checkGateway answers why the tunnel would refuse an MCP connection whose gateway presents
// chainPEM, or "" when it would accept it. An unknown tunnel is a 404 and a chainPEM without a
// certificate a 400.
func checkGateway(s *core.Server, tunnelID, chainPEM string) (string, error) {
	chain, err := parseChain(chainPEM)
	if err != nil {
		return "", err
	}
	st := StoreOf(s, s.State())
	st.mu.Lock()
	rec := st.ByID[tunnelID]
	archived := rec != nil && rec.archived()
	var trusted []*x509.Certificate
	if rec != nil {
		for _, cert := range rec.Certs {
			if !cert.archived() {
				trusted = append(trusted, cert.ca)
			}
		}
	}
	st.mu.Unlock()
	switch {
	case rec == nil:
		return "", core.NotFound("tunnel", tunnelID)
	case archived:
		return "the tunnel is archived", nil
	}
	return verifyGateway(trusted, chain, s.Clock.Now()), nil
}

// GatewayCheck is Server.CheckGateway of the face (package fake).
func GatewayCheck(s *core.Server, tunnelID, chainPEM string) error {
	reason, err := checkGateway(s, tunnelID, chainPEM)
	if err != nil {
		return err
	}
	if reason != "" {
		return errors.New(reason)
	}
	return nil
}

// CreateTunnel is Server.CreateTunnel of the face (package fake).
func CreateTunnel(s *core.Server, opts TunnelOptions) (Tunnel, error) {
	var o *core.Org
	world := s.State()
	fx := world.Fx
	switch {
	case opts.OrganizationID != "":
		if o = fx.OrgByID(opts.OrganizationID); o == nil {
			return Tunnel{}, core.InvalidField("organization_id", "no organization has the ID %s; give an org_ ID or UUID of the fixtures", core.Quoted(opts.OrganizationID, core.MaxExcerpt))
		}
	case len(fx.Orgs) > 0:
		o = fx.Orgs[0]
	default:
		return Tunnel{}, core.InvalidField("organization_id", "the fixtures have no organization to own the tunnel")
	}
	t := Tunnel{Type: "tunnel"}
	if opts.WorkspaceID != "" {
		if !core.WorkspaceIDPattern.MatchString(opts.WorkspaceID) {
			return Tunnel{}, core.InvalidField("workspace_id", "must be a workspace ID starting with \"wrkspc_\", or omitted for the default workspace, got %s", core.Quoted(opts.WorkspaceID, core.MaxExcerpt))
		}
		t.WorkspaceID = &opts.WorkspaceID
	}
	if opts.DisplayName != "" {
		if n := utf8.RuneCountInString(opts.DisplayName); n > maxDisplayName {
			return Tunnel{}, core.InvalidField("display_name", "must be 1 to %d characters, got %d", maxDisplayName, n)
		}
		t.DisplayName = &opts.DisplayName
	}
	return addTunnel(s, StoreOf(s, world), o, t), nil
}

// addTunnel stores t, of organization o, with the current time, a domain no tunnel of this
// server has had, and an ID from the control counters whether the control API or POST
// /v1/tunnels creates it, so that the two never hand out the same tunnel ID.
func addTunnel(s *core.Server, st *Store, o *core.Org, t Tunnel) Tunnel {
	st.mu.Lock()
	defer st.mu.Unlock()
	t.ID, t.CreatedAt, t.Domain = s.CtlIDs.Next("tnl_"), s.Clock.Now(), st.newDomain()
	st.insert(&TunnelRec{Tunnel: t, Org: o})
	return t
}

// TokenRotations is Server.TokenRotations of the face (package fake).
func TokenRotations(s *core.Server, tunnelID string) []TokenRotation {
	st := StoreOf(s, s.State())
	st.mu.Lock()
	defer st.mu.Unlock()
	var out []TokenRotation
	for _, r := range st.rotationLog {
		if r.TunnelID == tunnelID {
			out = append(out, r)
		}
	}
	return out
}

// TunnelForToken is Server.TunnelForToken of the face (package fake).
func TunnelForToken(s *core.Server, token string) (tunnelID string, ok bool) {
	st := StoreOf(s, s.State())
	st.mu.Lock()
	defer st.mu.Unlock()
	for _, rec := range st.list {
		cur := currentToken(rec.ID, rec.rotations)
		if !rec.archived() && hmac.Equal([]byte(cur.TunnelToken), []byte(token)) {
			return rec.ID, true
		}
	}
	return "", false
}
