package image

import (
	"strings"
	"testing"

	"github.com/moby/buildkit/frontend/dockerfile/instructions"
	"github.com/moby/buildkit/frontend/dockerfile/linter"
	"github.com/moby/buildkit/frontend/dockerfile/parser"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// parseDockerfile runs BuildKit's own Dockerfile parser and linter (the
// ones its frontend uses) and returns the stages and any lint warnings.
func parseDockerfile(t *testing.T, src string) ([]instructions.Stage, []string) {
	t.Helper()
	res, err := parser.Parse(strings.NewReader(src))
	require.NoError(t, err)
	var warnings []string
	lint := linter.New(&linter.Config{Warn: func(rule, _, _, msg string, _ []parser.Range) {
		warnings = append(warnings, rule+": "+msg)
	}})
	stages, _, err := instructions.Parse(res.AST, lint)
	require.NoError(t, err)
	return stages, warnings
}

func TestContainerDockerfilePassesFeatureTags(t *testing.T) {
	stages, _ := parseDockerfile(t, ContainerDockerfile("epp", "./cmd/epp", "pkg/binding"))
	builder := stageNamed(t, stages, "builder")
	assert.Contains(t, findRun(t, builder), `-tags "netgo,osusergo${EPP_TAGS:+,$EPP_TAGS}"`)
	assert.Contains(t, argNames(builder), TagsArg)
}

func TestContainerDockerfileBuildsEverythingOnTheBuildPlatform(t *testing.T) {
	src := ContainerDockerfile("epp", "./cmd/epp", "pkg/binding/")
	assert.NotContains(t, src, "# syntax=", "a syntax line would pull a frontend image")
	stages, warnings := parseDockerfile(t, src)
	assert.Empty(t, warnings)
	require.Len(t, stages, 7)

	// The C API: cargo per TARGETARCH in the builder, cached.
	capiSrc := stageNamed(t, stages, "capi-src")
	assert.Equal(t, "$BUILDPLATFORM", capiSrc.Platform, "cargo runs natively, never under emulation")
	cp := capiSrc.Commands[0].(*instructions.CopyCommand)
	assert.Equal(t, CAPIContext, cp.From, "the workspace comes from the named context")
	build := stageNamed(t, stages, "capi-build")
	assert.Equal(t, "capi-src", build.BaseName)
	run := findRun(t, build)
	assert.Contains(t, run, "sh /capi/build.sh lib")
	for _, arg := range []string{"TARGETARCH", "CAPI_CRATE", "CAPI_LIBRARY", "CAPI_CRATE_DIR", "CAPI_FEATURES", "CAPI_TARGET_SUFFIX"} {
		assert.Contains(t, argNames(build), arg)
	}
	assert.NotContains(t, argNames(build), TagsArg, "the tags do not invalidate the C API build")
	assert.Equal(t, []string{"mount"}, runFlags(t, build))
	for _, want := range []string{"type=cache,id=epp-build-cargo-home,target=/cache/cargo",
		"type=cache,id=epp-build-capi-target-${TARGETARCH},target=/cache/target", "type=bind,source=" + CAPIScript} {
		assert.Contains(t, src, "--mount="+want)
	}
	assert.Equal(t, "scratch", stageNamed(t, stages, CAPIOutStage).BaseName)
	assert.Contains(t, findRun(t, stageNamed(t, stages, "capi-cbindgen")), "sh /capi/build.sh cbindgen")

	// The EPP: cgo against the C API output staged next to the binding.
	builder := stageNamed(t, stages, "builder")
	assert.Equal(t, "$BUILDPLATFORM", builder.Platform, "the builder runs natively, never under emulation")
	var staged bool
	for _, c := range builder.Commands {
		if cp, ok := c.(*instructions.CopyCommand); ok && cp.From == CAPIOutStage {
			staged = cp.DestPath == "/src/pkg/binding/lib/${TARGETARCH}/"
		}
	}
	assert.True(t, staged, "the library is copied to the binding's lib/<arch>/")
	run = findRun(t, builder)
	for _, want := range []string{"GOARCH=$TARGETARCH", "CGO_ENABLED=1", "aarch64-linux-gnu-gcc", "-extldflags \"-static\"", "./cmd/epp"} {
		assert.Contains(t, run, want)
	}
	assert.NotContains(t, run, "GOARCH=amd64", "the arch must come from TARGETARCH")

	final := stages[len(stages)-1]
	assert.Equal(t, "${BASE_IMAGE}", final.BaseName)
	var copied bool
	for _, c := range final.Commands {
		if cp, ok := c.(*instructions.CopyCommand); ok {
			copied = copied || cp.From == "builder"
		}
	}
	assert.True(t, copied, "the final stage copies the binary from the builder")
}

func stageNamed(t *testing.T, stages []instructions.Stage, name string) instructions.Stage {
	t.Helper()
	for _, s := range stages {
		if s.Name == name {
			return s
		}
	}
	t.Fatalf("no stage %s", name)
	return instructions.Stage{}
}

func argNames(s instructions.Stage) []string {
	var out []string
	for _, c := range s.Commands {
		if a, ok := c.(*instructions.ArgCommand); ok {
			for _, kv := range a.Args {
				out = append(out, kv.Key)
			}
		}
	}
	return out
}

func runFlags(t *testing.T, s instructions.Stage) []string {
	t.Helper()
	for _, c := range s.Commands {
		if r, ok := c.(*instructions.RunCommand); ok {
			return r.FlagsUsed
		}
	}
	t.Fatalf("stage %s has no RUN", s.Name)
	return nil
}

func TestHostDockerfilePicksTheBinaryByTargetArch(t *testing.T) {
	stages, warnings := parseDockerfile(t, HostDockerfile("epp"))
	assert.Empty(t, warnings)
	require.Len(t, stages, 1)
	assert.Equal(t, "${BASE_IMAGE}", stages[0].BaseName)
	assert.Contains(t, HostDockerfile("epp"), "COPY bin/${TARGETARCH}/epp /epp")
	assert.Contains(t, HostDockerfile("epp"), `ENTRYPOINT ["/epp"]`)
}

func TestSmokeDockerfileRunsTheEntrypoint(t *testing.T) {
	src := SmokeDockerfile("127.0.0.1:5000/d/epp@sha256:"+strings.Repeat("a", 64), []string{"/epp", "--config", "x y"})
	stages, _ := parseDockerfile(t, src)
	require.Len(t, stages, 1)
	assert.Equal(t, `RUN ["/epp", "--config", "x y", "--help"]`, strings.TrimSpace(strings.Split(src, "\n")[1]))
}

func findRun(t *testing.T, s instructions.Stage) string {
	t.Helper()
	for _, c := range s.Commands {
		if r, ok := c.(*instructions.RunCommand); ok {
			return strings.Join(r.CmdLine, " ")
		}
	}
	t.Fatalf("stage %s has no RUN", s.Name)
	return ""
}
