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
	stages, _ := parseDockerfile(t, ContainerDockerfile("epp", "./cmd/epp", "dynamo_prefill_reservation"))
	assert.Contains(t, findRun(t, stages[0]), "-tags netgo,osusergo,dynamo_prefill_reservation")
}

func TestContainerDockerfileCrossCompilesOnTheBuildPlatform(t *testing.T) {
	src := ContainerDockerfile("epp", "./cmd/epp")
	assert.NotContains(t, src, "# syntax=", "a syntax line would pull a frontend image")
	stages, warnings := parseDockerfile(t, src)
	assert.Empty(t, warnings)
	require.Len(t, stages, 2)

	builder := stages[0]
	assert.Equal(t, "builder", builder.Name)
	assert.Equal(t, "$BUILDPLATFORM", builder.Platform, "the builder runs natively, never under emulation")
	run := findRun(t, builder)
	for _, want := range []string{"GOARCH=$TARGETARCH", "CGO_ENABLED=1", "aarch64-linux-gnu-gcc", "-extldflags \"-static\"", "./cmd/epp"} {
		assert.Contains(t, run, want)
	}
	assert.NotContains(t, run, "GOARCH=amd64", "the arch must come from TARGETARCH")

	final := stages[1]
	assert.Equal(t, "${BASE_IMAGE}", final.BaseName)
	var copied bool
	for _, c := range final.Commands {
		if cp, ok := c.(*instructions.CopyCommand); ok {
			copied = cp.From == "builder"
		}
	}
	assert.True(t, copied, "the final stage copies the binary from the builder")
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
