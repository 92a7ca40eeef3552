package tunnelcarotation

import (
	"context"
	"strings"
	"testing"

	"github.com/platformkit/platformkit/conformance/certgen"
	"github.com/platformkit/platformkit/fake"
)

// TestRotateCA rotates the CA certificate of the fixture production tunnel, which is at the limit
// of two, and prints what a user would see.
func TestRotateCA(t *testing.T) {
	ts := fake.NewTestServer(t)
	c := &Client{BaseURL: ts.URL, Bearer: "test-bearer-token", HTTP: ts.Client()}
	newCA := certgen.CA("Acme Production Root CA 2026")
	var out strings.Builder
	added, err := c.RotateCA(context.Background(), "tnl_01AcmeProduction000000001", newCA.PEM, &out)
	if err != nil {
		t.Fatal(err)
	}
	t.Log("\n" + out.String())
	if added.Fingerprint != newCA.Fingerprint() {
		t.Errorf("fingerprint = %s, want %s", added.Fingerprint, newCA.Fingerprint())
	}
	want := `tunnel tnl_01AcmeProduction000000001 trusts 2 CA certificate(s): tcrt_01AcmeProdRootCA2025000001, tcrt_01AcmeProdBackupCA00000001
at the limit of 2: archiving the oldest, tcrt_01AcmeProdRootCA2025000001, first; tcrt_01AcmeProdBackupCA00000001 stays trusted
added ` + added.ID + `: the gateway may now present a certificate issued by either CA
archived tcrt_01AcmeProdBackupCA00000001
tunnel tnl_01AcmeProduction000000001 trusts 1 CA certificate(s): ` + added.ID + "\n"
	if got := out.String(); got != want {
		t.Errorf("output:\n%s\nwant:\n%s", got, want)
	}
	// A second rotation starts below the limit: add, then archive.
	out.Reset()
	if _, err := c.RotateCA(context.Background(), "tnl_01AcmeProduction000000001", certgen.CA("next").PEM, &out); err != nil {
		t.Fatal(err)
	}
	t.Log("\n" + out.String())
	if strings.Contains(out.String(), "at the limit") || !strings.Contains(out.String(), "archived "+added.ID) {
		t.Errorf("second rotation:\n%s", out.String())
	}
}
