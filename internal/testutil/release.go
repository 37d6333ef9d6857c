package testutil

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"crypto/x509"
	"encoding/hex"
	"encoding/pem"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"
)

// Release is a release of epp-build as a download host serves it:
// URL/VERSION/NAME, as GitHub serves
// https://github.com/OWNER/REPO/releases/download/VERSION/NAME.
type Release struct {
	// URL is the download base, without the version.
	URL string
	// Dir holds the version's files: a test changes one to tamper with
	// the release after its checksums were written.
	Dir string

	mu        sync.Mutex
	requested []string
}

// Requested lists the paths asked for so far, in order.
func (r *Release) Requested() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.requested)
}

// ServeRelease serves files for version, with sums (the checksums file's
// name) listing every file in the format `sha256sum -c` reads and, when
// sign is not nil, sig (the signature file's name) holding sign(sums).
// The names are the caller's so that they are toolrelease's without
// testutil importing it.
func ServeRelease(t testing.TB, version string, files map[string][]byte, sums, sig string, sign func([]byte) ([]byte, error)) *Release {
	t.Helper()
	root := t.TempDir()
	dir := filepath.Join(root, version)
	require.NoError(t, os.MkdirAll(dir, 0o755))
	var names []string
	for name, data := range files {
		require.NoError(t, os.WriteFile(filepath.Join(dir, name), data, 0o755))
		names = append(names, name)
	}
	sort.Strings(names)
	var list []byte
	for _, name := range names {
		sum := sha256.Sum256(files[name])
		list = append(list, hex.EncodeToString(sum[:])+"  "+name+"\n"...)
	}
	require.NoError(t, os.WriteFile(filepath.Join(dir, sums), list, 0o644))
	if sign != nil {
		s, err := sign(list)
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(filepath.Join(dir, sig), s, 0o644))
	}
	rel := &Release{Dir: dir}
	serve := http.FileServer(http.Dir(root))
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rel.mu.Lock()
		rel.requested = append(rel.requested, r.URL.Path)
		rel.mu.Unlock()
		serve.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	rel.URL = srv.URL
	return rel
}

// WritePEMKeyPair writes an unencrypted ECDSA P-256 key pair into dir:
// key.pem (PKCS#8 PRIVATE KEY, which needs no password to load) and
// pub.pem (PKIX PUBLIC KEY, the form of cosign.pub). It returns both
// paths.
func WritePEMKeyPair(t testing.TB, dir string) (key, pub string) {
	t.Helper()
	priv, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	require.NoError(t, err)
	der, err := x509.MarshalPKCS8PrivateKey(priv)
	require.NoError(t, err)
	key = filepath.Join(dir, "key.pem")
	require.NoError(t, os.WriteFile(key, pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der}), 0o600))
	der, err = x509.MarshalPKIXPublicKey(priv.Public())
	require.NoError(t, err)
	pub = filepath.Join(dir, "pub.pem")
	require.NoError(t, os.WriteFile(pub, pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: der}), 0o644))
	return key, pub
}
