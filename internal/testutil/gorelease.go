package testutil

import (
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/epp-build/epp-build/internal/testenv"
)

// OtherGoRelease is a Go release other than the go command's own that the
// go command can switch to here (the module proxy serves it): what a
// test of a recipe's toolchain builds with, so the binary's build info
// can only name it if the toolchain was really used. EPP_BUILD_TEST_GO
// names another release to use.
func OtherGoRelease(t testing.TB) string {
	t.Helper()
	testenv.Tool(t, "go", "fetches the toolchain")
	own := goCommand(t, "local", "env", "GOVERSION")
	want := os.Getenv("EPP_BUILD_TEST_GO")
	if want == "" {
		want = "go1.26.10"
		if own == want {
			want = "go1.26.9"
		}
	}
	if want == own {
		t.Fatalf("EPP_BUILD_TEST_GO=%s is the go command's own release: name another", want)
	}
	cmd := exec.Command("go", "env", "GOVERSION")
	cmd.Env = append(os.Environ(), "GOTOOLCHAIN="+want)
	cmd.Dir = os.TempDir()
	if out, err := cmd.CombinedOutput(); err != nil || strings.TrimSpace(string(out)) != want {
		testenv.Require(t, "the Go toolchain "+want+" through the module proxy", "builds with a Go other than the installed one: "+strings.TrimSpace(string(out)))
	}
	return want
}

func goCommand(t testing.TB, toolchain string, args ...string) string {
	t.Helper()
	cmd := exec.Command("go", args...)
	cmd.Env = append(os.Environ(), "GOTOOLCHAIN="+toolchain)
	cmd.Dir = os.TempDir()
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go %s: %v", strings.Join(args, " "), err)
	}
	return strings.TrimSpace(string(out))
}
