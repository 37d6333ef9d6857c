package compile

import (
	"debug/buildinfo"
	"fmt"
)

// builtWith reads the Go that built the binary at path from its build
// info and, when a toolchain was asked for, checks it is that one: a
// binary the report would credit to the wrong Go must not ship.
func builtWith(path, toolchain string) (string, error) {
	info, err := buildinfo.ReadFile(path)
	if err != nil {
		return "", fmt.Errorf("read the build info of %s: %w", path, err)
	}
	if toolchain != "" && info.GoVersion != toolchain {
		return "", &ToolchainMismatchError{Binary: path, Want: toolchain, Got: info.GoVersion}
	}
	return info.GoVersion, nil
}

// ToolchainMismatchError is a binary built by another Go than the recipe's
// toolchain.
type ToolchainMismatchError struct{ Binary, Want, Got string }

func (e *ToolchainMismatchError) Error() string {
	return fmt.Sprintf("%s was built with %s, not the recipe's toolchain %s", e.Binary, e.Got, e.Want)
}
