package source

import (
	"os"
	"syscall"
	"time"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/format/index"
	"golang.org/x/sys/unix"

	"github.com/epp-build/epp-build/internal/atomicfile"
	"github.com/epp-build/epp-build/internal/gitformat"
)

// indexEntry is one work-tree path with the stat data git's index keeps.
type indexEntry struct {
	path       string
	mode       uint32
	hash       [20]byte
	ctime      time.Time
	mtime      time.Time
	dev, inode uint32
	uid, gid   uint32
	size       uint32
}

// setMtime dates a path (not following symlinks).
func setMtime(name string, t time.Time) error {
	ts := unix.NsecToTimespec(t.UnixNano())
	return unix.UtimesNanoAt(unix.AT_FDCWD, name, []unix.Timespec{ts, ts}, unix.AT_SYMLINK_NOFOLLOW)
}

// statInto records the path's stat data as git would.
func statInto(name string, e *indexEntry) error {
	fi, err := os.Lstat(name)
	if err != nil {
		return err
	}
	return fillStat(fi, e)
}

// fillStatUnix records a raw fstat result.
func fillStatUnix(st *unix.Stat_t, e *indexEntry) {
	e.ctime = time.Unix(st.Ctim.Unix())
	e.mtime = time.Unix(st.Mtim.Unix())
	e.dev, e.inode = uint32(st.Dev), uint32(st.Ino)
	e.uid, e.gid = st.Uid, st.Gid
	e.size = uint32(st.Size)
}

func fillStat(fi os.FileInfo, e *indexEntry) error {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		e.mtime = fi.ModTime()
		e.size = uint32(fi.Size())
		return nil
	}
	e.ctime, e.mtime = statTimes(st)
	e.dev, e.inode = uint32(st.Dev), uint32(st.Ino)
	e.uid, e.gid = st.Uid, st.Gid
	e.size = uint32(st.Size)
	return nil
}

// writeIndex writes a version 2 git index for the entries.
func writeIndex(name string, entries []indexEntry) error {
	idx := &index.Index{Version: 2}
	for _, e := range entries {
		entry := &index.Entry{
			Hash:       plumbing.Hash(e.hash),
			Name:       e.path,
			CreatedAt:  e.ctime,
			ModifiedAt: e.mtime,
			Dev:        e.dev,
			Inode:      e.inode,
			Mode:       filemode.FileMode(e.mode),
			UID:        e.uid,
			GID:        e.gid,
			Size:       e.size,
		}
		if e.mode == modeGitlink {
			entry.CreatedAt, entry.ModifiedAt, entry.Size = time.Time{}, time.Time{}, 0
		}
		idx.Entries = append(idx.Entries, entry)
	}
	f, err := atomicfile.Create(name, 0o644)
	if err != nil {
		return err
	}
	defer f.Abort()
	if err := gitformat.EncodeIndex(f, idx); err != nil {
		return err
	}
	return f.Commit()
}
