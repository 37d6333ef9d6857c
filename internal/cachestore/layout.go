// Package cachestore lists what the epp-build cache holds and prunes what
// nothing needs any more: finished rebase and pick work trees, and the
// fetched upstream trees no recipe of the set pins. It knows the cache's
// layout; the stages that fill the cache own what is in each entry.
package cachestore

import (
	"github.com/epp-build/epp-build/internal/source"
)

// Kind is one top-level folder of the cache.
type Kind string

// The cache's kinds, in the order they are listed.
const (
	Upstream Kind = source.UpstreamDir // fetched upstream trees, by pin
	Rebase   Kind = "rebase"           // rebase work trees, one per patches folder
	Pick     Kind = "pick"             // pick work trees, one per patches folder
	Trees    Kind = "trees"            // build's applied trees, by version
	Work     Kind = "work"             // build's work folders, by tree
	CAPI     Kind = "capi"             // C API libraries built with cargo
	Binaries Kind = "bin"              // compiled EPP binaries, by inputs
	Bundled  Kind = "bundled"          // copies of the recipes built into a binary
	History  Kind = "history"          // upstream histories, kept in the upstream folder
	Refs     Kind = "refs"             // where each fetched tag pointed
	SumDB    Kind = "sumdb"            // the Go checksum database's latest tree
	Other    Kind = "other"            // anything else found at the top
)

var kinds = []struct {
	kind Kind
	what string
}{
	{Upstream, "fetched upstream trees (GAIE and C API pins)"},
	{Rebase, "rebase work trees"},
	{Pick, "pick work trees"},
	{Trees, "trees applied by build"},
	{Work, "build work folders"},
	{CAPI, "C API builds"},
	{Binaries, "compiled binaries"},
	{Bundled, "copies of built-in recipes"},
	{History, "upstream histories (commits and trees) for log, diff-series, rebase"},
	{Refs, "tag records"},
	{SumDB, "checksum database state"},
	{Other, "not made by this epp-build"},
}

// isKnown says whether name is a kind's folder rather than Other.
func isKnown(name string) bool {
	for _, k := range kinds {
		if k.kind != Other && string(k.kind) == name {
			return true
		}
	}
	return false
}
