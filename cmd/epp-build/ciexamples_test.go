package main

import (
	"bytes"
	"encoding/json"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/mod/semver"
	"gopkg.in/yaml.v3"

	"github.com/epp-build/epp-build/internal/pipeline"
	"github.com/epp-build/epp-build/internal/testutil"
)

// runInEmptyFolder runs a shell script in a folder holding only a copy
// of the binary as ./epp-build, that folder first on PATH (as
// setup-epp-build puts it there), with env added.
func runInEmptyFolder(t *testing.T, script string, env map[string]string) result {
	t.Helper()
	dir := t.TempDir()
	data, err := os.ReadFile(binary)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "epp-build"), data, 0o755))
	cmd := exec.Command("bash", "-euo", "pipefail", "-c", script)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "XDG_CACHE_HOME="+t.TempDir(), "EPP_BUILD_PATCHES=", "BUILDKIT_HOST=",
		"PATH="+dir+string(os.PathListSeparator)+os.Getenv("PATH"))
	for k, v := range env {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err = cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else {
		require.NoError(t, err)
	}
	return result{out.String(), errb.String(), code}
}

// githubExpressions are the ${{ }} expressions the workflow may use, with
// the values a run would give them.
var githubExpressions = map[string]string{
	"github.repository_owner":   "example-org",
	"github.repository":         "example-org/epp",
	"github.server_url":         "https://github.com",
	"github.actor":              "bot",
	"secrets.GITHUB_TOKEN":      "token",
	"steps.buildx.outputs.name": "builder-1",
	"vars.EPP_BUILDER_IMAGE":    "ghcr.io/example-org/epp-builder:bookworm",
	// A repository without the variable builds in the released builder.
	"vars.EPP_BUILDER_IMAGE || 'ghcr.io/epp-build/builder:v0.1.0'": "ghcr.io/example-org/epp-builder:bookworm",
	"secrets.COSIGN_PASSWORD":                                      "cosign-password",
	// secrets.COSIGN_PRIVATE_KEY and vars.COSIGN_PUBLIC_KEY are a key pair
	// each test writes: see withCosignKeyPair.
}

// withCosignKeyPair is githubExpressions with a fresh cosign key pair as
// the repository's COSIGN_PRIVATE_KEY secret and COSIGN_PUBLIC_KEY
// variable, encrypted with secrets.COSIGN_PASSWORD.
func withCosignKeyPair(t *testing.T) map[string]string {
	exprs := maps.Clone(githubExpressions)
	key, pub := testutil.WriteCosignKeyPair(t, t.TempDir(), exprs["secrets.COSIGN_PASSWORD"])
	for name, file := range map[string]string{"secrets.COSIGN_PRIVATE_KEY": key, "vars.COSIGN_PUBLIC_KEY": pub} {
		data, err := os.ReadFile(file)
		require.NoError(t, err)
		exprs[name] = string(data)
	}
	return exprs
}

var githubExpression = regexp.MustCompile(`\$\{\{\s*([^}]*?)\s*\}\}`)

func githubValue(t *testing.T, exprs map[string]string, s string) string {
	return githubExpression.ReplaceAllStringFunc(s, func(m string) string {
		key := githubExpression.FindStringSubmatch(m)[1]
		v, ok := exprs[key]
		if !ok {
			t.Errorf("the workflow uses ${{ %s }}: add its value to githubExpressions", key)
		}
		return v
	})
}

