package backport

import (
	"context"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"github.com/bluekeyes/go-gitdiff/gitdiff"
	"github.com/epp-build/epp-build/internal/atomicfile"
	"github.com/epp-build/epp-build/internal/diff3"
	"github.com/epp-build/epp-build/internal/dirswap"
	"github.com/epp-build/epp-build/internal/export"
	"github.com/epp-build/epp-build/internal/inputfile"
	"github.com/epp-build/epp-build/internal/patchset"
	"github.com/epp-build/epp-build/internal/recipe"
	"github.com/go-git/go-git/v5/plumbing"
)

// A pick runs in a work tree like a rebase: the version's series applied,
// then the picks one by one. A pick that does not apply is merged three-
// way (its base is the blob its index line names, looked up in the
// repository it was picked from and in the work tree); a conflict stops
// the pick with the tree left for the user, and --continue or --abort
// take it from there. The version's folder is written when every pick is
// in.

// pickState is kept in the work tree between pick commands.
type pickState struct {
	Root    string `json:"root"`
	Version string `json:"version"`
	// Created is the version folder the pick made (--extends), removed
	// again by --abort.
	Created string `json:"created,omitempty"`
	// Repo is the repository the picks came from (--from), where their
	// bases are looked up first.
	Repo     string   `json:"repo,omitempty"`
	Picks    []string `json:"picks"`
	Next     int      `json:"next"`
	Commits  int      `json:"commits"`
	Conflict string   `json:"conflict,omitempty"`
	StopHead string   `json:"stopHead,omitempty"`
	Marked   []string `json:"marked,omitempty"`
}

const pickStateFile = "epp-build/pick.json"

var pickName = regexp.MustCompile(`^[0-9]{4}\.json$`)

// storedPick is a pick as the work tree keeps it: its header and its
// file diffs as text.
type storedPick struct {
	Name        string    `json:"name"`
	AuthorName  string    `json:"authorName"`
	AuthorEmail string    `json:"authorEmail"`
	Date        time.Time `json:"date"`
	Title       string    `json:"title"`
	Body        string    `json:"body"`
	Diff        string    `json:"diff"`
}

func picksDir(dir string) string { return filepath.Join(dir, ".git", "epp-build", "pick") }

func savePick(dir, name string, p *patchset.Patch) error {
	var diff strings.Builder
	for _, f := range p.Files {
		diff.WriteString(f.String())
	}
	sp := storedPick{Name: p.Name(), AuthorName: p.Header.Author.Name, AuthorEmail: p.Header.Author.Email,
		Date: p.Header.AuthorDate, Title: p.Header.Title, Body: p.Header.Body, Diff: diff.String()}
	data, err := json.Marshal(sp)
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(picksDir(dir), name), data, 0o644)
}

func loadPick(dir, name string) (*patchset.Patch, error) {
	data, err := inputfile.ReadFile(filepath.Join(picksDir(dir), name), "", inputfile.StateLimit("a stored pick"))
	if err != nil {
		return nil, err
	}
	var sp storedPick
	if err := json.Unmarshal(data, &sp); err != nil {
		return nil, fmt.Errorf("pick %s in %s: %w", name, dir, err)
	}
	files, _, err := gitdiff.Parse(strings.NewReader(sp.Diff))
	if err != nil {
		return nil, fmt.Errorf("pick %s in %s: %w", name, dir, err)
	}
	return &patchset.Patch{File: sp.Name, Part: 1, Parts: 1, Files: files, Header: &gitdiff.PatchHeader{
		Author: &gitdiff.PatchIdentity{Name: sp.AuthorName, Email: sp.AuthorEmail}, AuthorDate: sp.Date, Title: sp.Title, Body: sp.Body,
	}}, nil
}

