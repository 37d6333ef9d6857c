package bundled

import (
	"fmt"
	"os"
	"slices"

	"github.com/epp-build/epp-build/internal/textsafe"
)

// Kind says where a recipe set came from.
type Kind string

// The origins of a recipe set, in the order Resolve tries them.
const (
	FromFlag     Kind = "--patches"
	FromEnv      Kind = "EPP_BUILD_PATCHES"
	FromCheckout Kind = "./patches"
	BuiltIn      Kind = "built-in"
)

// Set is the recipes a command reads: a folder the user owns, or the
// series built into the binary (then Dir is its checked copy in the cache,
// which no message shows).
type Set struct {
	Kind Kind
	Dir  string
	// EppBuild is the version of the binary carrying a built-in set.
	EppBuild string
	// Digest is Digest() for a built-in set; "" for a folder (see
	// FolderDigest).
	Digest string
	// Repaired: the cached copy of a built-in set had been changed and was
	// written again from the binary.
	Repaired bool
}

// String says which set, in the words a user would give it.
func (s Set) String() string {
	switch s.Kind {
	case BuiltIn:
		return "built into epp-build " + textsafe.Escape(s.EppBuild)
	case FromFlag:
		return "--patches " + textsafe.Escape(s.Dir)
	case FromEnv:
		return "EPP_BUILD_PATCHES=" + textsafe.Escape(s.Dir)
	}
	return string(FromCheckout)
}

// Request is what Resolve chooses from.
type Request struct {
	// Command is the command as typed after epp-build (check, series
	// move), for the message when it needs a folder.
	Command string
	// Flag is --patches when it was given; Env is $EPP_BUILD_PATCHES.
	Flag, Env string
	// Checkout is the folder looked for in the working directory.
	Checkout string
	// NeedsFolder: the command rewrites the series or reports on a
	// checkout, so the built-in recipes will not do.
	NeedsFolder bool
	// CacheDir holds the copy of the built-in recipes.
	CacheDir string
	// EppBuild is this binary's version.
	EppBuild string
}

// Resolve picks the recipes: --patches, else $EPP_BUILD_PATCHES, else the
// checkout's folder when there is one (the series being edited is the one
// used), else the series built into the binary.
func Resolve(req Request) (Set, error) {
	switch {
	case req.Flag != "":
		return Set{Kind: FromFlag, Dir: req.Flag}, nil
	case req.Env != "":
		return Set{Kind: FromEnv, Dir: req.Env}, nil
	}
	if fi, err := os.Stat(req.Checkout); err == nil && fi.IsDir() {
		return Set{Kind: FromCheckout, Dir: req.Checkout}, nil
	}
	if req.NeedsFolder {
		return Set{}, &NeedsFolderError{Command: req.Command}
	}
	c, err := Extract(req.CacheDir)
	if err != nil {
		return Set{}, err
	}
	return Set{Kind: BuiltIn, Dir: c.Dir, EppBuild: req.EppBuild, Digest: c.Digest, Repaired: c.Repaired}, nil
}

// CheckVersions refuses a version the built-in set does not have, naming
// those it has; any version passes for a folder, whose own lookup says
// which folder is missing.
func (s Set) CheckVersions(names ...string) error {
	if s.Kind != BuiltIn {
		return nil
	}
	known := Versions()
	for _, v := range names {
		if v != "" && !slices.Contains(known, v) {
			return unknownVersion(v, s.EppBuild, known)
		}
	}
	return nil
}

// NeedsFolderError: a command that writes recipes (or reports on a
// checkout) ran with no recipes folder. The built-in recipes are never
// written: their copy is the tool's cache and is replaced at will.
type NeedsFolderError struct{ Command string }

func (e *NeedsFolderError) Error() string {
	return fmt.Sprintf("%s works on a recipes folder of your own: run it in a checkout of the recipes (with its patches/ folder) or pass --patches DIR", e.Command)
}
