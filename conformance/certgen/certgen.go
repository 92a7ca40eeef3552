// Package certgen makes X.509 certificates at run time for the tunnel checks, tests and examples:
// CA and non-CA certificates with a chosen expiry, and the PEM of a private key, so that every
// rule for ca_certificate_pem (spec 4.9, gaps §9) can be exercised with real material.
package certgen

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/hex"
	"encoding/pem"
	"math/big"
	"time"
)

// Cert is a generated certificate: its PEM, the DER inside it, and the PEM of its private key
// (for tests that must prove key material is refused).
type Cert struct {
	PEM    string
	DER    []byte
	KeyPEM string
	cert   *x509.Certificate
	key    *ecdsa.PrivateKey
}

// Fingerprint is the lowercase hex SHA-256 of the DER bytes, as spec 2.17 defines it.
func (c Cert) Fingerprint() string {
	sum := sha256.Sum256(c.DER)
	return hex.EncodeToString(sum[:])
}

// Options choose what to generate.
type Options struct {
	CommonName string
	IsCA       bool      // sets the CA flag of the basic constraints
	NotAfter   time.Time // zero: one year from now
}

// notBefore is the start of every generated certificate's validity: early enough for any
// virtual clock a test sets.
var notBefore = time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC)

// New generates a self-signed certificate (ECDSA P-256). It panics only if the standard library
// cannot sign, which does not happen with valid options.
func New(o Options) Cert { return generate(o, nil) }

// Issue generates a TLS server certificate for cn signed by the CA c, as a gateway behind a
// tunnel would present. It panics if c was not made by this package.
func (c Cert) Issue(cn string) Cert {
	if c.cert == nil || c.key == nil {
		panic("certgen: Issue needs a certificate made by New or CA")
	}
	return generate(Options{CommonName: cn}, &c)
}

func generate(o Options, parent *Cert) Cert {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		panic(err)
	}
	serial, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 62))
	if err != nil {
		panic(err)
	}
	notAfter := o.NotAfter
	if notAfter.IsZero() {
		notAfter = time.Now().AddDate(1, 0, 0)
	}
	tmpl := &x509.Certificate{
		SerialNumber:          serial,
		Subject:               pkix.Name{CommonName: o.CommonName},
		NotBefore:             notBefore,
		NotAfter:              notAfter.UTC().Truncate(time.Second),
		BasicConstraintsValid: true,
		IsCA:                  o.IsCA,
	}
	if o.IsCA {
		tmpl.KeyUsage = x509.KeyUsageCertSign | x509.KeyUsageCRLSign
	} else {
		tmpl.KeyUsage = x509.KeyUsageDigitalSignature
		tmpl.ExtKeyUsage = []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}
		tmpl.DNSNames = []string{o.CommonName}
	}
	signer, signerKey := tmpl, key
	if parent != nil {
		signer, signerKey = parent.cert, parent.key
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, signer, &key.PublicKey, signerKey)
	if err != nil {
		panic(err)
	}
	parsed, err := x509.ParseCertificate(der)
	if err != nil {
		panic(err)
	}
	keyDER, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		panic(err)
	}
	return Cert{
		PEM:    string(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})),
		DER:    der,
		KeyPEM: string(pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: keyDER})),
		cert:   parsed,
		key:    key,
	}
}

// CA generates a CA certificate named cn that expires a year from now.
func CA(cn string) Cert { return New(Options{CommonName: cn, IsCA: true}) }
