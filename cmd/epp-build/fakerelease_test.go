package main

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/epp-build/epp-build/internal/attest"
	"github.com/epp-build/epp-build/internal/testutil"
	"github.com/epp-build/epp-build/internal/toolrelease"
)

// releaseHost is the download base of the real releases: the install
// commands and the setup action name it, and the tests put a local
// server in its place.
const releaseHost = "https://github.com/epp-build/epp-build/releases/download"

// fakeRelease serves version as `make release` lays it out: a binary and
// an SBOM per toolrelease.Platforms, SHA256SUMS and, with signKey (a
// private key file), SHA256SUMS.sig signed as the release signs it. Each
// binary is a script that prints its version and platform, so a test
// sees which one was installed.
func fakeRelease(t *testing.T, version, signKey string) *testutil.Release {
	t.Helper()
	files := map[string][]byte{}
	for _, p := range toolrelease.Platforms {
		name := toolrelease.BinaryName(version, p)
		files[name] = fakeBinary(version, p)
		files[name+".spdx.json"] = []byte(`{"spdxVersion":"SPDX-2.3"}`)
	}
	var sign func([]byte) ([]byte, error)
	if signKey != "" {
		s, err := attest.LoadSigner(signKey)
		require.NoError(t, err)
		sign = s.SignBlob
	}
	return testutil.ServeRelease(t, version, files, toolrelease.ChecksumsFile, toolrelease.SignatureFile, sign)
}

func fakeBinary(version, platform string) []byte {
	return fmt.Appendf(nil, "#!/bin/sh\necho 'epp-build %s, fake %s'\n", version, platform)
}
