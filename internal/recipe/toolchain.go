package recipe

import (
	"fmt"
	"go/version"
	"regexp"

	"gopkg.in/yaml.v3"
)

// toolchainRelease is a Go release as the go command names a toolchain
// it can fetch: goX.Y.Z, never a language version such as go1.21 (which
// names no toolchain since Go 1.21) nor a pre-release.
var toolchainRelease = regexp.MustCompile(`^go1\.[0-9]+\.[0-9]+$`)

// firstFetchable is the oldest toolchain the go command fetches as a
// module (golang.org/toolchain starts at Go 1.21.0).
const firstFetchable = "go1.21.0"

// CheckToolchain says what is wrong with v as a recipe's toolchain, or
// returns nil for a Go release the go command can fetch.
func CheckToolchain(v string) error {
	switch {
	case !toolchainRelease.MatchString(v) || !version.IsValid(v):
		return fmt.Errorf("toolchain %q must be a Go release such as go1.26.10 (goX.Y.Z, patch included)", v)
	case version.Compare(v, firstFetchable) < 0:
		return fmt.Errorf("toolchain %q is older than %s, the first Go the go command fetches as a toolchain", v, firstFetchable)
	}
	return nil
}

// checkToolchain lists the problem of the toolchain field, if any.
func (r *Recipe) checkToolchain() []string {
	if r.Toolchain == "" {
		return nil
	}
	if err := CheckToolchain(r.Toolchain); err != nil {
		return []string{err.Error()}
	}
	return nil
}

// SetToolchain records v as the Go toolchain the recipe in dir (the
// version folder holding recipe.yaml) is built with, keeping every other
// key, its order and its comments as they are. v is checked first, so a
// recipe is never left holding a toolchain Load refuses.
func SetToolchain(dir, v string) error {
	if err := CheckToolchain(v); err != nil {
		return fmt.Errorf("recipe %s: %w", dir, &ValidationError{Problems: []string{err.Error()}})
	}
	return edit(dir, func(root *yaml.Node) error {
		if old := valueOf(root, "toolchain"); old != nil {
			if old.Kind != yaml.ScalarNode {
				return fmt.Errorf("toolchain is not a plain value")
			}
			old.Value, old.Tag, old.Style = v, "!!str", 0
			return nil
		}
		setKey(root, "toolchain", &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: v})
		return nil
	})
}
