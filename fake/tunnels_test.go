package fake

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/platformkit/platformkit/fake/internal/areas/tunnels"

	"github.com/platformkit/platformkit/fake/internal/core"

	"github.com/platformkit/platformkit/conformance/certgen"
	"github.com/platformkit/platformkit/fixtures"
)

// tunnelClient calls the tunnels interface of a test server with the default bearer token and
// the required headers, and remembers every response body, so that a test can prove where the
// tunnel token appears.
type tunnelClient struct {
	t      *testing.T
	ts     *TestServer
	bearer string
	beta   string // the vendor-beta value sent; TunnelsBeta unless a test sets another
	mu     sync.Mutex
	seen   []seenResponse
}

// seenResponse is one answer as the secrecy test scans it: headers and body.
type seenResponse struct {
	method, path string
	body         string
}

// tunnelResp is one answer of the fake.
type tunnelResp struct {
	status int
	header http.Header
	body   []byte
}

// decode unmarshals the body into v, ending the test if it is not JSON of that shape.
func (r tunnelResp) decode(t *testing.T, v any) {
	t.Helper()
	if err := json.Unmarshal(r.body, v); err != nil {
		t.Fatalf("decoding %s: %v", r.body, err)
	}
}

// errMessage is the message of an error envelope.
func (r tunnelResp) errMessage(t *testing.T) string {
	t.Helper()
	var e struct {
		Error struct{ Type, Message string }
	}
	r.decode(t, &e)
	return e.Error.Message
}

// newTunnelClient starts a test server (schema-checked) and a client of its first organization.
func newTunnelClient(t *testing.T, opts ...Option) *tunnelClient {
	return &tunnelClient{t: t, ts: NewTestServer(t, opts...), bearer: "test-bearer-token", beta: core.TunnelsBeta}
}

// do sends a request and ends the test on a transport error; body is JSON-encoded unless it is a
// string (sent as is) or nil.
func (tc *tunnelClient) do(method, path string, body any, header ...string) tunnelResp {
	tc.t.Helper()
	r, err := tc.send(method, path, body, header...)
	if err != nil {
		tc.t.Fatal(err)
	}
	return r
}

// send is do for goroutines other than the test's, which must not end the test.
func (tc *tunnelClient) send(method, path string, body any, header ...string) (tunnelResp, error) {
	if !strings.HasPrefix(path, "/_fake/") {
		header = append([]string{"Authorization", "Bearer " + tc.bearer, "vendor-version", core.APIVersion, "vendor-beta", tc.beta}, header...)
	}
	status, h, data, err := roundTrip(context.Background(), tc.ts, method, path, body, header...)
	if err != nil {
		return tunnelResp{}, err
	}
	tc.mu.Lock()
	tc.seen = append(tc.seen, seenResponse{method, path, fmt.Sprint(h) + string(data)})
	tc.mu.Unlock()
	return tunnelResp{status, h, data}, nil
}

// ok sends a request, requires 200 and decodes the body into v (when not nil).
func (tc *tunnelClient) ok(method, path string, body, v any) {
	tc.t.Helper()
	r := tc.do(method, path, body)
	if r.status != http.StatusOK {
		tc.t.Fatalf("%s %s = %d %s, want 200", method, path, r.status, r.body)
	}
	if v != nil {
		r.decode(tc.t, v)
	}
}

// fails sends a request and requires an error of the status and type whose message contains
// every one of want.
func (tc *tunnelClient) fails(method, path string, body any, status int, errType string, want ...string) {
	tc.t.Helper()
	r := tc.do(method, path, body)
	var e struct {
		Type  string
		Error struct{ Type, Message string }
	}
	r.decode(tc.t, &e)
	if r.status != status || e.Type != "error" || e.Error.Type != errType {
		tc.t.Fatalf("%s %s = %d %s, want %d %s", method, path, r.status, r.body, status, errType)
	}
	for _, w := range want {
		if !strings.Contains(e.Error.Message, w) {
			tc.t.Errorf("%s %s: message %q does not mention %q", method, path, e.Error.Message, w)
		}
	}
}

const (
	tunnelsPath   = "/v1/organizations/tunnels"
	prodTunnel    = "tnl_01AcmeProduction000000001"
	researchTunel = "tnl_01AcmeResearchLab00000001"
	legacyTunnel  = "tnl_01AcmeLegacyGateway000001"
	stagingTunnel = "tnl_01AcmeStaging00000000001"
	globexTunnel  = "tnl_01GlobexOperations0000001"
)

// create makes a tunnel through the control API.
func (tc *tunnelClient) create(body any) tunnels.Tunnel {
	tc.t.Helper()
	var tn tunnels.Tunnel
	tc.ok(http.MethodPost, "/_fake/tunnels", body, &tn)
	return tn
}

// list reads one page of the tunnel list with the query (which starts with "?" or is empty).
func (tc *tunnelClient) list(query string) core.TokenPage[tunnels.Tunnel] {
	tc.t.Helper()
	var page core.TokenPage[tunnels.Tunnel]
	tc.ok(http.MethodGet, tunnelsPath+query, nil, &page)
	return page
}

// collectIDs maps items to their IDs, in order.
func collectIDs[T any](items []T, id func(T) string) []string {
	out := []string{}
	for _, it := range items {
		out = append(out, id(it))
	}
	return out
}

