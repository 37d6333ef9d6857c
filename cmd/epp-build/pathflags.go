package main

import (
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/epp-build/epp-build/internal/redact"
	"github.com/epp-build/epp-build/internal/source"
	"github.com/epp-build/epp-build/internal/textsafe"
)

// upstreamEnv is the mirror of the upstream for every command that fetches
// it or reads its history, when --upstream is not given: a CI job sets it
// once instead of on each command.
const upstreamEnv = "EPP_BUILD_UPSTREAM"

// pathRule is what a path flag's value must be before a command may fetch
// or write anything.
type pathRule int

const (
	// existingDir: a folder the command reads (or, for --dir with
	// --continue, a work tree it goes on in).
	existingDir pathRule = iota
	// gitDir: an existing folder holding a git repository.
	gitDir
	// notAFile: a folder the command creates or replaces; it may be
	// missing, but an existing file there is never one.
	notAFile
	// outFile: a file the command writes; an existing folder is never one.
	outFile
	// upstreamSource: a git URL or a local clone or mirror (--upstream).
	upstreamSource
)

// pathFlag is one path flag of a command: its rule and what to give
// instead of a bad value.
type pathFlag struct {
	name string
	rule pathRule
	fix  string
}

// Fixes shared by several commands.
const (
	fixRecipe   = "give a recipe folder (one holding recipe.yaml), or --version V"
	fixCAPISrc  = "give a checkout of the C API's workspace, or the crate folder"
	fixUpstream = "give a git URL (https://, ssh:// or git@host:path) or the folder of a local clone or mirror of the upstream"
	fixCache    = "give a folder for the cache, or leave --cache-dir out"
)

// sourceFlags are the path flags every command with recipeFlags has.
var sourceFlags = []pathFlag{
	{"recipe", existingDir, fixRecipe},
	{"upstream", upstreamSource, fixUpstream},
	{"cache-dir", notAFile, fixCache},
}

// pathFlags are, per command, the flags naming a path or a source,
// checked by checkPathFlags before the command fetches or writes anything.
var pathFlags = map[string][]pathFlag{
	"apply": append([]pathFlag{
		{"capi-src", existingDir, fixCAPISrc},
		{"out", notAFile, "give a folder for the patched tree (created when missing)"},
	}, sourceFlags...),
	"build": append([]pathFlag{
		{"capi-src", existingDir, fixCAPISrc},
		{"tree", notAFile, "give a folder for the applied tree (created when missing), or leave --tree out"},
		{"oci-tar", outFile, "give a file name for the OCI tarball"},
		{"report", outFile, "give a file name for the JSON report"},
		{"metadata-file", outFile, "give a file name for the metadata"},
		{"image-refs", outFile, "give a file name for the image references"},
	}, sourceFlags...),
	"check": sourceFlags,
	"log":   sourceFlags,
	"rebase": append([]pathFlag{
		{"capi-src", existingDir, fixCAPISrc},
		{"dir", notAFile, "give a folder for the rebase's work tree (created), or leave --dir out"},
	}, sourceFlags...),
	"pick": append([]pathFlag{
		{"from", gitDir, "give the folder of a local git repository holding the revisions to pick"},
		{"dir", notAFile, "give a folder for the pick's work tree (created), or leave --dir out"},
	}, sourceFlags...),
	"diff-series": {
		{"upstream", upstreamSource, fixUpstream},
		{"cache-dir", notAFile, fixCache},
	},
	"lint": {
		{"upstream", upstreamSource, fixUpstream},
		{"cache-dir", notAFile, fixCache},
	},
	"vulns": append([]pathFlag{
		{"dir", existingDir, "give a tree epp-build apply made (apply --out)"},
	}, sourceFlags...),
	"export": {
		{"dir", gitDir, "give the work tree epp-build apply made (apply --out)"},
		{"to", notAFile, "give a recipe folder to write the series into, or leave --to out to print it"},
	},
	"status": {
		{"out", existingDir, "give a tree epp-build apply made (apply --out), or leave --out out"},
		{"dir", existingDir, "give the work tree a rebase or pick was started with (--dir), or leave --dir out"},
	},
}

// resumes are the flags that go on with work started before: with one
// of them, --dir must be the work tree that start left.
var resumes = []string{"continue", "skip", "abort"}

// checkPathFlags refuses, as a usage error naming the flag and the fix, a
// path or source flag whose value cannot be right, before the command
// fetches or writes anything (a bad --capi-src used to be found after the
// tree was written). It also gives --upstream its value from
// EPP_BUILD_UPSTREAM when the flag is not given.
func checkPathFlags(cmd *cobra.Command) error {
	name := strings.TrimPrefix(cmd.CommandPath(), cmd.Root().Name()+" ")
	if err := upstreamFromEnv(cmd); err != nil {
		return err
	}
	if f := cmd.Flags().Lookup("dry-run"); f != nil && f.Changed {
		// A dry run prints the plan, reading and writing no path: it may
		// run where the paths are not (a CI planner).
		return nil
	}
	for _, pf := range pathFlags[name] {
		f := cmd.Flags().Lookup(pf.name)
		if f == nil {
			continue
		}
		rule, fix := pf.rule, pf.fix
		if pf.name == "dir" && resuming(cmd) {
			rule, fix = existingDir, "give the work tree the stopped "+name+" is in (the --dir it started with), or leave --dir out to find it"
		}
		if pf.name == "out" && name == "apply" && flagTrue(cmd, "capi-only") {
			rule = existingDir
		}
		for _, v := range flagValues(f) {
			if v == "" {
				continue // the command says what an empty value means
			}
			if err := checkPath(cmd, f, rule, v); err != nil {
				return usageError{fmt.Errorf("%s %s: %v: %s", flagShown(f), shownValue(rule, v), err, fix)}
			}
		}
	}
	return nil
}

