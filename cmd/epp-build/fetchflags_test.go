package main

import (
	"testing"

	"github.com/spf13/pflag"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/epp-build/epp-build/internal/pipeline"
)

// A Go setting's flag overrides the environment only when given, and an
// empty one unsets it.
func TestGoSettingFlagsOverrideOnlyWhenGiven(t *testing.T) {
	var f pipeline.FetchOptions
	fl := pflag.NewFlagSet("build", pflag.ContinueOnError)
	names := registerFetchFlags(fl, &f)
	require.NoError(t, fl.Parse([]string{"--goproxy", "https://goproxy.corp.example", "--gonosumdb=", "--secret", "id=netrc,src=n",
		"--build-arg", "HTTPS_PROXY=http://proxy:3128", "--ca-bundle", "ca.pem", "--cargo-mirror", "sparse+https://m/", "--cargo-registry", "corp=https://c/"}))
	assert.Equal(t, map[string]string{"GOPROXY": "https://goproxy.corp.example", "GONOSUMDB": ""}, changedGoSettings(fl, names))
	assert.Equal(t, pipeline.FetchOptions{CABundle: "ca.pem", CargoMirror: "sparse+https://m/", CargoRegistries: []string{"corp=https://c/"},
		Secrets: []string{"id=netrc,src=n"}, BuildArgs: []string{"HTTPS_PROXY=http://proxy:3128"}}, f)
	for _, k := range pipeline.GoSettings {
		assert.NotNil(t, fl.Lookup(map[string]string{"GOPROXY": "goproxy", "GONOPROXY": "gonoproxy", "GOPRIVATE": "goprivate",
			"GONOSUMDB": "gonosumdb", "GOSUMDB": "gosumdb", "GOFLAGS": "goflags"}[k]), k)
	}
}

// Bad fetch settings are usage errors, all named, before anything is fetched.
func TestBuildRefusesBadFetchSettingsUpFront(t *testing.T) {
	r := run(t, t.TempDir(), "build", "--version", "v0.7.0", "--image", "127.0.0.1:5000/dynamo/epp:v0.7.0", "--push",
		"--compile", "container", "--builder-image", "127.0.0.1:5000/builder", "--buildkit", "unix:///nonexistent/bk.sock",
		"--secret", "src=/nowhere", "--build-arg", "BASE_IMAGE=alpine", "--ca-bundle", "/nowhere/ca.pem")
	assert.Equal(t, 2, r.code, r.stderr)
	for _, want := range []string{`--secret "src=/nowhere": no id`, "--build-arg BASE_IMAGE: set by epp-build (use --base-image)", "--ca-bundle: open /nowhere/ca.pem"} {
		assert.Contains(t, r.stderr, want)
	}
}
