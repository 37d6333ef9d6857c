// Package patchset parses a release's patch series and applies it strictly
// to an upstream work tree, one commit per patch, keeping authorship.
package patchset

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"mime"
	"os"
	"regexp"
	"strings"

	"github.com/bluekeyes/go-gitdiff/gitdiff"
)

// Patch is one change of the series: a commit's worth of file diffs with
// the author, date and message it must be committed with.
type Patch struct {
	// File is the patch file's name inside the recipe folder.
	File string
	// Part is the 1-based position of this patch inside File; files made
	// by `git format-patch --stdout` may hold several.
	Part   int
	Parts  int
	Header *gitdiff.PatchHeader
	Files  []*gitdiff.File
	// SHA256 identifies the patch's bytes (the record of an applied tree
	// keeps it to tell whether a patch changed since).
	SHA256 string
}

// Name is how errors and reports refer to the patch.
func (p *Patch) Name() string {
	if p.Parts > 1 {
		return fmt.Sprintf("%s (patch %d of %d)", p.File, p.Part, p.Parts)
	}
	return p.File
}

// mboxSeparator starts each message in `git format-patch` output.
var mboxSeparator = regexp.MustCompile(`(?m)^From [0-9a-f]{40} Mon Sep 17 00:00:00 2001\n`)

// ParseFile reads a patch file: one patch, or several in mbox form.
func ParseFile(path, name string) ([]*Patch, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("patch %s: %w", name, err)
	}
	return Parse(name, data)
}

// Parse splits data into its patches and parses each one.
func Parse(name string, data []byte) ([]*Patch, error) {
	chunks := splitMbox(data)
	patches := make([]*Patch, 0, len(chunks))
	for i, c := range chunks {
		p, err := parseOne(c.data)
		if err != nil {
			where := name
			if len(chunks) > 1 {
				where = fmt.Sprintf("%s (patch %d of %d, starting at line %d)", name, i+1, len(chunks), c.line)
			}
			return nil, &ParseError{Patch: where, Err: err}
		}
		p.File, p.Part, p.Parts = name, i+1, len(chunks)
		patches = append(patches, p)
	}
	return patches, nil
}

type chunk struct {
	data []byte
	line int
}

func splitMbox(data []byte) []chunk {
	locs := mboxSeparator.FindAllIndex(data, -1)
	if len(locs) <= 1 {
		return []chunk{{data: data, line: 1}}
	}
	var out []chunk
	if pre := bytes.TrimSpace(data[:locs[0][0]]); len(pre) > 0 {
		// Text before the first message is not a patch; keep it with the
		// first one so a parse error points at it.
		locs[0][0] = 0
	}
	for i, l := range locs {
		end := len(data)
		if i+1 < len(locs) {
			end = locs[i+1][0]
		}
		out = append(out, chunk{data: data[l[0]:end], line: 1 + bytes.Count(data[:l[0]], []byte("\n"))})
	}
	return out
}

func parseOne(data []byte) (*Patch, error) {
	files, preamble, err := gitdiff.Parse(bytes.NewReader(data))
	if err != nil {
		return nil, err
	}
	if err := checkHunkCounts(data); err != nil {
		return nil, err
	}
	if len(files) == 0 {
		return nil, fmt.Errorf("no file changes found (an empty or truncated patch; git am refuses those too)")
	}
	header, err := gitdiff.ParsePatchHeader(preamble, gitdiff.WithSubjectCleanMode(gitdiff.SubjectCleanPatchOnly))
	if err != nil {
		return nil, fmt.Errorf("header: %w", err)
	}
	if header.Author == nil || header.AuthorDate.IsZero() || strings.TrimSpace(header.Title) == "" {
		return nil, fmt.Errorf("header needs From:, Date: and Subject: lines (write patches with `git format-patch` or `epp-build export`)")
	}
	// Mail headers carry non-ASCII names RFC 2047-encoded, as git
	// format-patch writes them; git am decodes them, so do we.
	if name, err := new(mime.WordDecoder).DecodeHeader(header.Author.Name); err == nil {
		header.Author.Name = name
	}
	for _, f := range files {
		for _, frag := range f.TextFragments {
			if err := frag.Validate(); err != nil {
				return nil, fmt.Errorf("%s: hunk %s: %w", fileName(f), strings.TrimSpace(frag.Header()), err)
			}
		}
	}
	sum := sha256.Sum256(data)
	return &Patch{Header: header, Files: files, SHA256: hex.EncodeToString(sum[:])}, nil
}

// fileName is the path a file diff is about, for messages.
func fileName(f *gitdiff.File) string {
	if f.NewName != "" {
		return f.NewName
	}
	return f.OldName
}
