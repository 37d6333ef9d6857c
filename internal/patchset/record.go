package patchset

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/epp-build/epp-build/internal/inputfile"
	"github.com/epp-build/epp-build/internal/recipe"
	"github.com/epp-build/epp-build/internal/redact"
	"github.com/epp-build/epp-build/internal/source"
)

// RecordFile is where apply keeps what it did, inside the work tree's .git
// so that it never shows up as a change.
const RecordFile = "epp-build/applied.json"

// Record is what a work tree made by apply holds: the pin it started from
// and, per patch, the patch's hash and the blobs of the files it touched.
// A re-run compares against it to tell whether anything changed and why.
type Record struct {
	Version string `json:"version"`
	// Upstream is the base's provenance: where the upstream was read, its
	// ref, commit and time, and how it was fetched.
	source.Upstream
	Result
}

// recordedUpstream is base's provenance; a base that does not say where it
// was read or its ref is the recipe's.
func recordedUpstream(r *recipe.Recipe, base Base) source.Upstream {
	u := base.Upstream
	if u.Repository == "" {
		u.Repository = redact.URL(r.Upstream.Repository)
	}
	if u.Ref == "" {
		u.Ref = r.Upstream.Ref
	}
	return u
}

// Source says where the record's upstream came from, for messages.
func (r *Record) Source() string {
	if r.Provenance != "" {
		return r.Provenance
	}
	return "via " + r.Via
}

// ReadRecord returns the record of the work tree dir, or nil when dir was
// not made by apply.
func ReadRecord(dir string) (*Record, error) {
	data, err := inputfile.ReadFile(filepath.Join(dir, ".git", RecordFile), "", inputfile.StateLimit("an apply record"))
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var r Record
	if err := json.Unmarshal(data, &r); err != nil {
		return nil, fmt.Errorf("read %s: %w", RecordFile, err)
	}
	// Empty in the record a rebase keeps of its steps; otherwise joined
	// to the patches folder to find the recipe again.
	if r.Version != "" && !recipe.IsVersionName(r.Version) {
		return nil, fmt.Errorf("read %s: version %q is not a version name (the file was edited or is damaged)", RecordFile, r.Version)
	}
	return &r, nil
}

// WriteRecord stores r in the work tree dir.
func WriteRecord(dir string, r *Record) error {
	path := filepath.Join(dir, ".git", RecordFile)
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	data, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, append(data, '\n'), 0o644)
}
