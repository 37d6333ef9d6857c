package gitformat

import (
	"errors"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/epp-build/epp-build/internal/inputfile"
	"github.com/epp-build/epp-build/internal/testutil"
)

// A FIFO or a device where .git/index should be is refused as input, and
// never hangs or reads without end.
func TestReadIndexRefusesWhatIsNoFile(t *testing.T) {
	testutil.HostileFiles(t, func(t *testing.T, place func(string)) {
		name := filepath.Join(t.TempDir(), "index")
		place(name)
		err := testutil.Returns(t, "ReadIndex", func() error {
			_, err := ReadIndex(name)
			return err
		})
		var refused *inputfile.Error
		assert.True(t, errors.As(err, &refused), "refused input, got %v", err)
	})
}
