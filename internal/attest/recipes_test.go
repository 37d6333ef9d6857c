package attest

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/epp-build/epp-build/internal/report"
)

// Issue 36: the provenance names the recipe set, built-in or a folder.
func TestProvenanceNamesTheRecipeSet(t *testing.T) {
	in := testInputs()
	sum := strings.Repeat("9", 64)
	in.Recipes = &report.Recipes{Kind: "built-in", EppBuild: "v1.2.3", SHA256: sum}
	deps := map[string]ResourceDescriptor{}
	for _, d := range inputDependencies(in) {
		deps[d.Name] = d
	}
	got, ok := deps["recipes"]
	if assert.True(t, ok, "a recipes dependency") {
		assert.Equal(t, sum, got.Digest["sha256"])
		assert.Equal(t, map[string]string{"kind": "built-in", "eppBuild": "v1.2.3"}, got.Annotations)
	}

	in.Recipes = &report.Recipes{Kind: "--patches", Dir: "my/patches", SHA256: sum}
	for _, d := range inputDependencies(in) {
		if d.Name == "recipes" {
			assert.Equal(t, "my/patches", d.Annotations["dir"])
		}
	}
}
