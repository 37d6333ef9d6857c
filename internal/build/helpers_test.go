package build

import (
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func itoa(i int) string { return strconv.Itoa(i) }

// fastRetry keeps fault tests short: the retry logic is the same, only the
// delays shrink.
func fastRetry(o Options) Options {
	o.retryBackoff = 50 * time.Millisecond
	return o
}

// copyCAPIDouble copies the C API test double (cargo writes Cargo.lock
// next to it; the repository copy stays untouched).
func copyCAPIDouble(t testing.TB) string {
	t.Helper()
	dst := filepath.Join(t.TempDir(), "capi-double")
	require.NoError(t, os.CopyFS(dst, os.DirFS(filepath.Join("..", "..", "testdata", "capi-double"))))
	return dst
}
