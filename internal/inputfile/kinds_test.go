//go:build unix

package inputfile

import (
	"errors"
	"path/filepath"
	"testing"

	"github.com/epp-build/epp-build/internal/testutil"
)

// A refusal names the kind of input it was meant to be, not a recipe's,
// for the files that are not recipe inputs (a key, a state file).
func TestRefusalNamesTheInputsKind(t *testing.T) {
	testutil.HostileFiles(t, func(t *testing.T, place func(string)) {
		path := filepath.Join(t.TempDir(), "cosign.key")
		place(path)
		_, err := ReadFile(path, "", KeyLimit())
		var refused *Error
		if !errors.As(err, &refused) {
			t.Fatalf("got %v, want an *Error", err)
		}
		if want := "a key file must be a regular file (replace it with the file itself)"; refused.Fix != want {
			t.Fatalf("fix %q, want %q", refused.Fix, want)
		}
	})
}
