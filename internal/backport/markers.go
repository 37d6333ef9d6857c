package backport

import (
	"bufio"
	"bytes"
	"errors"
	"io/fs"
	"os"
	"strings"

	"github.com/bluekeyes/go-gitdiff/gitdiff"
)

// markersLeft lists the marked files that still hold a conflict marker,
// and the .rej files still there.
func markersLeft(dir string, files []string) ([]string, error) {
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, err
	}
	defer root.Close()
	var left []string
	for _, name := range files {
		data, err := root.ReadFile(name)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, err
		}
		if strings.HasSuffix(name, ".rej") || hasMarker(data) {
			left = append(left, name)
		}
	}
	return left, nil
}

func hasMarker(data []byte) bool {
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(nil, 1<<30)
	for sc.Scan() {
		l := sc.Text()
		if isMarker(l, "<<<<<<<") || isMarker(l, "|||||||") || isMarker(l, ">>>>>>>") {
			return true
		}
	}
	return false
}

// isMarker is a conflict marker line, with or without a label.
func isMarker(line, marker string) bool {
	return line == marker || strings.HasPrefix(line, marker+" ")
}

func nameOf(f *gitdiff.File) string {
	if f.NewName != "" {
		return f.NewName
	}
	return f.OldName
}

func mkParent(root *os.Root, name string) error {
	if i := strings.LastIndexByte(name, '/'); i > 0 {
		return root.MkdirAll(name[:i], 0o755)
	}
	return nil
}

func modeOf(m os.FileMode) os.FileMode {
	if m&0o111 != 0 {
		return 0o755
	}
	return 0o644
}
