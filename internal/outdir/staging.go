package outdir

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// Staging is a folder beside an output folder where its new tree is
// built: on the same file system, so the tree replaces the output folder
// by a rename.
type Staging struct {
	out, dir string
	// Kept lists what Replace carried over from the replaced tree's .git
	// (see carryGitState).
	Kept []string
}

// NewStaging creates a staging folder beside out, and out's parent when
// it is missing.
func NewStaging(out string) (*Staging, error) {
	if err := os.MkdirAll(filepath.Dir(out), 0o755); err != nil {
		return nil, fmt.Errorf("create parent of %s: %w", out, err)
	}
	dir, err := os.MkdirTemp(filepath.Dir(out), stagingPrefix(out))
	if err != nil {
		return nil, fmt.Errorf("create staging folder beside %s: %w", out, err)
	}
	return &Staging{out: out, dir: dir}, nil
}

// stagingPrefix starts the name of every staging folder of out; os.MkdirTemp
// ends it with decimal digits.
func stagingPrefix(out string) string { return "." + filepath.Base(out) + ".epp-build-staging-" }

// RemoveStale deletes the staging folders of out that a killed run left
// and returns their paths. Only a folder named exactly as NewStaging names
// one for out is touched. The caller must hold out's Lock: a staging
// folder of a live run is not stale.
func RemoveStale(out string) ([]string, error) {
	entries, err := os.ReadDir(filepath.Dir(out))
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	prefix := stagingPrefix(out)
	var removed []string
	for _, e := range entries {
		rest, ok := strings.CutPrefix(e.Name(), prefix)
		if !ok || rest == "" || strings.Trim(rest, "0123456789") != "" || e.Type() != fs.ModeDir {
			continue
		}
		dir := filepath.Join(filepath.Dir(out), e.Name())
		if err := os.RemoveAll(dir); err != nil {
			return removed, fmt.Errorf("remove the staging folder %s an interrupted apply left: %w", dir, err)
		}
		removed = append(removed, dir)
	}
	return removed, nil
}

// Tree is where the new tree is built; it does not exist yet.
func (s *Staging) Tree() string { return filepath.Join(s.dir, "tree") }

// Remove deletes the staging folder with what is left in it: the new
// tree when it did not replace the output folder, the previous tree when
// it did without a backup.
func (s *Staging) Remove() error { return os.RemoveAll(s.dir) }

// Replace moves the new tree to the output folder. The user's git config
// and hooks in an existing output folder are copied into the new tree
// first (listed in Kept): switching versions must not drop the remotes a
// user added. An existing output folder is moved aside then: to backup when one is named (and kept
// there), else into the staging folder, removed with it only after the
// new tree is in place.
func (s *Staging) Replace(backup string) error {
	work, out := s.Tree(), s.out
	if _, err := os.Lstat(out); errors.Is(err, os.ErrNotExist) {
		return os.Rename(work, out)
	}
	if empty, _ := IsEmpty(out); empty {
		if err := os.Remove(out); err != nil {
			return err
		}
		return os.Rename(work, out)
	}
	kept, err := carryGitState(out, work)
	if err != nil {
		return err
	}
	s.Kept = kept
	old := filepath.Join(s.dir, "previous")
	if backup != "" {
		old = backup
	}
	if err := os.Rename(out, old); err != nil {
		return fmt.Errorf("move the previous %s aside: %w", out, err)
	}
	if err := os.Rename(work, out); err != nil {
		_ = os.Rename(old, out)
		return fmt.Errorf("move the new tree to %s: %w", out, err)
	}
	return nil
}

// BackupName is a folder beside out, named after the time, that does not
// exist yet.
func BackupName(out string, now time.Time) string {
	name := out + ".epp-build-backup-" + now.UTC().Format("20060102T150405Z")
	for i, try := 2, name; ; i++ {
		if _, err := os.Lstat(try); errors.Is(err, os.ErrNotExist) {
			return try
		}
		try = name + "-" + strconv.Itoa(i)
	}
}

// BackupPattern says, for messages, what BackupName makes of dir.
func BackupPattern(dir string) string { return dir + ".epp-build-backup-<time>" }

// IsEmpty is whether the folder dir holds nothing.
func IsEmpty(dir string) (bool, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return false, err
	}
	return len(entries) == 0, nil
}
