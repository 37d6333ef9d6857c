package review

import (
	"context"
	"io"

	"github.com/epp-build/epp-build/internal/outfmt"
	"github.com/epp-build/epp-build/internal/recipe"
)

// LogRequest is what the log command asks for: the patches of a line, or
// with Since the release notes of Version against that earlier version.
type LogRequest struct {
	Root, Version, Since string
	// Load reads the recipe of a plain log.
	Load func() (*recipe.Recipe, error)
	// History reads the upstream commits between the pins for Since; nil
	// leaves them out.
	History History
}

// LogDocument is the log's result in every output form: Value for JSON,
// Markdown and Text for the others, and the notices for stderr.
type LogDocument struct {
	Value          any
	Markdown, Text func(io.Writer) error
	Notices        []outfmt.Notice
}

// RunLog makes the document the log command prints.
func RunLog(ctx context.Context, req LogRequest) (*LogDocument, error) {
	if req.Since != "" {
		notes, err := Since(ctx, req.Root, req.Since, req.Version, req.History)
		if err != nil {
			return nil, err
		}
		return &LogDocument{
			Value:    notes,
			Markdown: func(w io.Writer) error { return WriteSinceMarkdown(w, notes) },
			Text:     func(w io.Writer) error { return WriteSince(w, notes) },
			Notices:  notes.Pins.Notices(),
		}, nil
	}
	r, err := req.Load()
	if err != nil {
		return nil, err
	}
	entries, err := Log(r)
	if err != nil {
		return nil, err
	}
	return &LogDocument{
		Value:    entries,
		Markdown: func(w io.Writer) error { return WriteLogMarkdown(w, entries) },
		Text:     func(w io.Writer) error { return WriteLog(w, r.Version, entries) },
	}, nil
}
