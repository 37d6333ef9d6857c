// Package tlsmodproxy is a Go module proxy over HTTPS for tests, whose
// certificate is signed by a CA of its own: what the go command sees
// behind a TLS-intercepting proxy, or from a private module proxy with a
// corporate CA. It serves, over the GOPROXY protocol on 127.0.0.1, modules
// made from files in memory (nothing is fetched from anywhere), and can
// require a login (HTTP basic auth, as the go command sends from .netrc
// or GOPROXY's user:password@).
package tlsmodproxy

import (
	"bytes"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"io"
	"math/big"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"golang.org/x/mod/module"
	"golang.org/x/mod/sumdb/dirhash"
	modzip "golang.org/x/mod/zip"
)

// Module is one module version the proxy serves. Files are its files by
// slash path; a go.mod is written when Files has none.
type Module struct {
	Path, Version string
	Files         map[string]string
}

// Options say who may fetch.
type Options struct {
	// User and Password, when set, are required (basic auth); other
	// requests get 401.
	User, Password string
}

// Server is a running proxy.
type Server struct {
	// URL is the GOPROXY value that reaches it (https://127.0.0.1:PORT).
	URL string
	// CAPEM is the test CA's certificate; CAFile holds it.
	CAPEM  []byte
	CAFile string
	// GoSum are the go.sum lines of every module served.
	GoSum []string

	opt      Options
	mu       sync.Mutex
	files    map[string][]byte // request path -> body
	requests int
}

// Serve starts the proxy; it stops at test cleanup.
func Serve(t testing.TB, opt Options, mods ...Module) *Server {
	t.Helper()
	s := &Server{opt: opt, files: map[string][]byte{}}
	for _, m := range mods {
		s.add(t, m)
	}
	caCert, caKey := newCA(t)
	leaf := newLeaf(t, caCert, caKey)
	s.CAPEM = pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: caCert.Raw})
	s.CAFile = filepath.Join(t.TempDir(), "test-ca.pem")
	if err := os.WriteFile(s.CAFile, s.CAPEM, 0o644); err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewUnstartedServer(http.HandlerFunc(s.serve))
	srv.TLS = &tls.Config{Certificates: []tls.Certificate{leaf}, MinVersion: tls.VersionTLS12}
	srv.StartTLS()
	t.Cleanup(srv.Close)
	s.URL = srv.URL
	return s
}

// Netrc is a .netrc line with the login for the proxy; the go command
// matches its machine against host:port.
func (s *Server) Netrc() string {
	return fmt.Sprintf("machine %s login %s password %s\n", strings.TrimPrefix(s.URL, "https://"), s.opt.User, s.opt.Password)
}

// Requests is how many requests were answered with a module file.
func (s *Server) Requests() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.requests
}

func (s *Server) add(t testing.TB, m Module) {
	t.Helper()
	files := map[string]string{}
	for k, v := range m.Files {
		files[k] = v
	}
	if _, ok := files["go.mod"]; !ok {
		files["go.mod"] = "module " + m.Path + "\n\ngo 1.21\n"
	}
	dir := t.TempDir()
	for name, content := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	mv := module.Version{Path: m.Path, Version: m.Version}
	var zipBuf bytes.Buffer
	if err := modzip.CreateFromDir(&zipBuf, mv, dir); err != nil {
		t.Fatalf("module zip of %s: %v", mv, err)
	}
	zipPath := filepath.Join(t.TempDir(), "m.zip")
	if err := os.WriteFile(zipPath, zipBuf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	zipHash, err := dirhash.HashZip(zipPath, dirhash.Hash1)
	if err != nil {
		t.Fatal(err)
	}
	modHash, err := dirhash.Hash1([]string{"go.mod"}, func(string) (io.ReadCloser, error) {
		return io.NopCloser(strings.NewReader(files["go.mod"])), nil
	})
	if err != nil {
		t.Fatal(err)
	}
	s.GoSum = append(s.GoSum, fmt.Sprintf("%s %s %s", m.Path, m.Version, zipHash),
		fmt.Sprintf("%s %s/go.mod %s", m.Path, m.Version, modHash))
	info, err := json.Marshal(map[string]any{"Version": m.Version, "Time": time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)})
	if err != nil {
		t.Fatal(err)
	}
	esc, err := module.EscapePath(m.Path)
	if err != nil {
		t.Fatal(err)
	}
	ev, err := module.EscapeVersion(m.Version)
	if err != nil {
		t.Fatal(err)
	}
	base := "/" + esc + "/@v/"
	s.files[base+"list"] = append(s.files[base+"list"], []byte(m.Version+"\n")...)
	s.files[base+ev+".info"] = info
	s.files[base+ev+".mod"] = []byte(files["go.mod"])
	s.files[base+ev+".zip"] = zipBuf.Bytes()
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	if s.opt.User != "" {
		u, p, ok := r.BasicAuth()
		if !ok || u != s.opt.User || p != s.opt.Password {
			w.Header().Set("WWW-Authenticate", `Basic realm="tlsmodproxy"`)
			http.Error(w, "unauthorized", http.StatusUnauthorized)
			return
		}
	}
	s.mu.Lock()
	body, ok := s.files[r.URL.Path]
	if ok {
		s.requests++
	}
	s.mu.Unlock()
	if !ok {
		http.NotFound(w, r)
		return
	}
	_, _ = w.Write(body)
}

func newCA(t testing.TB) (*x509.Certificate, *ecdsa.PrivateKey) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "epp-build test CA"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(24 * time.Hour),
		IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign | x509.KeyUsageCRLSign,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		t.Fatal(err)
	}
	return cert, key
}

func newLeaf(t testing.TB, ca *x509.Certificate, caKey *ecdsa.PrivateKey) tls.Certificate {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(2), Subject: pkix.Name{CommonName: "127.0.0.1"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(24 * time.Hour),
		KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		IPAddresses: []net.IP{net.IPv4(127, 0, 0, 1)}, DNSNames: []string{"localhost"},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca, &key.PublicKey, caKey)
	if err != nil {
		t.Fatal(err)
	}
	return tls.Certificate{Certificate: [][]byte{der, ca.Raw}, PrivateKey: key}
}
