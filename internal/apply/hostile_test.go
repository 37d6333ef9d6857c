//go:build unix

package apply

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/epp-build/epp-build/internal/inputfile"
	"github.com/epp-build/epp-build/internal/testutil"
)

// TestOverlaysRefuseAGoModThatIsNotAFile: regen reads the go.mod above a
// generated folder as a bounded regular file; a FIFO there (which a plain
// read waits on for ever) or a link to a device is refused and named.
func TestOverlaysRefuseAGoModThatIsNotAFile(t *testing.T) {
	for name, make := range map[string]func(path string) error{
		"FIFO":                 func(p string) error { return syscall.Mkfifo(p, 0o644) },
		"symlink to /dev/zero": func(p string) error { return os.Symlink("/dev/zero", p) },
	} {
		t.Run(name, func(t *testing.T) {
			r := generatedSeries(t)
			goMod := filepath.Join(filepath.Dir(filepath.Dir(r.Generated[0].FromDir)), "go.mod")
			require.NoError(t, os.Remove(goMod))
			require.NoError(t, make(goMod))
			err := testutil.Returns(t, "reading the generated packages", func() error {
				_, err := overlays(r)
				return err
			})
			var refused *inputfile.Error
			require.ErrorAs(t, err, &refused)
			assert.Contains(t, err.Error(), goMod)
		})
	}
}
