// Package register is the one call the EPP's main makes to add the plugins
// of Dynamo's v1.0 EPP to GAIE's plugin registry, so a test can register
// exactly what the EPP registers, with a router of its own.
package register

import (
	"github.com/epp-build/epp-build/plugins/gaie-v1.2/disagg"
	"github.com/epp-build/epp-build/plugins/gaie-v1.2/dynrouter"
	"github.com/epp-build/epp-build/plugins/gaie-v1.2/labelfilter"
)

// V10 registers the plugin types Dynamo v1.0's EPP registers: label-filter,
// disagg-profile-handler, dyn-prefill-scorer and dyn-decode-scorer, the
// scorers over the router open returns (routerffi.Open in the EPP). GAIE's
// runner adds its in-tree plugins itself.
func V10(open dynrouter.Open) {
	labelfilter.Register()
	disagg.Register(open)
}
