package patchset

import (
	"strings"

	"github.com/bluekeyes/go-gitdiff/gitdiff"
)

// PlainHeader gives a plain diff the author, date and message it lacks;
// it is called with the file's name, and only for a plain diff, so a
// caller can leave defaults it cannot work out to the files that need
// them.
type PlainHeader func(name string) (*gitdiff.PatchHeader, error)

// ParseFileOrDiff is ParseFile that also takes plain diff output (`git
// diff`, `diff -u`), which has no mail header to commit it with.
func ParseFileOrDiff(path, name string, plain PlainHeader) ([]*Patch, error) {
	return parseFile(path, name, plain)
}

// IsPlainDiff says whether text starts with a diff rather than a mail or
// commit header. Only a first line that can be nothing but a diff counts:
// a file with a partial header stays a patch whose header is incomplete.
func IsPlainDiff(text string) bool {
	first := strings.TrimLeft(text, "\n")
	return strings.HasPrefix(first, "diff ") || strings.HasPrefix(first, "--- ")
}

func parsePlain(name, text string, plain PlainHeader) ([]*Patch, error) {
	files, _, err := parseFiles(text)
	if err != nil {
		return nil, &ParseError{Patch: name, Err: err}
	}
	if !strings.Contains("\n"+text, "\ndiff --git ") {
		stripTraditionalPrefixes(files)
	}
	h, err := plain(name)
	if err != nil {
		return nil, err
	}
	return []*Patch{{File: name, Part: 1, Parts: 1, Header: h, Files: files, SHA256: sha256Hex(text)}}, nil
}

// stripTraditionalPrefixes drops the a/ and b/ of a `diff -u a b` when
// every name has them: git apply drops them too, while the parser keeps
// a traditional header's names whole (git's own headers lose theirs).
// Other prefixes are left, to fail as a missing file rather than be
// guessed at.
func stripTraditionalPrefixes(files []*gitdiff.File) {
	strip := func(name string) (string, bool) {
		if name == "" {
			return "", true
		}
		if rest, ok := strings.CutPrefix(name, "a/"); ok {
			return rest, true
		}
		return strings.CutPrefix(name, "b/")
	}
	for _, f := range files {
		if _, ok := strip(f.OldName); !ok {
			return
		}
		if _, ok := strip(f.NewName); !ok {
			return
		}
	}
	for _, f := range files {
		f.OldName, _ = strip(f.OldName)
		f.NewName, _ = strip(f.NewName)
	}
}
