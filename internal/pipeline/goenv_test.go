package pipeline

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/epp-build/epp-build/internal/image"
)

// `go env -w` settings (the go env file) reach the fetches inside the
// solve as they reach the upstream fetch (source's
// TestTheGoEnvFileReachesTheProxyFetch), the environment still first.
func TestTheGoEnvFileReachesTheSolve(t *testing.T) {
	file := filepath.Join(t.TempDir(), "env")
	require.NoError(t, os.WriteFile(file, []byte("GOPROXY=https://goenv.example/mod,direct\nGOFLAGS=-mod=mod\nGONOSUMDB=file.example\n"), 0o644))
	o := &Options{Compile: CompileContainer, Env: []string{"GOENV=" + file, "GONOSUMDB=env.example"}}

	fp, problems, err := o.resolveFetch()
	require.NoError(t, err)
	require.Empty(t, problems)

	assert.Equal(t, map[string]string{"GOPROXY": "https://goenv.example/mod,direct", "GONOSUMDB": "env.example"}, fp.goEnv)
	assert.Equal(t, "-mod=mod", fp.solveBuildArgs()["GOFLAGS"])
	assert.Contains(t, string(fp.solveSecrets()[image.FetchSecret]), "export GOPROXY='https://goenv.example/mod,direct'")

	// GOENV=off, as for the go command: the file is not read.
	o.Env = []string{"GOENV=off", "HOME=" + filepath.Dir(file)}
	fp, _, err = o.resolveFetch()
	require.NoError(t, err)
	assert.Empty(t, fp.goEnv)
	assert.Empty(t, fp.solveBuildArgs())
}
