// Package patchset parses a release's patch series and applies it strictly
// to an upstream work tree, one commit per patch, keeping authorship.
//
// The series is applied to the tree in memory first, so a patch that does
// not apply writes nothing. ApplyTo composes the rest of apply around it:
// guard decides whether an existing output may be replaced, gitstore
// stores the objects, refs and index, outdir stages and swaps the output
// folder or journals an update in place.
package patchset

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"mime"
	"regexp"
	"runtime"
	"runtime/debug"
	"strings"
	"sync"

	"github.com/bluekeyes/go-gitdiff/gitdiff"

	"github.com/epp-build/epp-build/internal/inputfile"
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
	return parseFile(path, name, nil)
}

func parseFile(path, name string, plain PlainHeader) ([]*Patch, error) {
	text, err := readText(path)
	if err != nil {
		return nil, fmt.Errorf("patch %s: %w", name, err)
	}
	if len(text) > largePatch {
		// go-gitdiff grows a slice entry by entry for every hunk line;
		// with the default GC target the discarded copies would double
		// the heap while a large patch is parsed. Collecting them before
		// the target is restored keeps them from setting the next one.
		// The GC target is the process's: one large parse at a time.
		largeParse.Lock()
		defer largeParse.Unlock()
		defer debug.SetGCPercent(debug.SetGCPercent(20))
		defer runtime.GC()
	}
	if plain != nil && IsPlainDiff(text) {
		return parsePlain(name, text, plain)
	}
	return parseText(name, text)
}

// largePatch is the size from which parsing trades some CPU for memory.
const largePatch = 32 << 20

var largeParse sync.Mutex

// Parse splits data into its patches and parses each one.
func Parse(name string, data []byte) ([]*Patch, error) {
	return parseText(name, string(data))
}

// readText reads a file into a string without a second copy: the parsed
// hunk lines are substrings of it, so a patch costs its own size once
// instead of once more per line.
func readText(path string) (string, error) {
	f, err := inputfile.Open(path, "", inputfile.PatchLimit())
	if err != nil {
		return "", err
	}
	defer f.Close()
	var b strings.Builder
	if fi, err := f.Stat(); err == nil {
		b.Grow(int(fi.Size()))
	}
	if _, err := io.Copy(&b, f); err != nil {
		return "", err
	}
	return b.String(), nil
}

func parseText(name, text string) ([]*Patch, error) {
	chunks := splitMbox(text)
	patches := make([]*Patch, 0, len(chunks))
	for i, c := range chunks {
		p, err := parseOne(c.text)
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
	text string
	line int
}

func splitMbox(text string) []chunk {
	locs := mboxSeparators(text)
	if len(locs) <= 1 {
		return []chunk{{text: text, line: 1}}
	}
	var out []chunk
	if pre := strings.TrimSpace(text[:locs[0][0]]); len(pre) > 0 {
		// Text before the first message is not a patch; keep it with the
		// first one so a parse error points at it.
		locs[0][0] = 0
	}
	for i, l := range locs {
		end := len(text)
		if i+1 < len(locs) {
			end = locs[i+1][0]
		}
		out = append(out, chunk{text: text[l[0]:end], line: 1 + strings.Count(text[:l[0]], "\n")})
	}
	return out
}

// mboxSeparators finds the separator lines; only lines starting with
// "From " go through the regexp, which would be slow on a large patch.
func mboxSeparators(text string) [][]int {
	var locs [][]int
	for i := 0; i < len(text); {
		j := strings.Index(text[i:], "From ")
		if j < 0 {
			break
		}
		at := i + j
		i = at + 1
		if at > 0 && text[at-1] != '\n' {
			continue
		}
		end := len(text)
		if k := strings.IndexByte(text[at:], '\n'); k >= 0 {
			end = at + k + 1
		}
		if m := mboxSeparator.FindStringIndex(text[at:end]); m != nil && m[0] == 0 {
			locs = append(locs, []int{at, at + m[1]})
		}
	}
	return locs
}

// lineReader hands go-gitdiff the lines of a patch as substrings of it,
// where a bufio.Reader would allocate a string per line.
type lineReader struct{ rest string }

func (r *lineReader) ReadString(delim byte) (string, error) {
	if r.rest == "" {
		return "", io.EOF
	}
	i := strings.IndexByte(r.rest, delim)
	if i < 0 {
		line := r.rest
		r.rest = ""
		return line, io.EOF
	}
	line := r.rest[:i+1]
	r.rest = r.rest[i+1:]
	return line, nil
}

// Read makes lineReader an io.Reader, as gitdiff.Parse's signature asks;
// go-gitdiff only calls ReadString.
func (r *lineReader) Read(b []byte) (int, error) {
	if r.rest == "" {
		return 0, io.EOF
	}
	n := copy(b, r.rest)
	r.rest = r.rest[n:]
	return n, nil
}

func parseOne(text string) (*Patch, error) {
	files, preamble, err := parseFiles(text)
	if err != nil {
		return nil, err
	}
	clean := gitdiff.WithSubjectCleanMode(gitdiff.SubjectCleanPatchOnly)
	header, err := gitdiff.ParsePatchHeader(preamble, clean)
	if err != nil {
		return nil, fmt.Errorf("header: %w", err)
	}
	if strings.HasPrefix(strings.TrimSpace(preamble), "From") {
		if err := applyInBodyHeaders(header, clean); err != nil {
			return nil, fmt.Errorf("in-body header: %w", err)
		}
	}
	if header.Author == nil || header.AuthorDate.IsZero() || strings.TrimSpace(header.Title) == "" {
		return nil, fmt.Errorf("header needs From:, Date: and Subject: lines (write patches with `git format-patch` or `epp-build export`)")
	}
	// Mail headers carry non-ASCII names RFC 2047-encoded, as git
	// format-patch writes them; git am decodes them, so do we.
	if name, err := new(mime.WordDecoder).DecodeHeader(header.Author.Name); err == nil {
		header.Author.Name = name
	}
	return &Patch{Header: header, Files: files, SHA256: sha256Hex(text)}, nil
}

// parseFiles reads the file diffs of one patch and checks that every hunk
// is whole; preamble is the text before the first diff.
func parseFiles(text string) ([]*gitdiff.File, string, error) {
	files, preamble, err := gitdiff.Parse(&lineReader{rest: text})
	if err != nil {
		return nil, "", err
	}
	if err := checkHunkCounts(text); err != nil {
		return nil, "", err
	}
	if len(files) == 0 {
		return nil, "", fmt.Errorf("no file changes found (an empty or truncated patch; git am refuses those too)")
	}
	for _, f := range files {
		for _, frag := range f.TextFragments {
			if err := frag.Validate(); err != nil {
				return nil, "", fmt.Errorf("%s: hunk %s: %w", fileName(f), strings.TrimSpace(frag.Header()), err)
			}
		}
	}
	return files, preamble, nil
}

// sha256Hex hashes text through one small buffer, so a large patch is
// not copied into a byte slice for it.
func sha256Hex(text string) string {
	h := sha256.New()
	buf := make([]byte, 1<<16)
	for len(text) > 0 {
		n := copy(buf, text)
		h.Write(buf[:n])
		text = text[n:]
	}
	return hex.EncodeToString(h.Sum(nil))
}

// fileName is the path a file diff is about, for messages.
func fileName(f *gitdiff.File) string {
	if f.NewName != "" {
		return f.NewName
	}
	return f.OldName
}
