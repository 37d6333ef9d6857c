package controlplane

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"fmt"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"time"
)

// credentialFiles are the files kube-apiserver is started with.
type credentialFiles struct {
	caFile, servingCert, servingKey string
	saPublic, saPrivate             string
	tokens                          string
	caPEM                           []byte
	pool                            *x509.CertPool
	token                           string
}

// writeCredentials writes a CA and a serving certificate for 127.0.0.1 and
// localhost (the API server's own self-signed one names the advertised
// address, which need not be loopback), the service-account signing key
// pair, and a token file with one user in system:masters.
func writeCredentials(dir string) (credentialFiles, error) {
	f := credentialFiles{
		caFile:      filepath.Join(dir, "ca.crt"),
		servingCert: filepath.Join(dir, "apiserver.crt"),
		servingKey:  filepath.Join(dir, "apiserver.key"),
		saPublic:    filepath.Join(dir, "sa.pub"),
		saPrivate:   filepath.Join(dir, "sa.key"),
		tokens:      filepath.Join(dir, "tokens.csv"),
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return f, err
	}
	now := time.Now()
	caKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return f, err
	}
	caTmpl := &x509.Certificate{
		SerialNumber:          big.NewInt(1),
		Subject:               pkix.Name{CommonName: "epp-build test CA"},
		NotBefore:             now.Add(-time.Hour),
		NotAfter:              now.Add(24 * time.Hour),
		KeyUsage:              x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature,
		BasicConstraintsValid: true,
		IsCA:                  true,
	}
	caDER, err := x509.CreateCertificate(rand.Reader, caTmpl, caTmpl, &caKey.PublicKey, caKey)
	if err != nil {
		return f, err
	}
	ca, err := x509.ParseCertificate(caDER)
	if err != nil {
		return f, err
	}
	servingKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return f, err
	}
	servingDER, err := x509.CreateCertificate(rand.Reader, &x509.Certificate{
		SerialNumber: big.NewInt(2),
		Subject:      pkix.Name{CommonName: "kube-apiserver"},
		NotBefore:    now.Add(-time.Hour),
		NotAfter:     now.Add(24 * time.Hour),
		KeyUsage:     x509.KeyUsageDigitalSignature,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		IPAddresses:  []net.IP{net.IPv4(127, 0, 0, 1)},
		DNSNames:     []string{"localhost"},
	}, ca, &servingKey.PublicKey, caKey)
	if err != nil {
		return f, err
	}
	saKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return f, err
	}
	if f.token, err = randomToken(); err != nil {
		return f, err
	}
	f.caPEM = pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: caDER})
	f.pool = x509.NewCertPool()
	f.pool.AddCert(ca)
	servingKeyPEM, err := ecKeyPEM(servingKey)
	if err != nil {
		return f, err
	}
	saKeyPEM, err := ecKeyPEM(saKey)
	if err != nil {
		return f, err
	}
	saPubDER, err := x509.MarshalPKIXPublicKey(&saKey.PublicKey)
	if err != nil {
		return f, err
	}
	for path, data := range map[string][]byte{
		f.caFile:      f.caPEM,
		f.servingCert: pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: servingDER}),
		f.servingKey:  servingKeyPEM,
		f.saPrivate:   saKeyPEM,
		f.saPublic:    pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: saPubDER}),
		// token,user,uid,"group": system:masters passes every RBAC check.
		f.tokens: fmt.Appendf(nil, "%s,admin,admin-uid,\"system:masters\"\n", f.token),
	} {
		if err := os.WriteFile(path, data, 0o600); err != nil {
			return f, err
		}
	}
	return f, nil
}

func ecKeyPEM(key *ecdsa.PrivateKey) ([]byte, error) {
	der, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		return nil, err
	}
	return pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: der}), nil
}