// The GitHub Actions example installs epp-build with setup-epp-build
// (the action's tag is the release it installs, and the signature is
// checked), and its build step runs as written (with --dry-run added)
// from a folder holding only the binary: every flag exists and the plan
// is the one the comments describe. actionlint checks the rest in `make
// lint`.
func TestGitHubActionsExampleRuns(t *testing.T) {
	var wf struct {
		Jobs map[string]struct {
			Env   map[string]string `yaml:"env"`
			Steps []struct {
				Uses string            `yaml:"uses"`
				With map[string]string `yaml:"with"`
				Run  string            `yaml:"run"`
				Env  map[string]string `yaml:"env"`
			} `yaml:"steps"`
		} `yaml:"jobs"`
	}
	data, err := os.ReadFile(filepath.Join("..", "..", "docs", "ci", "github-actions.yml"))
	require.NoError(t, err)
	require.NoError(t, yaml.Unmarshal(data, &wf))
	job, ok := wf.Jobs["build"]
	require.True(t, ok)
	exprs := withCosignKeyPair(t)
	runnerTemp := t.TempDir()
	var uses []string
	var ran, installed bool
	action := readSetupAction(t)
	for _, step := range job.Steps {
		if step.Uses != "" {
			uses = append(uses, step.Uses)
		}
		assert.NotContains(t, step.Run, "curl", "epp-build is installed by the action, which checks it")
		if ref, ok := strings.CutPrefix(step.Uses, "epp-build/epp-build/setup-epp-build@"); ok {
			assert.True(t, semver.IsValid(ref), "the action is pinned to a release: %s", step.Uses)
			assert.Equal(t, ref, step.With["version"], "the action installs the release it is taken from")
			for input := range step.With {
				assert.Contains(t, action.Inputs, input)
			}
			assert.NotEmpty(t, step.With["public-key"], "the signature is checked")
			assert.False(t, ran, "installed before the build")
			installed = true
		}
		if !strings.Contains(step.Run, "epp-build build") {
			continue
		}
		env := map[string]string{
			// what crazy-max/ghaction-github-runtime exports
			"ACTIONS_RUNTIME_TOKEN": "runtime-token", "ACTIONS_RESULTS_URL": "https://results.example/",
			"RUNNER_TEMP": runnerTemp,
		}
		for k, v := range job.Env {
			env[k] = githubValue(t, exprs, v)
		}
		for k, v := range step.Env {
			env[k] = githubValue(t, exprs, v)
		}
		r := runInEmptyFolder(t, githubValue(t, exprs, strings.TrimSpace(step.Run))+" --dry-run=json", env)
		require.Equal(t, 0, r.code, r.stderr)
		var plans []pipeline.DryRun
		require.NoError(t, json.Unmarshal([]byte(r.stdout), &plans), r.stdout)
		require.Len(t, plans, 2)
		assert.Equal(t, []string{"ghcr.io/example-org/dynamo-epp:v0.7.0", "ghcr.io/example-org/dynamo-epp:v0.7.0-gaie-v0.5.1"}, plans[0].Tags)
		assert.Equal(t, "v1.4.2", plans[1].Version)
		assert.Equal(t, "container", plans[0].Compile)
		assert.Equal(t, "docker-container://buildx_buildkit_builder-10", plans[0].Nodes[0].Address)
		assert.Equal(t, []string{"gha https://results.example/"}, plans[0].CacheFrom)
		assert.Equal(t, "https://github.com/example-org/epp", plans[0].Labels[pipeline.OCISource])
		assert.Equal(t, "report-v1.4.2.json", plans[1].Report)
		// The secret key was written where --sign-key reads it, and loaded
		// with the secret password (a wrong one is a usage error).
		key := filepath.Join(runnerTemp, "cosign.key")
		assert.Equal(t, key, plans[0].SignKey)
		data, err := os.ReadFile(key)
		require.NoError(t, err)
		assert.Equal(t, strings.TrimSpace(exprs["secrets.COSIGN_PRIVATE_KEY"]), strings.TrimSpace(string(data)))
		ran = true
	}
	assert.True(t, installed, "the workflow installs epp-build with setup-epp-build")
	assert.True(t, ran, "the workflow has an epp-build build step")
	assert.Contains(t, string(data), `epp-build verify "$ref" --key "$RUNNER_TEMP/cosign.pub"`, "the workflow verifies the signature")
	assert.Contains(t, uses, "crazy-max/ghaction-github-runtime@v3", "type=gha needs the Actions cache variables in run steps")
}

