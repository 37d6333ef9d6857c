package backport

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"unicode"

	"github.com/epp-build/epp-build/internal/recipe"
)

// StateError is a rebase or pick state file that this tool could not have
// written, or that names folders other than the patches folder of the
// command run. The state is data, never a list of paths to trust: it is
// refused, and nothing it names is touched.
type StateError struct {
	Path string // the state file
	Err  error
}

func (e *StateError) Error() string {
	return fmt.Sprintf("%s: %v (the file was edited or is damaged: nothing it names was touched; --abort and start again)", e.Path, e.Err)
}

func (e *StateError) Unwrap() error { return e.Err }

// samePath reports whether a and b name one folder: the same absolute
// path, or (through a link, or from another working folder) the same
// folder on disk.
func samePath(a, b string) bool {
	if filepath.Clean(a) == filepath.Clean(b) {
		return true
	}
	fa, errA := os.Stat(a)
	fb, errB := os.Stat(b)
	return errA == nil && errB == nil && os.SameFile(fa, fb)
}

// within checks a loaded rebase state against the patches folder root of
// the command: the recipe it rewrites is root's folder of its version,
// and its new pin is one a recipe may name.
func (st *state) within(root string) error {
	abs, err := filepath.Abs(root)
	if err != nil {
		return err
	}
	want := filepath.Join(abs, st.Version)
	if !filepath.IsAbs(st.Recipe) || !samePath(st.Recipe, want) {
		return fmt.Errorf("the recipe folder %q is not %s, the folder of version %s in the patches folder (--patches) of this command", st.Recipe, want, st.Version)
	}
	// The work tree and every --exec use the recipe folder by its name in
	// root: what the state says is only compared, never used.
	st.Recipe = want
	return nil
}

// checkUpstream refuses a recorded pin that a recipe could not hold: it
// is written into the new recipe and passed to git.
func checkUpstream(u recipe.Upstream) error {
	if err := recipe.CheckUpstream(u); err != nil {
		return fmt.Errorf("the new pin: %w", err)
	}
	return nil
}

// within checks a loaded pick state against the patches folder root of
// the command: its version is root's, and the folder it created (which
// --abort removes) is that version's folder.
func (st *pickState) within(root string) error {
	abs, err := filepath.Abs(root)
	if err != nil {
		return err
	}
	if !filepath.IsAbs(st.Root) || !samePath(st.Root, abs) {
		return fmt.Errorf("the patches folder %q is not %s, the patches folder (--patches) of this command", st.Root, abs)
	}
	st.Root = abs
	if st.Created != "" {
		if st.Created != filepath.Join(st.Root, st.Version) && !samePath(st.Created, filepath.Join(abs, st.Version)) {
			return fmt.Errorf("created folder %q is not the folder of version %s", st.Created, st.Version)
		}
		st.Created = filepath.Join(abs, st.Version)
	}
	return nil
}

// checkPickRepo refuses a --from repository that could read as an option
// or that a pick could not have recorded (it records an absolute path).
func checkPickRepo(repo string) error {
	if repo == "" {
		return nil
	}
	if !filepath.IsAbs(repo) || filepath.Clean(repo) != repo || strings.ContainsFunc(repo, unicode.IsControl) {
		return fmt.Errorf("the repository picked from %q is not an absolute folder", repo)
	}
	return nil
}

// isVersionFolder reports whether dir holds a recipe: --abort removes a
// folder the pick created only when it is one.
func isVersionFolder(dir string) bool {
	fi, err := os.Lstat(filepath.Join(dir, recipe.FileName))
	return err == nil && fi.Mode().IsRegular()
}

// loadFor is load with the state checked against the patches folder root
// of the command ("" checks only the state itself).
func loadFor(dir, root string) (*state, error) {
	st, err := load(dir)
	if err != nil || root == "" {
		return st, err
	}
	if err := st.within(root); err != nil {
		return nil, &StateError{Path: filepath.Join(dir, ".git", stateFile), Err: err}
	}
	return st, nil
}

// loadPickStateFor is loadPickState with the state checked against the
// patches folder root of the command.
func loadPickStateFor(dir, root string) (*pickState, error) {
	st, err := loadPickState(dir)
	if err != nil {
		return nil, err
	}
	if err := st.within(root); err != nil {
		return nil, &StateError{Path: filepath.Join(dir, ".git", pickStateFile), Err: err}
	}
	return st, nil
}
