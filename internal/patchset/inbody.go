package patchset

import (
	"regexp"
	"strings"

	"github.com/bluekeyes/go-gitdiff/gitdiff"
)

// git am reads From:, Subject: and Date: lines at the top of a mail's body
// as the commit's author, subject and date, over the mail's own headers
// (format-patch writes them there when the author is not the sender).
// The series must mean the same to us as to git am: a patch whose body
// starts with "From: Someone" is Someone's commit either way.

// inBodyHeader is a line git am takes as an in-body header: the key's
// case does not matter, and "[PATCH] text" is a subject.
var inBodyHeader = regexp.MustCompile(`^(?i:(from|subject|date)):|^\[PATCH\][ \t]`)

// applyInBodyHeaders moves the in-body header lines at the top of h.Body
// into h, and leaves the rest as the body.
func applyInBodyHeaders(h *gitdiff.PatchHeader, opts ...gitdiff.PatchHeaderOption) error {
	block, rest := splitInBody(h.Body)
	if len(block) == 0 {
		return nil
	}
	var seen = map[string]bool{}
	for i, l := range block {
		if strings.HasPrefix(l, "[PATCH]") {
			block[i] = "Subject: " + l
		}
		if m := inBodyHeader.FindStringSubmatch(block[i]); m != nil {
			key := strings.ToLower(m[1])
			if key == "" {
				key = "subject"
			}
			seen[key] = true
		}
	}
	// The mail parser reads the block as a mail's headers, with the
	// same identity, date and subject rules as the real ones.
	parsed, err := gitdiff.ParsePatchHeader(mboxLine+strings.Join(block, "\n")+"\n\n"+rest, opts...)
	if err != nil {
		return err
	}
	if seen["from"] {
		h.Author = parsed.Author
	}
	if seen["date"] {
		h.AuthorDate = parsed.AuthorDate
	}
	if seen["subject"] {
		h.SubjectPrefix, h.Title = parsed.SubjectPrefix, parsed.Title
	}
	h.Body = parsed.Body
	return nil
}

const mboxLine = "From 0000000000000000000000000000000000000000 Mon Sep 17 00:00:00 2001\n"

// splitInBody cuts body into its in-body header lines (with their
// continuation lines) and the rest: the headers end at a blank line,
// which goes with them, or at the first other line, which does not.
func splitInBody(body string) (block []string, rest string) {
	rest = strings.TrimLeft(body, "\n")
	for rest != "" {
		line, after, _ := strings.Cut(rest, "\n")
		switch {
		case line == "":
			return block, after
		case inBodyHeader.MatchString(line):
			block = append(block, line)
		case len(block) > 0 && (line[0] == ' ' || line[0] == '\t'):
			block[len(block)-1] += "\n" + line
		default:
			return block, rest
		}
		rest = after
	}
	return block, rest
}
