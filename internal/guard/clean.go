package guard

import (
	"os"
	"path/filepath"
	"time"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
)

// indexIsHead is half of the clean check Inspect makes (the other
// half is scanWorkTree's): whether the index's root tree (trees[""]) is
// HEAD's. When either half is unsure the caller asks the full (slower)
// status for the names; go-git's status reads every directory and tree
// object, which was most of a re-apply's time.
//
// trees are the index's folder hashes (gitstore.IndexTrees); nil means
// unknown.
func indexIsHead(repo *git.Repository, trees map[string]plumbing.Hash) bool {
	if trees == nil {
		return false
	}
	head, err := repo.Head()
	if err != nil {
		return false
	}
	c, err := repo.CommitObject(head.Hash())
	return err == nil && trees[""] == c.TreeHash
}

// indexWritten is when dir's git index was last written.
func indexWritten(dir string) (time.Time, error) {
	fi, err := os.Stat(filepath.Join(dir, ".git", "index"))
	if err != nil {
		return time.Time{}, err
	}
	return fi.ModTime(), nil
}
