package backport

import (
	"fmt"
	"os"
	"path/filepath"
)

// PickStatus is where a pick stopped at a conflict stands, for
// `epp-build status`.
type PickStatus struct {
	Dir      string `json:"dir"`
	FoundHow string `json:"found"`
	Version  string `json:"version"`
	// Created is the version folder the pick made (--extends); --abort
	// removes it again.
	Created string `json:"created,omitempty"`
	Done    int    `json:"done"`
	Total   int    `json:"total"`
	// StoppedAt is the pick that did not apply (its patch name) and
	// Title its subject; both are empty in a state no pick leaves.
	StoppedAt string   `json:"stoppedAt"`
	Title     string   `json:"title"`
	Marked    []string `json:"marked"`
	// Next are the commands that go on from here.
	Next []string `json:"next"`
}

// PickDir is the work tree of a pick when none is named: one per patches
// folder, under the user cache folder.
func PickDir(patchesRoot string) (string, error) {
	return defaultDirFor(patchesRoot, "pick")
}

// HasPick is whether dir holds a pick in progress (its state file).
func HasPick(dir string) bool {
	fi, err := os.Stat(filepath.Join(dir, ".git", pickStateFile))
	return err == nil && fi.Mode().IsRegular()
}

// FindPick returns the pick in progress in the default pick work tree of
// the patches folder root, or nil when there is none. A pick started
// with --dir leaves no note of where it works, so only that --dir finds it.
func FindPick(root string) (*Found, error) {
	d, err := PickDir(root)
	if err != nil {
		return nil, err
	}
	if !HasPick(d) {
		return nil, nil
	}
	return &Found{Dir: d, How: "the default pick work tree for " + root}, nil
}

// PickInProgress describes the pick in progress in found. A pick only
// keeps its state while stopped, so it is always stopped at a pick.
func PickInProgress(found *Found) (*PickStatus, error) {
	st, err := loadPickState(found.Dir)
	if err != nil {
		return nil, err
	}
	s := &PickStatus{Dir: found.Dir, FoundHow: found.How, Version: st.Version, Created: st.Created,
		Done: st.Next, Total: len(st.Picks), Marked: st.Marked}
	if s.Marked == nil {
		s.Marked = []string{}
	}
	dirFlag := " --dir " + found.Dir
	abort := "epp-build pick --abort" + dirFlag + "  # throw the pick away"
	if st.Created != "" {
		abort += ", with the version folder it created"
	}
	if st.Conflict == "" {
		// A state a pick does not leave (it saves only at a stop):
		// --continue and --skip refuse it, so only --abort goes on.
		s.Next = []string{abort}
		return s, nil
	}
	if len(st.Marked) == 0 {
		// Stopped with nothing marked: the pick merged to no change,
		// its change is in the series already, as git cherry-pick
		// finds an empty pick.
		s.Next = []string{
			"epp-build pick --skip" + dirFlag + "   # nothing to record: its change is in the series already; drop it and go on",
			fmt.Sprintf("or edit the files in %s so they hold the change it should make, then: epp-build pick --continue%s", found.Dir, dirFlag),
			abort,
		}
	} else {
		s.Next = []string{
			fmt.Sprintf("edit the files in %s so they hold the pick's change and remove every conflict marker (deleting a .rej file drops that change)", found.Dir),
			"epp-build pick --continue" + dirFlag,
			"epp-build pick --skip" + dirFlag + "   # drop this pick and go on with the rest",
			abort,
		}
	}
	p, err := loadPick(found.Dir, st.Conflict)
	if err != nil {
		return nil, err
	}
	s.StoppedAt, s.Title = p.Name(), p.Header.Title
	return s, nil
}
