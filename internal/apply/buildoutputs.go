package apply

// buildOutputs are what `go build ./cmd/epp` and `go build ./cmd/bbr` leave
// at the root of an applied tree (each binary named after its package).
// Listed in .git/info/exclude like the staged C API library: `git status`
// stays clean, and neither `git add -A` nor export takes a binary into the
// series.
var buildOutputs = []string{"epp", "bbr"}

const buildOutputsHeader = "# left by a local go build in the tree (epp-build apply): not part of the series"

// ExcludeBuildOutputs lists a local build's outputs in the applied tree's
// .git/info/exclude. A re-apply that replaces the tree writes a new .git,
// so every apply does it, also one that finds the tree already applied.
func ExcludeBuildOutputs(tree string) error {
	return excludeUnder(tree, buildOutputsHeader, buildOutputs)
}
