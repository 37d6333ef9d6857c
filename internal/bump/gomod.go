package bump

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"golang.org/x/mod/modfile"
	"golang.org/x/mod/module"
	"golang.org/x/mod/semver"

	"github.com/epp-build/epp-build/internal/inputfile"
)

// NotARaiseError is a MODULE@VERSION that would not raise a module the
// line requires: one it does not require, or a version at or below the
// one it has. It can only be known once the line is applied.
type NotARaiseError struct {
	Module, Have, Asked string
}

func (e *NotARaiseError) Error() string {
	switch {
	case e.Have == "":
		return fmt.Sprintf("%s@%s: the line does not require %s; bump raises a module it has", e.Module, e.Asked, e.Module)
	case e.Have == e.Asked:
		return fmt.Sprintf("%s@%s: the line already has %s %s", e.Module, e.Asked, e.Module, e.Have)
	}
	return fmt.Sprintf("%s@%s: the line has %s %s, a later version; bump never lowers a module", e.Module, e.Asked, e.Module, e.Have)
}

// requirements reads the versions go.mod of tree requires.
func requirements(tree string) (map[string]string, error) {
	path := filepath.Join(tree, "go.mod")
	data, err := inputfile.ReadFile(path, "", inputfile.Limit{Bytes: inputfile.RecipeBytes, What: "a go.mod"})
	if err != nil {
		return nil, err
	}
	f, err := modfile.ParseLax(path, data, nil)
	if err != nil {
		return nil, err
	}
	out := map[string]string{}
	for _, r := range f.Require {
		out[r.Mod.Path] = r.Mod.Version
	}
	return out, nil
}

// checkRaises refuses a bump that is not a raise of a required module.
func checkRaises(have map[string]string, mods []module.Version) error {
	for _, m := range mods {
		v := have[m.Path]
		if v == "" || semver.Compare(m.Version, v) <= 0 {
			return &NotARaiseError{Module: m.Path, Have: v, Asked: m.Version}
		}
	}
	return nil
}

// goCommand runs the go command in tree as every fetch of this tool does:
// with the user's environment, so GOPROXY, GONOSUMDB, GOFLAGS, GOTOOLCHAIN
// and the go env file reach it as they reach any go command. The tree is
// its own module (GOWORK=off): an upstream fetched through the module
// proxy lacks the nested modules its go.work lists.
func goCommand(ctx context.Context, tree string, env []string, args ...string) error {
	cmd := exec.CommandContext(ctx, "go", args...)
	cmd.Dir = tree
	cmd.Env = append(append(os.Environ(), "GOWORK=off"), env...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	cmd.WaitDelay = 5 * time.Second
	if err := cmd.Run(); err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		msg := strings.TrimSpace(stderr.String())
		if len(msg) > 2000 {
			msg = "…" + msg[len(msg)-2000:]
		}
		return fmt.Errorf("go %s: %w: %s", strings.Join(args, " "), err, msg)
	}
	return nil
}
