// Package vulns finds the known vulnerabilities a release line's EPP
// calls, imports or only requires, with golang.org/x/vuln's scanner run
// in-process against a database the user chooses.
package vulns

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"golang.org/x/mod/modfile"

	"github.com/epp-build/epp-build/internal/apply"
	"github.com/epp-build/epp-build/internal/image"
	"github.com/epp-build/epp-build/internal/progress"
	"github.com/epp-build/epp-build/internal/recipe"
)

// DefaultDB is the Go vulnerability database govulncheck reads by default.
const DefaultDB = "https://vuln.go.dev"

// Level is how close a program comes to a vulnerability.
type Level string

const (
	// Called: a call path reaches a vulnerable function.
	Called Level = "called"
	// Imported: a vulnerable package is imported, no vulnerable function reached.
	Imported Level = "imported"
	// Required: the vulnerable module is in the build, no vulnerable package imported.
	Required Level = "required"
)

// rank orders levels, most severe first.
func (l Level) rank() int {
	switch l {
	case Called:
		return 0
	case Imported:
		return 1
	}
	return 2
}

// Request says what to scan, against which database.
type Request struct {
	// Recipes are release lines: each is applied into a temporary folder
	// with Apply and its ./cmd/epp (and ./cmd/bbr) scanned.
	Recipes []*recipe.Recipe
	Apply   apply.Options
	// Dirs are Go module folders (an applied tree) scanned as they are.
	Dirs []string
	// Patterns are the packages a source scan starts from; nil = the
	// EPP's ./cmd/epp and ./cmd/bbr, those the tree has.
	Patterns []string
	// Binaries are built Go programs, scanned in binary mode.
	Binaries []string
	// Built are binaries of one platform each (a build's), scanned in
	// binary mode under their own names.
	Built []Binary
	// Images are image references whose platform images' /epp is pulled
	// with Registry (before any scan, so a bad reference fails first) and
	// scanned in binary mode.
	Images   []string
	Registry image.RegistryOptions
	// DB is the database URL (https://... or file:///DIR); "" = DefaultDB.
	DB string
	// VEX is an OpenVEX document whose not_affected statements suppress
	// their findings; "" = none.
	VEX string
	// Env is the environment of the go command the scanner runs; nil =
	// this process's.
	Env      []string
	Progress *progress.Reporter
}

// Binary is one platform's built EPP.
type Binary struct {
	// Name is the target's name in the report ("" = Path).
	Name     string
	Platform string // os/arch
	Path     string
}

// Report is what Scan found, target by target.
type Report struct {
	DB         string     `json:"db"`
	DBModified *time.Time `json:"db_modified,omitempty"`
	Scanner    string     `json:"scanner"`
	VEX        string     `json:"vex,omitempty"`
	// ScannedAt is when the scan started.
	ScannedAt time.Time `json:"scanned_at"`
	// FailOn is the threshold a build's gate held the scan to ("" for
	// the vulns command).
	FailOn  Threshold `json:"fail_on,omitempty"`
	Targets []*Target `json:"targets"`

	vex *vexDoc
}

// Target is one scanned line, folder or binary.
type Target struct {
	// Name is the line's version, the folder or the binary as given.
	Name string `json:"name"`
	// Kind is "line", "dir" or "binary".
	Kind string `json:"kind"`
	// Mode is the scanner's: "source" or "binary".
	Mode      string   `json:"mode"`
	Patterns  []string `json:"patterns,omitempty"`
	GoVersion string   `json:"go_version,omitempty"`
	// Platform is a built binary's os/arch, when known.
	Platform string `json:"platform,omitempty"`
	// Digest is a scanned binary's sha256:<hex>: what names the file an
	// image holds.
	Digest string `json:"digest,omitempty"`
	// Seconds is how long the scan took (not the apply before it).
	Seconds  float64   `json:"seconds"`
	Findings []Finding `json:"findings"`

	// stream is the scanner's own JSON output, converted to SARIF or
	// OpenVEX by the scanner itself.
	stream []byte
}

// Finding is one vulnerability in one module of a target.
type Finding struct {
	ID      string   `json:"id"`
	Aliases []string `json:"aliases,omitempty"`
	Summary string   `json:"summary,omitempty"`
	// Module is the module path; "stdlib" (or "toolchain") for Go itself,
	// whose Version and Fixed are Go versions (go1.26.8).
	Module  string `json:"module"`
	Version string `json:"version,omitempty"`
	Fixed   string `json:"fixed,omitempty"`
	Level   Level  `json:"level"`
	// Trace is one call path for a called finding, from the program's
	// own function to the vulnerable one; the package for an imported one.
	Trace []string `json:"trace,omitempty"`
	// Suppressed is the VEX statement that says the target is not affected.
	Suppressed *Suppression `json:"suppressed,omitempty"`
}

