package testutil

import (
	"archive/tar"
	"bufio"
	"bytes"
	"compress/gzip"
	"errors"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// AssertNoSecretInOCI fails the test for every blob of an OCI layout (a
// folder, such as a type=local cache export, or an OCI tarball) that holds
// secret, gzip-compressed layers read uncompressed. Blobs whose sha256 hex
// digest is in skip (a base image's layers, known not to come from the
// build) are not read.
func AssertNoSecretInOCI(t testing.TB, layout, secret string, skip map[string]bool) {
	t.Helper()
	fi, err := os.Stat(layout)
	require.NoError(t, err)
	check := func(name string, r io.Reader) {
		if skip[path.Base(name)] {
			return
		}
		found, err := containsSecret(r, []byte(secret))
		require.NoError(t, err, "read %s", name)
		assert.False(t, found, "%s in %s holds the secret", name, layout)
	}
	if fi.IsDir() {
		require.NoError(t, filepath.WalkDir(layout, func(p string, d fs.DirEntry, err error) error {
			if err != nil || !d.Type().IsRegular() {
				return err
			}
			f, err := os.Open(p)
			if err != nil {
				return err
			}
			defer f.Close()
			check(p, f)
			return nil
		}))
		return
	}
	f, err := os.Open(layout)
	require.NoError(t, err)
	defer f.Close()
	tr := tar.NewReader(f)
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return
		}
		require.NoError(t, err)
		if h.Typeflag == tar.TypeReg {
			check(h.Name, tr)
		}
	}
}

// containsSecret streams r (uncompressed first when it is gzip) looking
// for secret.
func containsSecret(r io.Reader, secret []byte) (bool, error) {
	br := bufio.NewReaderSize(r, 1<<20)
	if magic, _ := br.Peek(2); len(magic) == 2 && magic[0] == 0x1f && magic[1] == 0x8b {
		zr, err := gzip.NewReader(br)
		if err != nil {
			return false, err
		}
		defer zr.Close()
		return scan(zr, secret)
	}
	return scan(br, secret)
}

func scan(r io.Reader, secret []byte) (bool, error) {
	buf := make([]byte, 0, 1<<20+len(secret))
	chunk := make([]byte, 1<<20)
	for {
		n, err := r.Read(chunk)
		buf = append(buf, chunk[:n]...)
		if bytes.Contains(buf, secret) {
			return true, nil
		}
		if keep := len(secret) - 1; len(buf) > keep {
			buf = append(buf[:0], buf[len(buf)-keep:]...)
		}
		if errors.Is(err, io.EOF) {
			return false, nil
		}
		if err != nil {
			return false, err
		}
	}
}
