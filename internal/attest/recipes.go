package attest

import "github.com/epp-build/epp-build/internal/report"

// recipesDependency names the recipe set the build read, by the digest of
// its whole content: the patches alone do not say whether they came from
// the binary's own recipes or from a folder someone could have edited.
func recipesDependency(r *report.Recipes) ResourceDescriptor {
	ann := map[string]string{"kind": r.Kind}
	if r.EppBuild != "" {
		ann["eppBuild"] = r.EppBuild
	}
	if r.Dir != "" {
		ann["dir"] = r.Dir
	}
	return ResourceDescriptor{Name: "recipes", Digest: map[string]string{"sha256": r.SHA256}, Annotations: ann}
}
