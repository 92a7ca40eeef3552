package fake

import (
	"bytes"
	"encoding/json"
	"io/fs"
	"net/http"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/platformkit/platformkit/fake/internal/areas/tunnels"

	"github.com/platformkit/platformkit/fake/internal/core"

	"github.com/platformkit/platformkit/conformance/certgen"
	"github.com/platformkit/platformkit/fixtures"
)

// tunnelFixtureSet is the embedded organizations plus a tunnels.json built from tunnels.
func tunnelFixtureSet(t *testing.T, tunnels ...map[string]any) (*core.Fixtures, error) {
	t.Helper()
	orgs, err := fs.ReadFile(fixtures.FS(), "organizations.json")
	if err != nil {
		t.Fatal(err)
	}
	data, err := json.Marshal(map[string]any{"tunnels": tunnels})
	if err != nil {
		t.Fatal(err)
	}
	return core.LoadFixtures(fstest.MapFS{
		"organizations.json": {Data: orgs},
		"tunnels.json":       {Data: data},
	})
}

// fixtureTunnelDoc and fixtureCertDoc are entries of a tunnels.json, for custom data sets.
func fixtureTunnelDoc(id, domain string, archivedAt any, certs ...map[string]any) map[string]any {
	if certs == nil {
		certs = []map[string]any{}
	}
	return map[string]any{"id": id, "organization_id": "org_01AcmeCorporation00000001", "archived_at": archivedAt,
		"created_at": "2025-01-01T00:00:00Z", "display_name": nil, "domain": domain, "workspace_id": nil, "certificates": certs}
}

func fixtureCertDoc(id, pemText string, archivedAt any) map[string]any {
	return map[string]any{"id": id, "archived_at": archivedAt, "created_at": "2025-01-01T00:00:00Z", "ca_certificate_pem": pemText}
}

func TestTunnelFixtureRules(t *testing.T) {
	ca := certgen.CA("fixture").PEM
	at := "2025-06-01T00:00:00Z"
	for _, bad := range []struct {
		name    string
		tunnels []map[string]any
		want    string
	}{
		{"unknown organization", []map[string]any{func() map[string]any {
			d := fixtureTunnelDoc("tnl_a", "a.example.test", nil)
			d["organization_id"] = "org_nope"
			return d
		}()}, "org_nope"},
		{"duplicate ID", []map[string]any{fixtureTunnelDoc("tnl_a", "a.example.test", nil), fixtureTunnelDoc("tnl_a", "b.example.test", nil)}, "tnl_a"},
		{"duplicate domain", []map[string]any{fixtureTunnelDoc("tnl_a", "a.example.test", nil), fixtureTunnelDoc("tnl_b", "a.example.test", nil)}, "a.example.test"},
		{"upper-case domain", []map[string]any{fixtureTunnelDoc("tnl_a", "A.example.test", nil)}, "domain"},
		{"three active certificates", []map[string]any{fixtureTunnelDoc("tnl_a", "a.example.test", nil,
			fixtureCertDoc("tcrt_1", ca, nil), fixtureCertDoc("tcrt_2", ca, nil), fixtureCertDoc("tcrt_3", ca, nil))}, "at most 2"},
		{"archived tunnel with an active certificate", []map[string]any{fixtureTunnelDoc("tnl_a", "a.example.test", at, fixtureCertDoc("tcrt_1", ca, nil))}, "archived tunnel"},
		{"not a CA", []map[string]any{fixtureTunnelDoc("tnl_a", "a.example.test", nil, fixtureCertDoc("tcrt_1", certgen.New(certgen.Options{CommonName: "leaf"}).PEM, nil))}, "not a CA"},
		{"duplicate certificate ID", []map[string]any{fixtureTunnelDoc("tnl_a", "a.example.test", nil, fixtureCertDoc("tcrt_1", ca, at), fixtureCertDoc("tcrt_1", ca, nil))}, "tcrt_1"},
	} {
		if _, err := tunnelFixtureSet(t, bad.tunnels...); err == nil || !strings.Contains(err.Error(), bad.want) {
			t.Errorf("%s: err = %v, want one mentioning %q", bad.name, err, bad.want)
		}
	}
	fx, err := tunnelFixtureSet(t, fixtureTunnelDoc("tnl_a", "t1.tunnels.platformkit.test", nil, fixtureCertDoc("tcrt_1", ca, at), fixtureCertDoc("tcrt_2", ca, nil)))
	if err != nil {
		t.Fatal(err)
	}
	// A generated domain that a fixture already holds is skipped.
	s := New(WithFixtures(&Fixtures{fx: fx}))
	if tn, err := s.CreateTunnel(tunnels.TunnelOptions{}); err != nil || tn.Domain != "t2.tunnels.platformkit.test" {
		t.Fatalf("CreateTunnel = %+v, %v", tn, err)
	}
}

func TestTunnelFixturesContent(t *testing.T) {
	fx, err := core.DefaultFixtures()
	if err != nil {
		t.Fatal(err)
	}
	archived, inWorkspace, twoActivePlusArchived := 0, 0, 0
	for _, tn := range *tunnels.TunnelsSection.In(fx.Sections) {
		if tn.Org != fx.Orgs[0] {
			continue
		}
		active, old := 0, 0
		for _, c := range tn.Certs {
			if c.ArchivedAt == nil {
				active++
			} else {
				old++
			}
			if c.ExpiresAt == nil || c.ExpiresAt.Year() < 2035 {
				t.Errorf("certificate %s expires %v, want a long validity", c.ID, c.ExpiresAt)
			}
		}
		if tn.ArchivedAt != nil {
			archived++
		}
		if tn.WorkspaceID != nil {
			inWorkspace++
		}
		if active == 2 && old > 0 {
			twoActivePlusArchived++
		}
	}
	if archived == 0 || inWorkspace == 0 || twoActivePlusArchived == 0 {
		t.Fatalf("first organization: %d archived, %d in a workspace, %d with two active and an archived certificate; want each at least 1", archived, inWorkspace, twoActivePlusArchived)
	}
}

