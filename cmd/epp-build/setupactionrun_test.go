//go:build integration

package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/epp-build/epp-build/internal/testenv"
	"github.com/epp-build/epp-build/internal/testutil"
	"github.com/epp-build/epp-build/internal/toolrelease"
)

// Runs of the setup action's script, which downloads with curl and checks
// with openssl (integration tier); ciexamples_test.go reads the action too.

// actionRun is what one run of the action left behind.
type actionRun struct {
	result
	// githubPath and outputs are what the step wrote to GITHUB_PATH and
	// GITHUB_OUTPUT; runnerTemp is its RUNNER_TEMP.
	githubPath []string
	outputs    map[string]string
	runnerTemp string
}

var inputExpression = regexp.MustCompile(`^\$\{\{\s*inputs\.([a-z-]+)\s*\}\}$`)

// runSetupAction runs the action's step as a runner of runnerOS and
// runnerArch does: the step's env from inputs (or the inputs' defaults),
// its run line in bash with GITHUB_ACTION_PATH at the action's folder,
// from a workspace folder of its own, with env added.
func runSetupAction(t *testing.T, a setupAction, inputs map[string]string, runnerOS, runnerArch string, env ...string) actionRun {
	t.Helper()
	for name := range inputs {
		require.Contains(t, a.Inputs, name, "the action has input %q", name)
	}
	step := a.Runs.Steps[0]
	require.Equal(t, "bash", step.Shell)
	actionPath, err := filepath.Abs(setupActionDir)
	require.NoError(t, err)
	tmp := t.TempDir()
	run := actionRun{runnerTemp: filepath.Join(tmp, "runner-temp"), outputs: map[string]string{}}
	pathFile, outputFile := filepath.Join(tmp, "github-path"), filepath.Join(tmp, "github-output")
	workspace := filepath.Join(tmp, "workspace")
	for _, dir := range []string{run.runnerTemp, workspace} {
		require.NoError(t, os.Mkdir(dir, 0o755))
	}
	for _, f := range []string{pathFile, outputFile} {
		require.NoError(t, os.WriteFile(f, nil, 0o644))
	}
	env = append(append(os.Environ(), env...), "GITHUB_ACTION_PATH="+actionPath, "RUNNER_OS="+runnerOS, "RUNNER_ARCH="+runnerArch,
		"RUNNER_TEMP="+run.runnerTemp, "GITHUB_PATH="+pathFile, "GITHUB_OUTPUT="+outputFile, "GITHUB_WORKSPACE="+workspace)
	for k, v := range step.Env {
		m := inputExpression.FindStringSubmatch(v)
		require.NotNil(t, m, "the step's env %s=%s: only inputs reach the script", k, v)
		value, ok := inputs[m[1]]
		if !ok {
			value = a.Inputs[m[1]].Default
		}
		env = append(env, k+"="+value)
	}
	// GitHub's shell: bash for a composite step.
	cmd := exec.Command("bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", step.Run)
	cmd.Dir, cmd.Env = workspace, env
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err = cmd.Run()
	run.result = result{stdout: stdout.String(), stderr: stderr.String()}
	if ee, ok := err.(*exec.ExitError); ok {
		run.code = ee.ExitCode()
	} else {
		require.NoError(t, err)
	}
	data, err := os.ReadFile(pathFile)
	require.NoError(t, err)
	run.githubPath = strings.Fields(string(data))
	data, err = os.ReadFile(outputFile)
	require.NoError(t, err)
	for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		if k, v, ok := strings.Cut(line, "="); ok {
			run.outputs[k] = v
		}
	}
	return run
}

// The runner names of each part of toolrelease.Platforms, as RUNNER_OS
// and RUNNER_ARCH give them.
var runnerNames = map[string]string{"linux": "Linux", "darwin": "macOS", "amd64": "X64", "arm64": "ARM64"}

