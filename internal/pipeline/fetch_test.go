//go:build integration

package pipeline

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-containerregistry/pkg/name"
	"github.com/google/go-containerregistry/pkg/v1/remote"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/epp-build/epp-build/internal/image"
	"github.com/epp-build/epp-build/internal/report"
	"github.com/epp-build/epp-build/internal/testutil"
	"github.com/epp-build/epp-build/internal/testutil/tlsmodproxy"
)

// Behind a TLS-intercepting proxy (here: a module proxy on loopback whose
// certificate a CA of its own signed, needing a login), the container
// mode's Go module fetch fails naming the fetch, the proxy and
// --ca-bundle; given the CA bundle it builds. The login goes in as a
// --secret (a netrc) and is in neither the image, the cache export, the
// report nor the log. One platform, and the second build reuses the
// first's C API. On 2 cores under a load of 40: 2m35s to the failure (the
// C API built in the solve), 4m9s for the build with the CA (the EPP, a
// mode=max cache export and the scan for the secret), after the test
// registry's builder image is built once for the package (15 min here);
// 6s and 1m3s when an earlier test of the package built the C API.
func TestContainerModeFetchesThroughATLSInterceptingProxy(t *testing.T) {
	requireDaemons(t)
	builder := builderImage(t)
	const password = "tls-proxy-login-6f1c9a"
	proxy := tlsmodproxy.Serve(t, tlsmodproxy.Options{User: "ci", Password: password}, tlsmodproxy.Module{
		Path: "example.com/tlsdep", Version: "v1.0.0",
		Files: map[string]string{"dep.go": "// Package tlsdep is only served by the test's module proxy.\npackage tlsdep\n\n// Name is read by the EPP fixture.\nconst Name = \"tlsdep\"\n"},
	})
	in := testInput(t)
	requireModule(t, in.TreeDir, "example.com/tlsdep v1.0.0", proxy.GoSum)
	netrc := filepath.Join(t.TempDir(), "netrc")
	require.NoError(t, os.WriteFile(netrc, []byte(proxy.Netrc()), 0o600))

	opt, _, errOut := testOptions(t, reg.Host, "dynamo/epp-tls-proxy")
	opt.Compile, opt.BuilderImage = CompileContainer, builder
	opt.Platforms = platforms(t, "linux/amd64")
	opt.Push, opt.OCITar, opt.SBOM = false, filepath.Join(t.TempDir(), "epp.tar"), "false"
	runnerOnly(t, &opt)
	opt.Env = append(opt.Env, "GOPROXY="+proxy.URL, "GONOSUMDB=example.com")
	opt.Fetch.Secrets = []string{"id=netrc,src=" + netrc}

	start := time.Now()
	_, err := runOpts(context.Background(), in, opt)
	var fe *image.FetchError
	require.ErrorAs(t, err, &fe, "stderr:\n%s", errOut.String())
	assert.Equal(t, image.FetchGoModules, fe.What)
	msg := err.Error()
	assert.Contains(t, msg, proxy.URL+"/example.com/tlsdep/@v/", "names the proxy and what it asked")
	assert.Contains(t, msg, "x509: certificate signed by unknown authority")
	assert.Contains(t, msg, "--ca-bundle FILE", "names the flag that fixes it")
	assert.Contains(t, msg, "GOPROXY="+proxy.URL)
	assert.NotContains(t, msg, "did not complete successfully")
	assert.NotContains(t, msg, password)
	t.Logf("without the CA: failed in %s: %s", time.Since(start).Round(time.Second), msg)

	start = time.Now()
	opt.Fetch.CABundle = proxy.CAFile
	opt.Report = filepath.Join(t.TempDir(), "report.json")
	cacheDir := filepath.Join(t.TempDir(), "cache")
	opt.CacheTo = []string{"type=local,dest=" + cacheDir + ",mode=max"}
	var log syncBuffer
	opt.Stderr = &log
	_, err = runOpts(context.Background(), in, opt)
	require.NoError(t, err, log.String())
	t.Logf("with the CA: built in %s", time.Since(start).Round(time.Second))
	assert.Positive(t, proxy.Requests(), "the module came through the proxy")

	rep, err := report.Read(opt.Report)
	require.NoError(t, err)
	require.NotNil(t, rep.Inputs.Fetch)
	assert.Equal(t, []string{"netrc"}, rep.Inputs.Fetch.Secrets)
	assert.Equal(t, proxy.URL, rep.Inputs.Fetch.Go["GOPROXY"])
	assert.Len(t, rep.Inputs.Fetch.CABundleSHA256, 64)

	skip := builderLayers(t, builder)
	testutil.AssertNoSecretUnder(t, filepath.Dir(opt.Report), password)
	testutil.AssertNoSecretInOCI(t, opt.OCITar, password, skip)
	testutil.AssertNoSecretInOCI(t, cacheDir, password, skip)
	assert.NotContains(t, log.String()+errOut.String(), password)
}

// requireModule makes the fixture's EPP import a module, with its go.sum.
func requireModule(t *testing.T, tree, requirement string, sum []string) {
	t.Helper()
	gomod := filepath.Join(tree, "go.mod")
	data, err := os.ReadFile(gomod)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(gomod, append(data, []byte("\nrequire "+requirement+"\n")...), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(tree, "go.sum"), []byte(strings.Join(sum, "\n")+"\n"), 0o644))
	modPath, _, _ := strings.Cut(requirement, " ")
	require.NoError(t, os.WriteFile(filepath.Join(tree, "cmd", "epp", "dep.go"),
		[]byte("package main\n\nimport _ \""+modPath+"\"\n"), 0o644))
}

// builderLayers are the builder image's layer digests (hex): the cache
// export holds them, and they cannot hold anything of the build's.
func builderLayers(t *testing.T, ref string) map[string]bool {
	t.Helper()
	r, err := name.ParseReference(ref, name.Insecure)
	require.NoError(t, err)
	img, err := remote.Image(r)
	require.NoError(t, err)
	layers, err := img.Layers()
	require.NoError(t, err)
	out := map[string]bool{}
	for _, l := range layers {
		d, err := l.Digest()
		require.NoError(t, err)
		out[d.Hex] = true
	}
	return out
}
