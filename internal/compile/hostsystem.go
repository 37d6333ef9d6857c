package compile

import (
	"fmt"
	"runtime"
)

// SystemError is something asked of a system that cannot do it: compiling
// on the host links the EPP and the C API with cgo for linux targets,
// which needs a Linux host's C toolchains and libc.
type SystemError struct {
	Feature  string // what was asked, as the user asked it (a flag)
	OS, Arch string
	Instead  string // what works on this system; may be empty
}

func (e *SystemError) Error() string {
	msg := fmt.Sprintf("%s needs Linux (this is %s/%s)", e.Feature, e.OS, e.Arch)
	if e.Instead != "" {
		msg += ": " + e.Instead
	}
	return msg
}

// CheckSystem is nil where this system can compile on the host, else a
// *SystemError naming feature and what to do instead, so a caller can
// refuse before fetching or building anything.
func CheckSystem(feature, instead string) error {
	return checkSystem(runtime.GOOS, runtime.GOARCH, feature, instead)
}

func checkSystem(goos, goarch, feature, instead string) error {
	if goos != "linux" {
		return &SystemError{Feature: feature, OS: goos, Arch: goarch, Instead: instead}
	}
	return nil
}