// TestSetupActionInstallsEveryPlatformsBinary: on a runner of each
// platform a release has, the action installs that platform's binary,
// checked against SHA256SUMS and the signature (key given as a path and
// as PEM text), puts it on PATH and names it in its output.
func TestSetupActionInstallsEveryPlatformsBinary(t *testing.T) {
	a := readSetupAction(t)
	assert.True(t, a.Inputs["version"].Required)
	assert.Equal(t, releaseHost, a.Inputs["download-url"].Default, "the action downloads the real releases")
	assert.Equal(t, "${{ steps."+a.Runs.Steps[0].ID+".outputs.path }}", a.Outputs["path"].Value)

	key, pub := testutil.WritePEMKeyPair(t, t.TempDir())
	pemText, err := os.ReadFile(pub)
	require.NoError(t, err)
	const version = "v1.2.3"
	for _, p := range toolrelease.Platforms {
		goos, goarch, _ := strings.Cut(p, "/")
		require.Contains(t, runnerNames, goos, "a release platform the action does not map: %s", p)
		require.Contains(t, runnerNames, goarch, "a release platform the action does not map: %s", p)
		for how, pubKey := range map[string]string{"key file": pub, "key text": string(pemText)} {
			t.Run(p+" "+how, func(t *testing.T) {
				rel := fakeRelease(t, version, key)
				var env []string
				if goos == "darwin" {
					env = append(env, "PATH="+macOSPath(t))
				}
				run := runSetupAction(t, a, map[string]string{"version": version, "public-key": pubKey, "download-url": rel.URL},
					runnerNames[goos], runnerNames[goarch], env...)
				require.Equal(t, 0, run.code, run.stderr)
				installed := run.outputs["path"]
				require.NotEmpty(t, installed, "the path output")
				assert.Equal(t, []string{filepath.Dir(installed)}, run.githubPath, "the binary's folder is put on PATH")
				assert.Equal(t, "epp-build", filepath.Base(installed))
				assert.True(t, strings.HasPrefix(installed, run.runnerTemp+string(filepath.Separator)), "installed under RUNNER_TEMP: %s", installed)
				got, err := os.ReadFile(installed)
				require.NoError(t, err)
				assert.Equal(t, string(fakeBinary(version, p)), string(got), "the runner's platform's binary")
				assert.Contains(t, run.stderr, "epp-build "+version+", fake "+p, "the installed binary was run")
				assert.Empty(t, run.stdout)
				var want []string
				for _, name := range []string{toolrelease.BinaryName(version, p), toolrelease.ChecksumsFile, toolrelease.SignatureFile} {
					want = append(want, "/"+version+"/"+name)
				}
				assert.Equal(t, want, rel.Requested(), "only the runner's binary, SHA256SUMS and its signature are downloaded")
			})
		}
	}
}

// macOSPath is a PATH with the tools the action uses as a macOS runner
// has them: shasum, not sha256sum, and no cosign.
func macOSPath(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	for _, tool := range []string{"bash", "curl", "openssl", "awk", "wc", "mktemp", "rm", "cp", "mkdir", "install", "shasum"} {
		path, err := exec.LookPath(tool)
		if err != nil {
			testenv.Require(t, tool, "the action's macOS path checks with it")
		}
		require.NoError(t, os.Symlink(path, filepath.Join(dir, tool)))
	}
	return dir
}

// TestSetupActionRefuses: a binary that does not match SHA256SUMS, a
// SHA256SUMS whose signature does not verify or that lacks the binary, a
// runner no release has a binary for and a version that is not one
// install nothing, put nothing on PATH and say why.
func TestSetupActionRefuses(t *testing.T) {
	a := readSetupAction(t)
	const version = "v1.2.3"
	key, pub := testutil.WritePEMKeyPair(t, t.TempDir())
	_, otherPub := testutil.WritePEMKeyPair(t, t.TempDir())
	linuxBin := toolrelease.BinaryName(version, "linux/amd64")
	// rewriteSums replaces the SHA256SUMS line of linuxBin, as someone who
	// changed the binary and its checksum but holds no release key would.
	rewriteSums := func(t *testing.T, dir string, line string) {
		sums := filepath.Join(dir, toolrelease.ChecksumsFile)
		data, err := os.ReadFile(sums)
		require.NoError(t, err)
		out := regexp.MustCompile(`(?m)^[0-9a-f]{64}  `+regexp.QuoteMeta(linuxBin)+"\n").ReplaceAllLiteralString(string(data), line)
		require.NotEqual(t, string(data), out)
		require.NoError(t, os.WriteFile(sums, []byte(out), 0o644))
	}
	evil := []byte("#!/bin/sh\necho evil\n")
	for _, tc := range []struct {
		name             string
		inputs           map[string]string
		runnerOS, arch   string
		tamper           func(t *testing.T, dir string)
		want             string
		downloadsNothing bool
	}{
		{name: "binary changed, no key", inputs: map[string]string{},
			tamper: func(t *testing.T, dir string) {
				require.NoError(t, os.WriteFile(filepath.Join(dir, linuxBin), evil, 0o755))
			},
			want: linuxBin + " does not match its checksum in SHA256SUMS"},
		{name: "binary changed, key given", inputs: map[string]string{"public-key": pub},
			tamper: func(t *testing.T, dir string) {
				require.NoError(t, os.WriteFile(filepath.Join(dir, linuxBin), evil, 0o755))
			},
			want: linuxBin + " does not match its checksum in SHA256SUMS"},
		{name: "binary and checksum changed", inputs: map[string]string{"public-key": pub},
			tamper: func(t *testing.T, dir string) {
				require.NoError(t, os.WriteFile(filepath.Join(dir, linuxBin), evil, 0o755))
				rewriteSums(t, dir, "6a3f0f8d56c1b0b6c4e1c8b0a7e1c2a1f0b1c2d3e4f5a6b7c8d9e0f1a2b3c4d5  "+linuxBin+"\n")
			},
			want: "SHA256SUMS of " + version + " does not verify with the public key"},
		{name: "another key", inputs: map[string]string{"public-key": otherPub},
			want: "SHA256SUMS of " + version + " does not verify with the public key"},
		{name: "binary not listed", inputs: map[string]string{},
			tamper: func(t *testing.T, dir string) { rewriteSums(t, dir, "") },
			want:   "SHA256SUMS of " + version + " has no line for " + linuxBin},
		{name: "public key neither text nor file", inputs: map[string]string{"public-key": "release/cosign.pub"},
			want: "public-key: 'release/cosign.pub' is neither PEM text nor a file"},
		{name: "windows runner", inputs: map[string]string{}, runnerOS: "Windows",
			want: "no epp-build release binary for runner OS 'Windows'", downloadsNothing: true},
		{name: "32-bit runner", inputs: map[string]string{}, arch: "X86",
			want: "no epp-build release binary for runner architecture 'X86'", downloadsNothing: true},
		{name: "not a version", inputs: map[string]string{"version": "latest"},
			want: "version 'latest': want a release version such as v0.1.0", downloadsNothing: true},
		{name: "a path as the version", inputs: map[string]string{"version": "v1.2.3/../../other"},
			want: "version 'v1.2.3/../../other'", downloadsNothing: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rel := fakeRelease(t, version, key)
			if tc.tamper != nil {
				tc.tamper(t, rel.Dir)
			}
			inputs := map[string]string{"version": version, "download-url": rel.URL}
			for k, v := range tc.inputs {
				inputs[k] = v
			}
			runnerOS, arch := "Linux", "X64"
			if tc.runnerOS != "" {
				runnerOS = tc.runnerOS
			}
			if tc.arch != "" {
				arch = tc.arch
			}
			run := runSetupAction(t, a, inputs, runnerOS, arch)
			assert.NotEqual(t, 0, run.code)
			assert.Contains(t, run.stderr, "::error title=setup-epp-build::"+tc.want)
			assert.Empty(t, run.githubPath, "nothing on PATH")
			assert.Empty(t, run.outputs)
			assert.NoDirExists(t, filepath.Join(run.runnerTemp, "epp-build"), "nothing installed")
			entries, err := os.ReadDir(run.runnerTemp)
			require.NoError(t, err)
			assert.Empty(t, entries, "the downloads are removed")
			if tc.downloadsNothing {
				assert.Empty(t, rel.Requested(), "refused before any download")
			}
			assert.NotContains(t, run.stderr, "evil", "the changed binary never ran")
		})
	}
}

