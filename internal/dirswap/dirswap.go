// Package dirswap writes a folder that readers and the next run must find
// whole: the new content is built in a folder beside it and swapped in by
// one rename, so a kill at any instant leaves the old folder or the new
// one, never a mix. The folders a killed writer leaves beside it carry
// recognisable names (.epp-build-<name>.new-*, .epp-build-<name>.old-*)
// and the next writer removes them.
package dirswap

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/epp-build/epp-build/internal/killpoint"
)

// KillStep is the killpoint.Step name of every write a swap makes, for
// the tests that kill a writer between any two of them.
const KillStep = "dirswap-write"

const prefix = ".epp-build-"

// leftover matches the folders a writer builds beside its target; the
// groups are the target's name and the kind. The .<name>.rebase-* form is
// what rebase --as built its version in before it used this package.
var leftover = regexp.MustCompile(`^\.epp-build-(.+)\.(new|old)-[0-9]+$|^\.(.+)\.(rebase)-[0-9]+$`)

// IsTemp reports whether name (a base name) is one of the folders a
// writer builds beside its target, which no reader takes for a version.
func IsTemp(name string) bool { return leftover.MatchString(name) }

// Replace gives dir, which must exist, new content: edit changes a copy of
// dir made beside it, and the copy is swapped in. When edit fails dir is
// untouched and the copy removed.
func Replace(dir string, edit func(staging string) error) error {
	fi, err := os.Stat(dir)
	if err != nil {
		return err
	}
	if !fi.IsDir() {
		return fmt.Errorf("%s is not a folder", dir)
	}
	staging, unlock, err := begin(dir)
	if err != nil {
		return err
	}
	defer unlock()
	if err := copyTree(dir, staging); err != nil {
		os.RemoveAll(staging)
		return fmt.Errorf("copy %s to write its new content beside it: %w", dir, err)
	}
	if err := edit(staging); err != nil {
		os.RemoveAll(staging)
		return err
	}
	killpoint.Step(KillStep)
	if err := os.Chmod(staging, fi.Mode().Perm()); err != nil {
		os.RemoveAll(staging)
		return err
	}
	old, err := swap(staging, dir)
	if err != nil {
		os.RemoveAll(staging)
		return fmt.Errorf("put the new content of %s in place: %w", dir, err)
	}
	killpoint.Step(KillStep)
	// The old content is garbage now; a failure to remove it is cleaned by
	// the next writer and is no reason to report the write as failed.
	_ = os.RemoveAll(old)
	killpoint.Step(KillStep)
	return nil
}

// Create makes dir, which must not exist: build fills a folder beside it,
// which is renamed into place. When build fails nothing is left.
func Create(dir string, perm fs.FileMode, build func(staging string) error) error {
	staging, unlock, err := begin(dir)
	if err != nil {
		return err
	}
	defer unlock()
	if err := build(staging); err != nil {
		os.RemoveAll(staging)
		return err
	}
	killpoint.Step(KillStep)
	if err := os.Chmod(staging, perm); err != nil {
		os.RemoveAll(staging)
		return err
	}
	if err := renameNoReplace(staging, dir); err != nil {
		os.RemoveAll(staging)
		return fmt.Errorf("put %s in place: %w", dir, err)
	}
	killpoint.Step(KillStep)
	return nil
}

// begin cleans what killed writers left beside dir and makes the staging
// folder, locked so that another writer's Clean leaves it alone.
func begin(dir string) (staging string, unlock func(), err error) {
	parent, name := filepath.Split(filepath.Clean(dir))
	if parent == "" {
		parent = "."
	}
	if err := Clean(parent); err != nil {
		return "", nil, err
	}
	staging, err = os.MkdirTemp(parent, prefix+name+".new-")
	if err != nil {
		return "", nil, err
	}
	unlock, err = lockDir(staging)
	if err != nil {
		os.RemoveAll(staging)
		return "", nil, err
	}
	killpoint.Step(KillStep)
	return staging, unlock, nil
}

