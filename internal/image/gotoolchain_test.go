package image

import (
	"testing"

	"github.com/moby/buildkit/frontend/dockerfile/instructions"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestContainerDockerfileWithoutAToolchainIsUnchanged(t *testing.T) {
	src := ContainerDockerfileGo("epp", "./cmd/epp", "pkg/binding", nil, "")
	assert.Equal(t, ContainerDockerfile("epp", "./cmd/epp", "pkg/binding"), src)
	assert.NotContains(t, src, GoToolchainContext)
	assert.NotContains(t, src, "GOROOT")
}

// The compile step runs the recipe's Go, unpacked from the named context
// for the build platform, ahead of the builder's own on PATH.
func TestContainerDockerfileCompilesWithTheRecipeToolchain(t *testing.T) {
	src := ContainerDockerfileGo("epp", "./cmd/epp", "pkg/binding", nil, "go1.26.10")
	stages, warnings := parseDockerfile(t, src)
	assert.Empty(t, warnings)
	builder := stageNamed(t, stages, "builder")
	assert.Contains(t, argNames(builder), "BUILDARCH")

	var copied *instructions.CopyCommand
	var env []string
	var goroot bool
	for _, c := range builder.Commands {
		switch c := c.(type) {
		case *instructions.CopyCommand:
			if c.From == GoToolchainContext {
				copied = c
			}
		case *instructions.EnvCommand:
			for _, kv := range c.Env {
				env = append(env, kv.Key+"="+kv.Value)
			}
		case *instructions.RunCommand:
			// The toolchain must be in place before go build runs.
			if copied != nil && len(env) > 0 {
				goroot = true
			}
		}
	}
	require.NotNil(t, copied, "the toolchain comes from the named context")
	assert.Equal(t, []string{"/toolchain@v0.0.1-go1.26.10.linux-${BUILDARCH}/"}, copied.SourcePaths)
	assert.Equal(t, []string{"GOROOT=/opt/epp-build-go", "PATH=/opt/epp-build-go/bin:$PATH", "GOTOOLCHAIN=local"}, env)
	assert.True(t, goroot, "go build runs after the toolchain is put first on PATH")
	assert.Contains(t, src, `test "$(/opt/epp-build-go/bin/go env GOVERSION)" = go1.26.10`, "a zip of another Go fails the build")
}

func TestGoToolchainFolderIsWhereTheModuleCacheUnpacksIt(t *testing.T) {
	assert.Equal(t, "toolchain@v0.0.1-go1.27.3.linux-arm64", GoToolchainFolder("go1.27.3", "arm64"))
}
