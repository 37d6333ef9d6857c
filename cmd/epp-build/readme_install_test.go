//go:build integration

package main

import (
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

	"github.com/epp-build/epp-build/internal/testutil"
	"github.com/epp-build/epp-build/internal/toolrelease"
)

// readmeInstall returns the README's Install section: its prose, and its
// indented blocks with the indent removed.
func readmeInstall(t *testing.T) (prose string, blocks []string) {
	t.Helper()
	readme, err := os.ReadFile(filepath.Join("..", "..", "README.md"))
	require.NoError(t, err)
	_, section, ok := strings.Cut(string(readme), "\n## Install\n")
	require.True(t, ok, "the README has an Install section")
	section, _, _ = strings.Cut(section, "\n## ")
	var text, block strings.Builder
	for _, line := range strings.Split(section, "\n") {
		if code, ok := strings.CutPrefix(line, "    "); ok {
			block.WriteString(code + "\n")
			continue
		}
		if block.Len() > 0 {
			blocks = append(blocks, block.String())
			block.Reset()
		}
		text.WriteString(line + "\n")
	}
	return text.String(), blocks
}

// TestREADMEInstallRunsAsWritten: the README's download commands, run as
// written from a folder holding only the release key's public half as
// cosign.pub, against a release served in place of GitHub's release
// downloads, check SHA256SUMS's signature and the binary's checksum and
// run the binary; with the binary changed after SHA256SUMS was written,
// or SHA256SUMS signed by another key, they fail before anything is
// installed. The files they name are the ones `make release` writes.
func TestREADMEInstallRunsAsWritten(t *testing.T) {
	prose, blocks := readmeInstall(t)
	require.Len(t, blocks, 4, "download, go install, GitHub Action, image")
	assert.Contains(t, prose, "`"+toolrelease.BinaryName("VERSION", "OS/ARCH")+"`", "the binaries' names")
	for _, name := range []string{toolrelease.ChecksumsFile, toolrelease.SignatureFile} {
		assert.Contains(t, prose, "`"+name+"`")
	}

	download := blocks[0]
	m := regexp.MustCompile(`^release=` + regexp.QuoteMeta(releaseHost) + `/(\S+)\n`).FindStringSubmatch(download)
	require.NotNil(t, m, "the commands download a release from %s:\n%s", releaseHost, download)
	version := m[1]
	require.True(t, semver.IsValid(version), version)
	bin := toolrelease.BinaryName(version, "linux/amd64")
	for _, name := range regexp.MustCompile(`epp-build-v[^\s"/]+`).FindAllString(download, -1) {
		assert.Equal(t, bin, name, "a binary's name")
	}

	key, pub := testutil.WritePEMKeyPair(t, t.TempDir())
	_, otherPub := testutil.WritePEMKeyPair(t, t.TempDir())
	for _, tc := range []struct {
		name, pub, want string
		change          bool
	}{
		{name: "release", pub: pub},
		{name: "binary changed", pub: pub, change: true, want: bin + ": FAILED"},
		{name: "another key", pub: otherPub, want: "Verification failure"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rel := fakeRelease(t, version, key)
			if tc.change {
				require.NoError(t, os.WriteFile(filepath.Join(rel.Dir, bin), []byte("#!/bin/sh\necho evil\n"), 0o755))
			}
			dir := t.TempDir()
			data, err := os.ReadFile(tc.pub)
			require.NoError(t, err)
			require.NoError(t, os.WriteFile(filepath.Join(dir, "cosign.pub"), data, 0o644))
			cmd := exec.Command("bash", "-euo", "pipefail", "-c", strings.Replace(download, releaseHost, rel.URL, 1))
			cmd.Dir = dir
			out, err := cmd.CombinedOutput()
			if tc.want == "" {
				require.NoError(t, err, "%s", out)
				assert.Contains(t, string(out), "epp-build "+version+", fake linux/amd64", "the installed binary ran")
				assert.FileExists(t, filepath.Join(dir, "epp-build"))
				return
			}
			require.Error(t, err, "%s", out)
			assert.Contains(t, string(out), tc.want)
			assert.NoFileExists(t, filepath.Join(dir, "epp-build"))
			assert.NotContains(t, string(out), "evil", "the changed binary never ran")
		})
	}

	// TestGoInstallSaysItsVersion (tools/release) installs from a tag.
	assert.Equal(t, "go install "+toolrelease.Module+"@latest\n", blocks[1])

	var steps []struct {
		Uses string            `yaml:"uses"`
		With map[string]string `yaml:"with"`
		Run  string            `yaml:"run"`
	}
	require.NoError(t, yaml.Unmarshal([]byte(blocks[2]), &steps), blocks[2])
	require.NotEmpty(t, steps)
	ref, ok := strings.CutPrefix(steps[0].Uses, "epp-build/epp-build/setup-epp-build@")
	require.True(t, ok, "the action's path in this repository: %s", steps[0].Uses)
	assert.Equal(t, ref, steps[0].With["version"], "the action installs the release it is taken from")
	action := readSetupAction(t)
	for input := range steps[0].With {
		assert.Contains(t, action.Inputs, input)
	}
	for input := range action.Inputs {
		assert.Contains(t, prose+blocks[2], input, "the README names every input")
	}
	assert.Contains(t, prose, "`"+"path"+"`", "the README names the output")
	require.Len(t, action.Outputs, 1)

	// The image is the one the release workflow pushes and signs, at the
	// release the other channels install, checked with the release key.
	var workflow struct {
		Jobs map[string]struct {
			Env map[string]string `yaml:"env"`
		} `yaml:"jobs"`
	}
	data, err := os.ReadFile(filepath.Join("..", "..", ".github", "workflows", "release.yml"))
	require.NoError(t, err)
	require.NoError(t, yaml.Unmarshal(data, &workflow))
	toolImage := strings.ReplaceAll(workflow.Jobs["images"].Env["TOOL_IMAGE"], "${{ github.repository }}", "epp-build/epp-build")
	require.NotEmpty(t, toolImage)
	assert.Equal(t, "cosign verify --key cosign.pub "+toolImage+":"+ref+"\n"+
		"docker run --rm "+toolImage+":"+ref+" versions\n", blocks[3])
}
