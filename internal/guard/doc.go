// Package guard finds what an existing output tree holds that apply did
// not make, so that apply never discards it unasked.
//
// Tracked files that changed, untracked files (ignored ones included) and
// commits apply did not make all count; the check is fast on a clean tree
// because it reads a file only when its stat data differs from the index,
// as git does (Inspect). LocalChangesError is the refusal and its advice.
package guard
