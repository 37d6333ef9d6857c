package main

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/epp-build/epp-build/internal/pipeline"
)

// The CI flags' mistakes are usage errors found before anything is
// loaded or fetched.
func TestBuildCIFlagMistakesAreUsageErrors(t *testing.T) {
	base := []string{"build", "--version", "v0.7.0", "--push", "--buildkit", "tcp://127.0.0.1:1"}
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"--image twice", []string{"--image", "r.example/a:1", "--image", "r.example/a:2"}, "--image given 2 times: give it once and add more tags with --tag"},
		{"a tag in another repository", []string{"--image", "r.example/a:1", "--tag", "r.example/b:1"}, "another repository than --image's r.example/a"},
		{"an unknown template field", []string{"--image", "r.example/a:{{.Release}}"}, "can't evaluate field Release"},
		{"two versions, one tag", []string{"--version", "v0.8.0", "--image", "r.example/a:latest"}, "v0.7.0 and v0.8.0 would both be tagged r.example/a:latest: put {{.Version}}"},
		{"a label without value", []string{"--image", "r.example/a:1", "--label", "novalue"}, `--label "novalue": want KEY=VALUE`},
		{"an annotation type buildx lacks", []string{"--image", "r.example/a:1", "--annotation", "layer:k=v"}, `type "layer"`},
		{"image refs of nothing pushed", []string{"--image", "r.example/a:1", "--image-refs", "refs.txt", "--push=false", "--oci-tar", "x.tar"}, "--image-refs lists pushed images"},
		{"a dry-run format", []string{"--image", "r.example/a:1", "--dry-run=yaml"}, "--dry-run=yaml: use text or json"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := inEmptyFolder(t, nil, append(append([]string{}, base...), tc.args...)...)
			assert.Equal(t, 2, r.code, r.stderr)
			assert.Contains(t, r.stderr, tc.want)
		})
	}
}

// --dry-run prints the plan of every version from the flags and the
// embedded recipes alone: tags expanded, the OCI defaults, the nodes.
func TestBuildDryRunPrintsThePlanOfEveryVersion(t *testing.T) {
	r := inEmptyFolder(t, []string{"BUILDKIT_HOST="}, "build", "--version", "v0.7.0", "--version", "v1.4.2",
		"--image", "registry.example/dynamo/epp:{{.Version}}", "--tag", "registry.example/dynamo/epp:{{.Version}}-{{.ShortCommit}}",
		"--push", "--buildkit", "linux/amd64=tcp://amd:1234,linux/arm64=tcp://arm:1234", "--compile", "container",
		"--builder-image", "registry.example/builder:1", "--label", "org.opencontainers.image.source=https://example.com/epp",
		"--annotation", "index:team=routing", "--dry-run=json")
	require.Equal(t, 0, r.code, r.stderr)
	var plans []pipeline.DryRun
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &plans), r.stdout)
	require.Len(t, plans, 2)
	p := plans[0]
	assert.Equal(t, "v0.7.0", p.Version)
	assert.Equal(t, []string{"registry.example/dynamo/epp:v0.7.0", "registry.example/dynamo/epp:v0.7.0-978c23bb96cc"}, p.Tags)
	assert.Equal(t, "https://example.com/epp", p.Labels[pipeline.OCISource], "--label wins over the default")
	assert.Equal(t, "978c23bb96cce25f11cea2421523cb479026e2e9", p.Labels[pipeline.OCIRevision])
	assert.Equal(t, "v0.7.0", p.Labels[pipeline.OCIVersion])
	assert.Equal(t, "routing", p.Annotations["annotation-index.team"])
	assert.Equal(t, "https://github.com/kubernetes-sigs/gateway-api-inference-extension.git", p.Annotations["annotation-manifest."+pipeline.OCISource])
	assert.Equal(t, []pipeline.DryRunNode{{Address: "tcp://amd:1234", Platforms: []string{"linux/amd64"}}, {Address: "tcp://arm:1234", Platforms: []string{"linux/arm64"}}}, p.Nodes)
	assert.Equal(t, "pin", p.CAPI.Source)
	assert.Len(t, p.Patches, 5)
	assert.Equal(t, "v1.4.2", plans[1].Version)
	assert.Equal(t, "registry.example/dynamo/epp:v1.4.2", plans[1].Tags[0])

	r = inEmptyFolder(t, nil, "build", "--version", "v0.7.0", "--image", "registry.example/dynamo/epp:v0.7.0", "--push",
		"--buildkit", "tcp://bk:1234", "--capi-src", "/nowhere", "--dry-run")
	require.Equal(t, 0, r.code, r.stderr)
	assert.Contains(t, r.stdout, "dry run: v0.7.0 (nothing fetched, connected or built)")
	assert.Contains(t, r.stdout, "C API:       local /nowhere")
}
