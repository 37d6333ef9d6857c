package bundled

import (
	"fmt"
	"io/fs"
	"path"
	"strings"

	eppbuild "github.com/epp-build/epp-build"
	"github.com/epp-build/epp-build/internal/recipe"
)

// Versions lists the versions built into the binary, read from the
// embedded tree itself (nothing is written out), in directory order.
func Versions() []string { return versions(eppbuild.Patches) }

func versions(fsys fs.FS) []string {
	entries, err := fs.ReadDir(fsys, Root)
	if err != nil {
		return nil // an embedded tree always reads; nothing to offer otherwise
	}
	var out []string
	for _, e := range entries {
		if _, err := fs.Stat(fsys, path.Join(Root, e.Name(), recipe.FileName)); e.IsDir() && err == nil {
			out = append(out, e.Name())
		}
	}
	return out
}

// unknownVersion names the built-in versions instead of the folder a
// version would be in: that folder is the tool's cache, nothing a user
// should look into or edit.
func unknownVersion(version, eppBuild string, known []string) error {
	return &recipe.NotFoundError{What: fmt.Sprintf("version %q", version),
		Hint: fmt.Sprintf("not among the recipes built into epp-build %s (built-in versions: %s)", eppBuild, strings.Join(known, ", "))}
}
