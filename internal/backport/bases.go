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
	"github.com/epp-build/epp-build/internal/patchset"
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
	// files, when set, reads the few files the bases need from where the
	// fetch keeps the pin, instead of a checkout of its whole tree.
	files PinFiles
}

// PinFiles fetches the upstream pin u (the cache answers a pin fetched
// before) and reads the named files of its tree, without a checkout. A
// path the pin does not hold is left out of the map.
type PinFiles func(ctx context.Context, u recipe.Upstream, paths []string) (map[string][]byte, error)

func basesDir(dir string) string { return filepath.Join(dir, ".git", "epp-build", "base") }

// keepBases writes the bases of the patches from st.Next on, unless they
// are there already. Without them (the old pin cannot be fetched) the
// merge falls back to .rej files, which it says.
func keepBases(ctx context.Context, dir string, st *state, from *oldPin, log io.Writer) error {
	out := basesDir(dir)
	if _, err := os.Stat(out); err == nil || from == nil {
		return nil
	}
	tmp := out + ".partial"
	if err := os.RemoveAll(tmp); err != nil {
		return err
	}
	patches, err := readPatches(dir, st.Patches)
	if err != nil {
		return err
	}
	if from.files != nil {
		files, err := from.files(ctx, from.pin, oldPaths(patches))
		if err == nil {
			if err := replayBases(mapReader(files), tmp, st.Patches, patches, st.Next); err != nil {
				return err
			}
			return os.Rename(tmp, out)
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
		// A damaged or pruned entry: the checkout below fetches it again.
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
	oldRoot, err := os.OpenRoot(old)
	if err != nil {
		return err
	}
	defer oldRoot.Close()
	if err := replayBases(oldRoot.ReadFile, tmp, st.Patches, patches, st.Next); err != nil {
		return err
	}
	return os.Rename(tmp, out)
}

// readPatches reads the rebase's patches, in order.
func readPatches(dir string, names []string) ([]*patchset.Patch, error) {
	out := make([]*patchset.Patch, len(names))
	for i, name := range names {
		p, err := readPatch(dir, name)
		if err != nil {
			return nil, err
		}
		out[i] = p
	}
	return out, nil
}

// oldPaths are the old pin's files the replay may read: every file a
// patch changes that it does not create.
func oldPaths(patches []*patchset.Patch) []string {
	seen := map[string]bool{}
	var out []string
	for _, p := range patches {
		for _, f := range p.Files {
			if !f.IsNew && !seen[f.OldName] {
				seen[f.OldName] = true
				out = append(out, f.OldName)
			}
		}
	}
	return out
}

// mapReader reads from files as os.Root.ReadFile reads a checkout.
func mapReader(files map[string][]byte) func(string) ([]byte, error) {
	return func(name string) ([]byte, error) {
		if data, ok := files[name]; ok {
			return data, nil
		}
		return nil, fs.ErrNotExist
	}
}

// replayBases replays the series (patches, stored as names) over the old
// pin's files, read by readOld, in memory and writes, for each patch from
// next on, the files it changes as they were before it.
func replayBases(readOld func(string) ([]byte, error), out string, names []string, patches []*patchset.Patch, next int) error {
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
		data, err := readOld(name)
		return data, err == nil
	}
	for i, p := range patches {
		for _, f := range p.Files {
			var src []byte
			if !f.IsNew {
				var ok bool
				if src, ok = read(f.OldName); !ok {
					files[f.NewName] = nil
					continue
				}
				if i >= next {
					keep := path.Join(names[i], f.OldName)
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
