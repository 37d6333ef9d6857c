package patchset

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/epp-build/epp-build/internal/recipe"
	"github.com/epp-build/epp-build/internal/redact"
)

// RecordFile is where apply keeps what it did, inside the work tree's .git
// so that it never shows up as a change.
const RecordFile = "epp-build/applied.json"

// Record is what a work tree made by apply holds: the pin it started from
// and, per patch, the patch's hash and the blobs of the files it touched.
// A re-run compares against it to tell whether anything changed and why.
type Record struct {
	Version string `json:"version"`
	// Repository is where the upstream was read (redacted): the recipe's
	// URL only when nothing else was used.
	Repository     string    `json:"repository"`
	Ref            string    `json:"ref"`
	UpstreamCommit string    `json:"upstreamCommit"`
	UpstreamTime   time.Time `json:"upstreamTime"`
	Via            string    `json:"via"`
	// Provenance says where the upstream copy came from, as apply showed it.
	Provenance string `json:"provenance,omitempty"`
	Result
}

// upstreamURL is the repository a record names: where base was read, else
// the recipe's, never with credentials.
func upstreamURL(r *recipe.Recipe, base Base) string {
	if base.Repository != "" {
		return redact.URL(base.Repository)
	}
	return redact.URL(r.Upstream.Repository)
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
	data, err := os.ReadFile(filepath.Join(dir, ".git", RecordFile))
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
