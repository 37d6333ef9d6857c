package backport

import (
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"regexp"
	"strings"
	"unicode"

	"github.com/epp-build/epp-build/internal/atomicfile"
	"github.com/epp-build/epp-build/internal/inputfile"
	"github.com/epp-build/epp-build/internal/recipe"
)

// state is kept in the work tree between --continue runs. Every step that
// produced a commit records it, so the patch file a commit came from never
// depends on guessing (by subject or position) when the series is written.
type state struct {
	Version  string          `json:"version"`
	As       string          `json:"as,omitempty"`
	Recipe   string          `json:"recipe"`
	Upstream recipe.Upstream `json:"upstream"`
	// From names the old pin on the conflict markers' base side.
	From    string   `json:"from,omitempty"`
	Patches []string `json:"patches"`
	Next    int      `json:"next"`
	Steps   []Step   `json:"steps"`
	// Conflict is the patch that stopped the rebase, if any; StopHead is
	// HEAD when it stopped, so --continue can tell whether anything was
	// done for that patch.
	Conflict string `json:"conflict,omitempty"`
	StopHead string `json:"stopHead,omitempty"`
	// Marked are the files that held conflict markers (or .rej files) at
	// the stop; --continue refuses while any marker is left.
	Marked []string `json:"marked,omitempty"`
	// Exec is the --exec command; ExecStopped names the patch it failed
	// after (or the end of the series) while the rebase is stopped there,
	// ExecDone says an --exec-at-end command passed.
	Exec        *Exec  `json:"exec,omitempty"`
	ExecStopped string `json:"execStopped,omitempty"`
	ExecDone    bool   `json:"execDone,omitempty"`
	// NoVerify is --no-verify: the finished tree is not type-checked.
	// VerifyStopped says the rebase stopped because it did not compile.
	NoVerify      bool `json:"noVerify,omitempty"`
	VerifyStopped bool `json:"verifyStopped,omitempty"`
	// verify type-checks the finished tree; given by the command on
	// every run (not saved).
	verify verifyFunc
}

const stateFile = "epp-build/rebase.json"

var (
	stateCommit   = regexp.MustCompile(`^[0-9a-f]{40}$`)
	statePatch    = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._+-]*\.patch$`)
	stateOutcomes = map[Outcome]bool{Clean: true, AtOffset: true, Upstream: true, Resolved: true, Skipped: true, Merged: true, Emptied: true}
)

// parseState reads a state file and refuses one that a rebase could not
// have written: the names in it become paths, the indexes slice the list.
func parseState(data []byte) (*state, error) {
	var st state
	if err := json.Unmarshal(data, &st); err != nil {
		return nil, err
	}
	if st.Recipe == "" || !validVersion(st.Version) {
		return nil, fmt.Errorf("version %q or recipe folder %q is missing or not a version's", st.Version, st.Recipe)
	}
	if st.As != "" && !validVersion(st.As) {
		return nil, fmt.Errorf("--as %q is not a version folder name", st.As)
	}
	if strings.ContainsFunc(st.From, unicode.IsControl) {
		return nil, fmt.Errorf("old pin %q holds a control character", st.From)
	}
	for _, p := range st.Patches {
		if !statePatch.MatchString(p) {
			return nil, fmt.Errorf("patch %q is not a plain .patch file name", p)
		}
	}
	if st.Next < 0 || st.Next > len(st.Patches) {
		return nil, fmt.Errorf("next patch %d is outside the series of %d", st.Next, len(st.Patches))
	}
	if len(st.Steps) != st.Next {
		return nil, fmt.Errorf("%d steps recorded for %d patches done", len(st.Steps), st.Next)
	}
	for i, s := range st.Steps {
		if s.Patch != st.Patches[i] || !stateOutcomes[s.Outcome] {
			return nil, fmt.Errorf("step %d (%q, %q) does not match the series", i+1, s.Patch, s.Outcome)
		}
		if s.Commit != "" && !stateCommit.MatchString(s.Commit) {
			return nil, fmt.Errorf("step %d: commit %q is not a full commit id", i+1, s.Commit)
		}
	}
	if st.Conflict != "" && (st.Next == len(st.Patches) || st.Conflict != st.Patches[st.Next]) {
		return nil, fmt.Errorf("stopped at %q, which is not the next patch", st.Conflict)
	}
	if st.StopHead != "" && !stateCommit.MatchString(st.StopHead) {
		return nil, fmt.Errorf("stop HEAD %q is not a full commit id", st.StopHead)
	}
	if st.ExecStopped != "" {
		if st.Exec == nil || st.Conflict != "" {
			return nil, fmt.Errorf("stopped after the --exec command %q without one, or at a conflict too", st.ExecStopped)
		}
		if st.ExecStopped == execAtEnd && st.Next != len(st.Patches) ||
			st.ExecStopped != execAtEnd && (st.Next == 0 || st.Patches[st.Next-1] != st.ExecStopped) {
			return nil, fmt.Errorf("--exec stopped after %q, which is not the last patch done", st.ExecStopped)
		}
	}
	if st.VerifyStopped && (st.Next != len(st.Patches) || st.Conflict != "" || st.ExecStopped != "" || st.NoVerify) {
		return nil, fmt.Errorf("stopped at the type-check before the series is through, at a conflict or --exec too, or with it skipped")
	}
	for _, m := range st.Marked {
		if !filepath.IsLocal(m) {
			return nil, fmt.Errorf("marked file %q is outside the work tree", m)
		}
	}
	// The pin goes into the new recipe and to git; the command runs.
	if err := checkUpstream(st.Upstream); err != nil {
		return nil, err
	}
	if err := st.Exec.verify(); err != nil {
		return nil, err
	}
	return &st, nil
}

var versionName = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._+-]*$`)

func validVersion(v string) bool { return versionName.MatchString(v) }

func load(dir string) (*state, error) {
	data, err := inputfile.ReadFile(filepath.Join(dir, ".git", stateFile), "", inputfile.StateLimit("a rebase state file"))
	if refused := (*inputfile.Error)(nil); errors.As(err, &refused) {
		return nil, fmt.Errorf("rebase state: %w", err)
	}
	if err != nil {
		return nil, fmt.Errorf("no rebase in progress in %s (%v)", dir, err)
	}
	st, err := parseState(data)
	if err != nil {
		return nil, &StateError{Path: filepath.Join(dir, ".git", stateFile), Err: err}
	}
	return st, nil
}

func save(dir string, st *state) error {
	data, err := json.MarshalIndent(st, "", "  ")
	if err != nil {
		return err
	}
	return atomicfile.Write(filepath.Join(dir, ".git", stateFile), data, 0o644)
}

// setStage gives a loaded rebase's --exec its C API staging back (it is
// not saved).
func (st *state) setStage(stage StageCAPI) {
	if st.Exec != nil {
		st.Exec.Stage = stage
	}
}
