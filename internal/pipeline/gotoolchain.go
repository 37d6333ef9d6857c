package pipeline

import (
	"runtime"
	"slices"

	"github.com/epp-build/epp-build/internal/platform"
)

// hostGoVersion is the Go the report credits a host build to: the
// recipe's toolchain, which compile checks each binary's build info
// names, else the Go at hand.
func hostGoVersion(p *plan) string {
	if p.toolchain != "" {
		return p.toolchain
	}
	return runtime.Version()
}

// buildArches are the arches the container mode's builder may run on: it
// runs on the build platform, the node's own, which a node per platform
// shares with its target and a single local node with this machine.
func buildArches(targets []platform.Platform) []string {
	arches := []string{runtime.GOARCH}
	for _, t := range targets {
		if !slices.Contains(arches, t.GOARCH) {
			arches = append(arches, t.GOARCH)
		}
	}
	return arches
}
