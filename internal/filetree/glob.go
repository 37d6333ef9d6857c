package filetree

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
)

// Glob is filepath.Glob(filepath.Join(dir, pattern)) with dir taken
// literally: a checkout or cache path may hold [, * or ?, which Glob would
// read as a pattern and then match nothing. pattern is matched against
// the names in dir only (no separators). A missing dir matches nothing.
func Glob(dir, pattern string) ([]string, error) {
	if _, err := filepath.Match(pattern, ""); err != nil {
		return nil, err
	}
	entries, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var out []string
	for _, e := range entries {
		if ok, _ := filepath.Match(pattern, e.Name()); ok {
			out = append(out, filepath.Join(dir, e.Name()))
		}
	}
	return out, nil
}