func loadPickState(dir string) (*pickState, error) {
	path := filepath.Join(dir, ".git", pickStateFile)
	data, err := inputfile.ReadFile(path, "", inputfile.StateLimit("a pick state file"))
	if refused := (*inputfile.Error)(nil); errors.As(err, &refused) {
		return nil, fmt.Errorf("pick state: %w", err)
	}
	if err != nil {
		return nil, fmt.Errorf("no pick in progress in %s (%v)", dir, err)
	}
	var st pickState
	if err := json.Unmarshal(data, &st); err != nil {
		return nil, &StateError{Path: path, Err: err}
	}
	if err := st.valid(); err != nil {
		return nil, &StateError{Path: path, Err: err}
	}
	return &st, nil
}

// valid refuses a state a pick could not have written: its names become
// paths.
func (st *pickState) valid() error {
	if st.Root == "" || !validVersion(st.Version) {
		return errors.New("no patches folder or version")
	}
	if st.Created != "" && st.Created != filepath.Join(st.Root, st.Version) {
		return fmt.Errorf("created folder %q is not the version's", st.Created)
	}
	if err := checkPickRepo(st.Repo); err != nil {
		return err
	}
	for _, p := range st.Picks {
		if !pickName.MatchString(p) {
			return fmt.Errorf("pick %q is not a pick file name", p)
		}
	}
	if st.Next < 0 || st.Next > len(st.Picks) || st.Commits < 0 || st.Commits > st.Next {
		return fmt.Errorf("next pick %d (%d commits) is outside the %d picks", st.Next, st.Commits, len(st.Picks))
	}
	if st.Conflict != "" && (st.Next == len(st.Picks) || st.Conflict != st.Picks[st.Next]) {
		return fmt.Errorf("stopped at %q, which is not the next pick", st.Conflict)
	}
	if st.StopHead != "" && !stateCommit.MatchString(st.StopHead) {
		return fmt.Errorf("stop HEAD %q is not a full commit id", st.StopHead)
	}
	for _, m := range st.Marked {
		if !filepath.IsLocal(m) {
			return fmt.Errorf("marked file %q is outside the work tree", m)
		}
	}
	return nil
}

func savePickState(dir string, st *pickState) error {
	data, err := json.MarshalIndent(st, "", "  ")
	if err != nil {
		return err
	}
	return atomicfile.Write(filepath.Join(dir, ".git", pickStateFile), data, 0o644)
}

// startPick applies r's series in dir (which must not exist), keeps the
// picks there and replays them.
func startPick(ctx context.Context, r *recipe.Recipe, apply patchset.Applier, picks []*patchset.Patch, st *pickState, dir string) (*Picked, error) {
	if err := apply(ctx, r, dir); err != nil {
		return nil, err
	}
	if err := os.MkdirAll(picksDir(dir), 0o755); err != nil {
		return nil, err
	}
	for i, p := range picks {
		name := fmt.Sprintf("%04d.json", i+1)
		if err := savePick(dir, name, p); err != nil {
			return nil, err
		}
		st.Picks = append(st.Picks, name)
	}
	return runPicks(ctx, dir, st)
}

// loadStoppedPick is the state of the pick stopped in dir and the pick it
// stopped at, for --continue and --skip.
func loadStoppedPick(dir, root string) (*pickState, *patchset.Patch, error) {
	st, err := loadPickStateFor(dir, root)
	if err != nil {
		return nil, nil, err
	}
	if st.Conflict == "" {
		return nil, nil, fmt.Errorf("the pick in %s is not stopped at a conflict", dir)
	}
	p, err := loadPick(dir, st.Conflict)
	if err != nil {
		return nil, nil, err
	}
	return st, p, nil
}

