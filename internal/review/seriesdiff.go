package review

import (
	"context"
	"io"
)

// SeriesDiff is diff-series' document: both versions' pins (and the
// upstream commits between them, or why they could not be read), then
// their series compared patch by patch. -o json prints it whole, as log
// --since prints its release notes.
type SeriesDiff struct {
	Old     string   `json:"old"`
	New     string   `json:"new"`
	Pins    Pins     `json:"pins"`
	Patches []Change `json:"patches"`
}

// CompareVersions compares versions a and b under root: their pins, with
// the upstream history when history is set, and their series.
func CompareVersions(ctx context.Context, root, a, b string, history History) (*SeriesDiff, error) {
	changes, err := DiffVersions(root, a, b)
	if err != nil {
		return nil, err
	}
	pins, err := ComparePins(ctx, root, a, b, history)
	if err != nil {
		return nil, err
	}
	return &SeriesDiff{Old: a, New: b, Pins: pins, Patches: changes}, nil
}

// WriteSeriesDiff prints the pins, then the patches, for a terminal.
func WriteSeriesDiff(w io.Writer, d *SeriesDiff) error {
	if err := WritePins(w, d.Pins); err != nil {
		return err
	}
	return WriteDiff(w, d.Old, d.New, d.Patches)
}

// WriteSeriesDiffMarkdown prints the pins, then the patches, for a pull
// request.
func WriteSeriesDiffMarkdown(w io.Writer, d *SeriesDiff) error {
	if err := WritePinsMarkdown(w, d.Pins); err != nil {
		return err
	}
	return WriteDiffMarkdown(w, d.Old, d.New, d.Patches)
}
