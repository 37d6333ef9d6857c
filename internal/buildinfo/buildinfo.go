// Package buildinfo says which epp-build this is: its version, the Go that
// built it and the VCS revision it was built from, as the go command
// stamped them into the binary.
package buildinfo

import (
	"fmt"
	"runtime"
	"runtime/debug"
	"strings"
)

// Version, Revision and RevisionTime are set at link time by release
// builds (make release: -ldflags "-X
// github.com/epp-build/epp-build/internal/buildinfo.Version=v1.2.3" and
// so on), which build without VCS stamping so that the same source gives
// the same bytes. Otherwise the module version stamped by `go install
// module@version` is used, or "(devel)" for a build from a checkout, and
// the revision the go command stamped.
var (
	Version      = ""
	Revision     = ""
	RevisionTime = ""
)

// devel is the version the go command gives a build from a checkout.
const devel = "(devel)"

// Info describes the running binary.
type Info struct {
	Version   string `json:"version"`
	GoVersion string `json:"goVersion"`
	Platform  string `json:"platform"`
	// Revision is the VCS commit the binary was built from; empty when the
	// go command did not stamp it (go run, or -buildvcs=false).
	Revision string `json:"revision,omitempty"`
	// Time is the commit time of Revision (RFC 3339).
	Time string `json:"time,omitempty"`
	// Modified is true when the work tree had uncommitted changes.
	Modified bool `json:"modified,omitempty"`
}

// Read returns the running binary's Info.
func Read() Info {
	bi, _ := debug.ReadBuildInfo()
	info := fromBuildInfo(bi, Version)
	if Revision != "" {
		info.Revision, info.Time, info.Modified = Revision, RevisionTime, false
	}
	return info
}

func fromBuildInfo(bi *debug.BuildInfo, linked string) Info {
	info := Info{Version: linked, GoVersion: runtime.Version(), Platform: runtime.GOOS + "/" + runtime.GOARCH}
	if bi == nil {
		if info.Version == "" {
			info.Version = devel
		}
		return info
	}
	info.GoVersion = bi.GoVersion
	if info.Version == "" {
		info.Version = bi.Main.Version
	}
	if info.Version == "" {
		info.Version = devel
	}
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			info.Revision = s.Value
		case "vcs.time":
			info.Time = s.Value
		case "vcs.modified":
			info.Modified = s.Value == "true"
		}
	}
	return info
}

// String is the one line `epp-build version` prints.
func (i Info) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "epp-build %s, %s %s", i.Version, i.GoVersion, i.Platform)
	switch {
	case i.Revision == "" && i.Version != devel:
		// go install module@version stamps the module version, never a
		// revision: the version names the source.
	case i.Revision == "":
		b.WriteString(", revision unknown (built without VCS information, as go run or -buildvcs=false build)")
	default:
		fmt.Fprintf(&b, ", revision %s", i.Revision)
		if i.Time != "" {
			fmt.Fprintf(&b, " (%s)", i.Time)
		}
		if i.Modified {
			b.WriteString(" with uncommitted changes")
		}
	}
	return b.String()
}
