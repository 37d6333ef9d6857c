//go:build unix

package main

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// runBounded runs epp-build and fails the test if it does not finish: a
// recipe that hangs a command must show as a failure, not as a test
// binary killed at its timeout.
func runBounded(t *testing.T, args ...string) result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, binary, args...)
	cmd.Env = append(os.Environ(), "XDG_CACHE_HOME="+t.TempDir(), "GOPROXY=off")
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	if ctx.Err() != nil {
		t.Fatalf("epp-build %v did not finish: it waits on a FIFO or reads an endless file", args)
	}
	var exit *exec.ExitError
	code := 0
	if errors.As(err, &exit) {
		code = exit.ExitCode()
	} else {
		require.NoError(t, err)
	}
	return result{out.String(), errb.String(), code}
}

// TestHostileRecipesAreRefused: a recipe whose patch is a device or a FIFO,
// or whose C API folder climbs out of the checkout, is refused as input
// (apply exits 4; lint reports it as a problem and exits 4 as well: a
// recipe that does not load is refused input, not a lint finding) before anything is fetched or read to its end.
func TestHostileRecipesAreRefused(t *testing.T) {
	const pin = "upstream:\n  repository: https://example.invalid/gaie.git\n  ref: v1.0.0\n  commit: 978c23bb96cce25f11cea2421523cb479026e2e9\n"
	const capi = "capi:\n  repository: https://example.invalid/dynamo.git\n  ref: v1.4.0\n  commit: e147ceeac0563354f530b9624d0fc90ccfa6952a\n" +
		"  dir: ../../..\n  crate: libdynamo_llm\n  library: dynamo_llm_capi\n  generation: routers\n"
	tests := []struct {
		name   string
		recipe string
		// patch makes the recipe's one patch file, if it has one.
		patch func(t *testing.T, path string)
		want  string
	}{
		{"a patch linked to /dev/zero", pin + "patches: [0001-a.patch]\n", func(t *testing.T, path string) {
			require.NoError(t, os.Symlink("/dev/zero", path))
		}, "0001-a.patch is a symlink to /dev/zero (a character device), outside the recipe folder"},
		{"a patch that is a FIFO", pin + "patches: [0001-a.patch]\n", func(t *testing.T, path string) {
			if err := syscall.Mkfifo(path, 0o644); err != nil {
				t.Skip("no FIFOs here:", err)
			}
		}, "0001-a.patch is a FIFO (named pipe)"},
		{"capi.dir climbing out of the checkout", pin + capi + "patches: []\n", nil,
			`capi.dir "../../.." must be a relative folder inside the C API checkout`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			patches := t.TempDir()
			dir := writeRecipe(t, patches, "v1.0.0", tt.recipe)
			if tt.patch != nil {
				tt.patch(t, filepath.Join(dir, "0001-a.patch"))
			}
			out := filepath.Join(t.TempDir(), "out")

			r := runBounded(t, "apply", "--recipe", dir, "--out", out)
			assert.Equal(t, 4, r.code, r.stderr)
			assert.Contains(t, r.stderr, tt.want)
			assert.NoDirExists(t, out)

			r = runBounded(t, "--patches", patches, "lint")
			assert.Equal(t, 4, r.code, r.stdout+r.stderr)
			assert.Contains(t, r.stdout, tt.want)
		})
	}
}
