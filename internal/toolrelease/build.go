package toolrelease

import (
	"bytes"
	"context"
	"debug/buildinfo"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"time"
)

const buildinfoPkg = "github.com/epp-build/epp-build/internal/buildinfo"

// ldflags stamp the version, revision and date, strip the symbol table
// and leave the build id empty (it hashes the build's inputs, paths among
// them).
func ldflags(o Options) string {
	return strings.Join([]string{
		"-s", "-w", "-buildid=",
		"-X", buildinfoPkg + ".Version=" + o.Version,
		"-X", buildinfoPkg + ".Revision=" + o.Revision,
		"-X", buildinfoPkg + ".RevisionTime=" + o.SourceDate.UTC().Format(time.RFC3339),
	}, " ")
}

// buildBinary cross-compiles the tool for platform, statically: without
// cgo, as a release must run on any Linux or macOS of that architecture.
func buildBinary(ctx context.Context, o Options, platform, out string) error {
	goos, goarch, _ := strings.Cut(platform, "/")
	cmd := exec.CommandContext(ctx, o.Go, "build", "-trimpath", "-buildvcs=false",
		"-ldflags="+ldflags(o), "-o", out, "./cmd/epp-build")
	cmd.Dir = o.Source
	cmd.Env = append(cleanGoEnv(os.Environ()),
		"CGO_ENABLED=0", "GOOS="+goos, "GOARCH="+goarch,
		"SOURCE_DATE_EPOCH="+strconv.FormatInt(o.SourceDate.Unix(), 10))
	if o.Toolchain != "" {
		cmd.Env = append(cmd.Env, "GOTOOLCHAIN="+o.Toolchain)
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("build %s: %w\n%s", platform, err, strings.TrimSpace(stderr.String()))
	}
	return checkBuiltWith(out, o.Toolchain)
}

// checkBuiltWith refuses a binary whose build info names another Go than
// toolchain: a GOTOOLCHAIN the go command did not honour (a local
// setting of its own, an older go command) would ship the wrong standard
// library silently.
func checkBuiltWith(path, toolchain string) error {
	if toolchain == "" {
		return nil
	}
	info, err := buildinfo.ReadFile(path)
	if err != nil {
		return fmt.Errorf("read the build info of %s: %w", path, err)
	}
	if info.GoVersion != toolchain {
		return fmt.Errorf("%s was built with %s, not the release toolchain %s", path, info.GoVersion, toolchain)
	}
	return nil
}

// cleanGoEnv drops the settings that would make one release differ from
// another of the same source: flags and target chosen elsewhere.
func cleanGoEnv(env []string) []string {
	var out []string
	for _, kv := range env {
		name, _, _ := strings.Cut(kv, "=")
		switch name {
		case "GOFLAGS", "GOOS", "GOARCH", "CGO_ENABLED", "GOAMD64", "GOARM64", "GOEXPERIMENT":
			continue
		}
		out = append(out, kv)
	}
	return append(out, "GOFLAGS=")
}
