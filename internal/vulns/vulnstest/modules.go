package vulnstest

import (
	"os"
	"os/exec"
	"testing"
)

// DownloadModules puts the modules the Go module in dir requires into
// the module cache, through the environment's proxy, so that a scan run
// offline (GOPROXY=off, as the command tests run epp-build) finds them on
// a machine whose cache is still empty.
func DownloadModules(t testing.TB, dir string) {
	t.Helper()
	cmd := exec.Command("go", "mod", "download")
	cmd.Dir, cmd.Env = dir, append(os.Environ(), "GOWORK=off")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go mod download in %s: %v\n%s", dir, err, out)
	}
}