// Suppression is a not_affected statement of the --vex document.
type Suppression struct {
	Justification   string `json:"justification,omitempty"`
	ImpactStatement string `json:"impact_statement,omitempty"`
}

// Counts are a target's findings by level; suppressed ones only in
// Suppressed.
type Counts struct {
	Called, Imported, Required, Suppressed int
}

// Counts tallies t's findings.
func (t *Target) Counts() Counts {
	var c Counts
	for _, f := range t.Findings {
		switch {
		case f.Suppressed != nil:
			c.Suppressed++
		case f.Level == Called:
			c.Called++
		case f.Level == Imported:
			c.Imported++
		default:
			c.Required++
		}
	}
	return c
}

// CalledError says that a scanned target calls a vulnerable function no
// VEX statement answers for.
type CalledError struct {
	// Called counts such findings per target name.
	Called map[string]int
}

func (e *CalledError) Error() string {
	total, byTarget := countsByTarget(e.Called)
	return fmt.Sprintf("%d called vulnerabilities (%s); fix them by raising the modules to their fixed versions, or state in a --vex document why a line is not affected", total, byTarget)
}

// Err is a *CalledError when any target calls a vulnerable function that
// is not suppressed, else nil.
func (r *Report) Err() error {
	called := map[string]int{}
	for _, t := range r.Targets {
		if n := t.Counts().Called; n > 0 {
			called[t.Name] = n
		}
	}
	if len(called) == 0 {
		return nil
	}
	return &CalledError{Called: called}
}

// Scan scans every target of req and reports what it found. A target
// that cannot be scanned stops the scan.
func Scan(ctx context.Context, req Request) (*Report, error) {
	db := req.DB
	if db == "" {
		db = DefaultDB
	}
	rep := &Report{DB: db, Scanner: scannerName(), VEX: req.VEX, ScannedAt: time.Now().UTC().Truncate(time.Second)}
	if req.VEX != "" {
		var err error
		if rep.vex, err = readVEX(req.VEX); err != nil {
			return nil, err
		}
	}
	env := req.Env
	if env == nil {
		env = os.Environ()
	}
	pulled, cleanup, err := pullImages(ctx, req.Images, req.Registry)
	if err != nil {
		return nil, err
	}
	defer cleanup()
	add := func(t *Target, cfg *scanConfig) {
		if cfg != nil && cfg.DBLastModified != nil && rep.DBModified == nil {
			m := cfg.DBLastModified.UTC()
			rep.DBModified = &m
		}
		rep.vex.suppress(t.Findings)
		rep.Targets = append(rep.Targets, t)
	}
	for _, r := range req.Recipes {
		t, cfg, err := scanLine(ctx, r, req, db, env)
		if err != nil {
			return rep, err
		}
		add(t, cfg)
	}
	for _, dir := range req.Dirs {
		t := &Target{Name: dir, Kind: "dir"}
		cfg, err := scanSource(ctx, t, dir, req.Patterns, db, env, req.Progress)
		if err != nil {
			return rep, err
		}
		add(t, cfg)
	}
	binaries := make([]Binary, 0, len(req.Binaries)+len(req.Built)+len(pulled))
	for _, bin := range req.Binaries {
		binaries = append(binaries, Binary{Path: bin})
	}
	binaries = append(append(binaries, req.Built...), pulled...)
	for _, bin := range binaries {
		t, cfg, err := scanBinary(ctx, bin, db, env, req.Progress)
		if err != nil {
			return rep, err
		}
		add(t, cfg)
	}
	return rep, nil
}

func scanBinary(ctx context.Context, bin Binary, db string, env []string, shown *progress.Reporter) (*Target, *scanConfig, error) {
	t := &Target{Name: bin.Name, Kind: "binary", Mode: "binary", Platform: bin.Platform}
	if t.Name == "" {
		t.Name = bin.Path
	}
	var err error
	if t.Digest, err = fileDigest(bin.Path); err != nil {
		return nil, nil, fmt.Errorf("scan %s: %w", t.Name, err)
	}
	cfg, err := run(ctx, t, "scan "+t.Name, db, env, shown, "-mode", "binary", bin.Path)
	return t, cfg, err
}

