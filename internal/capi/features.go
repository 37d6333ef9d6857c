package capi

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/epp-build/epp-build/internal/cheader"
)

// A binding declares an optional part of its C API generation in
// feature_<tag>.h next to its main header, and compiles the Go code that
// calls it only under the build tag <tag>. The feature is on when every
// target's library declares all of that header's functions with the same
// types and its archive defines them; then the EPP is compiled with the tag.
var featureHeader = regexp.MustCompile(`^feature_([a-z0-9_]+)\.h$`)

// Feature is one optional C API feature of a binding, or one variant of a
// variant axis (see variantHeader), and whether the built library has it.
type Feature struct {
	Tag       string   `json:"tag"`       // Go build tag, e.g. routers_reservation_4
	Functions []string `json:"functions"` // what the library must define
	Enabled   bool     `json:"enabled"`
	// Missing names the functions the library lacks, by platform
	// (optional features only).
	Missing map[string][]string `json:"missing,omitempty"`
	// Axis and Variant are set for a variant (e.g. routers_result, 9):
	// exactly one variant per axis is enabled. Structs are the layouts it
	// defines; Header its fragment.
	Axis    string   `json:"axis,omitempty"`
	Variant string   `json:"variant,omitempty"`
	Structs []string `json:"structs,omitempty"`
	Header  string   `json:"header,omitempty"`
}

// Variants are the enabled variants as "<axis>=<value>", in axis order.
func Variants(features []Feature) []string {
	var out []string
	for _, f := range features {
		if f.Enabled && f.Axis != "" {
			out = append(out, f.Axis+"="+f.Variant)
		}
	}
	return out
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

// Library is one target's built C API as the checks see it: the header
// text and the symbols its archive defines. The host build reads both from
// its cache; the in-solve build reads them from the solve's output.
type Library struct {
	Platform string
	// HeaderName names the header in messages.
	HeaderName string
	Header     []byte
	// Symbols returns the archive's defined symbols; called only when a
	// feature needs them (a real archive is large).
	Symbols func() (map[string]bool, error)
}

// CheckLibraries checks the binding's prototypes (bindingHeader in
// bindingDir) against every library's header, then decides the binding's
// optional features (feature_<tag>.h), each on only when every library has
// it, and its variants (variant_<axis>-<value>.h), one per axis: the one
// the libraries declare. A prototype mismatch is a *cheader.MismatchError
// in the chain; a library that matches no known variant of an axis an
// *UnknownVariantError (which unwraps to one).
func CheckLibraries(bindingDir, bindingHeader string, libs []Library) ([]Feature, error) {
	if len(libs) == 0 {
		return nil, errors.New("check C API: nothing was built")
	}
	binding, err := os.ReadFile(filepath.Join(bindingDir, bindingHeader))
	if err != nil {
		return nil, fmt.Errorf("check C API: %w", err)
	}
	libs = slices.Clone(libs)
	for i, l := range libs {
		if err := CheckPrototypes(binding, l.Header); err != nil {
			return nil, fmt.Errorf("%w (binding %s, library header %s for %s)", err, filepath.Join(bindingDir, bindingHeader), l.HeaderName, l.Platform)
		}
		// Each feature asks for the symbols: read an archive's index once.
		if l.Symbols != nil {
			libs[i].Symbols = sync.OnceValues(l.Symbols)
		}
	}
	features, err := detectFeatures(libs, bindingDir, binding)
	if err != nil {
		return nil, err
	}
	variants, err := detectVariants(libs, bindingDir, binding)
	if err != nil {
		return nil, err
	}
	return append(features, variants...), nil
}

// detectFeatures reads the binding's feature headers and decides each one
// against every library. A feature whose functions the library declares
// with other types than the binding is an error, not a silent "off".
// base is the binding's main header, whose types the feature headers use.
func detectFeatures(libs []Library, bindingDir string, base []byte) ([]Feature, error) {
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
		for _, l := range libs {
			missing, err := missingFunctions(l, f.Functions)
			if err != nil {
				return nil, err
			}
			if len(missing) > 0 {
				f.Enabled = false
				f.Missing[l.Platform] = missing
			}
		}
		if f.Enabled {
			for _, l := range libs {
				// The feature header includes the main one for its types.
				withTypes := append(append(append([]byte(nil), base...), '\n'), src...)
				if err := CheckPrototypes(withTypes, l.Header); err != nil {
					return nil, fmt.Errorf("C API feature %s (%s, %s): %w", f.Tag, e.Name(), l.Platform, err)
				}
			}
			f.Missing = nil
		}
		out = append(out, f)
	}
	return out, nil
}

// missingFunctions lists the functions the library's header does not
// declare or its archive does not define.
func missingFunctions(l Library, functions []string) ([]string, error) {
	h, err := cheader.ParseHeader(l.Header)
	if err != nil {
		return nil, fmt.Errorf("library header %s for %s: %w", l.HeaderName, l.Platform, err)
	}
	defined, err := l.Symbols()
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
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return ReadArchiveSymbols(path, func(off, n int64) ([]byte, error) {
		buf := make([]byte, n)
		got, err := f.ReadAt(buf, off)
		if err == io.EOF {
			err = nil
		}
		return buf[:got], err
	})
}

// ReadArchiveSymbols is ArchiveSymbols over ranged reads (read returns up
// to n bytes at off, fewer at the end), so only the member headers and the
// index are read, wherever the archive is. name is for messages.
func ReadArchiveSymbols(name string, read func(off, n int64) ([]byte, error)) (map[string]bool, error) {
	magic, err := read(0, 8)
	if err != nil {
		return nil, err
	}
	if !bytes.Equal(magic, []byte("!<arch>\n")) {
		return nil, fmt.Errorf("%s is not an ar archive", name)
	}
	off := int64(8)
	for {
		hdr, err := read(off, 60)
		if err != nil {
			return nil, err
		}
		if len(hdr) < 60 {
			break
		}
		member := strings.TrimSpace(string(hdr[:16]))
		size, err := strconv.ParseInt(strings.TrimSpace(string(hdr[48:58])), 10, 64)
		if err != nil || size < 0 {
			return nil, fmt.Errorf("%s: malformed ar member header at offset %d", name, off)
		}
		if member == "/" || member == "/SYM64/" {
			body, err := read(off+60, size)
			if err != nil {
				return nil, err
			}
			if int64(len(body)) < size {
				return nil, fmt.Errorf("%s: malformed ar member header at offset %d", name, off)
			}
			if member == "/" {
				return indexNames(name, body, 4)
			}
			return indexNames(name, body, 8)
		}
		off += 60 + size + size%2
	}
	return nil, fmt.Errorf("%s has no symbol index (run ranlib on it)", name)
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
