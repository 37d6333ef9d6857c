package cachestore

import (
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"syscall"
)

// fileID names a file across its hard links: a checkout hard-links the
// upstream entry's pack into its .git, so the same bytes sit in two kinds.
type fileID struct{ dev, ino uint64 }

type links struct {
	size        int64
	nlink, seen uint64
}

// usage adds up the bytes of regular files, each file once however many
// of its links it meets, and remembers how many links of each it met so
// that freed can tell which files removing them all releases.
type usage struct {
	files map[fileID]*links
}

func newUsage() *usage { return &usage{files: map[fileID]*links{}} }

// add walks path without following symbolic links (a link is counted as
// itself, never as what it points to) and returns the bytes of the files
// it met for the first time. A file removed while it walks is not an
// error: another run may be dropping an entry.
func (u *usage) add(path string) (int64, error) {
	var total int64
	err := filepath.WalkDir(path, func(p string, d fs.DirEntry, err error) error {
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		if err != nil {
			return err
		}
		if !d.Type().IsRegular() {
			return nil
		}
		info, err := d.Info()
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		if err != nil {
			return err
		}
		st, ok := info.Sys().(*syscall.Stat_t)
		if !ok {
			total += info.Size()
			return nil
		}
		// Dev, Ino and Nlink have other types on darwin than on linux.
		id := fileID{uint64(st.Dev), uint64(st.Ino)}
		l := u.files[id]
		if l == nil {
			l = &links{size: info.Size(), nlink: uint64(st.Nlink)}
			u.files[id] = l
			total += l.size
		}
		l.seen++
		return nil
	})
	if err != nil {
		return total, fmt.Errorf("size of %s: %w", path, err)
	}
	return total, nil
}

// freed is what removing every path added releases: the files all of
// whose links were among them.
func (u *usage) freed() int64 {
	var n int64
	for _, l := range u.files {
		if l.seen >= l.nlink {
			n += l.size
		}
	}
	return n
}
