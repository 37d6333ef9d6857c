package pipeline

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/epp-build/epp-build/internal/report"
)

func itoa(i int) string { return strconv.Itoa(i) }

// fastRetry keeps fault tests short: the retry logic is the same, only the
// delays shrink.
func fastRetry(o Options) Options {
	o.retryBackoff = 50 * time.Millisecond
	return o
}

// runOpts is Run with opt resolved first, as the build command does.
func runOpts(ctx context.Context, in Input, opt Options) (*report.Report, error) {
	b, err := Resolve(opt)
	if err != nil {
		return nil, err
	}
	return Run(ctx, b, in)
}

// mustResolve is Resolve of options a test expects to work.
func mustResolve(t testing.TB, opt Options) *Resolved {
	t.Helper()
	b, err := Resolve(opt)
	require.NoError(t, err)
	return b
}

// copyCAPIDouble copies the C API test double (cargo writes Cargo.lock
// next to it; the repository copy stays untouched).
func copyCAPIDouble(t testing.TB) string {
	t.Helper()
	dst := filepath.Join(t.TempDir(), "capi-double")
	require.NoError(t, os.CopyFS(dst, os.DirFS(filepath.Join("..", "..", "testdata", "capi-double"))))
	return dst
}