// tunnelIDs and certIDs are collectIDs for the two record types.
func tunnelIDs(ts []tunnels.Tunnel) []string {
	return collectIDs(ts, func(t tunnels.Tunnel) string { return t.ID })
}

func certIDs(cs []tunnels.TunnelCertificate) []string {
	return collectIDs(cs, func(c tunnels.TunnelCertificate) string { return c.ID })
}

func TestTunnelListNewestFirstAndFilters(t *testing.T) {
	tc := newTunnelClient(t)
	got := tunnelIDs(tc.list("").Data)
	want := []string{stagingTunnel, researchTunel, prodTunnel}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("default list = %v, want %v (newest first, archived excluded, own org only)", got, want)
	}
	got = tunnelIDs(tc.list("?include_archived=true").Data)
	want = []string{stagingTunnel, researchTunel, prodTunnel, legacyTunnel}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("include_archived list = %v, want %v", got, want)
	}
	got = tunnelIDs(tc.list("?workspace_id=wrkspc_01AcmeResearch0000000001").Data)
	if fmt.Sprint(got) != fmt.Sprint([]string{researchTunel}) {
		t.Fatalf("workspace list = %v", got)
	}
	if got := tc.list("?workspace_id=wrkspc_01Nothing").Data; len(got) != 0 {
		t.Fatalf("unknown workspace lists %v, want nothing", got)
	}
	for _, bad := range []string{"?workspace_id=", "?workspace_id=ws_1", "?workspace_id=wrkspc_", "?include_archived=maybe", "?limit=0", "?limit=1001", "?limit=x", "?page=forged"} {
		field := strings.SplitN(strings.TrimPrefix(bad, "?"), "=", 2)[0]
		tc.fails(http.MethodGet, tunnelsPath+bad, nil, 400, core.ErrInvalidRequest, field)
	}
	tc.list("?limit=1")
	tc.list("?limit=1000")
}

func TestTunnelListTiesAndPages(t *testing.T) {
	tc := newTunnelClient(t)
	// Created in the same instant: the higher (later) ID comes first.
	a, b, c := tc.create(nil), tc.create(nil), tc.create(nil)
	var walked []string
	page := ""
	for i := 0; ; i++ {
		p := tc.list("?include_archived=true&limit=2" + page)
		if len(p.Data) == 0 || len(p.Data) > 2 {
			t.Fatalf("page %d holds %d items", i, len(p.Data))
		}
		walked = append(walked, tunnelIDs(p.Data)...)
		if p.NextPage == nil {
			break
		}
		page = "&page=" + *p.NextPage
	}
	all := tunnelIDs(tc.list("?include_archived=true").Data)
	if fmt.Sprint(walked) != fmt.Sprint(all) || len(all) != 7 || all[3] != stagingTunnel {
		t.Fatalf("walked %v, want %v", walked, all)
	}
	if all[0] != c.ID || all[1] != b.ID || all[2] != a.ID {
		t.Fatalf("ties: list starts %v, want %s %s %s", all[:3], c.ID, b.ID, a.ID)
	}
	// Tunnels created and archived between pages neither repeat nor hide the ones after the
	// token: a position is a key, not an offset.
	p1 := tc.list("?limit=2")
	tc.create(nil)
	tc.ok(http.MethodPost, tunnelsPath+"/"+all[0]+"/archive", nil, nil)
	p2 := tc.list("?limit=2&page=" + *p1.NextPage)
	if got := tunnelIDs(append(p1.Data, p2.Data...)); fmt.Sprint(got) != fmt.Sprint(all[:4]) {
		t.Fatalf("pages across changes = %v, want %v", got, all[:4])
	}
	// A page token of the tunnel list is refused by a certificate list.
	p := tc.list("?limit=1")
	tc.fails(http.MethodGet, tunnelsPath+"/"+prodTunnel+"/certificates?page="+*p.NextPage, nil, 400, core.ErrInvalidRequest, "page")
	// Exactly 20 by default.
	for range 20 {
		tc.create(nil)
	}
	if p := tc.list(""); len(p.Data) != 20 || p.NextPage == nil {
		t.Fatalf("default page holds %d, next_page %v; want 20 and more", len(p.Data), p.NextPage)
	}
}

