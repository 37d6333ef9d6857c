//go:build unix

package main

import (
	"bufio"
	"context"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/epp-build/epp-build/internal/killpoint"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestSignalEndsACommandBlockedInARead: every command that reads recipe
// input, stopped in a read nothing can interrupt (as a read of a FIFO
// would be), ends on SIGTERM or SIGINT with exit 130 and says why. The
// bound is the test's own deadline for the process, not a measure of its
// speed: a command that ignores the signal never ends at all.
func TestSignalEndsACommandBlockedInARead(t *testing.T) {
	patches := t.TempDir()
	dir := writeRecipe(t, patches, "v1.0.0", "upstream:\n  repository: https://example.invalid/gaie.git\n  ref: v1.0.0\n  commit: 978c23bb96cce25f11cea2421523cb479026e2e9\npatches: [0001-a.patch]\n")
	require.NoError(t, os.WriteFile(filepath.Join(dir, "0001-a.patch"), []byte("From: x\n"), 0o644))
	diff := filepath.Join(t.TempDir(), "fix.diff")
	require.NoError(t, os.WriteFile(diff, []byte("diff --git a/x b/x\n"), 0o644))
	out := filepath.Join(t.TempDir(), "out")

	tests := []struct {
		name string
		sig  syscall.Signal
		args []string
	}{
		{"apply", syscall.SIGTERM, []string{"apply", "--recipe", dir, "--out", out}},
		{"lint", syscall.SIGTERM, []string{"--patches", patches, "lint"}},
		{"log", syscall.SIGINT, []string{"--patches", patches, "log", "--version", "v1.0.0"}},
		{"regen", syscall.SIGTERM, []string{"regen", "--recipe", dir}},
		{"versions", syscall.SIGTERM, []string{"--patches", patches, "versions"}},
		{"pick", syscall.SIGINT, []string{"--patches", patches, "pick", "--version", "v1.0.0", diff}},
		{"rebase", syscall.SIGTERM, []string{"--patches", patches, "rebase", "--version", "v1.0.0", "--onto", "v1.1.0", "--dir", filepath.Join(t.TempDir(), "rb")}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, stderr := signalledWhileBlocked(t, tt.sig, tt.args...)
			assert.Equal(t, 130, code, stderr)
			assert.Contains(t, stderr, "exiting now", stderr)
			assert.NoDirExists(t, out)
		})
	}
}

// signalledWhileBlocked runs epp-build with the read of its first input
// blocked for good, sends sig once it is, and returns its exit code and
// stderr.
func signalledWhileBlocked(t *testing.T, sig syscall.Signal, args ...string) (int, string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, binary, args...)
	cmd.Env = append(os.Environ(), "XDG_CACHE_HOME="+t.TempDir(), "GOPROXY=off", killpoint.BlockVar+"=input-read")
	stderr, err := cmd.StderrPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	var text strings.Builder
	lines := bufio.NewScanner(io.TeeReader(stderr, &text))
	blocked := false
	for !blocked && lines.Scan() {
		blocked = strings.Contains(lines.Text(), "blocked at input-read")
	}
	if !blocked {
		_ = cmd.Wait()
		t.Fatalf("epp-build %v ended without reading its input: %s", args, text.String())
	}
	require.NoError(t, cmd.Process.Signal(sig))
	_, _ = io.Copy(&text, stderr)
	err = cmd.Wait()
	if ctx.Err() != nil {
		t.Fatalf("epp-build %v did not end after %v: %s", args, sig, text.String())
	}
	var exit *exec.ExitError
	require.True(t, errors.As(err, &exit), "epp-build %v must fail when signalled: %v", args, err)
	return exit.ExitCode(), text.String()
}
