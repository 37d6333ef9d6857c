//go:build unix

package patchset

import (
	"errors"
	"path/filepath"
	"testing"

	"github.com/epp-build/epp-build/internal/testutil"

	"github.com/epp-build/epp-build/internal/inputfile"
)

// TestParseFileRefusesWhatIsNotAPatchFile: a patch file that is a FIFO or a
// device is refused for what it is, without waiting for a writer or reading
// an endless stream.
func TestParseFileRefusesWhatIsNotAPatchFile(t *testing.T) {
	testutil.HostileFiles(t, func(t *testing.T, place func(string)) {
		path := filepath.Join(t.TempDir(), "0001-a.patch")
		place(path)
		err := testutil.Returns(t, "ParseFile", func() error { _, err := ParseFile(path, "0001-a.patch"); return err })
		var refused *inputfile.Error
		if !errors.As(err, &refused) {
			t.Fatalf("ParseFile = %v, want an *inputfile.Error", err)
		}
	})
}
