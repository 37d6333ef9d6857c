//go:build integration

package pipeline

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/epp-build/epp-build/internal/image"
)

// The container mode's Dockerfile runs only with a builder image, but the
// daemon's Dockerfile frontend checks it on every run.
func TestContainerDockerfileCheckedByTheFrontend(t *testing.T) {
	requireDaemons(t)
	ctx := context.Background()
	c, err := image.Connect(ctx, bk.Addr, image.TLSOptions{})
	require.NoError(t, err)
	defer c.Close()
	scratch := map[string]string{"BUILDER_IMAGE": "scratch", "BASE_IMAGE": "scratch"}

	dir := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "src"), 0o755))
	write := func(name, content string) {
		require.NoError(t, os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644))
	}
	write("Dockerfile.container", image.ContainerDockerfile("epp", "./cmd/epp", "pkg/binding"))
	capiWorkspace := map[string]image.NamedContext{image.CAPIContext: {Dir: t.TempDir()}}
	warnings, err := image.LintDockerfileWith(ctx, c, dir, "Dockerfile.container", bothPlatforms, scratch, capiWorkspace)
	require.NoError(t, err)
	assert.Empty(t, warnings)

	write("Dockerfile.host", image.HostDockerfile("epp"))
	warnings, err = image.LintDockerfile(ctx, c, dir, "Dockerfile.host", bothPlatforms, scratch)
	require.NoError(t, err)
	assert.Empty(t, warnings)

	// The check is real: it reports what the frontend dislikes.
	write("Dockerfile.casing", "FROM scratch as base\nCOPY src/ /src/\n")
	warnings, err = image.LintDockerfile(ctx, c, dir, "Dockerfile.casing", bothPlatforms, nil)
	require.NoError(t, err)
	require.Len(t, warnings, 1)
	assert.Contains(t, warnings[0], "FromAsCasing")
	write("Dockerfile.broken", "FROM scratch\nCOPY --from=nowhere /a /b\nFROM\n")
	_, err = image.LintDockerfile(ctx, c, dir, "Dockerfile.broken", bothPlatforms, nil)
	require.Error(t, err)
}
