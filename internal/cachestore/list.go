package cachestore

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/epp-build/epp-build/internal/backport"
	"github.com/epp-build/epp-build/internal/source"
)

// Listing is what the cache at Dir holds, kind by kind.
type Listing struct {
	Dir   string      `json:"dir"`
	Kinds []KindUsage `json:"kinds"`
	// Bytes is the whole cache, each file once (hard links between kinds
	// are counted once here, once in each kind).
	Bytes int64 `json:"bytes"`
}

// KindUsage is one kind of entry: how many and their size.
type KindUsage struct {
	Kind    Kind   `json:"kind"`
	What    string `json:"what"`
	Entries int    `json:"entries"`
	Bytes   int64  `json:"bytes"`
	// Stopped counts the rebase or pick work trees holding a stopped one,
	// which prune always keeps.
	Stopped int `json:"stopped"`
}

// List reads the cache at dir. A cache that does not exist yet is empty.
func List(dir string) (*Listing, error) {
	l := &Listing{Dir: dir, Kinds: []KindUsage{}}
	for _, k := range kinds {
		found, err := entriesOf(dir, k.kind)
		if err != nil {
			return nil, err
		}
		ku := KindUsage{Kind: k.kind, What: k.what, Entries: len(found.entries)}
		per := newUsage()
		for _, e := range append(found.entries, found.rest...) {
			n, err := per.add(e)
			if err != nil {
				return nil, err
			}
			ku.Bytes += n
		}
		for _, e := range found.entries {
			if (k.kind == Rebase || k.kind == Pick) && stopped(e) {
				ku.Stopped++
			}
		}
		if k.kind == Other && ku.Entries == 0 {
			continue
		}
		l.Kinds = append(l.Kinds, ku)
	}
	if _, err := os.Stat(dir); err == nil {
		n, err := newUsage().add(dir)
		if err != nil {
			return nil, err
		}
		l.Bytes = n
	}
	return l, nil
}

// found are a kind's entries, and the rest of its folder that is part of
// its size without being an entry (lock files, cargo's target folders).
type found struct {
	entries, rest []string
}

// entriesOf finds kind's entries under the cache dir: the folders (and,
// for kinds of files, the files) a stage made. A kind whose folder is a
// symbolic link has none: nothing outside the cache is counted or
// removed.
func entriesOf(dir string, kind Kind) (found, error) {
	if kind == Other {
		entries, err := others(dir)
		return found{entries: entries}, err
	}
	folder := filepath.Join(dir, string(kind))
	var f found
	if kind == History {
		// The histories share the upstream folder and its locks; an
		// older epp-build kept them in a folder of their own.
		return histories(dir)
	}
	if kind == CAPI {
		// The libraries are the entries; cargo's target folders, the
		// locks and scratch space only add to the size.
		names, err := children(folder)
		if err != nil {
			return f, err
		}
		for _, c := range names {
			if c.Name() != "lib" {
				f.rest = append(f.rest, filepath.Join(folder, c.Name()))
			}
		}
		folder = filepath.Join(folder, "lib")
	}
	names, err := children(folder)
	if err != nil {
		return f, err
	}
	for _, c := range names {
		path := filepath.Join(folder, c.Name())
		switch {
		case kind == Upstream && source.IsHistoryKey(c.Name()):
			continue // History's
		case strings.HasSuffix(c.Name(), source.EntryLockSuffix):
			f.rest = append(f.rest, path)
		case kind == Rebase || kind == Pick || kind == Upstream:
			if c.IsDir() { // a work tree or entry, not a note beside one nor a link
				f.entries = append(f.entries, path)
			} else {
				f.rest = append(f.rest, path)
			}
		default:
			f.entries = append(f.entries, path)
		}
	}
	return f, nil
}

// histories are the upstream histories: the folders in the upstream
// folder a history fetch made, and their locks, and what an older
// epp-build left in the history folder.
func histories(dir string) (found, error) {
	var f found
	upstream := filepath.Join(dir, string(Upstream))
	names, err := children(upstream)
	if err != nil {
		return f, err
	}
	for _, c := range names {
		path := filepath.Join(upstream, c.Name())
		switch {
		case !source.IsHistoryKey(c.Name()):
		case c.IsDir():
			f.entries = append(f.entries, path)
		default:
			f.rest = append(f.rest, path)
		}
	}
	legacy := filepath.Join(dir, string(History))
	if names, err = children(legacy); err != nil {
		return f, err
	}
	for _, c := range names {
		f.entries = append(f.entries, filepath.Join(legacy, c.Name()))
	}
	return f, nil
}

// children lists folder's entries; a folder that is missing or is a
// symbolic link has none.
func children(folder string) ([]fs.DirEntry, error) {
	fi, err := os.Lstat(folder)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("cache folder %s: %w", folder, err)
	}
	if !fi.IsDir() {
		return nil, nil
	}
	names, err := os.ReadDir(folder)
	if err != nil {
		return nil, fmt.Errorf("cache folder %s: %w", folder, err)
	}
	return names, nil
}

// others are the top-level names no kind owns.
func others(dir string) ([]string, error) {
	names, err := children(dir)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, c := range names {
		if !isKnown(c.Name()) {
			out = append(out, filepath.Join(dir, c.Name()))
		}
	}
	return out, nil
}

// stopped says whether the work tree dir holds a stopped rebase or pick.
func stopped(dir string) bool { return backport.MayHoldStopped(dir) }
