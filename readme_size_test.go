package eppbuild

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"unicode"
)

// The README is the front door: what epp-build is, how to install it, a
// quick start, the commands and the supported versions. Everything else
// lives under docs/.
const (
	readmeMaxLines = 300
	readmeMaxWidth = 120
)

// TestREADMEStaysAFrontDoor: README.md holds at most readmeMaxLines lines,
// and none of its prose or table lines is wider than readmeMaxWidth
// (commands in code blocks and lines naming a URL may be).
func TestREADMEStaysAFrontDoor(t *testing.T) {
	data, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
	if len(lines) > readmeMaxLines {
		t.Errorf("README.md has %d lines, more than %d: move a section into docs/ and link it", len(lines), readmeMaxLines)
	}
	for i, line := range proseLines(lines) {
		if line == "" || strings.Contains(line, "://") {
			continue
		}
		if n := len([]rune(line)); n > readmeMaxWidth {
			t.Errorf("README.md:%d is %d characters wide, more than %d: wrap it", i+1, n, readmeMaxWidth)
		}
	}
}

// TestDocLinksResolve: every relative link in README.md and the markdown
// files under docs/ names a file or folder of this repository, and a
// #fragment on a markdown file names one of its headings.
func TestDocLinksResolve(t *testing.T) {
	files := []string{"README.md"}
	err := filepath.WalkDir("docs", func(path string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(path, ".md") {
			files = append(files, path)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	anchors := map[string]map[string]bool{}
	anchorsOf := func(path string) map[string]bool {
		if a, ok := anchors[path]; ok {
			return a
		}
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		a := headingAnchors(strings.Split(string(data), "\n"))
		anchors[path] = a
		return a
	}
	for _, file := range files {
		data, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		for i, line := range proseLines(strings.Split(string(data), "\n")) {
			for _, m := range linkTarget.FindAllStringSubmatch(line, -1) {
				target := m[1]
				if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
					continue
				}
				path, fragment, _ := strings.Cut(target, "#")
				resolved := file
				if path != "" {
					resolved = filepath.Join(filepath.Dir(file), filepath.FromSlash(path))
					if _, err := os.Stat(resolved); err != nil {
						t.Errorf("%s:%d links to %s, which does not exist", file, i+1, target)
						continue
					}
				}
				if fragment != "" && strings.HasSuffix(resolved, ".md") && !anchorsOf(resolved)[fragment] {
					t.Errorf("%s:%d links to %s: %s has no heading with the anchor #%s", file, i+1, target, resolved, fragment)
				}
			}
		}
	}
}

// linkTarget finds the target of an inline markdown link, [text](target).
var linkTarget = regexp.MustCompile(`\]\(([^)\s]+)\)`)

// proseLines returns lines with those of fenced and indented code blocks
// blanked, so that line numbers stay the file's.
func proseLines(lines []string) []string {
	out := make([]string, len(lines))
	fenced, prevBlank := false, true
	indented := false
	for i, line := range lines {
		trimmed := strings.TrimSpace(line)
		switch {
		case strings.HasPrefix(trimmed, "```"):
			fenced = !fenced
		case fenced:
		case strings.HasPrefix(line, "    ") && (prevBlank || indented) && !isListContinuation(lines, i):
			indented = true
		default:
			if trimmed != "" {
				indented = false
			}
			out[i] = line
		}
		prevBlank = trimmed == ""
	}
	return out
}

// isListContinuation reports whether the indented line i belongs to a
// list item (its paragraph or a block nested in it) rather than being a
// code block of its own.
func isListContinuation(lines []string, i int) bool {
	for j := i - 1; j >= 0; j-- {
		l := lines[j]
		if strings.TrimSpace(l) == "" {
			continue
		}
		if strings.HasPrefix(l, "    ") || strings.HasPrefix(l, "  ") {
			continue
		}
		return listItem.MatchString(l)
	}
	return false
}

var listItem = regexp.MustCompile(`^(\s*[-*+]\s|\s*\d+\.\s)`)

// headingAnchors returns the anchors GitHub gives a markdown file's
// headings: lower case, punctuation dropped, spaces as hyphens, a
// repeated one suffixed -1, -2, ...
func headingAnchors(lines []string) map[string]bool {
	anchors := map[string]bool{}
	seen := map[string]int{}
	for _, line := range proseLines(lines) {
		if !strings.HasPrefix(line, "#") {
			continue
		}
		text := strings.TrimSpace(strings.TrimLeft(line, "#"))
		var b strings.Builder
		for _, r := range strings.ToLower(text) {
			switch {
			case unicode.IsLetter(r) || unicode.IsDigit(r) || r == '-' || r == '_':
				b.WriteRune(r)
			case r == ' ':
				b.WriteRune('-')
			}
		}
		slug := b.String()
		if n := seen[slug]; n > 0 {
			anchors[slug+"-"+strconv.Itoa(n)] = true
		} else {
			anchors[slug] = true
		}
		seen[slug]++
	}
	return anchors
}
