package backport

import (
	"os"
	"testing"
)

// TestMain gives the tests a cache folder of their own: a start writes
// the key that seals an --exec command (execseal.go) there, and the
// default work trees live there.
func TestMain(m *testing.M) {
	cache, err := os.MkdirTemp("", "epp-build-backport-cache-")
	if err != nil {
		panic(err)
	}
	os.Setenv("XDG_CACHE_HOME", cache)
	code := m.Run()
	os.RemoveAll(cache)
	os.Exit(code)
}
