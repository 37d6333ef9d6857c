package gitstore

import (
	"fmt"
	"path/filepath"

	"github.com/go-git/go-billy/v5/osfs"
	"github.com/go-git/go-git/v5"
	gitcache "github.com/go-git/go-git/v5/plumbing/cache"
	"github.com/go-git/go-git/v5/storage/filesystem"
)

// Open opens the git work tree dir keeping its pack files open between
// object reads: go-git otherwise opens the pack again for every object,
// which was a large part of reading a tree of a thousand files. close
// releases the files.
func Open(dir string) (repo *git.Repository, close func(), err error) {
	s := filesystem.NewStorageWithOptions(osfs.New(filepath.Join(dir, ".git")), gitcache.NewObjectLRUDefault(), filesystem.Options{KeepDescriptors: true})
	repo, err = git.Open(s, osfs.New(dir))
	if err != nil {
		s.Close()
		return nil, nil, fmt.Errorf("open %s: %w", dir, err)
	}
	return repo, func() { s.Close() }, nil
}
