//go:build unix

package attest

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/epp-build/epp-build/internal/inputfile"
	"github.com/epp-build/epp-build/internal/testutil"
)

// A --key that is a FIFO or /dev/zero is refused input (exit 4), for sign
// and verify alike, not a hang or a read until memory runs out.
func TestKeyFilesAreReadBounded(t *testing.T) {
	testutil.HostileFiles(t, func(t *testing.T, place func(string)) {
		path := filepath.Join(t.TempDir(), "cosign.key")
		place(path)
		for what, load := range map[string]func() error{
			"LoadSigner":   func() error { _, err := LoadSigner(path); return err },
			"LoadVerifier": func() error { _, err := LoadVerifier(path); return err },
		} {
			err := testutil.Returns(t, what, load)
			var refused *inputfile.Error
			require.ErrorAs(t, err, &refused, what)
		}
	})
}
