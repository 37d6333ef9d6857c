package capi

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/epp-build/epp-build/internal/cheader"
)

// A binding declares an optional part of its C API generation in
// feature_<tag>.h next to its main header, and compiles the Go code that
// calls it only under the build tag <tag>. The feature is on when every
// target's library declares all of that header's functions with the same
// types and its archive defines them; then the EPP is compiled with the tag.
var featureHeader = regexp.MustCompile(`^feature_([a-z0-9_]+)\.h$`)

// Feature is one optional C API feature of a binding and whether the
// built library has it.
type Feature struct {
	Tag       string   `json:"tag"`       // Go build tag, e.g. dynamo_prefill_reservation
	Functions []string `json:"functions"` // what the library must define
	Enabled   bool     `json:"enabled"`
	// Missing names the functions the library lacks, by platform.
	Missing map[string][]string `json:"missing,omitempty"`
}

// Tags are the build tags of the enabled features.
func Tags(features []Feature) []string {
	var tags []string
	for _, f := range features {
		if f.Enabled {
			tags = append(tags, f.Tag)
		}
	}
	return tags
}

// detectFeatures reads the binding's feature headers and decides each one
// against every artifact. A feature whose functions the library declares
// with other types than the binding is an error, not a silent "off".
// base is the binding's main header, whose types the feature headers use.
func detectFeatures(res *Result, bindingDir string, base []byte) ([]Feature, error) {
	entries, err := os.ReadDir(bindingDir)
	if err != nil {
		return nil, fmt.Errorf("C API features: %w", err)
	}
	var out []Feature
	for _, e := range entries {
		m := featureHeader.FindStringSubmatch(e.Name())
		if m == nil || e.IsDir() {
			continue
		}
		src, err := os.ReadFile(filepath.Join(bindingDir, e.Name()))
		if err != nil {
			return nil, fmt.Errorf("C API feature %s: %w", m[1], err)
		}
		binding, err := cheader.ParseHeader(src)
		if err != nil {
			return nil, fmt.Errorf("C API feature header %s: %w", e.Name(), err)
		}
		f := Feature{Tag: m[1], Enabled: true, Missing: map[string][]string{}}
		for name := range binding.Functions {
			f.Functions = append(f.Functions, name)
		}
		sort.Strings(f.Functions)
		for _, a := range res.Artifacts {
			missing, err := missingFunctions(a, f.Functions)
			if err != nil {
				return nil, err
			}
			if len(missing) > 0 {
				f.Enabled = false
				f.Missing[a.Target.Platform] = missing
			}
		}
		if f.Enabled {
			for _, a := range res.Artifacts {
				lib, err := os.ReadFile(a.Header)
				if err != nil {
					return nil, err
				}
				// The feature header includes the main one for its types.
				withTypes := append(append(append([]byte(nil), base...), '\n'), src...)
				if err := CheckPrototypes(withTypes, lib); err != nil {
					return nil, fmt.Errorf("C API feature %s (%s, %s): %w", f.Tag, e.Name(), a.Target.Platform, err)
				}
			}
			f.Missing = nil
		}
		out = append(out, f)
	}
	return out, nil
}

// missingFunctions lists the functions the artifact's header does not
// declare or its archive does not define.
func missingFunctions(a Artifact, functions []string) ([]string, error) {
	src, err := os.ReadFile(a.Header)
	if err != nil {
		return nil, err
	}
	h, err := cheader.ParseHeader(src)
	if err != nil {
		return nil, fmt.Errorf("library header %s: %w", a.Header, err)
	}
	defined, err := ArchiveSymbols(a.Library)
	if err != nil {
		return nil, err
	}
	var missing []string
	for _, fn := range functions {
		if _, ok := h.Functions[fn]; !ok || !defined[fn] {
			missing = append(missing, fn)
		}
	}
	return missing, nil
}

// ArchiveSymbols reads the symbol index of a static library (the GNU ar
// "/" or "/SYM64/" member ranlib writes, which lists every global symbol a
// member defines).
func ArchiveSymbols(path string) (map[string]bool, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	if !bytes.HasPrefix(data, []byte("!<arch>\n")) {
		return nil, fmt.Errorf("%s is not an ar archive", path)
	}
	off := 8
	for off+60 <= len(data) {
		hdr := data[off : off+60]
		name := strings.TrimSpace(string(hdr[:16]))
		size, err := strconv.Atoi(strings.TrimSpace(string(hdr[48:58])))
		if err != nil || off+60+size > len(data) {
			return nil, fmt.Errorf("%s: malformed ar member header at offset %d", path, off)
		}
		body := data[off+60 : off+60+size]
		switch name {
		case "/":
			return indexNames(path, body, 4)
		case "/SYM64/":
			return indexNames(path, body, 8)
		}
		off += 60 + size + size%2
	}
	return nil, fmt.Errorf("%s has no symbol index (run ranlib on it)", path)
}

// indexNames reads a GNU symbol index: a big-endian count, count member
// offsets of width bytes each, then count NUL-terminated names.
func indexNames(path string, body []byte, width int) (map[string]bool, error) {
	if len(body) < width {
		return nil, fmt.Errorf("%s: truncated symbol index", path)
	}
	var n uint64
	if width == 4 {
		n = uint64(binary.BigEndian.Uint32(body))
	} else {
		n = binary.BigEndian.Uint64(body)
	}
	start := uint64(width) * (n + 1)
	if start > uint64(len(body)) {
		return nil, fmt.Errorf("%s: truncated symbol index", path)
	}
	names := bytes.Split(bytes.TrimRight(body[start:], "\x00"), []byte{0})
	if uint64(len(names)) < n {
		return nil, fmt.Errorf("%s: symbol index lists %d names, want %d", path, len(names), n)
	}
	out := make(map[string]bool, n)
	for _, nm := range names[:n] {
		out[string(nm)] = true
	}
	return out, nil
}