func TestTunnelGetAndTenancy(t *testing.T) {
	tc := newTunnelClient(t)
	var tn tunnels.Tunnel
	tc.ok(http.MethodGet, tunnelsPath+"/"+researchTunel, nil, &tn)
	if tn.WorkspaceID == nil || *tn.WorkspaceID != "wrkspc_01AcmeResearch0000000001" || tn.Type != "tunnel" || tn.Domain != "acme-research.tunnels.platformkit.test" {
		t.Fatalf("tunnel = %+v", tn)
	}
	tc.ok(http.MethodGet, tunnelsPath+"/"+stagingTunnel, nil, &tn)
	if tn.DisplayName != nil || tn.WorkspaceID != nil {
		t.Fatalf("staging tunnel = %+v, want null display_name and workspace_id", tn)
	}
	// Another organization's tunnel answers exactly like an unknown one, on every route.
	for _, id := range []string{globexTunnel, "tnl_nope"} {
		for _, r := range [][2]string{
			{http.MethodGet, ""}, {http.MethodPost, "/reveal_token"}, {http.MethodPost, "/rotate_token"},
			{http.MethodPost, "/archive"}, {http.MethodGet, "/certificates"},
			{http.MethodGet, "/certificates/tcrt_01GlobexOpsCA00000000001"},
			{http.MethodPost, "/certificates/tcrt_01GlobexOpsCA00000000001/archive"},
		} {
			tc.fails(r[0], tunnelsPath+"/"+id+r[1], nil, 404, core.ErrNotFound, id)
		}
		tc.fails(http.MethodPost, tunnelsPath+"/"+id+"/certificates", map[string]string{"ca_certificate_pem": certgen.CA("x").PEM}, 404, core.ErrNotFound, id)
	}
	// The second organization sees its own tunnel, and not the first's.
	tc.bearer = "test-bearer-token-2"
	if got := tunnelIDs(tc.list("?include_archived=true").Data); fmt.Sprint(got) != fmt.Sprint([]string{globexTunnel}) {
		t.Fatalf("second org lists %v", got)
	}
	tc.fails(http.MethodGet, tunnelsPath+"/"+prodTunnel, nil, 404, core.ErrNotFound)
	// A certificate of one tunnel is not found under another of the same organization.
	tc.bearer = "test-bearer-token"
	tc.fails(http.MethodGet, tunnelsPath+"/"+researchTunel+"/certificates/tcrt_01AcmeProdBackupCA00000001", nil, 404, core.ErrNotFound)
}

func TestTunnelBetaHeaderRequired(t *testing.T) {
	tc := newTunnelClient(t)
	for _, beta := range []string{"", "managed-agents-2026-04-01", "mcp-tunnels-2026-05-18"} {
		r := tc.do(http.MethodGet, tunnelsPath, nil, "vendor-beta", beta)
		if r.status != 400 || !strings.Contains(r.errMessage(t), "mcp-tunnels-2026-05-19") {
			t.Fatalf("beta %q: %d %s, want 400 naming the beta value", beta, r.status, r.body)
		}
	}
	if r := tc.do(http.MethodGet, tunnelsPath, nil, "vendor-beta", "managed-agents-2026-04-01,mcp-tunnels-2026-05-19"); r.status != 200 {
		t.Fatalf("with other betas too: %d %s", r.status, r.body)
	}
	// Reveal is refused without the beta value before anything is answered.
	if r := tc.do(http.MethodPost, tunnelsPath+"/"+prodTunnel+"/reveal_token", nil, "vendor-beta", ""); r.status != 400 || strings.Contains(string(r.body), "tnltok_") {
		t.Fatalf("reveal without beta: %d %s", r.status, r.body)
	}
	if r := tc.do(http.MethodGet, tunnelsPath, nil, "Authorization", "", "X-Api-Key", "test-api-key"); r.status != 403 {
		t.Fatalf("API key: %d, want 403", r.status)
	}
}

func TestTunnelTokenRevealRotate(t *testing.T) {
	tc := newTunnelClient(t)
	reveal := func(id string) tunnels.TunnelToken {
		var tok tunnels.TunnelToken
		tc.ok(http.MethodPost, tunnelsPath+"/"+id+"/reveal_token", nil, &tok)
		return tok
	}
	first := reveal(prodTunnel)
	if len(first.ID) != len("ttkn_")+64 || strings.Trim(first.ID[5:], "0123456789abcdef") != "" || first.Type != "tunnel_token" {
		t.Fatalf("token = %+v, want ttkn_ + 64 hex", first)
	}
	if again := reveal(prodTunnel); again != first {
		t.Fatalf("second reveal = %+v, want %+v", again, first)
	}
	if other := reveal(researchTunel); other.ID == first.ID || other.TunnelToken == first.TunnelToken {
		t.Fatal("two tunnels share a token")
	}
	if id, ok := tc.ts.Fake.TunnelForToken(first.TunnelToken); !ok || id != prodTunnel {
		t.Fatalf("TunnelForToken(current) = %q %v", id, ok)
	}
	tc.ts.Fake.AdvanceClock(time.Hour)
	var rotated tunnels.TunnelToken
	tc.ok(http.MethodPost, tunnelsPath+"/"+prodTunnel+"/rotate_token", map[string]string{"reason": "key leaked in CI logs"}, &rotated)
	if rotated.ID == first.ID || rotated.TunnelToken == first.TunnelToken {
		t.Fatal("rotation kept the old token")
	}
	if got := reveal(prodTunnel); got != rotated {
		t.Fatalf("reveal after rotate = %+v, want %+v", got, rotated)
	}
	if _, ok := tc.ts.Fake.TunnelForToken(first.TunnelToken); ok {
		t.Fatal("the old token is still accepted after rotation")
	}
	// A body-less rotation (no Content-Type) and one with a null reason are fine too.
	var third, fourth tunnels.TunnelToken
	tc.ok(http.MethodPost, tunnelsPath+"/"+prodTunnel+"/rotate_token", nil, &third)
	tc.ok(http.MethodPost, tunnelsPath+"/"+prodTunnel+"/rotate_token", `{"reason":null}`, &fourth)
	rots := tc.ts.Fake.TokenRotations(prodTunnel)
	if len(rots) != 3 {
		t.Fatalf("rotations = %+v", rots)
	}
	want := tunnels.TokenRotation{TunnelID: prodTunnel, PreviousTokenID: first.ID, TokenID: rotated.ID, Reason: "key leaked in CI logs",
		CredentialID: "wif_01AcmeWorkloadIdentity0001", RotatedAt: core.Epoch().Add(time.Hour)}
	if rots[0] != want || rots[1].PreviousTokenID != rotated.ID || rots[1].TokenID != third.ID || rots[1].Reason != "" || rots[2].TokenID != fourth.ID {
		t.Fatalf("rotations = %+v, want first %+v", rots, want)
	}
	if len(tc.ts.Fake.TokenRotations(researchTunel)) != 0 {
		t.Fatal("rotations leak across tunnels")
	}
	// Bad bodies are refused and change nothing.
	for _, bad := range []struct{ body, field string }{{`{"reason": 5}`, "reason"}, {`{"why": "x"}`, "why"}, {`[1]`, ""}, {`{`, "JSON"}} {
		tc.fails(http.MethodPost, tunnelsPath+"/"+prodTunnel+"/rotate_token", bad.body, 400, core.ErrInvalidRequest, bad.field)
	}
	if got := reveal(prodTunnel); got != fourth || len(tc.ts.Fake.TokenRotations(prodTunnel)) != 3 {
		t.Fatal("a rejected rotation changed the token")
	}
}

