// Package export turns the commits of a work tree made by `apply` back into
// patch files, byte for byte the same for the same commits.
package export

import (
	"bytes"
	"compress/zlib"
	"fmt"
	"mime"
	"os"
	"regexp"
	"sort"
	"strings"

	"github.com/bluekeyes/go-gitdiff/gitdiff"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/go-git/go-git/v5/plumbing/storer"

	"github.com/epp-build/epp-build/internal/gitformat"
)

// The fixed header layout of `git format-patch --zero-commit --keep-subject
// --no-stat --no-signature --full-index`: no commit id, no version line.
const (
	fromLine   = "From 0000000000000000000000000000000000000000 Mon Sep 17 00:00:00 2001\n"
	dateLayout = "Mon, 2 Jan 2006 15:04:05 -0700"
)

// hunkHeader matches a hunk header's ranges.
var hunkHeader = regexp.MustCompile(`(?m)^@@ -(\d+(?:,\d+)?) \+(\d+(?:,\d+)?) @@`)

// shortCounts drops a range's ",1" as git does ("@@ -3 +3 @@").
func shortCounts(s string) string {
	return hunkHeader.ReplaceAllStringFunc(s, func(h string) string {
		m := hunkHeader.FindStringSubmatch(h)
		return "@@ -" + strings.TrimSuffix(m[1], ",1") + " +" + strings.TrimSuffix(m[2], ",1") + " @@"
	})
}

// FormatCommit renders commit c (against its single parent) as a patch.
func FormatCommit(store storer.EncodedObjectStorer, c *object.Commit) ([]byte, error) {
	if c.NumParents() != 1 {
		return nil, fmt.Errorf("commit %s has %d parents; the series must be a straight line of commits", gitformat.Short(c.Hash.String()), c.NumParents())
	}
	parent, err := c.Parent(0)
	if err != nil {
		return nil, fmt.Errorf("commit %s: parent: %w", gitformat.Short(c.Hash.String()), err)
	}
	files, err := fileDiffs(store, parent, c)
	if err != nil {
		return nil, fmt.Errorf("commit %s: %w", gitformat.Short(c.Hash.String()), err)
	}
	var b bytes.Buffer
	writeHeader(&b, c)
	for _, f := range files {
		b.WriteString(shortCounts(f.String()))
	}
	return b.Bytes(), nil
}

func writeHeader(b *bytes.Buffer, c *object.Commit) {
	subject, body := splitMessage(c.Message)
	b.WriteString(fromLine)
	fmt.Fprintf(b, "From: %s <%s>\n", encodeName(c.Author.Name), c.Author.Email)
	fmt.Fprintf(b, "Date: %s\n", c.Author.When.Format(dateLayout))
	fmt.Fprintf(b, "Subject: %s\n", encodeWord(subject))
	if !isASCII(c.Message) {
		b.WriteString("MIME-Version: 1.0\nContent-Type: text/plain; charset=UTF-8\nContent-Transfer-Encoding: 8bit\n")
	}
	b.WriteString("\n")
	if body != "" {
		b.WriteString(body)
		b.WriteString("\n")
	}
	// With --no-stat, git writes a blank line where the "---" and the
	// diffstat would be.
	b.WriteString("\n")
}

// splitMessage separates the subject (first line) from the body, with the
// blank lines around the body removed.
func splitMessage(msg string) (string, string) {
	msg = strings.TrimRight(msg, "\n")
	subject, body, _ := strings.Cut(msg, "\n")
	return strings.TrimSpace(subject), strings.Trim(body, "\n")
}

func encodeWord(s string) string {
	if isASCII(s) {
		return s
	}
	return mime.QEncoding.Encode("UTF-8", s)
}

// encodeName quotes or encodes an author name the way git does.
func encodeName(name string) string {
	if !isASCII(name) {
		return mime.QEncoding.Encode("UTF-8", name)
	}
	if strings.ContainsAny(name, `()<>[]:;@\,."`) {
		return `"` + strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(name) + `"`
	}
	return name
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}

