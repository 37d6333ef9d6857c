package guard

import (
	"testing"

	"github.com/epp-build/epp-build/internal/testutil/gitfixture"
)

// baseRepo makes a repository whose single commit holds files.
func baseRepo(t testing.TB, files map[string]string) string {
	t.Helper()
	r := gitfixture.New(t)
	r.Commit(t, "upstream", files)
	return r.Dir
}
