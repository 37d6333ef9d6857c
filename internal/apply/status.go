package apply

import (
	"bytes"
	"fmt"
	"path"
	"sort"

	"github.com/bluekeyes/go-gitdiff/gitdiff"

	"github.com/epp-build/epp-build/internal/patchset"
	"github.com/epp-build/epp-build/internal/recipe"
)

// OutTree says whether an applied tree is current for its recipe: its
// series is the recipe's, and HEAD, the index and the work tree are as
// apply left them. Lists are empty, never null.
type OutTree struct {
	Dir     string `json:"dir"`
	Version string `json:"version"`
	Current bool   `json:"current"`
	// Reasons say how the recipe's series differs from the applied one.
	Reasons []string `json:"reasons"`
	// Modified are tracked files changed, deleted or staged.
	Modified []string `json:"modified"`
	// InTheWay are untracked files where the recipe's patches write.
	InTheWay []string `json:"untrackedInTheWay"`
	// HeadMoved is true when HEAD is not AppliedHead, where apply left it;
	// Commits are the commits on the way that apply did not make.
	HeadMoved   bool        `json:"headMoved"`
	Head        string      `json:"head"`
	AppliedHead string      `json:"appliedHead"`
	Commits     []OutCommit `json:"commits"`
	// RecipeDir is where export writes the series back.
	RecipeDir string `json:"recipeDir"`
	// Interrupted is a re-apply stopped half way, which the next apply
	// completes first.
	Interrupted bool `json:"interruptedReapply"`
}

// OutCommit is a commit in an applied tree that apply did not make.
type OutCommit struct {
	Hash    string `json:"hash"`
	Subject string `json:"subject"`
}

// OutStatus reads the apply record of out and compares the tree with the
// recipe of its version under root (or r, when given), as a re-apply
// would (patchset.ExamineTree).
func OutStatus(root, out string, r *recipe.Recipe) (*OutTree, error) {
	rec, err := patchset.ReadRecord(out)
	if err != nil {
		return nil, err
	}
	if rec == nil {
		return nil, fmt.Errorf("%s was not made by epp-build apply (no apply record)", out)
	}
	if r == nil {
		if r, err = recipe.LoadVersion(root, rec.Version); err != nil {
			return nil, err
		}
	}
	patches, err := patchset.LoadSeries(r)
	if err != nil {
		return nil, err
	}
	st, err := patchset.ExamineTree(r, patches, out)
	if err != nil {
		return nil, err
	}
	t := &OutTree{Dir: out, Version: r.Version, Current: st.Current(), Reasons: st.Reasons, Modified: st.Modified,
		InTheWay: st.InTheWay, HeadMoved: st.HeadMoved(), Head: st.Head, AppliedHead: st.Record.Head,
		Commits: make([]OutCommit, len(st.Commits)), RecipeDir: r.Dir, Interrupted: st.Interrupted}
	for i, c := range st.Commits {
		t.Commits[i] = OutCommit{Hash: c.Hash.String(), Subject: c.Subject}
	}
	return t, nil
}

// GeneratedStale is a recipe whose generated patches no longer carry what
// plugins/ and ffi/ hold: regen would rewrite them.
type GeneratedStale struct {
	Version string `json:"version"`
	// Files are the generated files that differ ("patch: folder/file:
	// why"); Unknown are those that cannot be compared without applying
	// (a generated file the patch edits rather than adds): check tells.
	Files   []string `json:"files,omitempty"`
	Unknown []string `json:"unknown,omitempty"`
}

// StaleGenerated compares, without fetching or applying anything, the
// files each generated folder adds in its patch with what its source
// folder gives (imports rewritten, as regen does). It returns nil when
// they agree.
func StaleGenerated(r *recipe.Recipe) (*GeneratedStale, error) {
	if len(r.Generated) == 0 {
		return nil, nil
	}
	ov, err := overlays(r)
	if err != nil {
		return nil, err
	}
	byName := map[string]string{}
	for _, sp := range r.Series {
		byName[sp.Name] = sp.Path
	}
	g := &GeneratedStale{Version: r.Version}
	names := make([]string, 0, len(ov))
	for name := range ov {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		p, ok := byName[name]
		if !ok {
			g.Files = append(g.Files, name+": not in the series")
			continue
		}
		ps, err := patchset.ParseFile(p, name)
		if err != nil {
			return nil, err
		}
		added, edited := addedFiles(ps)
		for _, o := range ov[name] {
			compareFolder(g, name, o, added, edited)
		}
	}
	if len(g.Files) == 0 && len(g.Unknown) == 0 {
		return nil, nil
	}
	return g, nil
}

// addedFiles are the files the patches add whole (path -> content and
// executable bit); edited the paths they change otherwise.
func addedFiles(ps []*patchset.Patch) (map[string]patchset.OverlayFile, map[string]bool) {
	added, edited := map[string]patchset.OverlayFile{}, map[string]bool{}
	for _, p := range ps {
		for _, f := range p.Files {
			if !f.IsNew || f.IsBinary {
				edited[f.NewName] = true
				continue
			}
			var b bytes.Buffer
			for _, frag := range f.TextFragments {
				for _, l := range frag.Lines {
					if l.Op == gitdiff.OpAdd {
						b.WriteString(l.Line)
					}
				}
			}
			added[f.NewName] = patchset.OverlayFile{Data: b.Bytes(), Executable: f.NewMode&0o111 != 0}
		}
	}
	return added, edited
}

func compareFolder(g *GeneratedStale, patch string, o patchset.Overlay, added map[string]patchset.OverlayFile, edited map[string]bool) {
	for name, want := range o.Files {
		p := path.Join(o.Dir, name)
		have, ok := added[p]
		switch {
		case edited[p]:
			g.Unknown = append(g.Unknown, patch+": "+p)
		case !ok:
			g.Files = append(g.Files, patch+": "+p+": new in the source")
		case !bytes.Equal(have.Data, want.Data):
			g.Files = append(g.Files, patch+": "+p+": content differs")
		case have.Executable != want.Executable:
			g.Files = append(g.Files, patch+": "+p+": mode differs")
		}
	}
	for p := range added {
		if _, ok := o.Files[path.Base(p)]; path.Dir(p) == o.Dir && !ok {
			g.Files = append(g.Files, patch+": "+p+": gone from the source")
		}
	}
	sort.Strings(g.Files)
	sort.Strings(g.Unknown)
}
