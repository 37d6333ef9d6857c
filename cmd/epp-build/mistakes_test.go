package main

import (
	"encoding/json"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/epp-build/epp-build/internal/testutil"
)

// repoPatches is the repository's own series: the cases below name its
// versions without depending on how the embedded copy is unpacked.
func repoPatches(t *testing.T) string {
	t.Helper()
	dir, err := filepath.Abs(filepath.Join("..", "..", "patches"))
	require.NoError(t, err)
	require.DirExists(t, dir)
	return dir
}

// TestEveryMistakeGetsItsCodeAndTheNextStep runs each first-use mistake
// and checks the README's exit code, that stderr is one line saying what
// to do, and that stdout (the result) stays empty.
func TestEveryMistakeGetsItsCodeAndTheNextStep(t *testing.T) {
	patches := repoPatches(t)
	host := testutil.StartRegistry(t)
	testutil.PushRandomIndex(t, host+"/dynamo/epp:v0.7.0")
	key, _ := testutil.WriteCosignKeyPair(t, t.TempDir(), "pw")
	out := filepath.Join(t.TempDir(), "out")
	build := []string{"build", "--version", "v0.7.0", "--image", "registry.example/dynamo/epp:v0.7.0", "--push"}
	missing := host + "/dynamo/epp:v0.7.9"
	noRepo := host + "/nobody/epp:v0.7.0"

	for _, tc := range []struct {
		name string
		args []string
		env  []string
		code int
		want string
	}{
		// build flags
		{"--buildkit without a scheme", append(build, "--buildkit", "127.0.0.1:1234"), nil, 2,
			"--buildkit: 127.0.0.1:1234 has no scheme: use tcp://127.0.0.1:1234"},
		{"--buildkit a socket path", append(build, "--buildkit", "/run/buildkit/buildkitd.sock"), nil, 2,
			"use unix:///run/buildkit/buildkitd.sock"},
		{"--buildkit PLATFORM=ADDR without a scheme", append(build, "--buildkit", "linux/amd64=10.0.0.1:1234,linux/arm64=tcp://b:1"), nil, 2,
			"linux/amd64=10.0.0.1:1234 has no scheme: use tcp://10.0.0.1:1234"},
		{"BUILDKIT_HOST without a scheme", build, []string{"BUILDKIT_HOST=127.0.0.1:1234"}, 2,
			"BUILDKIT_HOST: 127.0.0.1:1234 has no scheme: use tcp://127.0.0.1:1234"},
		{"--tag in another repository", append(build, "--tag", "registry.example/other/epp:latest"), nil, 2,
			"give only the tag, such as --tag latest"},
		{"bare --tag without --image", []string{"build", "--version", "v0.7.0", "--push", "--tag", "latest"}, nil, 2,
			"--tag latest is a tag of --image's repository: pass --image REGISTRY/REPO:TAG too"},
		{"--tag that is no tag", append(build, "-t", "bad tag!"), nil, 2, `tag "bad tag!"`},
		{"--dry-run json", append(build, "--dry-run", "json"), nil, 2, "use --dry-run=json"},
		{"--dry-run text", append(build, "--dry-run", "text"), nil, 2, "use --dry-run=text"},
		{"--dry-run=yaml", append(build, "--dry-run=yaml"), nil, 2, "--dry-run=yaml: use text or json"},
		{"a stray argument to build", append(build, "json"), nil, 2, `unknown command "json" for "epp-build build"`},
		{"build without --push or --oci-tar", []string{"build", "--version", "v0.7.0", "--image", "registry.example/dynamo/epp:v0.7.0"}, nil, 2,
			"nothing to export: pass --push and/or --oci-tar FILE"},
		{"build without --image", []string{"build", "--version", "v0.7.0", "--push"}, nil, 2, "pass --image REGISTRY/REPO:TAG"},
		{"unknown --platform", append(build, "--platform", "linux/s390x"), nil, 2, "use linux/amd64 and/or linux/arm64"},
		{"unknown version", []string{"build", "--version", "v9.9.9", "--image", "registry.example/dynamo/epp:v9.9.9", "--push"}, nil, 2,
			"known versions: v0.7.0"},
		{"unknown version to apply", []string{"apply", "--version", "v9.9.9", "--out", out}, nil, 2, "known versions: v0.7.0"},
		// inspect, verify, sign: the reference
		{"inspect a reference that does not parse", []string{"inspect", "not a ref"}, nil, 2, `image reference "not a ref"`},
		{"verify a reference that does not parse", []string{"verify", "NOT:a:ref"}, nil, 2, "want REGISTRY/REPO:TAG or REGISTRY/REPO@sha256:..."},
		{"sign a reference that does not parse, before the key", []string{"sign", "not a ref", "--key", filepath.Join(t.TempDir(), "absent.key")}, nil, 2,
			`image reference "not a ref"`},
		{"verify --key, a reference that does not parse", []string{"verify", "Bad//Ref", "--key", filepath.Join(t.TempDir(), "absent.pub")}, nil, 2,
			`image reference "Bad//Ref"`},
		{"inspect a tag that does not exist", []string{"inspect", missing, "--insecure"}, nil, 9,
			"no such image " + missing + ": the registry has no manifest there; the repository has the tags v0.7.0"},
		{"verify a tag that does not exist", []string{"verify", missing, "--insecure"}, nil, 9, "no such image " + missing},
		{"sign a tag that does not exist", []string{"sign", missing, "--insecure", "--key", key}, []string{"COSIGN_PASSWORD=pw"}, 9,
			"no such image " + missing},
		{"inspect a repository that does not exist", []string{"inspect", noRepo, "--insecure"}, nil, 9,
			"no such image " + noRepo + ": the registry has no manifest there; check the repository and tag"},
		{"inspect a digest that does not exist", []string{"inspect", host + "/dynamo/epp@sha256:" + strings.Repeat("0", 64), "--insecure"}, nil, 9,
			"no such image"},
		// the rest of the command line
		{"log without --version", []string{"log"}, nil, 2, "--version or --recipe is required"},
		{"apply without --out", []string{"apply", "--version", "v0.7.0"}, nil, 2, "--out is required"},
		{"unknown -o format", []string{"versions", "-o", "yaml"}, nil, 2, `output format "yaml": use text, json, markdown`},
		{"too few arguments", []string{"inspect"}, nil, 2, "accepts 1 arg(s), received 0; see `epp-build inspect --help`"},
		{"too many arguments", []string{"verify", "a/b:c", "d/e:f"}, nil, 2, "accepts 1 arg(s), received 2"},
		{"sign without --key", []string{"sign", missing}, nil, 2, "--key FILE"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			env := append([]string{"DOCKER_CONFIG=" + t.TempDir(), "BUILDKIT_HOST="}, tc.env...)
			r := runEnv(t, t.TempDir(), env, append([]string{"--patches", patches}, tc.args...)...)
			assert.Equal(t, tc.code, r.code, r.stderr)
			assert.True(t, strings.HasSuffix(r.stderr, "\n"), "stderr ends its line: %q", r.stderr)
			// The notice naming where the recipes come from may come
			// first; the mistake itself is one line.
			lines := slices.DeleteFunc(strings.Split(strings.TrimSuffix(r.stderr, "\n"), "\n"), func(l string) bool {
				return strings.HasPrefix(l, "epp-build: recipes: ")
			})
			if assert.Len(t, lines, 1, "one line on stderr: %q", r.stderr) {
				assert.Contains(t, lines[0], tc.want)
			}
			assert.Empty(t, r.stdout, "nothing on stdout")
			assert.NoDirExists(t, out, "nothing written")
		})
	}
}

// TestABareTagIsATagOfTheImageRepository: --tag latest (and -t) names a
// tag of --image's repository, as ko's --tags do, templates included.
func TestABareTagIsATagOfTheImageRepository(t *testing.T) {
	r := runEnv(t, t.TempDir(), []string{"BUILDKIT_HOST="}, "--patches", repoPatches(t), "build", "--version", "v0.7.0",
		"--image", "registry.example/dynamo/epp:v0.7.0", "--push", "--tag", "latest", "-t", "{{.Version}}-{{.ShortCommit}}",
		"--tag", "registry.example/dynamo/epp:stable", "--dry-run=json")
	require.Equal(t, 0, r.code, r.stderr)
	var plan struct{ Tags []string }
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &plan))
	assert.Equal(t, []string{
		"registry.example/dynamo/epp:v0.7.0",
		"registry.example/dynamo/epp:latest",
		"registry.example/dynamo/epp:v0.7.0-978c23bb96cc",
		"registry.example/dynamo/epp:stable",
	}, plan.Tags)
}