func TestTunnelTokenDeterministic(t *testing.T) {
	a, b := newTunnelClient(t), newTunnelClient(t)
	var ta, tb tunnels.TunnelToken
	a.ok(http.MethodPost, tunnelsPath+"/"+prodTunnel+"/rotate_token", nil, &ta)
	b.ok(http.MethodPost, tunnelsPath+"/"+prodTunnel+"/rotate_token", nil, &tb)
	if ta != tb {
		t.Fatal("the same requests against two servers gave different tokens")
	}
}

func TestTunnelArchive(t *testing.T) {
	tc := newTunnelClient(t)
	var tok tunnels.TunnelToken
	tc.ok(http.MethodPost, tunnelsPath+"/"+prodTunnel+"/reveal_token", nil, &tok)
	tc.ts.Fake.AdvanceClock(time.Minute)
	var archived tunnels.Tunnel
	tc.ok(http.MethodPost, tunnelsPath+"/"+prodTunnel+"/archive", nil, &archived)
	now := core.Epoch().Add(time.Minute)
	if archived.ArchivedAt == nil || !archived.ArchivedAt.Equal(now) {
		t.Fatalf("archived_at = %v, want %v", archived.ArchivedAt, now)
	}
	// Every certificate that was not archived is archived in the same operation; the one
	// archived before keeps its time.
	var certs core.TokenPage[tunnels.TunnelCertificate]
	tc.ok(http.MethodGet, tunnelsPath+"/"+prodTunnel+"/certificates?include_archived=true", nil, &certs)
	if len(certs.Data) != 3 {
		t.Fatalf("certificates = %v", certIDs(certs.Data))
	}
	for _, c := range certs.Data {
		wantAt := now
		if c.ID == "tcrt_01AcmeProdRootCA2024000001" {
			wantAt = time.Date(2025, 9, 2, 8, 0, 0, 0, time.UTC)
		}
		if c.ArchivedAt == nil || !c.ArchivedAt.Equal(wantAt) {
			t.Errorf("certificate %s archived_at = %v, want %v", c.ID, c.ArchivedAt, wantAt)
		}
	}
	tc.ok(http.MethodGet, tunnelsPath+"/"+prodTunnel+"/certificates", nil, &certs)
	if len(certs.Data) != 0 {
		t.Fatalf("active certificates after archive: %v", certIDs(certs.Data))
	}
	if _, ok := tc.ts.Fake.TunnelForToken(tok.TunnelToken); ok {
		t.Fatal("the token of an archived tunnel is still accepted")
	}
	// A retry later answers the record unchanged.
	tc.ts.Fake.AdvanceClock(time.Hour)
	var again tunnels.Tunnel
	tc.ok(http.MethodPost, tunnelsPath+"/"+prodTunnel+"/archive", nil, &again)
	if !sameJSON(again, archived) {
		t.Fatalf("retry = %+v, want %+v", again, archived)
	}
	tc.fails(http.MethodPost, tunnelsPath+"/"+prodTunnel+"/reveal_token", nil, 400, core.ErrInvalidRequest, "archived")
	tc.fails(http.MethodPost, tunnelsPath+"/"+prodTunnel+"/rotate_token", map[string]string{"reason": "x"}, 400, core.ErrInvalidRequest, "archived")
	tc.fails(http.MethodPost, tunnelsPath+"/"+prodTunnel+"/certificates", map[string]string{"ca_certificate_pem": certgen.CA("late").PEM}, 400, core.ErrInvalidRequest, "archived")
	if len(tc.ts.Fake.TokenRotations(prodTunnel)) != 0 {
		t.Fatal("a refused rotation was recorded")
	}
	// Still readable, and listed only with include_archived.
	tc.ok(http.MethodGet, tunnelsPath+"/"+prodTunnel, nil, &again)
	for _, id := range tunnelIDs(tc.list("").Data) {
		if id == prodTunnel {
			t.Fatal("archived tunnel listed without include_archived")
		}
	}
}

