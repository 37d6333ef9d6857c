package backport

import "github.com/epp-build/epp-build/internal/patchset"

// markConflicts writes what it can of p into the work tree (placeholder).
func markConflicts(dir string, p *patchset.Patch) ([]string, error) { return nil, nil }

func markersLeft(dir string, files []string) ([]string, error) { return nil, nil }