// TestSetupActionVerifiesWithCosignWhenOnPath: with cosign on PATH the
// action checks the signature with `cosign verify-blob --key PUB
// --signature SIG --insecure-ignore-tlog SUMS`, as the release's
// signature is made for, and stops where cosign refuses it. The cosign
// here records its arguments and checks the signature with openssl, as
// cosign checks an ECDSA signature over SHA-256.
func TestSetupActionVerifiesWithCosignWhenOnPath(t *testing.T) {
	a := readSetupAction(t)
	const version = "v1.2.3"
	key, pub := testutil.WritePEMKeyPair(t, t.TempDir())
	_, otherPub := testutil.WritePEMKeyPair(t, t.TempDir())
	bin := t.TempDir()
	argsFile := filepath.Join(t.TempDir(), "cosign-args")
	cosign := `#!/bin/bash
set -eu
printf '%s\n' "$@" >` + argsFile + `
[[ $# -eq 7 && $1 == verify-blob && $2 == --key && $4 == --signature && $6 == --insecure-ignore-tlog ]] || { echo "cosign: unexpected arguments" >&2; exit 2; }
openssl base64 -d -A -in "$5" -out "$5.der"
openssl dgst -sha256 -verify "$3" -signature "$5.der" "$7" >/dev/null || { echo "Error: invalid signature when validating ASN.1 encoded signature" >&2; exit 1; }
echo Verified OK >&2
`
	require.NoError(t, os.WriteFile(filepath.Join(bin, "cosign"), []byte(cosign), 0o755))
	path := "PATH=" + bin + string(os.PathListSeparator) + os.Getenv("PATH")

	rel := fakeRelease(t, version, key)
	run := runSetupAction(t, a, map[string]string{"version": version, "public-key": pub, "download-url": rel.URL}, "Linux", "X64", path)
	require.Equal(t, 0, run.code, run.stderr)
	args, err := os.ReadFile(argsFile)
	require.NoError(t, err)
	f := strings.Split(strings.TrimSpace(string(args)), "\n")
	require.Len(t, f, 7)
	assert.Equal(t, toolrelease.SignatureFile, filepath.Base(f[4]))
	assert.Equal(t, toolrelease.ChecksumsFile, filepath.Base(f[6]))
	assert.Contains(t, run.stderr, "Verified OK")
	assert.NotEmpty(t, run.outputs["path"])

	rel = fakeRelease(t, version, key)
	run = runSetupAction(t, a, map[string]string{"version": version, "public-key": otherPub, "download-url": rel.URL}, "Linux", "X64", path)
	assert.NotEqual(t, 0, run.code)
	assert.Contains(t, run.stderr, "::error title=setup-epp-build::SHA256SUMS of "+version+" does not verify with the public key")
	assert.Empty(t, run.githubPath)
	assert.NoDirExists(t, filepath.Join(run.runnerTemp, "epp-build"))
}