func TestTunnelDomainsNeverReused(t *testing.T) {
	tc := newTunnelClient(t)
	seen := map[string]string{}
	for _, tn := range tc.list("?include_archived=true").Data {
		seen[tn.Domain] = tn.ID
	}
	for i := range 30 {
		tn := tc.create(map[string]any{"display_name": fmt.Sprintf("scratch %d", i)})
		if prev, dup := seen[tn.Domain]; dup {
			t.Fatalf("domain %s of %s was %s's", tn.Domain, tn.ID, prev)
		}
		seen[tn.Domain] = tn.ID
		if i%2 == 0 {
			tc.ok(http.MethodPost, tunnelsPath+"/"+tn.ID+"/archive", nil, nil)
		}
	}
	// A custom data set whose fixture domains look like generated ones is skipped over.
	s := New()
	st := tunnels.StoreOf(s.srv, s.srv.State())
	st.Domains["t1"+tunnels.DomainSuffix] = true
	if tn, err := s.CreateTunnel(tunnels.TunnelOptions{}); err != nil || tn.Domain != "t2"+tunnels.DomainSuffix {
		t.Fatalf("CreateTunnel = %+v, %v; want the domain after the taken one", tn, err)
	}
}

func TestTunnelControlCreate(t *testing.T) {
	tc := newTunnelClient(t)
	tn := tc.create(map[string]any{"organization_id": "9a8b7c6d-1e2f-4a3b-8c4d-5e6f7a8b9c0d", "workspace_id": "wrkspc_01GlobexOps000000000001", "display_name": strings.Repeat("é", 255)})
	if tn.Type != "tunnel" || tn.ArchivedAt != nil || !tn.CreatedAt.Equal(core.Epoch()) || *tn.WorkspaceID != "wrkspc_01GlobexOps000000000001" {
		t.Fatalf("tunnel = %+v", tn)
	}
	tc.fails(http.MethodGet, tunnelsPath+"/"+tn.ID, nil, 404, core.ErrNotFound)
	tc.bearer = "test-bearer-token-2"
	tc.ok(http.MethodGet, tunnelsPath+"/"+tn.ID, nil, nil)
	for _, bad := range []struct {
		body  string
		field string
	}{
		{`{"organization_id": "org_nope"}`, "organization_id"},
		{`{"workspace_id": "default"}`, "workspace_id"},
		{`{"display_name": ""}`, "display_name"},
		{fmt.Sprintf(`{"display_name": %q}`, strings.Repeat("x", 256)), "display_name"},
		{`{"display_name": 7}`, "display_name"},
		{`{"name": "x"}`, "name"},
	} {
		tc.fails(http.MethodPost, "/_fake/tunnels", bad.body, 400, core.ErrInvalidRequest, bad.field)
	}
	if n := len(tc.list("?include_archived=true").Data); n != 2 {
		t.Fatalf("rejected creates changed the list: %d tunnels", n)
	}
}

func TestTunnelCertificates(t *testing.T) {
	tc := newTunnelClient(t)
	tn := tc.create(nil)
	base := tunnelsPath + "/" + tn.ID + "/certificates"
	ca := certgen.New(certgen.Options{CommonName: "gateway CA", IsCA: true, NotAfter: time.Date(2031, 5, 6, 7, 8, 9, 0, time.UTC)})
	var c1 tunnels.TunnelCertificate
	tc.ok(http.MethodPost, base, map[string]string{"ca_certificate_pem": ca.PEM}, &c1)
	if c1.Fingerprint != ca.Fingerprint() || c1.ExpiresAt == nil || !c1.ExpiresAt.Equal(time.Date(2031, 5, 6, 7, 8, 9, 0, time.UTC)) ||
		c1.TunnelID != tn.ID || c1.ArchivedAt != nil || !c1.CreatedAt.Equal(core.Epoch()) || c1.Type != "tunnel_certificate" {
		t.Fatalf("certificate = %+v", c1)
	}
	var got tunnels.TunnelCertificate
	tc.ok(http.MethodGet, base+"/"+c1.ID, nil, &got)
	if !sameJSON(got, c1) {
		t.Fatalf("get = %+v, want %+v", got, c1)
	}
	// A certificate that never expires (RFC 5280's 99991231235959Z) has a null expires_at.
	forever := certgen.New(certgen.Options{CommonName: "forever", IsCA: true, NotAfter: tunnels.NoExpiry})
	var c2 tunnels.TunnelCertificate
	tc.ts.Fake.AdvanceClock(time.Second)
	tc.ok(http.MethodPost, base, map[string]string{"ca_certificate_pem": forever.PEM}, &c2)
	if c2.ExpiresAt != nil {
		t.Fatalf("expires_at = %v, want null", c2.ExpiresAt)
	}
	// The third non-archived one is refused and changes nothing.
	tc.fails(http.MethodPost, base, map[string]string{"ca_certificate_pem": certgen.CA("third").PEM}, 400, core.ErrInvalidRequest, "2", "archive")
	var page core.TokenPage[tunnels.TunnelCertificate]
	tc.ok(http.MethodGet, base, nil, &page)
	if fmt.Sprint(certIDs(page.Data)) != fmt.Sprint([]string{c2.ID, c1.ID}) || page.NextPage != nil {
		t.Fatalf("list = %v, want newest first %s %s", certIDs(page.Data), c2.ID, c1.ID)
	}
	// Archiving one frees a slot; archiving again answers it unchanged.
	tc.ts.Fake.AdvanceClock(time.Second)
	var a1, a2 tunnels.TunnelCertificate
	tc.ok(http.MethodPost, base+"/"+c1.ID+"/archive", nil, &a1)
	tc.ts.Fake.AdvanceClock(time.Second)
	tc.ok(http.MethodPost, base+"/"+c1.ID+"/archive", nil, &a2)
	if a1.ArchivedAt == nil || !a1.ArchivedAt.Equal(core.Epoch().Add(2*time.Second)) || !sameJSON(a1, a2) {
		t.Fatalf("archive = %+v, retry = %+v", a1, a2)
	}
	var c3 tunnels.TunnelCertificate
	tc.ok(http.MethodPost, base, map[string]string{"ca_certificate_pem": certgen.CA("third").PEM}, &c3)
	// Archiving the last ones is allowed.
	tc.ok(http.MethodPost, base+"/"+c2.ID+"/archive", nil, nil)
	tc.ok(http.MethodPost, base+"/"+c3.ID+"/archive", nil, nil)
	tc.ok(http.MethodGet, base, nil, &page)
	if len(page.Data) != 0 || page.NextPage != nil {
		t.Fatalf("active list = %v", certIDs(page.Data))
	}
	tc.ok(http.MethodGet, base+"?include_archived=true&limit=2", nil, &page)
	if fmt.Sprint(certIDs(page.Data)) != fmt.Sprint([]string{c3.ID, c2.ID}) || page.NextPage == nil {
		t.Fatalf("first page = %v", certIDs(page.Data))
	}
	tc.ok(http.MethodGet, base+"?include_archived=true&limit=2&page="+*page.NextPage, nil, &page)
	if fmt.Sprint(certIDs(page.Data)) != fmt.Sprint([]string{c1.ID}) || page.NextPage != nil {
		t.Fatalf("second page = %v", certIDs(page.Data))
	}
	for _, bad := range []string{"?limit=0", "?limit=1001", "?include_archived=yes", "?page=abc"} {
		tc.fails(http.MethodGet, base+bad, nil, 400, core.ErrInvalidRequest, strings.SplitN(bad[1:], "=", 2)[0])
	}
	tc.fails(http.MethodGet, base+"/tcrt_nope", nil, 404, core.ErrNotFound, "tcrt_nope")
	tc.fails(http.MethodPost, base+"/tcrt_nope/archive", nil, 404, core.ErrNotFound, "tcrt_nope")
}

