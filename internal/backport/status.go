package backport

import (
	"fmt"
	"path/filepath"
)

// Status is where a rebase in progress stands, for `epp-build status`.
type Status struct {
	Dir       string `json:"dir"`
	FoundHow  string `json:"found"`
	Version   string `json:"version"`
	As        string `json:"as,omitempty"`
	Onto      string `json:"onto"`
	Done      int    `json:"done"`
	Total     int    `json:"total"`
	Steps     []Step `json:"steps"`
	StoppedAt string `json:"stoppedAt,omitempty"`
	// Reason is why it stopped: "conflict", "exec" or "compile" (the
	// finished tree did not type-check).
	Reason string   `json:"reason,omitempty"`
	Marked []string `json:"marked,omitempty"`
	Exec   *Exec    `json:"exec,omitempty"`
	// Next are the commands that go on from here.
	Next []string `json:"next"`
}

// InProgress describes the rebase in progress in found.
func InProgress(found *Found) (*Status, error) {
	st, err := load(found.Dir)
	if err != nil {
		return nil, err
	}
	s := &Status{Dir: found.Dir, FoundHow: found.How, Version: st.Version, As: st.As, Onto: st.Upstream.Ref,
		Done: st.Next, Total: len(st.Patches), Steps: st.Steps, Marked: st.Marked, Exec: st.Exec}
	dirFlag := " --dir " + found.Dir
	switch {
	case st.Conflict != "":
		s.StoppedAt, s.Reason = st.Conflict, "conflict"
		s.Next = []string{
			fmt.Sprintf("edit the files in %s so they hold the patch's change (%s) and remove every conflict marker", found.Dir, filepath.Join(found.Dir, ".git", "epp-build", "rebase", st.Conflict)),
			"epp-build rebase --continue" + dirFlag,
			"epp-build rebase --skip" + dirFlag + "   # drop the patch",
			"epp-build rebase --abort" + dirFlag + "  # throw the rebase away",
		}
	case st.ExecStopped != "":
		s.StoppedAt, s.Reason = st.ExecStopped, "exec"
		s.Next = []string{
			fmt.Sprintf("fix the tree in %s so `%s` passes (edits are folded into the last patch's commit)", found.Dir, st.Exec.Command),
			"epp-build rebase --continue" + dirFlag + "  # runs the command again",
		}
		if st.ExecStopped != execAtEnd {
			s.Next = append(s.Next, "epp-build rebase --skip"+dirFlag+"   # drop the patch")
		}
		s.Next = append(s.Next, "epp-build rebase --abort"+dirFlag+"  # throw the rebase away")
	case st.VerifyStopped:
		s.StoppedAt, s.Reason = lastCommitted(st), "compile"
		s.Next = []string{
			fmt.Sprintf("fix the tree in %s so it compiles (edits are folded into the last patch's commit)", found.Dir),
			"epp-build rebase --continue" + dirFlag + "  # type-checks again",
			"epp-build rebase --abort" + dirFlag + "  # throw the rebase away",
		}
	default:
		s.Next = []string{"epp-build rebase --continue" + dirFlag, "epp-build rebase --abort" + dirFlag}
	}
	return s, nil
}
