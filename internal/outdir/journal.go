package outdir

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/epp-build/epp-build/internal/atomicfile"
	"github.com/epp-build/epp-build/internal/inputfile"
)

// A re-apply in place goes in this order: the new objects (one pack;
// harmless on its own), the journal, then the files and index entries,
// the refs and the apply record, and last the journal is removed. Each
// file is replaced by a rename, so it is either old or new. A run that
// stops after the journal was written (a crash, a kill) leaves it, and the
// next apply on that folder completes it from the objects already stored
// before it looks at anything else. Like the rest of apply it does not
// fsync: it covers a process that stops, not a machine that loses power.
const journalFile = "epp-build/reapply.json"

// Journal is a re-apply in place that has started writing: everything
// needed to finish it from the objects alone. R is the apply record.
type Journal[R any] struct {
	Head   string   `json:"head"`
	Branch string   `json:"branch"`
	Paths  []string `json:"paths"`
	Record *R       `json:"record"`
}

// JournalPath is where the work tree dir keeps its journal, inside .git
// so that it never shows up as a change.
func JournalPath(dir string) string { return filepath.Join(dir, ".git", journalFile) }

// WriteJournal stores j in the work tree dir, whole or not at all.
func WriteJournal[R any](dir string, j *Journal[R]) error {
	data, err := json.MarshalIndent(j, "", "  ")
	if err != nil {
		return err
	}
	path := JournalPath(dir)
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fmt.Errorf("write the re-apply journal: %w", err)
	}
	if err := atomicfile.Write(path, data, 0o644); err != nil {
		return fmt.Errorf("write the re-apply journal: %w", err)
	}
	return nil
}

// ReadJournal returns the journal of the work tree dir, or nil when there
// is none (or dir is no work tree).
func ReadJournal[R any](dir string) (*Journal[R], error) {
	if fi, err := os.Stat(filepath.Join(dir, ".git")); err != nil || !fi.IsDir() {
		return nil, nil // not a work tree: whoever looks at it says what it is
	}
	data, err := inputfile.ReadFile(JournalPath(dir), "", inputfile.StateLimit("a re-apply journal"))
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	j := &Journal[R]{}
	if err := json.Unmarshal(data, j); err != nil || j.Record == nil {
		return nil, fmt.Errorf("%s is unreadable (%v); remove the folder and apply again", JournalPath(dir), err)
	}
	return j, nil
}

// RemoveJournal marks the re-apply of dir complete.
func RemoveJournal(dir string) error { return os.Remove(JournalPath(dir)) }