// continuePick records the user's resolution of the pick stopped at and
// goes on.
func continuePick(ctx context.Context, dir, root string, log io.Writer) (*Picked, error) {
	st, p, err := loadStoppedPick(dir, root)
	if err != nil {
		return nil, err
	}
	if left, err := markersLeft(dir, st.Marked); err != nil {
		return nil, err
	} else if len(left) > 0 {
		return nil, &ConflictStop{Op: "pick", Dir: dir, Patch: p.Name(), Pick: pickLabel(p), Err: &MarkersLeft{Files: left}, Marked: left}
	}
	_, changed, err := commitResolution(dir, p, st.StopHead)
	if err != nil {
		return nil, err
	}
	switch {
	case changed:
		st.Commits++
	case rejDeleted(dir, st.Marked):
		fmt.Fprintf(log, "%s: %s\n", pickLabel(p), Emptied)
	default:
		return nil, &ConflictStop{Op: "pick", Dir: dir, Patch: p.Name(), Pick: pickLabel(p), Err: &PickEmpty{Pick: pickLabel(p), Continued: true}}
	}
	st.Conflict, st.StopHead, st.Marked = "", "", nil
	st.Next++
	return runPicks(ctx, dir, st)
}

// skipPick drops the pick stopped at, with any edits made for it, as
// rebase --skip drops a patch: nothing is recorded for it, and the
// remaining picks go on.
func skipPick(ctx context.Context, dir, root string, log io.Writer) (*Picked, error) {
	st, p, err := loadStoppedPick(dir, root)
	if err != nil {
		return nil, err
	}
	if err := discardStop(dir); err != nil {
		return nil, err
	}
	fmt.Fprintf(log, "%s: %s\n", pickLabel(p), Skipped)
	st.Conflict, st.StopHead, st.Marked = "", "", nil
	st.Next++
	return runPicks(ctx, dir, st)
}

// abortPick throws the pick away: its work tree, and the version folder
// it created (in root, and only when it holds a recipe).
func abortPick(dir, root string) (*Picked, error) {
	st, err := loadPickStateFor(dir, root)
	if err != nil {
		return nil, err
	}
	if st.Created != "" && isVersionFolder(st.Created) {
		if err := os.RemoveAll(st.Created); err != nil {
			return nil, err
		}
	}
	return &Picked{Version: st.Version, Aborted: true}, os.RemoveAll(dir)
}

// runPicks applies the remaining picks, merging one that does not apply;
// when all are in it writes the version's series and removes dir.
func runPicks(ctx context.Context, dir string, st *pickState) (*Picked, error) {
	for ; st.Next < len(st.Picks); st.Next++ {
		name := st.Picks[st.Next]
		p, err := loadPick(dir, name)
		if err != nil {
			return nil, err
		}
		one, err := patchset.NewSeries([]*patchset.Patch{p})
		if err != nil {
			return nil, err
		}
		_, err = patchset.ApplyToRepo(ctx, dir, one, patchset.Options{Branch: "epp-build/" + st.Version})
		if err == nil {
			st.Commits++
			continue
		}
		var conflict *patchset.ConflictError
		var fileErr *patchset.FileError
		if !errors.As(err, &conflict) && !errors.As(err, &fileErr) {
			return nil, err
		}
		head, herr := headCommit(dir)
		if herr != nil {
			return nil, herr
		}
		st.Conflict, st.StopHead = name, head
		if err := savePickState(dir, st); err != nil {
			return nil, err
		}
		m, merr := mergePatch(dir, p, pickBase(dir, st.Repo), diff3.Labels{
			Ours: st.Version + " with its series", Base: "base of " + p.Name(), Theirs: p.Name(),
		})
		if merr != nil {
			return nil, merr
		}
		if len(m.Marked) == 0 {
			_, changed, err := commitMerged(dir, p)
			if err != nil {
				return nil, err
			}
			if !changed {
				// Merged to no change, as git cherry-pick finds a
				// pick the branch has: stopped for --skip, never
				// counted as a commit it did not make.
				return nil, &ConflictStop{Op: "pick", Dir: dir, Patch: p.Name(), Pick: pickLabel(p), Err: &PickEmpty{Pick: pickLabel(p)}}
			}
			st.Commits++
			st.Conflict, st.StopHead = "", ""
			continue
		}
		st.Marked = m.Marked
		if err := savePickState(dir, st); err != nil {
			return nil, err
		}
		return nil, &ConflictStop{Op: "pick", Dir: dir, Patch: p.Name(), Pick: pickLabel(p), Err: err, Marked: m.Marked}
	}
	return finishPick(dir, st)
}