func TestTunnelCertificateValidation(t *testing.T) {
	tc := newTunnelClient(t)
	tn := tc.create(nil)
	base := tunnelsPath + "/" + tn.ID + "/certificates"
	ca, leaf := certgen.CA("ca"), certgen.New(certgen.Options{CommonName: "leaf"})
	pad := func(n int) string { // a valid CA PEM padded with explanatory text to n bytes
		return strings.Repeat("#", n-len(ca.PEM)-1) + "\n" + ca.PEM
	}
	rsaKey := "-----BEGIN RSA PRIVATE KEY-----\nMIIBOgIBAAJBAK\n-----END RSA PRIVATE KEY-----\n"
	for _, bad := range []struct {
		name, body string
		want       []string
	}{
		{"missing", `{}`, []string{"ca_certificate_pem", "required"}},
		{"empty", `{"ca_certificate_pem": ""}`, []string{"ca_certificate_pem"}},
		{"not a string", `{"ca_certificate_pem": 1}`, []string{"ca_certificate_pem"}},
		{"unknown field", `{"ca_certificate_pem": "x", "name": "y"}`, []string{"name"}},
		{"over 8 KB", jsonBody(pad(8193)), []string{"ca_certificate_pem", "8192", "8193"}},
		{"PKCS#8 key after the certificate", jsonBody(ca.PEM + ca.KeyPEM), []string{"private-key"}},
		{"RSA key only", jsonBody(rsaKey), []string{"private-key"}},
		{"EC key", jsonBody(strings.ReplaceAll(ca.KeyPEM, "PRIVATE KEY", "EC PRIVATE KEY") + ca.PEM), []string{"private-key"}},
		{"encrypted key", jsonBody(ca.PEM + strings.ReplaceAll(ca.KeyPEM, "PRIVATE KEY", "ENCRYPTED PRIVATE KEY")), []string{"private-key"}},
		{"two certificates", jsonBody(ca.PEM + certgen.CA("other").PEM), []string{"2 CERTIFICATE blocks", "exactly one"}},
		{"not PEM", jsonBody("hello"), []string{"no PEM CERTIFICATE block"}},
		{"other block", jsonBody("-----BEGIN PUBLIC KEY-----\nAAAA\n-----END PUBLIC KEY-----\n"), []string{`"PUBLIC KEY"`}},
		{"garbage DER", jsonBody("-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n"), []string{"not a valid X.509"}},
		{"not a CA", jsonBody(leaf.PEM), []string{"not a CA certificate"}},
	} {
		t.Run(bad.name, func(t *testing.T) {
			tc.t = t
			tc.fails(http.MethodPost, base, bad.body, 400, core.ErrInvalidRequest, bad.want...)
		})
	}
	tc.t = t
	var page core.TokenPage[tunnels.TunnelCertificate]
	tc.ok(http.MethodGet, base+"?include_archived=true", nil, &page)
	if len(page.Data) != 0 {
		t.Fatal("a rejected certificate was stored")
	}
	var at tunnels.TunnelCertificate
	tc.ok(http.MethodPost, base, jsonBody(pad(8192)), &at)
	if at.Fingerprint != ca.Fingerprint() {
		t.Fatal("the padded certificate's fingerprint differs")
	}
	// An expired CA certificate is accepted; its expires_at says so (gaps §9 does not refuse it).
	old := certgen.New(certgen.Options{CommonName: "old", IsCA: true, NotAfter: time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC)})
	tc.ok(http.MethodPost, base, jsonBody(old.PEM), &at)
	if !at.ExpiresAt.Equal(time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC)) {
		t.Fatalf("expires_at = %v", at.ExpiresAt)
	}
}

