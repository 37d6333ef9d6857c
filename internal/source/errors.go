package source

import (
	"errors"
	"fmt"
)

// ErrCorrupt marks a cache entry that failed verification. Fetch and
// Materialize drop such an entry and fetch again; it reaches a caller only
// when the fresh copy is damaged too.
var ErrCorrupt = errors.New("cache entry corrupt")

// MismatchError says the pinned ref resolved to another commit than the
// recipe expects: the tag was moved upstream, or the recipe is wrong. It is
// never retried through another source.
type MismatchError struct {
	Ref, Want, Got, Repository string
	// Note says how Got was found when it was not by this run's fetch
	// (a cached pin checked against the tag's recorded commit).
	Note string
}

func (e *MismatchError) Error() string {
	if e.Note != "" {
		return fmt.Sprintf("%s at %s points at commit %s (%s), but the recipe pins %s: the ref was moved upstream or upstream.commit is wrong (check the release, then fix upstream.ref or upstream.commit)",
			e.Ref, e.Repository, e.Got, e.Note, e.Want)
	}
	return fmt.Sprintf("%s at %s resolves to commit %s, but the recipe pins %s: the ref was moved upstream or upstream.commit is wrong (check the release, then fix upstream.ref or upstream.commit)",
		e.Ref, e.Repository, e.Got, e.Want)
}

// ModuleHashError says the module proxy served a zip whose h1: hash is not
// the one the recipe pins: a verification failure, like MismatchError.
type ModuleHashError struct {
	Module, Proxy, Want, Got string
}

func (e *ModuleHashError) Error() string {
	return fmt.Sprintf("module zip %s from %s has hash %s, but the recipe pins upstream.moduleHash %s: the proxy served other content or the recipe is wrong", e.Module, e.Proxy, e.Got, e.Want)
}

// fetchError is a failure to get the tree from a source (network, server,
// missing ref): Auto may fall back to another source on it.
type fetchError struct {
	source Kind
	err    error
}

func (e *fetchError) Error() string { return e.err.Error() }
func (e *fetchError) Unwrap() error { return e.err }

func asFetchError(kind Kind, err error) error {
	if err == nil {
		return nil
	}
	return &fetchError{source: kind, err: err}
}

// corruptf builds an error wrapping ErrCorrupt.
func corruptf(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrCorrupt, fmt.Sprintf(format, args...))
}