// commitFile is the file name fromRepo gives a commit: its abbreviated id.
var commitFile = regexp.MustCompile(`^([0-9a-f]{7,40})\.patch$`)

// pickLabel names a pick as git cherry-pick does at a stop: the
// abbreviated commit (or the file it came from) and the subject.
func pickLabel(p *patchset.Patch) string {
	from := p.Name()
	if m := commitFile.FindStringSubmatch(p.File); m != nil && p.Parts <= 1 {
		from = m[1]
	}
	return fmt.Sprintf("%s %q", from, p.Header.Title)
}

func finishPick(dir string, st *pickState) (*Picked, error) {
	r, err := recipe.LoadVersion(st.Root, st.Version)
	if err != nil {
		return nil, err
	}
	series, err := export.Series(dir)
	if err != nil {
		return nil, err
	}
	// Written to a copy of the version folder swapped in whole: a kill
	// leaves the series without the picks or with all of them.
	err = dirswap.Replace(r.Dir, func(staging string) error {
		into := *r
		into.Dir = staging
		return export.WriteRecipe(&into, series)
	})
	if err != nil {
		return nil, err
	}
	res := &Picked{Version: r.Version}
	for _, p := range series[len(series)-min(st.Commits, len(series)):] {
		res.Names = append(res.Names, p.Name)
	}
	return res, os.RemoveAll(dir)
}

// pickBase finds a pick's base by the blob id its index line names: in
// the repository it came from, then in the work tree (whose history holds
// the upstream pin and the series), as git am -3 looks it up.
func pickBase(dir, from string) baseOf {
	return func(f *gitdiff.File) ([]byte, bool, error) {
		for _, repoDir := range []string{from, dir} {
			if repoDir == "" {
				continue
			}
			data, ok, err := blobByPrefix(repoDir, f.OldOIDPrefix)
			if ok || err != nil {
				return data, ok, err
			}
		}
		return nil, false, nil
	}
}

var hexID = regexp.MustCompile(`^[0-9a-f]{7,40}$`)

// blobByPrefix reads the one blob of repoDir whose id starts with prefix.
func blobByPrefix(repoDir, prefix string) ([]byte, bool, error) {
	if !hexID.MatchString(prefix) {
		return nil, false, nil
	}
	repo, err := openRepo(repoDir)
	if err != nil {
		return nil, false, nil
	}
	var ids []plumbing.Hash
	if len(prefix) == 40 {
		ids = []plumbing.Hash{plumbing.NewHash(prefix)}
	} else {
		lookup, ok := repo.Storer.(interface {
			HashesWithPrefix([]byte) ([]plumbing.Hash, error)
		})
		if !ok {
			return nil, false, nil
		}
		raw, err := hex.DecodeString(prefix[:len(prefix)&^1])
		if err != nil {
			return nil, false, nil
		}
		found, err := lookup.HashesWithPrefix(raw)
		if err != nil {
			return nil, false, err
		}
		for _, h := range found {
			if strings.HasPrefix(h.String(), prefix) {
				ids = append(ids, h)
			}
		}
	}
	if len(ids) != 1 {
		return nil, false, nil
	}
	blob, err := repo.BlobObject(ids[0])
	if errors.Is(err, plumbing.ErrObjectNotFound) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, err
	}
	rd, err := blob.Reader()
	if err != nil {
		return nil, false, err
	}
	defer rd.Close()
	data, err := io.ReadAll(rd)
	return data, err == nil, err
}
