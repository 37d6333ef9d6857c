package guard

import (
	"errors"
	"io"
	"os"
	"path"
	"path/filepath"
	"slices"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/format/index"
	"golang.org/x/sys/unix"

	"github.com/epp-build/epp-build/internal/atomicfile"
	"github.com/epp-build/epp-build/internal/gitstore"
)

// workTreeScan is what one walk of a work tree finds against its index.
type workTreeScan struct {
	// untracked are the files the index does not hold, sorted. Unlike git
	// status they include ignored files (apply did not make them either,
	// and a replaced tree would lose them); a nested repository is one
	// entry, "path/".
	untracked []string
	// leftovers are the untracked files named as atomicfile names its
	// temporary files (atomicfile.IsTemp), sorted: what a run killed while
	// writing a file of the tree left, not the user's.
	leftovers []string
	// tracked is true when every tracked file holds its entry's blob and
	// mode. False says only that the scan is unsure: the caller asks the
	// full status for the names.
	tracked bool
}

// scanWorkTree walks dir once, its folders on a few goroutines, stating
// each entry relative to its open folder (no path is resolved twice), and
// checks the tracked files as git does: a file whose stat data agrees with
// its index entry (and is older than the index, written at indexWritten)
// is not read; any other is hashed.
func scanWorkTree(dir string, idx *index.Index, indexWritten time.Time) (*workTreeScan, error) {
	s := &scanner{dir: dir, written: indexWritten, entries: make(map[string]*index.Entry, len(idx.Entries))}
	for _, e := range idx.Entries {
		s.entries[e.Name] = e
	}
	folders := make(chan string, 64)
	var pending, workers sync.WaitGroup
	var queue func(rel string)
	queue = func(rel string) {
		pending.Add(1)
		select {
		case folders <- rel:
		default:
			// The channel is full: walk it here rather than wait for a
			// worker that may itself be waiting to queue.
			s.folder(rel, queue)
			pending.Done()
		}
	}
	for range scanWorkers {
		workers.Add(1)
		go func() {
			defer workers.Done()
			for rel := range folders {
				s.folder(rel, queue)
				pending.Done()
			}
		}()
	}
	queue("")
	pending.Wait()
	close(folders)
	workers.Wait()
	if s.err != nil {
		return nil, s.err
	}
	sort.Strings(s.untracked)
	sort.Strings(s.leftovers)
	return &workTreeScan{untracked: s.untracked, leftovers: s.leftovers, tracked: !s.changed.Load() && int(s.matched.Load()) == len(idx.Entries)}, nil
}

// scanWorkers is how many folders are read at once: the work is system
// calls, so a few more than two cores' worth.
const scanWorkers = 4

type scanner struct {
	dir     string
	written time.Time
	entries map[string]*index.Entry
	matched atomic.Int64
	changed atomic.Bool

	mu        sync.Mutex
	untracked []string
	leftovers []string
	err       error
}

// folder reads the folder rel, queues its subfolders and checks its files.
func (s *scanner) folder(rel string, queue func(string)) {
	full := filepath.Join(s.dir, filepath.FromSlash(rel))
	fd, err := unix.Open(full, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	if err != nil {
		s.fail(&os.PathError{Op: "open", Path: full, Err: err})
		return
	}
	f := os.NewFile(uintptr(fd), full)
	defer f.Close()
	names, err := f.Readdirnames(-1)
	if err != nil {
		s.fail(err)
		return
	}
	if rel != "" && slices.Contains(names, ".git") {
		s.addUntracked([]string{rel + "/"}) // a nested repository is one thing to keep
		return
	}
	var untracked, leftovers []string
	for _, name := range names {
		if rel == "" && name == ".git" {
			continue
		}
		p := path.Join(rel, name)
		var st unix.Stat_t
		if err := unix.Fstatat(fd, name, &st, unix.AT_SYMLINK_NOFOLLOW); err != nil {
			if errors.Is(err, unix.ENOENT) {
				continue // removed while the walk ran
			}
			s.fail(&os.PathError{Op: "lstat", Path: filepath.Join(full, name), Err: err})
			return
		}
		if st.Mode&unix.S_IFMT == unix.S_IFDIR {
			queue(p)
			continue
		}
		e, ok := s.entries[p]
		switch {
		case !ok && atomicfile.IsTemp(name) && (st.Mode&unix.S_IFMT == unix.S_IFREG || st.Mode&unix.S_IFMT == unix.S_IFLNK):
			leftovers = append(leftovers, p)
		case !ok:
			untracked = append(untracked, p)
		case entryMatches(fd, name, &st, e, s.written):
			s.matched.Add(1)
		default:
			s.changed.Store(true)
		}
	}
	s.addUntracked(untracked)
	if len(leftovers) > 0 {
		s.mu.Lock()
		s.leftovers = append(s.leftovers, leftovers...)
		s.mu.Unlock()
	}
}

func (s *scanner) addUntracked(paths []string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.untracked = append(s.untracked, paths...)
}

func (s *scanner) fail(err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.err == nil {
		s.err = err
	}
}

// entryMatches is whether the file name in the open folder dirfd, whose
// stat data is st, holds e's blob and mode.
func entryMatches(dirfd int, name string, st *unix.Stat_t, e *index.Entry, indexWritten time.Time) bool {
	if e.Stage != gitstore.NormalStage || e.SkipWorktree || e.IntentToAdd {
		return false
	}
	var mode filemode.FileMode
	switch {
	case st.Mode&unix.S_IFMT == unix.S_IFLNK:
		mode = filemode.Symlink
	case st.Mode&unix.S_IFMT == unix.S_IFREG && st.Mode&0o111 != 0:
		mode = filemode.Executable
	case st.Mode&unix.S_IFMT == unix.S_IFREG:
		mode = filemode.Regular
	default:
		return false
	}
	if mode != e.Mode {
		return false
	}
	if statMatches(st, e, indexWritten) {
		return true
	}
	data, err := contentAt(dirfd, name, mode, st.Size)
	return err == nil && plumbing.ComputeHash(plumbing.BlobObject, data) == e.Hash
}

// contentAt reads a file's content, or a symlink's target, relative to an
// open folder.
func contentAt(dirfd int, name string, mode filemode.FileMode, size int64) ([]byte, error) {
	if mode == filemode.Symlink {
		buf := make([]byte, size+1)
		n, err := unix.Readlinkat(dirfd, name, buf)
		if err != nil {
			return nil, err
		}
		if int64(n) > size {
			return nil, errors.New("the link changed while it was read")
		}
		return buf[:n], nil
	}
	fd, err := unix.Openat(dirfd, name, unix.O_RDONLY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, err
	}
	f := os.NewFile(uintptr(fd), name)
	defer f.Close()
	return io.ReadAll(f)
}

// statMatches is whether the file's stat data is what the index recorded
// for it (size, mtime, ctime, inode, owner), so that its content need not
// be read. Any edit changes the ctime, which cannot be set back. As in
// git, a file written in the second the index was written may have
// changed after its stat data was taken (racily clean), so it is hashed.
func statMatches(st *unix.Stat_t, e *index.Entry, indexWritten time.Time) bool {
	mtime := time.Unix(st.Mtim.Unix())
	return uint32(st.Size) == e.Size && mtime.Equal(e.ModifiedAt) &&
		time.Unix(st.Ctim.Unix()).Equal(e.CreatedAt) &&
		uint32(st.Ino) == e.Inode && st.Uid == e.UID && st.Gid == e.GID &&
		mtime.Before(indexWritten.Truncate(time.Second))
}