// sameJSON reports whether a and b marshal to the same JSON: records hold pointers.
func sameJSON(a, b any) bool {
	ja, _ := json.Marshal(a)
	jb, _ := json.Marshal(b)
	return bytes.Equal(ja, jb)
}

// jsonBody is the JSON of a certificate create request.
func jsonBody(pemText string) string {
	b, _ := json.Marshal(map[string]string{"ca_certificate_pem": pemText})
	return string(b)
}

// TestTunnelTokenSecrecy proves spec 5 rule 2: the token value is answered by reveal_token and
// rotate_token and by nothing else: no other response (headers or body), no error, no log line.
func TestTunnelTokenSecrecy(t *testing.T) {
	var logs bytes.Buffer
	var logMu sync.Mutex
	logger := slog.New(slog.NewTextHandler(&lockedWriter{&logMu, &logs}, &slog.HandlerOptions{Level: slog.LevelDebug}))
	tc := newTunnelClient(t, WithLogger(logger))
	var tokens []string
	grab := func(method, path string, body any) {
		var tok tunnels.TunnelToken
		tc.ok(method, path, body, &tok)
		tokens = append(tokens, tok.TunnelToken)
	}
	tn := tc.create(map[string]string{"display_name": "secrecy"})
	for _, id := range []string{prodTunnel, tn.ID} {
		grab(http.MethodPost, tunnelsPath+"/"+id+"/reveal_token", nil)
		grab(http.MethodPost, tunnelsPath+"/"+id+"/rotate_token", map[string]string{"reason": "secrecy test"})
		grab(http.MethodPost, tunnelsPath+"/"+id+"/reveal_token", nil)
	}
	// Every other operation, successful or not, including ones whose body carries a token. (A
	// client that puts a token into a URL leaks it itself: paths are logged, and a 404 names the ID.)
	base := tunnelsPath + "/" + tn.ID
	tc.do(http.MethodGet, tunnelsPath+"?include_archived=true", nil)
	tc.do(http.MethodGet, base, nil)
	tc.do(http.MethodPost, base+"/certificates", jsonBody(certgen.CA("s").PEM))
	tc.do(http.MethodPost, base+"/certificates", jsonBody(tokens[0]))
	tc.do(http.MethodGet, base+"/certificates?include_archived=true", nil)
	tc.do(http.MethodPost, base+"/rotate_token", map[string]any{"reason": 1, "tunnel_token": tokens[0]})
	tc.do(http.MethodPost, "/_fake/tunnels/token_check", map[string]string{"tunnel_token": tokens[len(tokens)-1]})
	tc.do(http.MethodPost, "/_fake/tunnels/token_check", map[string]string{"tunnel_token": tokens[0]})
	tc.do(http.MethodPost, base+"/archive", nil)
	tc.do(http.MethodPost, base+"/archive", nil)
	tc.do(http.MethodPost, base+"/reveal_token", nil)
	tc.do(http.MethodPost, base+"/rotate_token", nil)
	for _, tok := range tokens {
		if tok == "" {
			t.Fatal("an empty token")
		}
		for _, r := range tc.seen {
			isTokenOp := strings.HasSuffix(r.path, "/reveal_token") || strings.HasSuffix(r.path, "/rotate_token")
			if strings.Contains(r.body, tok) && !(isTokenOp && strings.Contains(r.body, `"type":"tunnel_token"`)) {
				t.Errorf("%s %s answered a token: %s", r.method, r.path, r.body)
			}
		}
		logMu.Lock()
		if strings.Contains(logs.String(), tok) {
			t.Errorf("the log holds a token")
		}
		logMu.Unlock()
		for _, r := range tc.ts.Fake.TokenRotations(prodTunnel) {
			if strings.Contains(fmt.Sprintf("%+v", r), tok) {
				t.Errorf("a rotation record holds a token: %+v", r)
			}
		}
		journal, _ := json.Marshal(tc.ts.Fake.Journal())
		if strings.Contains(string(journal), tok) {
			t.Errorf("the request journal holds a token")
		}
	}
	if len(tc.ts.Fake.Journal()) < 10 {
		t.Fatal("the journal recorded too few requests; the journal check proves nothing")
	}
	logMu.Lock()
	defer logMu.Unlock()
	if !strings.Contains(logs.String(), "reveal_token") {
		t.Fatal("the logger saw no requests; the log check proves nothing")
	}
}

