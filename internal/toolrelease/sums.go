package toolrelease

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/epp-build/epp-build/internal/attest"
)

// checksums is SHA256SUMS over the artifacts, in the format sha256sum -c
// reads ("HEX  NAME"), sorted by name; it fills in each artifact's hash.
func checksums(dir string, artifacts []Artifact) ([]byte, error) {
	var lines []string
	for i := range artifacts {
		sum, err := fileSHA256(filepath.Join(dir, artifacts[i].Name))
		if err != nil {
			return nil, err
		}
		artifacts[i].SHA256 = sum
		lines = append(lines, sum+"  "+artifacts[i].Name)
	}
	sort.Slice(lines, func(i, j int) bool { return lines[i][66:] < lines[j][66:] })
	return []byte(strings.Join(lines, "\n") + "\n"), nil
}

func fileSHA256(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", fmt.Errorf("hash %s: %w", filepath.Base(path), err)
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

func signChecksums(key string, sums []byte) ([]byte, error) {
	s, err := attest.LoadSigner(key)
	if err != nil {
		return nil, err
	}
	return s.SignBlob(sums)
}

// Verify checks a release folder as a user would before trusting it:
// every file SHA256SUMS names has that hash, and with pubKey (a PEM
// public key or env://VAR) SHA256SUMS.sig is its signature.
func Verify(dir, pubKey string) error {
	sums, err := os.ReadFile(filepath.Join(dir, ChecksumsFile))
	if err != nil {
		return err
	}
	for _, line := range strings.Split(strings.TrimSpace(string(sums)), "\n") {
		want, name, ok := strings.Cut(line, "  ")
		if !ok || strings.ContainsAny(name, `/\`) {
			return fmt.Errorf("%s: malformed line %q", ChecksumsFile, line)
		}
		got, err := fileSHA256(filepath.Join(dir, name))
		if err != nil {
			return err
		}
		if got != want {
			return fmt.Errorf("%s: sha256 %s, %s says %s", name, got, ChecksumsFile, want)
		}
	}
	if pubKey == "" {
		return nil
	}
	v, err := attest.LoadVerifier(pubKey)
	if err != nil {
		return err
	}
	sig, err := os.ReadFile(filepath.Join(dir, SignatureFile))
	if err != nil {
		return err
	}
	return v.VerifyBlob(sums, sig)
}
