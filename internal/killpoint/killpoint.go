// Package killpoint lets a test stop the process at an instant a random
// signal rarely hits: the process kills itself (SIGKILL, no deferred
// cleanup) when it reaches the point named by EPP_BUILD_TEST_KILL_AT, and
// blocks in a read that never returns at the point named by
// EPP_BUILD_TEST_BLOCK_AT. Only tests set either variable.
package killpoint

import "os"

// Var names the point at which the process kills itself.
const Var = "EPP_BUILD_TEST_KILL_AT"

// BlockVar names the point at which the process blocks.
const BlockVar = "EPP_BUILD_TEST_BLOCK_AT"

var (
	at      = os.Getenv(Var)
	blockAt = os.Getenv(BlockVar)
)

// At kills the process when name is the point the environment names.
func At(name string) {
	if at == "" || at != name {
		return
	}
	p, err := os.FindProcess(os.Getpid())
	if err == nil {
		_ = p.Kill()
	}
	select {} // the kill is asynchronous: go no further
}
