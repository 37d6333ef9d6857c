package attest

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestCAPISPDXNamesTheCrateVersionAndCommit: the document the image
// carries names the C API crate, its version and commit, and the upstream
// module at its version, and is the same bytes for the same inputs.
func TestCAPISPDXNamesTheCrateVersionAndCommit(t *testing.T) {
	in := completeInputs()
	in.SourceDateEpoch = 1780469504
	doc, err := CAPISPDX(in)
	require.NoError(t, err)
	again, err := CAPISPDX(in)
	require.NoError(t, err)
	assert.Equal(t, doc, again)

	var d struct {
		SPDXVersion  string `json:"spdxVersion"`
		CreationInfo struct {
			Created string `json:"created"`
		} `json:"creationInfo"`
		Packages []struct {
			Name             string `json:"name"`
			VersionInfo      string `json:"versionInfo"`
			DownloadLocation string `json:"downloadLocation"`
			ExternalRefs     []struct {
				ReferenceLocator string `json:"referenceLocator"`
			} `json:"externalRefs"`
		} `json:"packages"`
	}
	require.NoError(t, json.Unmarshal(doc, &d))
	assert.Equal(t, "SPDX-2.3", d.SPDXVersion)
	assert.Equal(t, "2026-06-03T06:51:44Z", d.CreationInfo.Created, "SOURCE_DATE_EPOCH")
	require.Len(t, d.Packages, 2)
	assert.Equal(t, "sigs.k8s.io/gateway-api-inference-extension", d.Packages[1].Name)
	assert.Equal(t, "v0.5.1", d.Packages[1].VersionInfo)
	p := d.Packages[0]
	assert.Equal(t, "libdynamo_llm", p.Name)
	assert.Equal(t, "0.7.0", p.VersionInfo)
	assert.Equal(t, "git+https://github.com/ai-dynamo/dynamo.git@"+in.CAPI.Commit, p.DownloadLocation)
	require.Len(t, p.ExternalRefs, 1)
	assert.Contains(t, p.ExternalRefs[0].ReferenceLocator, "pkg:cargo/libdynamo_llm@0.7.0?vcs_url=")
}