// lockedWriter serializes the log writes of concurrent requests.
type lockedWriter struct {
	mu *sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

func TestTunnelTokenCheckControl(t *testing.T) {
	tc := newTunnelClient(t)
	var tok tunnels.TunnelToken
	tc.ok(http.MethodPost, tunnelsPath+"/"+researchTunel+"/reveal_token", nil, &tok)
	check := func(token string) (accepted bool, id *string) {
		var r struct {
			Accepted bool    `json:"accepted"`
			TunnelID *string `json:"tunnel_id"`
		}
		tc.ok(http.MethodPost, "/_fake/tunnels/token_check", map[string]string{"tunnel_token": token}, &r)
		return r.Accepted, r.TunnelID
	}
	if ok, id := check(tok.TunnelToken); !ok || *id != researchTunel {
		t.Fatalf("current token: %v %v", ok, id)
	}
	if ok, id := check("tnltok_nope"); ok || id != nil {
		t.Fatal("an unknown token is accepted")
	}
	tc.fails(http.MethodPost, "/_fake/tunnels/token_check", `{}`, 400, core.ErrInvalidRequest, "tunnel_token")
}

// TestTunnelConcurrency hammers one tunnel with rotations, reveals, certificate creates and
// archives, and lists; run with -race. The cap of two active certificates must hold throughout,
// and every rotation must be recorded.
func TestTunnelConcurrency(t *testing.T) {
	tc := newTunnelClient(t)
	tn := tc.create(nil)
	base := tunnelsPath + "/" + tn.ID
	pems := make([]string, 8)
	for i := range pems {
		pems[i] = jsonBody(certgen.CA(fmt.Sprint(i)).PEM)
	}
	var wg sync.WaitGroup
	for w := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 10 {
				for _, r := range []struct {
					method, path string
					body         any
				}{
					{http.MethodPost, base + "/rotate_token", nil}, {http.MethodPost, base + "/reveal_token", nil},
					{http.MethodGet, tunnelsPath, nil},
				} {
					if resp, err := tc.send(r.method, r.path, r.body); err != nil || resp.status != 200 {
						t.Errorf("%s %s: %v %d %s", r.method, r.path, err, resp.status, resp.body)
					}
				}
				var c tunnels.TunnelCertificate
				if resp, err := tc.send(http.MethodPost, base+"/certificates", pems[w]); err == nil && resp.status == 200 && json.Unmarshal(resp.body, &c) == nil {
					if resp, err := tc.send(http.MethodPost, base+"/certificates/"+c.ID+"/archive", nil); err != nil || resp.status != 200 {
						t.Errorf("archive: %v %d", err, resp.status)
					}
				} else if err != nil || resp.status != 400 {
					t.Errorf("create: %v %d %s", err, resp.status, resp.body)
				}
				var page core.TokenPage[tunnels.TunnelCertificate]
				if resp, err := tc.send(http.MethodGet, base+"/certificates", nil); err != nil || json.Unmarshal(resp.body, &page) != nil || len(page.Data) > 2 {
					t.Errorf("active certificates: %v %s", err, resp.body)
				}
			}
		}()
	}
	wg.Wait()
	if n := len(tc.ts.Fake.TokenRotations(tn.ID)); n != 80 {
		t.Fatalf("rotations = %d, want 80", n)
	}
	var page core.TokenPage[tunnels.TunnelCertificate]
	tc.ok(http.MethodGet, base+"/certificates?include_archived=true&limit=1000", nil, &page)
	for _, c := range page.Data {
		if c.ArchivedAt == nil {
			t.Errorf("certificate %s left active", c.ID)
		}
	}
}

// fixedCA is one CA certificate for tests that compare responses byte for byte.
var fixedCA = func() string {
	raw, err := fs.ReadFile(fixtures.FS(), "tunnels.json")
	if err != nil {
		panic(err)
	}
	var file struct {
		Tunnels []struct {
			Certificates []struct {
				PEM string `json:"ca_certificate_pem"`
			} `json:"certificates"`
		} `json:"tunnels"`
	}
	if err := json.Unmarshal(raw, &file); err != nil {
		panic(err)
	}
	return file.Tunnels[0].Certificates[0].PEM
}()

func BenchmarkTunnelList(b *testing.B) {
	s := New()
	for i := range 1000 {
		if _, err := s.CreateTunnel(tunnels.TunnelOptions{DisplayName: fmt.Sprint("bench ", i)}); err != nil {
			b.Fatal(err)
		}
	}
	req, _ := http.NewRequest(http.MethodGet, tunnelsPath+"?limit=100", nil)
	req.Header.Set("Authorization", "Bearer test-bearer-token")
	req.Header.Set("vendor-version", "2023-06-01")
	req.Header.Set("vendor-beta", "mcp-tunnels-2026-05-19")
	b.ReportAllocs()
	for b.Loop() {
		w := httptest.NewRecorder()
		s.ServeHTTP(w, req)
		if w.Code != 200 {
			b.Fatal(w.Body.String())
		}
	}
}

func BenchmarkTunnelRevealParallel(b *testing.B) {
	s := New()
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			req, _ := http.NewRequest(http.MethodPost, tunnelsPath+"/"+prodTunnel+"/reveal_token", nil)
			req.Header.Set("Authorization", "Bearer test-bearer-token")
			req.Header.Set("vendor-version", "2023-06-01")
			req.Header.Set("vendor-beta", "mcp-tunnels-2026-05-19")
			w := httptest.NewRecorder()
			s.ServeHTTP(w, req)
			if w.Code != 200 {
				b.Fatal(w.Body.String())
			}
		}
	})
}
