// Package testutil holds helpers several packages' tests share; the
// fixtures with more to them have their own packages below it.
package testutil

import (
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// AssertNoSecretUnder reads every regular file under dir and fails the
// test for each one that holds secret.
func AssertNoSecretUnder(t testing.TB, dir, secret string) {
	t.Helper()
	require.NoError(t, filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || d.Type()&fs.ModeSymlink != 0 {
			return err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		assert.NotContains(t, string(data), secret, "%s holds the secret", p)
		return nil
	}))
}