// fileDiffs lists the changes between two commits in path order, pairing
// a delete and an add of the same content as a rename.
func fileDiffs(store storer.EncodedObjectStorer, parent, c *object.Commit) ([]*gitdiff.File, error) {
	from, err := parent.Tree()
	if err != nil {
		return nil, err
	}
	to, err := c.Tree()
	if err != nil {
		return nil, err
	}
	changes, err := object.DiffTree(from, to)
	if err != nil {
		return nil, err
	}
	changes = pairRenames(changes)
	sort.SliceStable(changes, func(i, j int) bool { return changeName(changes[i]) < changeName(changes[j]) })
	files := make([]*gitdiff.File, 0, len(changes))
	for _, ch := range changes {
		f, err := fileDiff(store, ch)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", changeName(ch), err)
		}
		files = append(files, f)
	}
	return files, nil
}

func changeName(ch *object.Change) string {
	if ch.To.Name != "" {
		return ch.To.Name
	}
	return ch.From.Name
}

// pairRenames merges a deletion and an addition of identical content into
// one change. Only exact renames are detected, so output never depends on
// a similarity threshold.
func pairRenames(changes object.Changes) object.Changes {
	added := map[plumbing.Hash][]*object.Change{}
	for _, ch := range changes {
		if ch.From.Name == "" {
			added[ch.To.TreeEntry.Hash] = append(added[ch.To.TreeEntry.Hash], ch)
		}
	}
	paired := map[*object.Change]bool{}
	var out object.Changes
	for _, ch := range changes {
		if ch.To.Name != "" {
			continue
		}
		if cands := added[ch.From.TreeEntry.Hash]; len(cands) > 0 {
			added[ch.From.TreeEntry.Hash] = cands[1:]
			paired[ch], paired[cands[0]] = true, true
			out = append(out, &object.Change{From: ch.From, To: cands[0].To})
		}
	}
	for _, ch := range changes {
		if !paired[ch] {
			out = append(out, ch)
		}
	}
	return out
}

func fileDiff(store storer.EncodedObjectStorer, ch *object.Change) (*gitdiff.File, error) {
	from, to := ch.From, ch.To
	f := &gitdiff.File{OldName: from.Name, NewName: to.Name}
	oldData, err := blob(store, from.TreeEntry.Hash)
	if err != nil {
		return nil, err
	}
	newData, err := blob(store, to.TreeEntry.Hash)
	if err != nil {
		return nil, err
	}
	oldMode, newMode := os.FileMode(from.TreeEntry.Mode), os.FileMode(to.TreeEntry.Mode)
	switch {
	case from.Name == "":
		f.IsNew, f.NewMode = true, newMode
	case to.Name == "":
		f.IsDelete, f.OldMode = true, oldMode
	case oldMode != newMode:
		f.OldMode, f.NewMode = oldMode, newMode
	case from.Name == to.Name:
		f.OldMode = oldMode // printed on the index line
	}
	if from.Name != "" && to.Name != "" && from.Name != to.Name {
		f.IsRename, f.Score = true, 100
	}
	if bytes.Equal(oldData, newData) && !f.IsNew && !f.IsDelete {
		return f, nil // a rename or a mode change: no content
	}
	f.OldOIDPrefix, f.NewOIDPrefix = from.TreeEntry.Hash.String(), to.TreeEntry.Hash.String()
	if isBinary(oldData) || isBinary(newData) {
		f.IsBinary = true
		f.BinaryFragment = literal(newData)
		f.ReverseBinaryFragment = literal(oldData)
		return f, nil
	}
	f.TextFragments = textFragments(string(oldData), string(newData))
	return f, nil
}

func literal(data []byte) *gitdiff.BinaryFragment {
	var z bytes.Buffer
	w, _ := zlib.NewWriterLevel(&z, zlib.DefaultCompression)
	w.Write(data)
	w.Close()
	return &gitdiff.BinaryFragment{Method: gitdiff.BinaryPatchLiteral, Size: int64(len(data)), RawData: z.Bytes()}
}

func blob(store storer.EncodedObjectStorer, h plumbing.Hash) ([]byte, error) {
	if h.IsZero() {
		return nil, nil
	}
	b, err := object.GetBlob(store, h)
	if err != nil {
		return nil, fmt.Errorf("blob %s: %w", h, err)
	}
	r, err := b.Reader()
	if err != nil {
		return nil, err
	}
	defer r.Close()
	var buf bytes.Buffer
	_, err = buf.ReadFrom(r)
	return buf.Bytes(), err
}
