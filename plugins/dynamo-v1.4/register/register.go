// Package register is the one call the EPP's main makes to add every
// Dynamo plugin to GAIE's plugin registry, so a test can register exactly
// what the EPP registers, with a router of its own.
package register

import (
	"github.com/epp-build/epp-build/plugins/dynamo-v1.4/disagg"
	"github.com/epp-build/epp-build/plugins/dynamo-v1.4/labelfilter"
)

// All registers the plugin types of Dynamo's EPP: disagg-profile-handler,
// dyn-prefill-scorer and dyn-decode-scorer over the router open returns
// (routerffi.Open in the EPP), and label-filter (with its alias
// dynamo-label-filter). GAIE's runner adds its in-tree plugins itself.
// The EPP's main calls closeRouter when the runner has returned, so the
// router is destroyed before the process exits.
func All(open disagg.OpenRouter) (closeRouter func()) {
	closeRouter = disagg.Register(open)
	labelfilter.Register()
	return closeRouter
}