func TestTunnelResetAndDeterminism(t *testing.T) {
	run := func(tc *tunnelClient) string {
		var out bytes.Buffer
		for _, r := range []struct {
			method, path string
			body         any
		}{
			{http.MethodPost, "/_fake/tunnels", map[string]string{"display_name": "d"}},
			{http.MethodPost, tunnelsPath + "/" + prodTunnel + "/rotate_token", nil},
			{http.MethodPost, tunnelsPath + "/" + researchTunel + "/certificates", jsonBody(fixedCA)},
			{http.MethodPost, tunnelsPath + "/" + researchTunel + "/archive", nil},
			{http.MethodGet, tunnelsPath + "?include_archived=true", nil},
			{http.MethodGet, tunnelsPath + "/" + researchTunel + "/certificates?include_archived=true", nil},
		} {
			out.Write(tc.do(r.method, r.path, r.body).body)
		}
		return out.String()
	}
	a, b := newTunnelClient(t), newTunnelClient(t)
	first := run(a)
	if second := run(b); first != second {
		t.Fatalf("two servers answered differently:\n%s\n%s", first, second)
	}
	a.ts.Fake.Reset()
	if again := run(a); again != first {
		t.Fatalf("after Reset:\n%s\nwant\n%s", again, first)
	}
	if n := len(a.ts.Fake.TokenRotations(prodTunnel)); n != 1 {
		t.Fatalf("rotations after Reset and one rotation = %d", n)
	}
}

func TestTunnelGatewayTrust(t *testing.T) {
	tc := newTunnelClient(t)
	tn := tc.create(nil)
	base := tunnelsPath + "/" + tn.ID + "/certificates"
	check := func(chain string) (bool, string) {
		t.Helper()
		var r struct {
			Accepted bool    `json:"accepted"`
			Reason   *string `json:"reason"`
		}
		tc.ok(http.MethodPost, "/_fake/tunnels/"+tn.ID+"/gateway_check", map[string]string{"certificate_pem": chain}, &r)
		if r.Accepted != (r.Reason == nil) {
			t.Fatalf("accepted %v with reason %v", r.Accepted, r.Reason)
		}
		if r.Reason == nil {
			return true, ""
		}
		return false, *r.Reason
	}
	caA, caB := certgen.CA("A"), certgen.CA("B")
	gwA, gwB := caA.Issue("gw.example.test"), caB.Issue("gw.example.test")
	if ok, why := check(gwA.PEM); ok || !strings.Contains(why, "no non-archived CA") {
		t.Fatalf("without CA: %v %q", ok, why)
	}
	var certA, certB tunnels.TunnelCertificate
	tc.ok(http.MethodPost, base, jsonBody(caA.PEM), &certA)
	if ok, _ := check(gwA.PEM); !ok {
		t.Fatal("a gateway issued by the trusted CA is refused")
	}
	if ok, why := check(gwB.PEM); ok || !strings.Contains(why, "does not verify") {
		t.Fatalf("gateway of an unregistered CA: %v %q", ok, why)
	}
	tc.ok(http.MethodPost, base, jsonBody(caB.PEM), &certB)
	if okA, _ := check(gwA.PEM); !okA {
		t.Fatal("during rotation the old gateway certificate is refused")
	}
	if okB, _ := check(gwB.PEM); !okB {
		t.Fatal("during rotation the new gateway certificate is refused")
	}
	tc.ok(http.MethodPost, base+"/"+certA.ID+"/archive", nil, nil)
	if ok, _ := check(gwA.PEM); ok {
		t.Fatal("an archived CA certificate is still trusted")
	}
	if err := tc.ts.Fake.CheckGateway(tn.ID, gwB.PEM); err != nil {
		t.Fatalf("CheckGateway = %v", err)
	}
	// An expired CA certificate registers but verifies nothing at the server's time.
	expired := certgen.New(certgen.Options{CommonName: "expired", IsCA: true, NotAfter: core.Epoch().Add(-time.Hour)})
	tc.ok(http.MethodPost, base+"/"+certB.ID+"/archive", nil, nil)
	tc.ok(http.MethodPost, base, jsonBody(expired.PEM), nil)
	if ok, why := check(expired.Issue("gw").PEM); ok || !strings.Contains(why, "expired") {
		t.Fatalf("gateway of an expired CA: %v %q", ok, why)
	}
	tc.ok(http.MethodPost, tunnelsPath+"/"+tn.ID+"/archive", nil, nil)
	if err := tc.ts.Fake.CheckGateway(tn.ID, gwB.PEM); err == nil || !strings.Contains(err.Error(), "archived") {
		t.Fatalf("archived tunnel: %v", err)
	}
	tc.fails(http.MethodPost, "/_fake/tunnels/tnl_nope/gateway_check", map[string]string{"certificate_pem": gwA.PEM}, 404, core.ErrNotFound, "tnl_nope")
	tc.fails(http.MethodPost, "/_fake/tunnels/"+tn.ID+"/gateway_check", map[string]string{"certificate_pem": "x"}, 400, core.ErrInvalidRequest, "certificate_pem")
	tc.fails(http.MethodPost, "/_fake/tunnels/"+tn.ID+"/gateway_check", `{}`, 400, core.ErrInvalidRequest, "certificate_pem")
}
