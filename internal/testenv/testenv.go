// Package testenv decides what a test does when something it needs (a tool,
// the network, a daemon) is missing: skip locally, fail in CI.
package testenv

import (
	"os"
	"os/exec"
	"testing"
)

// RequireAllVar is the environment variable CI sets so that a missing
// prerequisite fails the run instead of silently skipping tests.
const RequireAllVar = "EPP_BUILD_REQUIRE_ALL"

// Require stops the test because `what` is unavailable: it skips, or fails
// when EPP_BUILD_REQUIRE_ALL=1. why says what the test needs it for.
func Require(t testing.TB, what, why string) {
	t.Helper()
	msg := what + " is not available (" + why + ")"
	if os.Getenv(RequireAllVar) == "1" {
		t.Fatalf("%s; %s=1 requires every test to run", msg, RequireAllVar)
	}
	t.Skip(msg + "; set " + RequireAllVar + "=1 to make this a failure")
}

// Tool returns the path of the named executable, or stops the test through
// Require when it is not on PATH.
func Tool(t testing.TB, name, why string) string {
	t.Helper()
	path, err := exec.LookPath(name)
	if err != nil {
		Require(t, "the "+name+" command", why)
	}
	return path
}