// upstreamFromEnv sets --upstream from EPP_BUILD_UPSTREAM on a command
// that has the flag and was not given it.
func upstreamFromEnv(cmd *cobra.Command) error {
	f := cmd.Flags().Lookup("upstream")
	env := os.Getenv(upstreamEnv)
	if f == nil || f.Changed || env == "" {
		return nil
	}
	if err := f.Value.Set(env); err != nil {
		return usageError{fmt.Errorf("%s: %w", upstreamEnv, err)}
	}
	// Not f.Changed: the value is the environment's, and messages say so.
	if f.Annotations == nil {
		f.Annotations = map[string][]string{}
	}
	f.Annotations[fromEnvAnnotation] = []string{upstreamEnv}
	return nil
}

const fromEnvAnnotation = "epp-build-from-env"

// flagShown names the flag as the user set it: the variable for a value
// from the environment.
func flagShown(f *pflag.Flag) string {
	if env := f.Annotations[fromEnvAnnotation]; len(env) > 0 {
		return env[0] + " (--" + f.Name + ")"
	}
	return "--" + f.Name
}

// shownValue is a value as a message may show it: a URL without its
// credentials.
func shownValue(rule pathRule, v string) string {
	if rule == upstreamSource {
		v = redact.URL(v)
	}
	return textsafe.Escape(v)
}

func resuming(cmd *cobra.Command) bool {
	for _, r := range resumes {
		if flagTrue(cmd, r) {
			return true
		}
	}
	return false
}

func flagTrue(cmd *cobra.Command, name string) bool {
	f := cmd.Flags().Lookup(name)
	return f != nil && f.Value.String() == "true"
}

// flagValues are a flag's values: one, or each of a repeatable one.
func flagValues(f *pflag.Flag) []string {
	if s, ok := f.Value.(pflag.SliceValue); ok {
		return s.GetSlice()
	}
	return []string{f.Value.String()}
}

// checkPath checks one value against rule; an upstream given as a local
// folder is made absolute, since the history is fetched from inside the
// cache.
func checkPath(cmd *cobra.Command, f *pflag.Flag, rule pathRule, v string) error {
	switch rule {
	case existingDir:
		return isDir(v)
	case gitDir:
		if err := isDir(v); err != nil {
			return err
		}
		return isGitRepository(v)
	case notAFile:
		if fi, err := os.Stat(v); err == nil && !fi.IsDir() {
			return errors.New("a file is there, not a folder")
		}
		return nil
	case outFile:
		if strings.Contains(v, "{{") {
			return nil // a template of the version: checked once filled in
		}
		if fi, err := os.Stat(v); err == nil && fi.IsDir() {
			return errors.New("a folder is there, not a file")
		}
		return nil
	case upstreamSource:
		dir, err := checkUpstreamValue(v, sourceKind(cmd))
		if err != nil || dir == "" {
			return err
		}
		abs, err := filepath.Abs(dir)
		if err != nil {
			return err
		}
		return f.Value.Set(abs)
	}
	return nil
}

func sourceKind(cmd *cobra.Command) source.Kind {
	if f := cmd.Flags().Lookup("source"); f != nil {
		if k, err := source.ParseKind(f.Value.String()); err == nil {
			return k
		}
	}
	return source.Auto
}

// scpLike is git's other way of writing an ssh URL: [user@]host:path, a
// colon before any slash.
var scpLike = regexp.MustCompile(`^([A-Za-z0-9._~-]+@)?[A-Za-z0-9.-]+:[^/]?`)

// checkUpstreamValue checks --upstream: a git URL (not for --source path)
// or the folder of a local repository, which it returns.
func checkUpstreamValue(v string, kind source.Kind) (string, error) {
	if rest, ok := strings.CutPrefix(v, "file://"); ok {
		return rest, localRepository(rest)
	}
	if strings.Contains(v, "://") {
		u, err := url.Parse(v)
		if err != nil {
			return "", errors.New("not a URL")
		}
		switch strings.ToLower(u.Scheme) {
		case "http", "https", "ssh", "git":
		default:
			return "", fmt.Errorf("git fetches no %s:// URL", u.Scheme)
		}
		if u.Host == "" {
			return "", errors.New("the URL names no host")
		}
		if kind == source.Path {
			return "", errors.New("--source path reads a local repository, not a URL")
		}
		return "", nil
	}
	if _, err := os.Stat(v); err != nil && scpLike.MatchString(v) && !strings.HasPrefix(v, ".") {
		if kind == source.Path {
			return "", errors.New("--source path reads a local repository, not a URL")
		}
		return "", nil
	}
	return v, localRepository(v)
}

func localRepository(dir string) error {
	if err := isDir(dir); err != nil {
		return err
	}
	return isGitRepository(dir)
}

func isDir(p string) error {
	fi, err := os.Stat(p)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return errors.New("no such folder")
	case err != nil:
		return err
	case !fi.IsDir():
		return errors.New("not a folder")
	}
	return nil
}

// isGitRepository: a work tree (.git) or a bare repository (HEAD and
// objects).
func isGitRepository(dir string) error {
	if _, err := os.Stat(filepath.Join(dir, ".git")); err == nil {
		return nil
	}
	if _, err := os.Stat(filepath.Join(dir, "HEAD")); err == nil {
		if fi, err := os.Stat(filepath.Join(dir, "objects")); err == nil && fi.IsDir() {
			return nil
		}
	}
	return errors.New("not a git repository")
}
