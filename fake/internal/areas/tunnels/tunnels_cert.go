package tunnels

import (
	"crypto/sha256"
	"crypto/x509"
	"encoding/hex"
	"encoding/pem"
	"strings"
	"time"

	"github.com/platformkit/platformkit/fake/internal/core"
)

// Tunnel certificates (spec 2.17, 3.4, gaps §9): what a registered CA certificate must be.

// maxCACertificatePEM is the largest ca_certificate_pem accepted, in bytes (gaps §9: 8 KB).
const maxCACertificatePEM = 8 << 10

// NoExpiry is the NotAfter that RFC 5280 (4.1.2.5) reserves for "no well-defined expiration
// date"; such a certificate's expires_at is null (spec 2.17).
var NoExpiry = time.Date(9999, 12, 31, 23, 59, 59, 0, time.UTC)

// caCertificate is what the fake keeps of a registered certificate: the facts the API reports.
type caCertificate struct {
	fingerprint string     // lowercase hex SHA-256 of the DER bytes
	expiresAt   *time.Time // NotAfter; nil when the certificate does not expire
	cert        *x509.Certificate
}

// parseCACertificate checks a ca_certificate_pem value against gaps §9 and answers a 400 naming
// the field and the reason: too large, a private-key block of any kind, not exactly one
// CERTIFICATE block, not X.509, or not a CA. The private-key test comes first and also looks at
// text the PEM decoder skips (a damaged key block is still key material).
func parseCACertificate(text string) (caCertificate, error) {
	const field = "ca_certificate_pem"
	if len(text) > maxCACertificatePEM {
		return caCertificate{}, core.InvalidField(field, "must be at most %d bytes (8 KB), got %d bytes", maxCACertificatePEM, len(text))
	}
	if strings.Contains(text, "PRIVATE KEY-----") {
		return caCertificate{}, core.InvalidField(field, "contains a private-key block; send only the CA certificate, never key material")
	}
	var der []byte
	count := 0
	for rest := []byte(text); ; {
		var b *pem.Block
		b, rest = pem.Decode(rest)
		if b == nil {
			break
		}
		if b.Type != "CERTIFICATE" {
			return caCertificate{}, core.InvalidField(field, "contains a %s block; only one CERTIFICATE block is allowed", core.Quoted(b.Type, core.MaxExcerpt))
		}
		count++
		der = b.Bytes
	}
	switch {
	case count == 0:
		return caCertificate{}, core.InvalidField(field, "no PEM CERTIFICATE block found; send the CA certificate as \"-----BEGIN CERTIFICATE-----\" ... \"-----END CERTIFICATE-----\"")
	case count > 1:
		return caCertificate{}, core.InvalidField(field, "contains %d CERTIFICATE blocks; send exactly one CA certificate per request", count)
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		return caCertificate{}, core.InvalidField(field, "the CERTIFICATE block is not a valid X.509 certificate (its DER encoding does not parse)")
	}
	if !cert.BasicConstraintsValid || !cert.IsCA {
		return caCertificate{}, core.InvalidField(field, "the certificate is not a CA certificate (its basic constraints do not set the CA flag); register the CA that issued the gateway's certificate")
	}
	sum := sha256.Sum256(cert.Raw)
	cc := caCertificate{fingerprint: hex.EncodeToString(sum[:]), cert: cert}
	if notAfter := cert.NotAfter.UTC(); !notAfter.Equal(NoExpiry) {
		cc.expiresAt = &notAfter
	}
	return cc, nil
}

// parseChain reads a gateway's certificate chain: PEM, the server certificate first, then any
// intermediates. A chain without a certificate is a 400.
func parseChain(chainPEM string) ([]*x509.Certificate, error) {
	var chain []*x509.Certificate
	for rest := []byte(chainPEM); ; {
		var b *pem.Block
		if b, rest = pem.Decode(rest); b == nil {
			break
		}
		if b.Type != "CERTIFICATE" {
			continue
		}
		cert, err := x509.ParseCertificate(b.Bytes)
		if err != nil {
			return nil, core.InvalidField("certificate_pem", "CERTIFICATE block %d is not a valid X.509 certificate (its DER encoding does not parse)", len(chain)+1)
		}
		chain = append(chain, cert)
	}
	if len(chain) == 0 {
		return nil, core.InvalidField("certificate_pem", "no PEM CERTIFICATE block found; send the gateway's server certificate, then any intermediates")
	}
	return chain, nil
}

// verifyGateway checks a gateway's chain against the CA certificates a tunnel trusts, at time
// now, as the service does when it terminates the inner TLS session (spec 4.9). It returns ""
// when the chain verifies, otherwise why not.
func verifyGateway(trusted, chain []*x509.Certificate, now time.Time) string {
	if len(trusted) == 0 {
		return "the tunnel has no non-archived CA certificate, so it rejects MCP traffic until one is added"
	}
	opts := x509.VerifyOptions{Roots: x509.NewCertPool(), Intermediates: x509.NewCertPool(), CurrentTime: now,
		KeyUsages: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}}
	for _, ca := range trusted {
		opts.Roots.AddCert(ca)
	}
	for _, c := range chain[1:] {
		opts.Intermediates.AddCert(c)
	}
	if _, err := chain[0].Verify(opts); err != nil {
		return "the gateway's certificate does not verify against the tunnel's CA certificates: " + err.Error()
	}
	return ""
}
