package recipe

import (
	"fmt"
	"regexp"
	"strings"
	"unicode"
)

// Reproduces says which Dynamo release a recipe stands for and how far its
// facts were checked: at that release's own sources, or only at a named
// commit near it. A version folder's name promises a release; this block
// is what keeps the promise honest.
type Reproduces struct {
	// Release is the Dynamo release the recipe stands for, such as v1.4.2.
	Release string `yaml:"release" json:"release"`
	// Commit is the Dynamo commit whose sources the recipe's facts were
	// read at.
	Commit string `yaml:"commit" json:"commit"`
	// Checked is CheckedRelease when Commit is the release's own tag, and
	// CheckedCommit when only Commit could be read.
	Checked string `yaml:"checked" json:"checked"`
	// Note says, for CheckedCommit, which commit that is and why it
	// stands in for the release.
	Note string `yaml:"note,omitempty" json:"note,omitempty"`
}

// The values of Reproduces.Checked.
const (
	// CheckedRelease: the facts were read at the release's tag sources.
	CheckedRelease = "release"
	// CheckedCommit: the release's sources could not be read; the facts
	// were read at Reproduces.Commit instead.
	CheckedCommit = "commit"
)

// AtRelease says whether the recipe's facts were checked at the release
// it names.
func (p *Reproduces) AtRelease() bool { return p != nil && p.Checked == CheckedRelease }

// releaseName is a Dynamo release as its tags spell it.
var releaseName = regexp.MustCompile(`^v[0-9]+\.[0-9]+\.[0-9]+([-.+][A-Za-z0-9.]+)?$`)

// checkReproduces lists the problems of the reproduces block. It is
// optional for a recipe on its own (lint asks every recipe under patches/
// for one); when present it must be complete.
func (r *Recipe) checkReproduces() []string {
	p := r.Reproduces
	if p == nil {
		return nil
	}
	var out []string
	add := func(format string, args ...any) { out = append(out, fmt.Sprintf(format, args...)) }
	if !releaseName.MatchString(p.Release) {
		add("reproduces.release %q must be a Dynamo release tag such as v1.4.2", p.Release)
	}
	if !fullSHA.MatchString(p.Commit) {
		add("reproduces.commit %q must be the full 40-hex-digit Dynamo commit the recipe's facts were read at", p.Commit)
	}
	switch p.Checked {
	case CheckedRelease:
	case CheckedCommit:
		if strings.TrimSpace(p.Note) == "" {
			add("reproduces.note is required when checked is commit: say which commit reproduces.commit is and why it stands in for %s", p.Release)
		}
	default:
		add("reproduces.checked %q must be release (read at the release's own tag sources) or commit (only reproduces.commit could be read)", p.Checked)
	}
	if strings.ContainsFunc(p.Note, func(c rune) bool { return unicode.IsControl(c) && c != '\n' }) {
		add("reproduces.note must be plain text (no control characters)")
	}
	return out
}
