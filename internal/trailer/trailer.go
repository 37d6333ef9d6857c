// Package trailer reads and edits the trailers of a commit message body
// ("Key: value" lines in its last paragraph) by the rules git
// interpret-trailers reads them with, so that every command that looks
// for an Upstream: or Reason: finds what git would.
package trailer

import (
	"strings"
)

// Trailer is one "Key: value" line, its continuation lines unfolded into
// Value.
type Trailer struct {
	Key, Value string
}

// List is a message's trailers in the order written.
type List []Trailer

// Values are the values of key's trailers; keys compare without case, as
// git compares them.
func (l List) Values(key string) []string {
	var out []string
	for _, t := range l {
		if strings.EqualFold(t.Key, key) {
			out = append(out, t.Value)
		}
	}
	return out
}

// gitGenerated are the lines git writes itself: a paragraph with one of
// them is a trailer block when a quarter of its lines are trailers.
var gitGenerated = []string{"Signed-off-by: ", "(cherry picked from commit "}

// Split separates body (a message without its subject line) into the
// prose and the trailer block, the last paragraph when, as git requires,
// all its lines are trailers or continuation lines (indented), or a
// quarter are and one is a line git generates. Without a block, prose is
// body. Neither has the blank lines that separated them.
func Split(body string) (prose, block string) {
	body = strings.TrimRight(body, " \t\n")
	lines := strings.Split(body, "\n")
	start := 0 // the body's start acts as the blank line after the subject
	for i := len(lines) - 1; i >= 0; i-- {
		if strings.TrimSpace(lines[i]) == "" {
			start = i + 1
			break
		}
	}
	para := lines[start:]
	if body == "" || !isBlock(para) {
		return strings.TrimRight(body, "\n"), ""
	}
	prose = strings.TrimRight(strings.Join(lines[:start], "\n"), " \t\n")
	return prose, strings.Join(para, "\n")
}

func isBlock(para []string) bool {
	trailers, others := 0, 0
	recognized := false
	// An indented line continues the line above it: a trailer's value, or
	// prose (and the paragraph's first line has only the blank line above).
	inTrailer := false
	for _, l := range para {
		switch {
		case hasPrefix(l, gitGenerated):
			trailers++
			recognized, inTrailer = true, true
		case separator(l) > 0:
			trailers++
			inTrailer = true
		case l[0] == ' ' || l[0] == '\t':
			if !inTrailer {
				others++
			}
		default:
			others++
			inTrailer = false
		}
	}
	if trailers == 0 {
		return false
	}
	return others == 0 || (recognized && trailers*3 >= others)
}

func hasPrefix(l string, prefixes []string) bool {
	for _, p := range prefixes {
		if strings.HasPrefix(l, p) {
			return true
		}
	}
	return false
}

// separator is the index of the colon that ends a trailer's key, or -1:
// the key is letters, digits and hyphens, then optional blanks.
func separator(l string) int {
	blank := false
	for i := 0; i < len(l); i++ {
		c := l[i]
		switch {
		case c == ':':
			if i == 0 {
				return -1
			}
			return i
		case !blank && (c == '-' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9'):
		case i > 0 && (c == ' ' || c == '\t'):
			blank = true
		default:
			return -1
		}
	}
	return -1
}

// Lines are the entries of body's trailer block as written: each trailer
// line with its continuation lines, and any other line of the block.
func Lines(body string) []string {
	_, block := Split(body)
	if block == "" {
		return nil
	}
	var out []string
	for _, l := range strings.Split(block, "\n") {
		if len(out) > 0 && (l[0] == ' ' || l[0] == '\t') {
			out[len(out)-1] += "\n" + l
			continue
		}
		out = append(out, l)
	}
	return out
}

// Parse returns body's trailers.
func Parse(body string) List {
	var out List
	for _, e := range Lines(body) {
		i := separator(e)
		if i < 0 {
			continue // a line git generates without a key, or prose
		}
		out = append(out, Trailer{Key: strings.TrimSpace(e[:i]), Value: unfold(e[i+1:])})
	}
	return out
}

// unfold joins a value's continuation lines with single spaces, as git
// prints it.
func unfold(v string) string {
	parts := strings.Split(v, "\n")
	for i := range parts {
		parts[i] = strings.TrimSpace(parts[i])
	}
	return strings.TrimSpace(strings.Join(parts, " "))
}

// Add appends "key: value" to body's trailer block, starting a block when
// body has none.
func Add(body, key, value string) string {
	prose, block := Split(body)
	line := key + ": " + value
	switch {
	case block != "":
		block += "\n" + line
	default:
		block = line
	}
	return join(prose, block)
}

// Remove drops key's trailers, with their continuation lines, from body's
// trailer block; keys compare without case.
func Remove(body, key string) string {
	prose, block := Split(body)
	if block == "" {
		return body
	}
	var keep []string
	for _, e := range Lines(body) {
		if i := separator(e); i > 0 && strings.EqualFold(strings.TrimSpace(e[:i]), key) {
			continue
		}
		keep = append(keep, e)
	}
	return join(prose, strings.Join(keep, "\n"))
}

// Prose is body without its trailer block.
func Prose(body string) string {
	prose, _ := Split(body)
	return prose
}

func join(prose, block string) string {
	switch {
	case block == "":
		return prose
	case prose == "":
		return block
	default:
		return prose + "\n\n" + block
	}
}
