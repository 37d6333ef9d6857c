//go:build integration

package main

import (
	"bytes"
	"debug/buildinfo"
	"debug/elf"
	"debug/macho"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/epp-build/epp-build/internal/testutil"
	"github.com/epp-build/epp-build/internal/toolrelease"
)

// makeRelease runs `make release` in the checkout, as a maintainer does.
func makeRelease(t *testing.T, dist, key string) {
	t.Helper()
	cmd := exec.Command("make", "--no-print-directory", "-C", "../..", "release",
		"VERSION="+testVersion, "DIST="+dist, "RELEASE_KEY="+key)
	cmd.Env = append(os.Environ(), "COSIGN_PASSWORD=release-test", "SOURCE_DATE_EPOCH=1764547200")
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "make release:\n%s", out)
}

// TestMakeRelease: four static binaries of the right system and
// architecture, the linux/amd64 one stamped; checksums and signature
// verify; a second run gives the same bytes.
func TestMakeRelease(t *testing.T) {
	tmp := t.TempDir()
	key, pub := testutil.WriteCosignKeyPair(t, tmp, "release-test")
	first, second := filepath.Join(tmp, "dist"), filepath.Join(tmp, "again")
	makeRelease(t, first, key)

	releaseGo := makefileSetting(t, "VULNCHECK_GO")
	for _, p := range toolrelease.Platforms {
		name := toolrelease.BinaryName(testVersion, p)
		path := filepath.Join(first, name)
		info, err := buildinfo.ReadFile(path)
		require.NoError(t, err)
		assert.Equal(t, releaseGo, info.GoVersion, "%s is built with the Go make lint scans epp-build with", name)
		goos, goarch, _ := strings.Cut(p, "/")
		switch goos {
		case "linux":
			assertStaticELF(t, path, goarch)
		case "darwin":
			assertMachO(t, path, goarch)
		}
		var sbom struct {
			SPDXVersion string `json:"spdxVersion"`
			Packages    []struct {
				Name string `json:"name"`
			} `json:"packages"`
		}
		raw, err := os.ReadFile(path + ".spdx.json")
		require.NoError(t, err)
		require.NoError(t, json.Unmarshal(raw, &sbom))
		assert.Equal(t, "SPDX-2.3", sbom.SPDXVersion)
		var names []string
		for _, pkg := range sbom.Packages {
			names = append(names, pkg.Name)
		}
		assert.Contains(t, names, "github.com/spf13/cobra", "%s: the SBOM names the modules linked", name)
		assert.Contains(t, names, "stdlib")
	}

	if runtime.GOOS == "linux" && runtime.GOARCH == "amd64" {
		out, err := exec.Command(filepath.Join(first, toolrelease.BinaryName(testVersion, "linux/amd64")), "version").Output()
		require.NoError(t, err)
		assert.Regexp(t, `^epp-build `+testVersion+`, go\S+ linux/amd64, revision [0-9a-f]{40} \(2025-12-01T00:00:00Z\)\n$`, string(out))
	}

	require.NoError(t, toolrelease.Verify(first, pub), "checksums and signature verify")
	_, otherPub := testutil.WriteCosignKeyPair(t, t.TempDir(), "x")
	assert.Error(t, toolrelease.Verify(first, otherPub), "another key's public half refuses the signature")
	bin := filepath.Join(first, toolrelease.BinaryName(testVersion, "darwin/arm64"))
	raw, err := os.ReadFile(bin)
	require.NoError(t, err)
	raw[len(raw)/2] ^= 0xff
	require.NoError(t, os.WriteFile(bin, raw, 0o755))
	assert.ErrorContains(t, toolrelease.Verify(first, pub), toolrelease.BinaryName(testVersion, "darwin/arm64"), "a changed byte is named")
	raw[len(raw)/2] ^= 0xff
	require.NoError(t, os.WriteFile(bin, raw, 0o755))

	makeRelease(t, second, key)
	entries, err := os.ReadDir(first)
	require.NoError(t, err)
	require.Len(t, entries, 2*len(toolrelease.Platforms)+2, "binaries, SBOMs, SHA256SUMS and its signature")
	for _, e := range entries {
		if e.Name() == toolrelease.SignatureFile {
			continue // ECDSA signatures are randomised; both verify
		}
		a, err := os.ReadFile(filepath.Join(first, e.Name()))
		require.NoError(t, err)
		b, err := os.ReadFile(filepath.Join(second, e.Name()))
		require.NoError(t, err)
		assert.True(t, bytes.Equal(a, b), "%s: the same source gives the same bytes", e.Name())
	}
	require.NoError(t, toolrelease.Verify(second, pub))
}

// makefileSetting is the default the Makefile gives name (NAME ?= value).
func makefileSetting(t *testing.T, name string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "..", "Makefile"))
	require.NoError(t, err)
	m := regexp.MustCompile(`(?m)^` + name + ` \?= (\S+)$`).FindSubmatch(data)
	require.NotNil(t, m, "the Makefile sets no %s", name)
	return string(m[1])
}

func assertStaticELF(t *testing.T, path, goarch string) {
	t.Helper()
	f, err := elf.Open(path)
	require.NoError(t, err, path)
	defer f.Close()
	want := map[string]elf.Machine{"amd64": elf.EM_X86_64, "arm64": elf.EM_AARCH64}[goarch]
	assert.Equal(t, want, f.Machine, path)
	for _, p := range f.Progs {
		assert.NotEqual(t, elf.PT_INTERP, p.Type, "%s is static: no program interpreter", path)
	}
	libs, err := f.ImportedLibraries()
	require.NoError(t, err)
	assert.Empty(t, libs, "%s is static: no shared library", path)
}

// assertMachO: macOS has no static binaries; a cgo-free Go binary links
// only the system's own libraries and frameworks.
func assertMachO(t *testing.T, path, goarch string) {
	t.Helper()
	f, err := macho.Open(path)
	require.NoError(t, err, path)
	defer f.Close()
	want := map[string]macho.Cpu{"amd64": macho.CpuAmd64, "arm64": macho.CpuArm64}[goarch]
	assert.Equal(t, want, f.Cpu, path)
	libs, err := f.ImportedLibraries()
	require.NoError(t, err)
	for _, l := range libs {
		assert.True(t, strings.HasPrefix(l, "/usr/lib/") || strings.HasPrefix(l, "/System/Library/Frameworks/"), "%s links %s", path, l)
	}
}
