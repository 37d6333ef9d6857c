package capi

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/epp-build/epp-build/internal/filetree"
)

// FindBindingDir finds the folder of the cgo binding inside a source tree:
// the one holding headerName (e.g. dynamo_llm_pipeline.h). Exactly one must
// exist; vendor/ and .git/ are skipped.
func FindBindingDir(tree, headerName string) (string, error) {
	var found []string
	err := filepath.WalkDir(tree, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && p != tree && (d.Name() == ".git" || d.Name() == "vendor" || d.Name() == "node_modules") {
			return filepath.SkipDir
		}
		if !d.IsDir() && d.Name() == headerName {
			found = append(found, filepath.Dir(p))
		}
		return nil
	})
	if err != nil {
		return "", fmt.Errorf("search %s for %s: %w", tree, headerName, err)
	}
	switch len(found) {
	case 0:
		return "", &NoBindingError{Tree: tree, Header: headerName}
	case 1:
		return found[0], nil
	}
	return "", fmt.Errorf("%s appears in several folders of %s (%s): expected one cgo binding", headerName, tree, strings.Join(found, ", "))
}

// Stage copies each artifact's library to <bindingDir>/lib/<goarch>/ and
// the header to <bindingDir>/include/, after checking the binding's
// prototypes against the header. bindingHeader is the binding's own header.
// It returns the binding's optional features (feature_<tag>.h), each on
// only when every target's library has it; compile with their Tags.
func Stage(res *Result, bindingDir, bindingHeader, library string) ([]Feature, error) {
	if len(res.Artifacts) == 0 {
		return nil, errors.New("stage C API: nothing was built")
	}
	var libs []Library
	for _, a := range res.Artifacts {
		h, err := os.ReadFile(a.Header)
		if err != nil {
			return nil, fmt.Errorf("stage C API: %w", err)
		}
		libs = append(libs, Library{Platform: a.Platform.String(), HeaderName: filepath.Base(a.Header), Header: h,
			Symbols: func() (map[string]bool, error) { return ArchiveSymbols(a.Library) }})
	}
	features, err := CheckLibraries(bindingDir, bindingHeader, libs)
	if err != nil {
		return nil, err
	}
	for _, a := range res.Artifacts {
		if err := filetree.CopyFile(a.Library, filepath.Join(bindingDir, "lib", a.Platform.GOARCH, "lib"+library+".a"), 0); err != nil {
			return nil, fmt.Errorf("stage C API for %s: %w", a.Platform.String(), err)
		}
	}
	h := res.Artifacts[0].Header
	if err := filetree.CopyFile(h, filepath.Join(bindingDir, "include", filepath.Base(h)), 0); err != nil {
		return nil, fmt.Errorf("stage C API header: %w", err)
	}
	return features, nil
}

// NoBindingError is a tree without the cgo binding (before the patch that
// adds it, or a tree the series was not applied to).
type NoBindingError struct{ Tree, Header string }

func (e *NoBindingError) Error() string {
	return fmt.Sprintf("no %s in %s: the tree has no cgo binding for this C API generation (was the series applied?)", e.Header, e.Tree)
}
