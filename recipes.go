// Package eppbuild carries this repository's recipes and patch series into
// the epp-build binary, so that a binary alone builds every version it
// knows (see internal/bundled, which writes them out for the stages that
// read folders). It lives at the repository root because go:embed reads
// only below the package's own folder.
package eppbuild

import "embed"

// Patches is the patches/ tree: one folder per version with recipe.yaml,
// its patch series and any capi/ patches.
//
//go:embed patches
var Patches embed.FS
