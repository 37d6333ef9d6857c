package gitstore

import (
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/format/idxfile"
	"github.com/go-git/go-git/v5/plumbing/format/packfile"
)

// Names of the files WritePack writes before renaming them; ".idx.tmp"
// is what earlier versions named a pack index being written.
const (
	tmpPackPrefix = "tmp_pack_"
	tmpIdxPrefix  = "tmp_idx_"
	oldIdxTmp     = ".idx.tmp"
)

// RepairPacks tidies the pack folder of gitDir after a write that was
// killed: it removes temporary files and an index without its pack, and
// indexes a pack without its index (an earlier version renamed the pack
// first), or removes it when it is not a whole pack. go-git fails every
// read while a pack has no index. It returns what it changed, and costs
// one directory read when there is nothing to do. The caller must be the
// only writer of gitDir.
func RepairPacks(gitDir string) ([]string, error) {
	dir := PackDir(gitDir)
	entries, err := os.ReadDir(dir)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	names := make(map[string]bool, len(entries))
	for _, e := range entries {
		names[e.Name()] = true
	}
	var done []string
	remove := func(name string) error {
		if err := os.Remove(filepath.Join(dir, name)); err != nil && !errors.Is(err, os.ErrNotExist) {
			return err
		}
		done = append(done, "removed "+name)
		return nil
	}
	for _, e := range entries {
		n := e.Name()
		stem, isPack := strings.CutSuffix(n, ".pack")
		idxStem, isIdx := strings.CutSuffix(n, ".idx")
		switch {
		case strings.HasPrefix(n, tmpPackPrefix) || strings.HasPrefix(n, tmpIdxPrefix) || strings.HasSuffix(n, oldIdxTmp):
			err = remove(n)
		case isIdx && strings.HasPrefix(n, "pack-") && !names[idxStem+".pack"]:
			err = remove(n)
		case isPack && strings.HasPrefix(n, "pack-") && !names[stem+".idx"]:
			if ierr := indexPack(dir, stem); ierr != nil {
				err = remove(n)
			} else {
				done = append(done, "indexed "+n)
			}
		}
		if err != nil {
			return done, fmt.Errorf("repair %s: %w", dir, err)
		}
	}
	return done, nil
}

// indexPack writes the index of dir/stem.pack, when it is a whole pack
// whose checksum is its name.
func indexPack(dir, stem string) error {
	f, err := os.Open(filepath.Join(dir, stem+".pack"))
	if err != nil {
		return err
	}
	defer f.Close()
	w := new(idxfile.Writer)
	p, err := packfile.NewParser(packfile.NewScanner(f), w)
	if err != nil {
		return err
	}
	sum, err := p.Parse()
	if err != nil {
		return err
	}
	if "pack-"+hex.EncodeToString(sum[:]) != stem || sum == plumbing.ZeroHash {
		return fmt.Errorf("%s.pack: checksum %s", stem, sum)
	}
	tmp, err := writeIndex(w, dir)
	if err != nil {
		return err
	}
	if err := os.Rename(tmp, filepath.Join(dir, stem+".idx")); err != nil {
		os.Remove(tmp)
		return err
	}
	return nil
}