// The GitLab example parses as a pipeline with the job, and its build
// line runs as written (with --dry-run added) from a folder holding only
// the binary, with GitLab's predefined variables.
func TestGitLabExampleRuns(t *testing.T) {
	var gitlabCI map[string]any
	data, err := os.ReadFile(filepath.Join("..", "..", "docs", "ci", "gitlab-ci.yml"))
	require.NoError(t, err)
	require.NoError(t, yaml.Unmarshal(data, &gitlabCI))
	var job struct {
		Stage string `yaml:"stage"`
		Image struct {
			Name string `yaml:"name"`
		} `yaml:"image"`
		Services  []map[string]any  `yaml:"services"`
		Variables map[string]string `yaml:"variables"`
		Script    []string          `yaml:"script"`
		Artifacts struct {
			Paths []string `yaml:"paths"`
		} `yaml:"artifacts"`
	}
	raw, err := yaml.Marshal(gitlabCI["epp-image"])
	require.NoError(t, err)
	require.NoError(t, yaml.Unmarshal(raw, &job))
	assert.Contains(t, gitlabCI["stages"], job.Stage)
	require.Len(t, job.Services, 1)
	assert.Equal(t, "buildkitd", job.Services[0]["alias"])

	// COSIGN_KEY and COSIGN_PUB are File variables: GitLab writes them
	// to files outside the job's folder and gives their paths.
	key, pub := testutil.WriteCosignKeyPair(t, t.TempDir(), "cosign-password")
	env := map[string]string{"CI_REGISTRY_IMAGE": "registry.gitlab.example/group/epp", "CI_PIPELINE_ID": "4711",
		"EPP_BUILDER_IMAGE": "registry.gitlab.example/group/builder:bookworm",
		"COSIGN_KEY":        key, "COSIGN_PUB": pub, "COSIGN_PASSWORD": "cosign-password"}
	for k, v := range job.Variables {
		env[k] = os.Expand(v, func(k string) string { return env[k] })
	}
	var ran bool
	for _, line := range job.Script {
		if !strings.HasPrefix(line, "epp-build build") {
			continue
		}
		r := runInEmptyFolder(t, line+" --dry-run=json", env)
		require.Equal(t, 0, r.code, r.stderr)
		var plan pipeline.DryRun
		require.NoError(t, json.Unmarshal([]byte(r.stdout), &plan), r.stdout)
		assert.Equal(t, []string{"registry.gitlab.example/group/epp/dynamo-epp:v0.7.0", "registry.gitlab.example/group/epp/dynamo-epp:v0.7.0-4711"}, plan.Tags)
		assert.Equal(t, "tcp://buildkitd:1234", plan.Nodes[0].Address)
		assert.Equal(t, []string{"registry registry.gitlab.example/group/epp/dynamo-epp:buildcache"}, plan.CacheTo)
		assert.Equal(t, key, plan.SignKey)
		ran = true
	}
	assert.True(t, ran, "the job runs epp-build build")
	assert.Contains(t, job.Script, `while read -r ref; do epp-build verify "$ref" --key "$COSIGN_PUB"; done < image-refs.txt`, "the job verifies the signature")
	for _, f := range []string{"metadata.json", "image-refs.txt", "report.json"} {
		assert.Contains(t, job.Artifacts.Paths, f)
	}
}

// The GitLab job runs in the image of epp-build that the release workflow
// pushes, at a release version, with GitLab's entrypoint override, and
// compiles in the builder image the same release pushes: the example
// names what the release makes, not an image of its own.
func TestGitLabExampleRunsInTheReleasedImages(t *testing.T) {
	var gitlabCI struct {
		Job struct {
			Image struct {
				Name       string   `yaml:"name"`
				Entrypoint []string `yaml:"entrypoint"`
			} `yaml:"image"`
			Variables map[string]string `yaml:"variables"`
		} `yaml:"epp-image"`
	}
	data, err := os.ReadFile(filepath.Join("..", "..", "docs", "ci", "gitlab-ci.yml"))
	require.NoError(t, err)
	require.NoError(t, yaml.Unmarshal(data, &gitlabCI))
	var workflow struct {
		Jobs map[string]struct {
			Env map[string]string `yaml:"env"`
		} `yaml:"jobs"`
	}
	data, err = os.ReadFile(filepath.Join("..", "..", ".github", "workflows", "release.yml"))
	require.NoError(t, err)
	require.NoError(t, yaml.Unmarshal(data, &workflow))
	// The project's own repository, as the release workflow runs in it.
	released := func(v string) string {
		v = strings.ReplaceAll(v, "${{ github.repository }}", "epp-build/epp-build")
		return strings.ReplaceAll(v, "${{ github.repository_owner }}", "epp-build")
	}
	env := workflow.Jobs["images"].Env
	require.NotEmpty(t, env["TOOL_IMAGE"], "the release workflow pushes the tool image")

	job := gitlabCI.Job
	repo, version, ok := strings.Cut(job.Image.Name, ":")
	require.True(t, ok, "the job's image has a tag: %q", job.Image.Name)
	assert.Equal(t, released(env["TOOL_IMAGE"]), repo)
	assert.True(t, semver.IsValid(version), "a release version: %q", version)
	assert.Equal(t, []string{""}, job.Image.Entrypoint, "GitLab runs the script with its shell, not epp-build")
	assert.Equal(t, released(env["BUILDER_IMAGE"])+":"+version, job.Variables["EPP_BUILDER_IMAGE"],
		"the builder of the same release")
}
