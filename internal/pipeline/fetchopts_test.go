package pipeline

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/epp-build/epp-build/internal/image"
	"github.com/epp-build/epp-build/internal/testutil/tlsmodproxy"
)

func fetchOptions(t *testing.T, env ...string) Options {
	opt, _, _ := testOptions(t, "127.0.0.1:5000", "dynamo/epp-fetch")
	opt.Compile, opt.BuilderImage = CompileContainer, "127.0.0.1:5000/builder"
	opt.Env = env
	return opt
}

// The Go and cargo settings come from the environment as go and cargo
// take them, a flag overrides its variable, and what carries a credential
// reaches the solve only as a secret and the report only masked.
func TestFetchSettingsFromTheEnvironmentAndFlags(t *testing.T) {
	opt := fetchOptions(t,
		"GOPROXY=https://ci:goproxy-pw-1@goproxy.corp.example,direct", "GONOSUMDB=corp.example", "GOFLAGS=-mod=readonly",
		"GOPRIVATE=from.env", "CARGO_REGISTRIES_CORP_INDEX=sparse+https://crates.corp.example/index/",
		"CARGO_REGISTRIES_CORP_TOKEN=cargo-token-2", "CARGO_NET_OFFLINE=true", "HOME=/root")
	opt.Fetch.Go = map[string]string{"GOPRIVATE": "from.flag", "GOSUMDB": "sum.corp.example"}
	opt.Fetch.CargoMirror = "sparse+https://mirror.corp.example/index/"
	opt.Fetch.BuildArgs = []string{"HTTPS_PROXY=http://proxyuser:proxy-pw-3@proxy.corp.example:3128", "NO_PROXY=127.0.0.1"}
	p, problems, err := opt.checkOptions(naming{image: opt.Image})
	require.NoError(t, err)
	require.Empty(t, problems)
	fp := p.fetch

	assert.Equal(t, map[string]string{"GOPROXY": "https://ci:goproxy-pw-1@goproxy.corp.example,direct", "GONOSUMDB": "corp.example",
		"GOPRIVATE": "from.flag", "GOSUMDB": "sum.corp.example"}, fp.goEnv)
	assert.Equal(t, map[string]string{"CARGO_REGISTRIES_CORP_INDEX": "sparse+https://crates.corp.example/index/",
		"CARGO_REGISTRIES_CORP_TOKEN": "cargo-token-2"}, fp.cargoEnv, "only the registry settings: CARGO_NET_OFFLINE is this machine's")
	assert.Equal(t, map[string]string{"GOFLAGS": "-mod=readonly", "HTTPS_PROXY": "http://proxyuser:proxy-pw-3@proxy.corp.example:3128",
		"NO_PROXY": "127.0.0.1"}, fp.solveBuildArgs(), "GOFLAGS changes the build: a build arg, in the cache key")

	secrets := fp.solveSecrets()
	script := string(secrets[image.FetchSecret])
	assert.Contains(t, script, "export GOPROXY='https://ci:goproxy-pw-1@goproxy.corp.example,direct'")
	assert.Contains(t, script, "export CARGO_REGISTRIES_CORP_TOKEN='cargo-token-2'")
	assert.NotContains(t, script, "GOFLAGS")
	assert.Equal(t, "[source.crates-io]\nreplace-with = \"epp-build-mirror\"\n\n[source.epp-build-mirror]\nregistry = \"sparse+https://mirror.corp.example/index/\"\n",
		string(secrets[image.CargoConfigSecret]))
	assert.NotContains(t, secrets, image.CASecret)

	rep := fp.report()
	require.NotNil(t, rep)
	assert.Equal(t, "https://ci:xxxxx@goproxy.corp.example,direct", rep.Go["GOPROXY"])
	assert.Equal(t, "-mod=readonly", rep.Go["GOFLAGS"])
	assert.Equal(t, "xxxxx", rep.Cargo["CARGO_REGISTRIES_CORP_TOKEN"])
	assert.Equal(t, "sparse+https://crates.corp.example/index/", rep.Cargo["CARGO_REGISTRIES_CORP_INDEX"])
	assert.Equal(t, "http://proxyuser:xxxxx@proxy.corp.example:3128", rep.BuildArgs["HTTPS_PROXY"])
	for _, secret := range []string{"goproxy-pw-1", "cargo-token-2", "proxy-pw-3"} {
		assert.NotContains(t, rep.Go["GOPROXY"]+rep.Cargo["CARGO_REGISTRIES_CORP_TOKEN"]+rep.BuildArgs["HTTPS_PROXY"], secret)
	}
	assert.NotContains(t, fp.describe(image.FetchGoModules), "goproxy-pw-1")

	// An empty flag unsets the environment's value.
	opt.Fetch.Go = map[string]string{"GOPROXY": ""}
	p, _, err = opt.checkOptions(naming{image: opt.Image})
	require.NoError(t, err)
	assert.NotContains(t, p.fetch.goEnv, "GOPROXY")
}

