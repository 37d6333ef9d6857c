//go:build unix

package pipeline

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/epp-build/epp-build/internal/inputfile"
	"github.com/epp-build/epp-build/internal/testutil"
)

// A --secret or --ca-bundle file that is a FIFO or /dev/zero is refused
// input before anything is built (--dry-run included), not a hang or a
// read until memory runs out.
func TestSecretAndCABundleFilesAreReadBounded(t *testing.T) {
	testutil.HostileFiles(t, func(t *testing.T, place func(string)) {
		path := filepath.Join(t.TempDir(), "file")
		place(path)
		for what, set := range map[string]func(*Options){
			"--secret":    func(o *Options) { o.Fetch.Secrets = []string{"id=netrc,src=" + path} },
			"--ca-bundle": func(o *Options) { o.Fetch.CABundle = path },
		} {
			opt := fetchOptions(t)
			set(&opt)
			err := testutil.Returns(t, "Resolve with "+what, func() error { _, err := Resolve(opt); return err })
			var refused *inputfile.Error
			require.ErrorAs(t, err, &refused, what)
		}
	})
}