// fileDigest is the file's sha256:<hex>.
func fileDigest(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", err
	}
	return "sha256:" + hex.EncodeToString(h.Sum(nil)), nil
}

// scanLine applies r into a temporary folder, removed afterwards, and
// scans it.
func scanLine(ctx context.Context, r *recipe.Recipe, req Request, db string, env []string) (*Target, *scanConfig, error) {
	tmp, err := os.MkdirTemp("", "epp-build-vulns-")
	if err != nil {
		return nil, nil, fmt.Errorf("make a folder to apply %s in: %w", r.Version, err)
	}
	defer os.RemoveAll(tmp)
	out := filepath.Join(tmp, "tree")
	if _, err := apply.Recipe(ctx, r, out, req.Apply); err != nil {
		return nil, nil, fmt.Errorf("apply %s to scan it: %w", r.Version, err)
	}
	t := &Target{Name: r.Version, Kind: "line"}
	cfg, err := scanSource(ctx, t, out, req.Patterns, db, lineEnv(r, env), req.Progress)
	return t, cfg, err
}

// mainPackages are the EPP's programs a source scan starts from, when the
// tree has them.
var mainPackages = []string{"./cmd/epp", "./cmd/bbr"}

func scanSource(ctx context.Context, t *Target, dir string, patterns []string, db string, env []string, shown *progress.Reporter) (*scanConfig, error) {
	t.Mode = "source"
	env, err := withGoVersion(ctx, env)
	if err != nil {
		return nil, err
	}
	env = withoutBrokenWorkspace(dir, env)
	if len(patterns) > 0 {
		t.Patterns = patterns
		args := append([]string{"-C", dir}, patterns...)
		return run(ctx, t, "scan "+t.Name, db, env, shown, args...)
	}
	for _, p := range mainPackages {
		if fi, err := os.Stat(filepath.Join(dir, filepath.FromSlash(p))); err == nil && fi.IsDir() {
			t.Patterns = append(t.Patterns, p)
		}
	}
	if len(t.Patterns) == 0 {
		return nil, fmt.Errorf("%s has no %s: not an EPP tree (apply a version first, or name a binary with --binary)", dir, strings.Join(mainPackages, " or "))
	}
	args := append([]string{"-C", dir}, t.Patterns...)
	return run(ctx, t, "scan "+t.Name, db, env, shown, args...)
}

// withGoVersion adds GOVERSION, the Go the go command of env runs, when
// env does not set it: the scanner matches the standard library against
// it but asks the go command of this process's environment otherwise,
// which is another Go when env sets GOTOOLCHAIN.
func withGoVersion(ctx context.Context, env []string) ([]string, error) {
	for _, kv := range env {
		if strings.HasPrefix(kv, "GOVERSION=") {
			return env, nil
		}
	}
	cmd := exec.CommandContext(ctx, "go", "env", "GOVERSION")
	cmd.Env = env
	out, err := cmd.Output()
	if err != nil {
		var exit *exec.ExitError
		if errors.As(err, &exit) {
			err = fmt.Errorf("%w: %s", err, strings.TrimSpace(string(exit.Stderr)))
		}
		return nil, fmt.Errorf("go env GOVERSION: %w", err)
	}
	return append(env[:len(env):len(env)], "GOVERSION="+strings.TrimSpace(string(out))), nil
}

// withoutBrokenWorkspace adds GOWORK=off when dir's go.work uses a module
// folder the tree lacks: GAIE's go.work uses conformance/, which the
// module proxy's zip of a GAIE commit leaves out, and the go command then
// loads nothing. The EPP is the root module, which needs no workspace.
func withoutBrokenWorkspace(dir string, env []string) []string {
	for _, kv := range env {
		if strings.HasPrefix(kv, "GOWORK=") {
			return env
		}
	}
	path := filepath.Join(dir, "go.work")
	data, err := os.ReadFile(path)
	if err != nil {
		return env
	}
	work, err := modfile.ParseWork(path, data, nil)
	if err != nil {
		return env // the go command says what is wrong with it
	}
	for _, u := range work.Use {
		if _, err := os.Stat(filepath.Join(dir, filepath.FromSlash(u.Path), "go.mod")); err != nil {
			return append(env[:len(env):len(env)], "GOWORK=off")
		}
	}
	return env
}
