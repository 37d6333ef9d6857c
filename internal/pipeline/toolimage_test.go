//go:build integration

package pipeline

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-containerregistry/pkg/name"
	"github.com/google/go-containerregistry/pkg/v1/remote"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/epp-build/epp-build/internal/image"
	"github.com/epp-build/epp-build/internal/toolimage"
)

// TestToolImageRunsAsAnUnprivilegedUser: the tool image, built from a
// release folder's linux binaries FROM the local Debian base, is one image
// per platform whose epp-build, git and CA certificates work for its
// non-root user on both platforms (arm64 under qemu).
func TestToolImageRunsAsAnUnprivilegedUser(t *testing.T) {
	requireDaemons(t)
	builtBuilder(t) // pushes the Debian base, and skips without it
	ctx := context.Background()
	const version = "v0.0.0-test"
	prefix := "epp-build-" + version + "-"
	dist := t.TempDir()
	for _, p := range toolimage.Platforms {
		out := filepath.Join(dist, prefix+strings.ReplaceAll(p, "/", "-"))
		cmd := exec.Command("go", "build", "-trimpath", "-o", out, "../../cmd/epp-build")
		cmd.Env = append(os.Environ(), "CGO_ENABLED=0", "GOOS=linux", "GOARCH="+filepath.Base(p))
		b, err := cmd.CombinedOutput()
		require.NoError(t, err, "%s", b)
	}
	from, to := testCache("toolimage")
	imports, err := image.ParseCache(from, image.CacheImport, true)
	require.NoError(t, err)
	exports, err := image.ParseCache(to, image.CacheExport, true)
	require.NoError(t, err)
	res, err := toolimage.Build(ctx, toolimage.Options{
		CacheImports: imports, CacheExports: exports,
		Dist: dist, BinaryPrefix: prefix, Version: version, Revision: "0123456789abcdef",
		Platforms: toolimage.Platforms, Base: builderOnce.base,
		Image: reg.Host + "/epp-build/epp-build:" + version, Push: true, Insecure: true,
		BuildKit: bk.Addr, Progress: "quiet",
	}, testWriter{t})
	require.NoError(t, err)
	assert.Equal(t, reg.Host+"/epp-build/epp-build:"+version, res.Tag)

	tag, err := name.NewTag(res.Tag, name.Insecure)
	require.NoError(t, err)
	idx, err := remote.Index(tag)
	require.NoError(t, err)
	m, err := idx.IndexManifest()
	require.NoError(t, err)
	var platforms []string
	for _, d := range m.Manifests {
		if d.Platform == nil || d.Platform.OS != "linux" {
			continue
		}
		platforms = append(platforms, d.Platform.OS+"/"+d.Platform.Architecture)
		img, err := idx.Image(d.Digest)
		require.NoError(t, err)
		cf, err := img.ConfigFile()
		require.NoError(t, err)
		assert.Equal(t, toolimage.User, cf.Config.User, "not root")
		assert.Equal(t, []string{"/usr/local/bin/epp-build"}, cf.Config.Entrypoint)
		assert.Equal(t, version, cf.Config.Labels["org.opencontainers.image.version"])
	}
	assert.ElementsMatch(t, toolimage.Platforms, platforms)

	// Run it on both platforms: what a CI step in this image does first.
	probe := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(probe, "Dockerfile"), []byte(fmt.Sprintf(`FROM %s AS probe
RUN mkdir -p /tmp/out && epp-build version >/tmp/out/version && epp-build versions >/tmp/out/versions && \
    git --version >/tmp/out/git && id -u >/tmp/out/uid && test -s /etc/ssl/certs/ca-certificates.crt && echo ok >/tmp/out/ca
FROM scratch
COPY --from=probe /tmp/out/uid /uid
`, res.Image)), 0o644))
	c, err := image.Connect(ctx, bk.Addr, image.TLSOptions{})
	require.NoError(t, err)
	defer c.Close()
	got := map[string]map[string]string{}
	_, err = image.Solve(ctx, c, image.SolveOptions{
		ContextDir: probe, Platforms: toolimage.Platforms, OCITar: filepath.Join(probe, "out.tar"),
		Repository: reg.Host + "/epp-build/probe", Insecure: true, Progress: "quiet",
		Prepare: func(ctx context.Context, s image.StageSolver) (map[string]string, error) {
			stages, err := s.SolveStage(ctx, "probe", s.Platforms())
			if err != nil {
				return nil, err
			}
			for p, fs := range stages {
				got[p] = map[string]string{}
				for _, f := range []string{"version", "versions", "git", "uid", "ca"} {
					b, err := fs.ReadFile(ctx, "tmp/out/"+f)
					if err != nil {
						return nil, fmt.Errorf("%s: %s: %w", p, f, err)
					}
					got[p][f] = strings.TrimSpace(string(b))
				}
			}
			return nil, nil
		},
	})
	require.NoError(t, err)
	for _, p := range toolimage.Platforms {
		assert.Equal(t, "65532", got[p]["uid"], p)
		assert.Contains(t, got[p]["version"], "epp-build", p)
		assert.Contains(t, got[p]["versions"], "v1.4.2", "%s: the built-in recipes, extracted into the user's home", p)
		assert.Contains(t, got[p]["git"], "git version", p)
		assert.Equal(t, "ok", got[p]["ca"], p)
	}
}
