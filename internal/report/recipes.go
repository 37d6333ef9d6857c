package report

// Recipes is the recipe set a build read its recipe from, so a report
// (and the provenance made from it) tells a build from the binary's own
// recipes from one from a folder someone could have edited.
type Recipes struct {
	// Kind is built-in, --patches, EPP_BUILD_PATCHES, ./patches or
	// --recipe (a single recipe folder).
	Kind string `json:"kind"`
	// Dir is the folder as given; none for the built-in set, whose copy
	// lives in the tool's cache.
	Dir string `json:"dir,omitempty"`
	// EppBuild is the version of the binary that carries a built-in set.
	EppBuild string `json:"eppBuild,omitempty"`
	// SHA256 is over every file's path and content, in path order
	// (internal/bundled.Digest): equal for equal sets whatever their origin.
	SHA256 string `json:"sha256"`
}
