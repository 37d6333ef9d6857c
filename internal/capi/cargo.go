package capi

import (
	"bytes"
	"context"
	"fmt"
	"os/exec"
	"strings"
	"syscall"

	"github.com/epp-build/epp-build/internal/platform"
)

// CargoError is a failed cargo build; it carries the tail of cargo's stderr
// because that is where the compiler says what went wrong.
type CargoError struct {
	Platform   string
	Args       []string
	Err        error
	StderrTail string
	// Dependencies: cargo could not get the workspace's dependencies.
	Dependencies bool
}

func (e *CargoError) Error() string {
	msg := fmt.Sprintf("cargo %s for %s failed: %v\n--- end of cargo's stderr ---\n%s",
		strings.Join(e.Args, " "), e.Platform, e.Err, e.StderrTail)
	if e.Dependencies {
		msg += "\ncargo could not get the crates the workspace depends on: it needs crates.io (or a registry " +
			"mirror or vendored sources configured in .cargo/config.toml) and any git dependencies of the " +
			"workspace; or pass --capi-src DIR with a crate whose dependencies are available here"
	}
	return msg
}

// dependencyFailure recognises cargo's messages for dependencies it could
// not download or find offline.
func dependencyFailure(stderr string) bool {
	for _, s := range []string{"failed to get `", "failed to download", "Unable to update registry",
		"failed to query replaced source", "no matching package named", "attempting to make an HTTP request, but --offline",
		"failed to load source for dependency"} {
		if strings.Contains(stderr, s) {
			return true
		}
	}
	return false
}

func (e *CargoError) Unwrap() error { return e.Err }

const stderrTailLines = 25

func tail(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

// envVarTriple turns a Rust triple into cargo's env-var spelling.
func envVarTriple(triple string) string {
	return strings.ToUpper(strings.ReplaceAll(triple, "-", "_"))
}

// cargoArgs are the arguments of the cargo build of one target.
func cargoArgs(crate string, features []string, t platform.Platform) []string {
	args := []string{"build", "--release"}
	if crate != "" {
		args = append(args, "-p", crate)
	}
	args = append(args, "--target", t.RustTriple)
	if len(features) > 0 {
		args = append(args, "--features", strings.Join(features, ","))
	}
	return args
}

// featureSuffix names a feature set in a folder name; "" for none.
func featureSuffix(features []string) string {
	if len(features) == 0 {
		return ""
	}
	// A dependency's feature (crate/feature) must not make a subfolder.
	return "-features-" + strings.ReplaceAll(strings.Join(features, "-"), "/", "_")
}

// runCargo builds the crate for one target into targetDir, from the
// workspace root, and returns the build-script output folders of the
// package that produced the static library (see libraryOutDirs).
func runCargo(ctx context.Context, base env, tc *Toolchain, root, crate string, features []string, targetDir string, t platform.Platform) ([]string, error) {
	args := cargoArgs(crate, features, t)
	cmd := exec.CommandContext(ctx, tc.Cargo, append(args, "--message-format=json-render-diagnostics")...)
	cmd.Dir = root
	killGroupOnCancel(cmd)
	cc := tc.CC[t.RustTriple]
	cmd.Env = append(append([]string(nil), base...),
		"RUSTC="+tc.Rustc,
		"CARGO_TARGET_DIR="+targetDir,
		"CARGO_TARGET_"+envVarTriple(t.RustTriple)+"_LINKER="+cc,
		// For build scripts using the cc crate.
		"CC_"+strings.ReplaceAll(t.RustTriple, "-", "_")+"="+cc,
	)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		if ctx.Err() != nil {
			return nil, fmt.Errorf("cargo build for %s: %w", t.String(), ctx.Err())
		}
		return nil, &CargoError{Platform: t.String(), Args: args, Err: err, StderrTail: tail(stderr.String(), stderrTailLines),
			Dependencies: dependencyFailure(stderr.String())}
	}
	return libraryOutDirs(&stdout)
}

// killGroupOnCancel runs cmd in its own process group and kills the whole
// group on cancellation, so compiler children do not outlive a cancelled
// build.
func killGroupOnCancel(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
}
