// Package review reads a release's series for people: the list of
// versions, the per-patch log, the comparison of two versions' series, and
// the lint rules, with their text and Markdown renderings.
package review

import (
	"sort"
	"strings"

	"github.com/epp-build/epp-build/internal/patchset"
	"github.com/epp-build/epp-build/internal/recipe"
	"github.com/epp-build/epp-build/internal/trailer"
)

// Entry is one patch of a series as a reviewer reads it.
type Entry struct {
	Index    int      `json:"index"`
	File     string   `json:"file"`
	Version  string   `json:"version"`
	Subject  string   `json:"subject"`
	Author   string   `json:"author"`
	Date     string   `json:"date"`
	Upstream []string `json:"upstream,omitempty"`
	Reason   []string `json:"reason,omitempty"`
	Files    []string `json:"files"`
	SHA256   string   `json:"sha256"`

	patch *patchset.Patch
}

// Log lists the whole series of r.
func Log(r *recipe.Recipe) ([]Entry, error) {
	series, err := patchset.LoadSeries(r)
	if err != nil {
		return nil, err
	}
	patches := series.Patches()
	versionOf := map[string]string{}
	for _, sp := range r.Series {
		versionOf[sp.Name] = sp.Version
	}
	out := make([]Entry, 0, len(patches))
	for i, p := range patches {
		tr := trailer.Parse(p.Header.Body)
		out = append(out, Entry{
			Index: i + 1, File: p.File, Version: versionOf[p.File], Subject: p.Header.Title,
			Author: p.Header.Author.String(), Date: p.Header.AuthorDate.Format("2006-01-02"),
			Upstream: tr.Values("Upstream"), Reason: tr.Values("Reason"), Files: touched(p), SHA256: p.SHA256, patch: p,
		})
	}
	return out, nil
}

func touched(p *patchset.Patch) []string {
	set := map[string]bool{}
	for _, f := range p.Files {
		for _, n := range []string{f.OldName, f.NewName} {
			if n != "" {
				set[n] = true
			}
		}
	}
	files := make([]string, 0, len(set))
	for f := range set {
		files = append(files, f)
	}
	sort.Strings(files)
	return files
}

// identity is what makes two patches "the same patch" across versions.
func identity(e Entry) string { return strings.ToLower(strings.TrimSpace(e.Subject)) }
