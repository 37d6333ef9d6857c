package backport

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/epp-build/epp-build/internal/inputfile"
	"github.com/epp-build/epp-build/internal/source"
	"github.com/epp-build/epp-build/internal/textsafe"
)

// DefaultDir is the work tree of a rebase when none is named: one per
// patches folder, under the user cache folder, so it never shows up in
// the repository and --continue, --skip and --abort find it again.
func DefaultDir(patchesRoot string) (string, error) {
	return defaultDirFor(patchesRoot, "rebase")
}

// defaultDirFor is the default work tree of a kind of operation (rebase,
// pick) for a patches folder.
func defaultDirFor(patchesRoot, kind string) (string, error) {
	abs, err := filepath.Abs(patchesRoot)
	if err != nil {
		return "", err
	}
	cache, err := source.CacheDir()
	if err != nil {
		return "", err
	}
	parent := filepath.Join(cache, kind)
	if err := os.MkdirAll(parent, 0o755); err != nil {
		return "", err
	}
	sum := sha256.Sum256([]byte(abs))
	return filepath.Join(parent, hex.EncodeToString(sum[:6])), nil
}

// ClearFinished removes the default work tree dir when it holds no rebase
// in progress (a finished one, kept for inspection), so the next rebase can
// use it; a rebase in progress is left alone.
func ClearFinished(dir string) error {
	if _, err := os.Stat(dir); errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if _, err := os.Stat(filepath.Join(dir, ".git", stateFile)); err == nil {
		return nil
	}
	return os.RemoveAll(dir)
}

// activeFile records, beside the default work tree of a patches folder,
// where a rebase started with --dir works, so --continue, --skip, --abort
// and status find it without --dir.
func activeFile(defaultDir string) string { return defaultDir + ".active" }

// recordActive notes dir as the rebase in progress for the patches folder
// whose default work tree is defaultDir.
func recordActive(defaultDir, dir string) error {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return err
	}
	if abs == defaultDir {
		return nil
	}
	return os.WriteFile(activeFile(defaultDir), []byte(abs+"\n"), 0o644)
}

// activeNoteLimit bounds the note naming where a rebase started with --dir
// works: one path.
var activeNoteLimit = inputfile.Limit{Bytes: 64 << 10, What: "the active-rebase note", Raise: "remove it; it only names a work tree"}

// forgetActive drops the note when it names dir.
func forgetActive(defaultDir, dir string) {
	data, err := inputfile.ReadFile(activeFile(defaultDir), "", activeNoteLimit)
	if err != nil {
		return
	}
	abs, _ := filepath.Abs(dir)
	if strings.TrimSpace(string(data)) == abs {
		os.Remove(activeFile(defaultDir))
	}
}

// Found is where a rebase in progress was found, and how.
type Found struct {
	Dir string
	// How says where it was looked up: the default work tree, or the
	// note a rebase started with --dir left.
	How string
}

// FindInProgress looks for the rebase in progress of the patches folder
// root: in its default work tree, then where a rebase started with --dir
// said it works. It returns nil when there is none.
func FindInProgress(root string) (*Found, error) {
	d, err := DefaultDir(root)
	if err != nil {
		return nil, err
	}
	if inProgress(d) {
		return &Found{Dir: d, How: "the default work tree for " + root}, nil
	}
	data, err := inputfile.ReadFile(activeFile(d), "", activeNoteLimit)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	dir := strings.TrimSpace(string(data))
	if dir != "" && inProgress(dir) {
		return &Found{Dir: dir, How: "the --dir the rebase was started with (recorded in " + activeFile(d) + ")"}, nil
	}
	return nil, nil
}

func inProgress(dir string) bool {
	fi, err := os.Stat(filepath.Join(dir, ".git", stateFile))
	return err == nil && fi.Mode().IsRegular()
}

// removeIfEmpty removes dir when it is an empty folder: what a start
// killed before it wrote anything leaves, which would otherwise block the
// next start in that --dir. A folder with anything in it is left alone.
func removeIfEmpty(dir string) error {
	fi, err := os.Lstat(dir)
	if err != nil || !fi.IsDir() {
		return nil
	}
	f, err := os.Open(dir)
	if err != nil {
		return nil
	}
	names, err := f.Readdirnames(1)
	f.Close()
	if len(names) > 0 || !errors.Is(err, io.EOF) {
		return nil
	}
	if err := os.Remove(dir); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("remove the empty work tree %s a killed start left: %w", dir, err)
	}
	return nil
}

// clearKilledStart removes the --dir dir when a start of ours made it and
// ended without a stop or a finish (killed): the note beside the default
// work tree still names it, which a start writes only for a dir that did
// not exist and a finish or --abort removes, and it holds no rebase
// state. Anything else in dir is left alone.
func clearKilledStart(defaultDir, dir string, log io.Writer) error {
	if inProgress(dir) {
		return nil
	}
	if _, err := os.Lstat(dir); err != nil {
		return nil
	}
	data, err := inputfile.ReadFile(activeFile(defaultDir), "", activeNoteLimit)
	if err != nil {
		return nil
	}
	abs, err := filepath.Abs(dir)
	if err != nil || strings.TrimSpace(string(data)) != abs {
		return nil
	}
	if err := os.RemoveAll(dir); err != nil {
		return fmt.Errorf("remove the work tree %s a rebase start that did not finish left: %w", dir, err)
	}
	if log != nil {
		fmt.Fprintf(log, "removed %s: a rebase start that did not finish left it\n", textsafe.Escape(dir))
	}
	return nil
}