// Clean removes, in parent, the folders writers killed before they
// finished left there. A folder that a kill left only under its old name
// (between the two renames of a swap without an atomic exchange) is put
// back first. Folders a live writer holds are left alone.
func Clean(parent string) error {
	entries, err := os.ReadDir(parent)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	// Old copies first: a target missing its folder gets it back before
	// the new copy that never made it is removed.
	for _, kind := range []string{"old", "new"} {
		for _, e := range entries {
			m := leftover.FindStringSubmatch(e.Name())
			if m == nil || !e.IsDir() {
				continue
			}
			target, k := m[1], m[2]
			if k == "" {
				target, k = m[3], "new"
			}
			if k != kind {
				continue
			}
			if err := cleanOne(parent, e.Name(), target, kind == "old"); err != nil {
				return err
			}
		}
	}
	return nil
}

func cleanOne(parent, name, target string, restore bool) error {
	path := filepath.Join(parent, name)
	unlock, err := tryLockDir(path)
	if errors.Is(err, errBusy) || errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("leftover %s: %w", path, err)
	}
	defer unlock()
	if restore && !strings.ContainsRune(target, os.PathSeparator) {
		dst := filepath.Join(parent, target)
		if _, err := os.Lstat(dst); errors.Is(err, fs.ErrNotExist) {
			if err := renameNoReplace(path, dst); err == nil {
				return nil
			}
		}
	}
	if err := os.RemoveAll(path); err != nil {
		return fmt.Errorf("remove the leftover %s: %w", path, err)
	}
	return nil
}

// swap puts staging at dir and returns where dir's old content is now.
func swap(staging, dir string) (string, error) {
	err := exchange(staging, dir)
	if err == nil {
		return staging, nil
	}
	if !errors.Is(err, errNoExchange) {
		return "", err
	}
	// Two renames: a kill between them leaves dir only under the old
	// name, which Clean puts back. The old folder is locked meanwhile so
	// that no other writer's Clean takes it for such a leftover.
	unlock, err := lockDir(dir)
	if err != nil {
		return "", err
	}
	defer unlock()
	parent, name := filepath.Split(dir)
	old := filepath.Join(parent, prefix+name+".old-"+strings.TrimPrefix(filepath.Base(staging), prefix+name+".new-"))
	if err := os.Rename(dir, old); err != nil {
		return "", err
	}
	killpoint.Step(KillStep)
	if err := os.Rename(staging, dir); err != nil {
		if rerr := os.Rename(old, dir); rerr != nil {
			return "", fmt.Errorf("%w; the old content stays in %s (%v)", err, old, rerr)
		}
		return "", err
	}
	return old, nil
}

// copyTree copies the folder src into dst, which exists: files, folders
// and symbolic links as they are (a link is not followed).
func copyTree(src, dst string) error {
	entries, err := os.ReadDir(src)
	if err != nil {
		return err
	}
	for _, e := range entries {
		from, to := filepath.Join(src, e.Name()), filepath.Join(dst, e.Name())
		fi, err := os.Lstat(from)
		if err != nil {
			return err
		}
		switch {
		case fi.Mode().IsRegular():
			err = copyFile(from, to, fi.Mode().Perm())
		case fi.IsDir():
			if err = os.Mkdir(to, fi.Mode().Perm()|0o700); err == nil {
				if err = copyTree(from, to); err == nil {
					err = os.Chmod(to, fi.Mode().Perm())
				}
			}
		case fi.Mode()&fs.ModeSymlink != 0:
			var target string
			if target, err = os.Readlink(from); err == nil {
				err = os.Symlink(target, to)
			}
		default:
			err = fmt.Errorf("%s is not a file, folder or link (%s)", from, fi.Mode().Type())
		}
		if err != nil {
			return err
		}
		killpoint.Step(KillStep)
	}
	return nil
}

func copyFile(from, to string, perm fs.FileMode) error {
	in, err := os.OpenFile(from, os.O_RDONLY|oNoFollow, 0)
	if err != nil {
		return err
	}
	defer in.Close()
	if fi, err := in.Stat(); err != nil {
		return err
	} else if !fi.Mode().IsRegular() {
		return fmt.Errorf("%s changed into a %s while being copied", from, fi.Mode().Type())
	}
	out, err := os.OpenFile(to, os.O_WRONLY|os.O_CREATE|os.O_EXCL, perm)
	if err != nil {
		return err
	}
	_, err = io.Copy(out, in)
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	return err
}
