package tunnelcarotation

import (
	"context"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/platformkit/platformkit/conformance/certgen"
	"github.com/platformkit/platformkit/fake"
)

// gateway stands in for the gateway behind the tunnel: the certificate it presents now.
type gateway struct {
	mu   sync.Mutex
	cert certgen.Cert
}

func (g *gateway) presents() string {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.cert.PEM
}

// trustChecker is an http.RoundTripper that asks the fake, after every request of the rotation,
// whether the tunnel still accepts the gateway: the proof that there was no downtime.
type trustChecker struct {
	t        *testing.T
	fake     *fake.Server
	tunnelID string
	gw       *gateway
}

func (tc trustChecker) RoundTrip(r *http.Request) (*http.Response, error) {
	resp, err := http.DefaultTransport.RoundTrip(r)
	if err == nil {
		if verr := tc.fake.CheckGateway(tc.tunnelID, tc.gw.presents()); verr != nil {
			tc.t.Errorf("after %s %s the tunnel refuses the gateway: %v", r.Method, r.URL.Path, verr)
		}
	}
	return resp, err
}

// TestRotateCA rotates the CA certificate of a tunnel at the limit of two (the CA in use and a
// spare), checks after every request that the tunnel still accepts the gateway, and prints what
// a user would see.
func TestRotateCA(t *testing.T) {
	ts := fake.NewTestServer(t)
	tn, err := ts.Fake.CreateTunnel(fake.TunnelOptions{DisplayName: "payments gateway"})
	if err != nil {
		t.Fatal(err)
	}
	current, spare, next := certgen.CA("Payments CA 2025"), certgen.CA("Payments spare CA"), certgen.CA("Payments CA 2026")
	gw := &gateway{cert: current.Issue("gateway.payments.test")}
	c := &Client{BaseURL: ts.URL, Bearer: "test-bearer-token", HTTP: &http.Client{Transport: trustChecker{t, ts.Fake, tn.ID, gw}}}
	var setup Certificate
	for _, ca := range []certgen.Cert{current, spare} {
		if err := c.do(context.Background(), http.MethodPost, "/v1/organizations/tunnels/"+tn.ID+"/certificates", map[string]string{"ca_certificate_pem": ca.PEM}, &setup); err != nil {
			t.Fatal(err)
		}
	}
	switchGateway := func(_ context.Context, added Certificate) error {
		if added.Fingerprint != next.Fingerprint() {
			t.Errorf("added fingerprint %s, want %s", added.Fingerprint, next.Fingerprint())
		}
		gw.mu.Lock()
		gw.cert = next.Issue("gateway.payments.test")
		gw.mu.Unlock()
		return nil
	}
	var out strings.Builder
	added, err := c.RotateCA(context.Background(), tn.ID, current.Fingerprint(), next.PEM, switchGateway, &out)
	if err != nil {
		t.Fatal(err)
	}
	t.Log("\n" + out.String())
	want := []string{
		"tunnel " + tn.ID + " trusts 2 CA certificate(s): ",
		"at the limit of 2: archiving " + setup.ID + ", which the gateway does not use, to make room",
		"added " + added.ID + ": the gateway may now present a certificate issued by either CA",
		"switched the gateway to a certificate issued by the new CA",
		"archived ",
		"tunnel " + tn.ID + " trusts 1 CA certificate(s): " + added.ID,
	}
	lines := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
	if len(lines) != len(want) {
		t.Fatalf("output has %d lines, want %d", len(lines), len(want))
	}
	for i, w := range want {
		if !strings.HasPrefix(lines[i], w) {
			t.Errorf("line %d = %q, want it to start with %q", i+1, lines[i], w)
		}
	}
	if err := ts.Fake.CheckGateway(tn.ID, current.Issue("gateway.payments.test").PEM); err == nil {
		t.Error("the old CA is still trusted after the rotation")
	}
}