func TestSecretsAndCABundleAreReadAsBuildxReadsThem(t *testing.T) {
	dir := t.TempDir()
	netrc := filepath.Join(dir, "netrc")
	require.NoError(t, os.WriteFile(netrc, []byte("machine goproxy.corp.example login ci password netrc-pw-4\n"), 0o600))
	ca := tlsmodproxy.Serve(t, tlsmodproxy.Options{}).CAFile
	opt := fetchOptions(t, "TOKEN_VAR=env-secret-5", "GOPROXY=https://goproxy.corp.example")
	opt.Fetch.Secrets = []string{"id=netrc,src=" + netrc, "id=CARGO_REGISTRIES_CORP_TOKEN,env=TOKEN_VAR", "type=env,id=GOPROXY"}
	opt.Fetch.CABundle = ca
	p, problems, err := opt.checkOptions(naming{image: opt.Image})
	require.NoError(t, err)
	require.Empty(t, problems)
	secrets := p.fetch.solveSecrets()
	assert.Equal(t, "machine goproxy.corp.example login ci password netrc-pw-4\n", string(secrets["netrc"]))
	assert.Equal(t, "env-secret-5", string(secrets["CARGO_REGISTRIES_CORP_TOKEN"]))
	assert.Equal(t, "https://goproxy.corp.example", string(secrets["GOPROXY"]))
	caPEM, err := os.ReadFile(ca)
	require.NoError(t, err)
	assert.Equal(t, caPEM, secrets[image.CASecret])
	rep := p.fetch.report()
	assert.Equal(t, []string{"CARGO_REGISTRIES_CORP_TOKEN", "GOPROXY", "netrc"}, rep.Secrets)
	assert.Len(t, rep.CABundleSHA256, 64)
}

// Every bad fetch setting is named at once, before any work.
func TestBadFetchSettingsAreNamedTogether(t *testing.T) {
	notPEM := filepath.Join(t.TempDir(), "ca.pem")
	require.NoError(t, os.WriteFile(notPEM, []byte("not a certificate"), 0o644))
	opt := fetchOptions(t)
	opt.Fetch.CABundle = notPEM
	opt.Fetch.Secrets = []string{"src=/nowhere", "id=gone,src=/nowhere/at/all", "id=x,env=UNSET_VAR_FOR_TEST", "id=epp-build-fetch,env=HOME"}
	opt.Fetch.BuildArgs = []string{"BASE_IMAGE=alpine", "CAPI_CRATE=x", "GOFLAGS=-x", "not a name=1"}
	opt.Fetch.CargoMirror = "not a url"
	_, err := Resolve(opt)
	require.Error(t, err)
	msg := err.Error()
	for _, want := range []string{"--ca-bundle " + notPEM + ": no PEM certificate", "--secret \"src=/nowhere\": no id",
		"--secret gone:", "--secret x: environment variable UNSET_VAR_FOR_TEST is not set", `--secret id "epp-build-fetch"`,
		"--build-arg BASE_IMAGE: set by epp-build (use --base-image)", "--build-arg CAPI_CRATE", "--build-arg GOFLAGS: set by epp-build (use --goflags)",
		`--build-arg "not a name=1"`, "--cargo-mirror"} {
		assert.Contains(t, msg, want)
	}

	// Host mode fetches here: the solve-only settings are refused, not ignored.
	host := fetchOptions(t)
	host.Compile = CompileHost
	host.Fetch.CABundle, host.Fetch.Secrets = notPEM, []string{"id=a,env=HOME"}
	host.Env = []string{"HOME=/root"}
	_, err = Resolve(host)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "--secret reaches the fetches inside the solve, and only --compile container fetches there")
	assert.Contains(t, err.Error(), "--ca-bundle reaches the fetches inside the solve")
	assert.Equal(t, 1, strings.Count(err.Error(), "--secret reaches"))
}
