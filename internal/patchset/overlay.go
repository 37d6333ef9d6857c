package patchset

import (
	"path"
	"sort"

	"github.com/go-git/go-git/v5/plumbing/filemode"
)

// Overlay is a folder whose files a patch adds from source kept elsewhere
// (regen): after the patch applies, the folder's files are replaced by
// exactly these.
type Overlay struct {
	Dir   string
	Files map[string]OverlayFile
}

// OverlayFile is one file of an overlay.
type OverlayFile struct {
	Data       []byte
	Executable bool
}

// applyOverlays replaces the files directly inside each overlay folder.
func applyOverlays(t *tree, overlays []Overlay) error {
	for _, o := range overlays {
		for name := range t.dirs[o.Dir] {
			p := path.Join(o.Dir, name)
			if _, isFile := t.files[p]; isFile {
				if _, keep := o.Files[name]; !keep {
					t.remove(p)
				}
			}
		}
		names := make([]string, 0, len(o.Files))
		for name := range o.Files {
			names = append(names, name)
		}
		sort.Strings(names)
		for _, name := range names {
			f := o.Files[name]
			mode := filemode.Regular
			if f.Executable {
				mode = filemode.Executable
			}
			if err := t.set(path.Join(o.Dir, name), mode, f.Data); err != nil {
				return err
			}
		}
	}
	return nil
}

// touchesOverlay reports a path of p that lies in a folder an earlier
// patch generates: such a change belongs in the generating source.
func touchesOverlay(p *Patch, generated map[string]string) (string, string) {
	for _, f := range p.Files {
		for _, name := range []string{f.OldName, f.NewName} {
			if name == "" {
				continue
			}
			if from, ok := generated[path.Dir(name)]; ok {
				return name, from
			}
		}
	}
	return "", ""
}
