package backport

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"

	"github.com/bluekeyes/go-gitdiff/gitdiff"
	"github.com/epp-build/epp-build/internal/gitformat"
	"github.com/epp-build/epp-build/internal/recipe"
)

// The base of a rebased patch's three-way merge is the file the patch was
// made against: the old pin's file with the series' earlier patches
// applied. At the first conflict the old pin is fetched once and the
// series replayed over it in memory; each remaining patch's bases are
// kept under .git/epp-build/base/<patch>/ for the stops that follow.

// oldPin is what the first stop of a rebase needs to find the bases.
type oldPin struct {
	pin         recipe.Upstream
	materialize Materializer
}

func basesDir(dir string) string { return filepath.Join(dir, ".git", "epp-build", "base") }

// keepBases writes the bases of the patches from st.Next on, unless they
// are there already. Without them (the old pin cannot be fetched) the
// merge falls back to .rej files, which it says.
func keepBases(ctx context.Context, dir string, st *state, from *oldPin, log io.Writer) error {
	out := basesDir(dir)
	if _, err := os.Stat(out); err == nil || from == nil {
		return nil
	}
	old := filepath.Join(dir, ".git", "epp-build", "old-pin")
	if err := os.RemoveAll(old); err != nil {
		return err
	}
	defer os.RemoveAll(old)
	if _, err := from.materialize(ctx, from.pin, old); err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		fmt.Fprintf(log, "no three-way merge: the old pin %s could not be fetched (%v); changes that do not apply go to .rej files\n", pinName(from.pin), err)
		return os.MkdirAll(out, 0o755)
	}
	tmp := out + ".partial"
	if err := os.RemoveAll(tmp); err != nil {
		return err
	}
	if err := replayBases(dir, old, tmp, st); err != nil {
		return err
	}
	return os.Rename(tmp, out)
}

// replayBases replays the series over the old pin's tree in memory and
// writes, for each patch from st.Next on, the files it changes as they
// were before it.
func replayBases(dir, old, out string, st *state) error {
	oldRoot, err := os.OpenRoot(old)
	if err != nil {
		return err
	}
	defer oldRoot.Close()
	if err := os.MkdirAll(out, 0o755); err != nil {
		return err
	}
	outRoot, err := os.OpenRoot(out)
	if err != nil {
		return err
	}
	defer outRoot.Close()
	files := map[string][]byte{} // changed by the series so far; nil = gone or unknown
	read := func(name string) ([]byte, bool) {
		if data, ok := files[name]; ok {
			return data, data != nil
		}
		data, err := oldRoot.ReadFile(name)
		return data, err == nil
	}
	for i, name := range st.Patches {
		p, err := readPatch(dir, name)
		if err != nil {
			return err
		}
		for _, f := range p.Files {
			var src []byte
			if !f.IsNew {
				var ok bool
				if src, ok = read(f.OldName); !ok {
					files[f.NewName] = nil
					continue
				}
				if i >= st.Next {
					keep := path.Join(name, f.OldName)
					if err := mkParent(outRoot, keep); err != nil {
						return err
					}
					if err := outRoot.WriteFile(keep, src, 0o644); err != nil {
						return err
					}
				}
			}
			if f.IsDelete || f.IsRename {
				files[f.OldName] = nil
			}
			if f.IsDelete {
				continue
			}
			var next bytes.Buffer
			if f.IsBinary || gitdiff.Apply(&next, bytes.NewReader(src), f) != nil {
				files[f.NewName] = nil // not known past here
				continue
			}
			files[f.NewName] = next.Bytes()
		}
	}
	return nil
}

// rebaseBase is the base finder of a stopped rebase's patch.
func rebaseBase(dir, patch string) baseOf {
	return func(f *gitdiff.File) ([]byte, bool, error) {
		root, err := os.OpenRoot(basesDir(dir))
		if errors.Is(err, fs.ErrNotExist) {
			return nil, false, nil
		}
		if err != nil {
			return nil, false, err
		}
		defer root.Close()
		data, err := root.ReadFile(path.Join(patch, f.OldName))
		if errors.Is(err, fs.ErrNotExist) {
			return nil, false, nil
		}
		return data, err == nil, err
	}
}

// pinName is how markers and messages name a pin: its ref, else its
// commit.
func pinName(u recipe.Upstream) string {
	if u.Ref != "" {
		return u.Ref
	}
	return gitformat.Short(u.Commit)
}
