// Package recipe reads and validates a release version's recipe: the folder
// patches/<version>/ with recipe.yaml (what to build) and the patch series.
package recipe

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/epp-build/epp-build/internal/filetree"
	"github.com/epp-build/epp-build/internal/inputfile"
)

// FileName is the recipe file inside a version folder.
const FileName = "recipe.yaml"

// Recipe is one release version: the upstream pin, the ordered patch series
// and, for image builds, the C API pin.
type Recipe struct {
	// Version is the folder name, for example "v0.7.0".
	Version string `yaml:"-"`
	// Dir is the folder holding recipe.yaml and the patch files.
	Dir string `yaml:"-"`

	Description string `yaml:"description,omitempty"`
	// Extends names a sibling version whose series comes first; its
	// upstream, C API, toolchain and generated packages are inherited unless this
	// recipe sets its own.
	Extends string `yaml:"extends,omitempty"`
	// Reproduces names the Dynamo release this recipe stands for and how
	// far its facts were checked. It is never inherited: a recipe that
	// extends another stands for a release of its own.
	Reproduces *Reproduces `yaml:"reproduces,omitempty"`
	// Derived says the recipe was made from another version by a
	// rebase; it is never inherited either.
	Derived  *Derived `yaml:"derived,omitempty"`
	Upstream Upstream `yaml:"upstream"`
	CAPI     *CAPI    `yaml:"capi,omitempty"`
	// Toolchain is the Go release the line's binaries are built with
	// (goX.Y.Z), fetched as the go command fetches toolchains; empty
	// builds with the Go at hand. Inherited unless set.
	Toolchain string    `yaml:"toolchain,omitempty"`
	Generated []Package `yaml:"generated,omitempty"`
	// Patches are this recipe's own patch files, in order.
	Patches []string `yaml:"patches"`

	// Base is the recipe named by Extends.
	Base *Recipe `yaml:"-"`
	// Series is the whole series: the base's, then Patches.
	Series []SeriesPatch `yaml:"-"`
}

// SeriesPatch is one patch file of the whole series and the version
// folder that holds it.
type SeriesPatch struct {
	Name    string
	Path    string
	Version string
}

// Inherited is how many patches of Series come from the base recipe.
func (r *Recipe) Inherited() int { return len(r.Series) - len(r.Patches) }

// Upstream pins the tree the series applies to, by ref and expected commit,
// and says how to find the same tree on the Go module proxy.
type Upstream struct {
	Repository    string `yaml:"repository"`
	Ref           string `yaml:"ref"`
	Commit        string `yaml:"commit"`
	Module        string `yaml:"module,omitempty"`
	ModuleVersion string `yaml:"moduleVersion,omitempty"`
	ModuleHash    string `yaml:"moduleHash,omitempty"`
}

// CAPI pins the Rust crate that provides the Dynamo C API.
type CAPI struct {
	Repository string `yaml:"repository"`
	Ref        string `yaml:"ref"`
	Commit     string `yaml:"commit"`
	// Dir is the crate's folder inside the repository.
	Dir     string `yaml:"dir"`
	Crate   string `yaml:"crate"`
	Library string `yaml:"library"`
	// Generation names the C API generation the Go binding speaks
	// ("pipeline" or "routers").
	Generation string `yaml:"generation"`
	// Patches is a series applied to the C API checkout before cargo (for
	// example the Rust half of a backport), relative to the recipe folder,
	// conventionally capi/NNNN-*.patch.
	Patches []string `yaml:"patches,omitempty"`
	// PatchPaths are Patches resolved against the folder of the recipe
	// that declares them.
	PatchPaths []string `yaml:"-"`
	// dir is the folder of the recipe that declares this pin, the one its
	// patches must stay inside.
	dir string
}

// Package maps a Go package kept in this repository (plugins/ or ffi/) to
// the folder of the upstream tree where a patch of the series adds it.
type Package struct {
	Patch string `yaml:"patch"`
	// From is relative to the recipe folder that declares it.
	From string `yaml:"from"`
	To   string `yaml:"to"`
	// Exclude lists file-name patterns (path.Match) not to copy, such as
	// tests that need this repository's test doubles.
	Exclude []string `yaml:"exclude,omitempty"`
	// FromDir is From resolved.
	FromDir string `yaml:"-"`
}

// Load reads and validates the recipe in dir, with the recipes it extends.
func Load(dir string) (*Recipe, error) {
	return load(dir, nil)
}

func load(dir string, seen []string) (*Recipe, error) {
	r, err := read(dir)
	if err != nil {
		return nil, err
	}
	for _, v := range seen {
		if v == r.Dir {
			return nil, fmt.Errorf("recipe %s: %w", r.Version, &ValidationError{Problems: []string{"extends itself through " + strings.Join(seen, " -> ")}})
		}
	}
	if r.CAPI != nil {
		r.CAPI.dir = r.Dir
		for _, p := range r.CAPI.Patches {
			r.CAPI.PatchPaths = append(r.CAPI.PatchPaths, filepath.Join(r.Dir, filepath.FromSlash(p)))
		}
	}
	if r.Extends != "" {
		if !versionName.MatchString(r.Extends) {
			return nil, fmt.Errorf("recipe %s: %w", r.Version, &ValidationError{Problems: []string{fmt.Sprintf("extends %q must name a version folder beside this one (no slashes)", r.Extends)}})
		}
		base, err := load(filepath.Join(filepath.Dir(r.Dir), r.Extends), append(seen, r.Dir))
		var missing *NotFoundError
		if errors.As(err, &missing) {
			// A base that does not exist is this recipe's mistake.
			err = &ValidationError{Problems: []string{missing.Error()}}
		}
		if err != nil {
			return nil, fmt.Errorf("recipe %s extends %s: %w", r.Version, r.Extends, err)
		}
		r.inherit(base)
	}
	for _, p := range r.Patches {
		r.Series = append(r.Series, SeriesPatch{Name: p, Path: filepath.Join(r.Dir, p), Version: r.Version})
	}
	if err := r.Validate(); err != nil {
		return nil, fmt.Errorf("recipe %s: %w", filepath.Join(r.Dir, FileName), err)
	}
	return r, nil
}

func (r *Recipe) inherit(base *Recipe) {
	r.Base = base
	if r.Upstream == (Upstream{}) {
		r.Upstream = base.Upstream
	}
	if r.CAPI == nil {
		r.CAPI = base.CAPI
	}
	if r.Toolchain == "" {
		r.Toolchain = base.Toolchain
	}
	r.Generated = append(append([]Package(nil), base.Generated...), r.Generated...)
	r.Series = append([]SeriesPatch(nil), base.Series...)
}

func read(dir string) (*Recipe, error) {
	path := filepath.Join(dir, FileName)
	data, err := inputfile.ReadFile(path, dir, inputfile.RecipeLimit())
	if err != nil {
		var refused *inputfile.Error
		switch {
		case errors.As(err, &refused):
			return nil, fmt.Errorf("recipe %s: %w", dir, refusedInput("", refused))
		case errors.Is(err, os.ErrNotExist):
			return nil, &NotFoundError{What: "recipe " + dir, Hint: "no " + FileName + " in this folder (is it a version folder under patches/?)"}
		}
		return nil, fmt.Errorf("recipe %s: %w", dir, err)
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	r, err := Parse(data, abs)
	if err != nil {
		return nil, fmt.Errorf("recipe %s: %w", path, err)
	}
	return r, nil
}

// Parse reads the text of a recipe.yaml that lives in the folder dir
// (absolute). It checks the syntax only; Validate checks the content. A
// recipe that cannot be read is a *ValidationError.
func Parse(data []byte, dir string) (*Recipe, error) {
	var r Recipe
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(&r); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, &ValidationError{Problems: []string{"the file is empty"}}
		}
		return nil, &ValidationError{Problems: []string{err.Error()}}
	}
	r.Dir = dir
	r.Version = filepath.Base(dir)
	for i := range r.Generated {
		r.Generated[i].FromDir = filepath.Join(dir, filepath.FromSlash(r.Generated[i].From))
	}
	return &r, nil
}

// LoadVersion reads patches/<version>/ under root.
func LoadVersion(root, version string) (*Recipe, error) {
	dir := filepath.Join(root, version)
	if _, err := os.Stat(dir); err != nil {
		known, _ := Versions(root)
		return nil, &NotFoundError{What: fmt.Sprintf("version %q", version), Hint: fmt.Sprintf("no folder %s (known versions: %s)", dir, strings.Join(known, ", "))}
	}
	return Load(dir)
}

// Versions lists the version folders under root that hold a recipe, in
// directory order.
func Versions(root string) ([]string, error) {
	entries, err := os.ReadDir(root)
	if err != nil {
		return nil, fmt.Errorf("patches folder %s: %w", root, err)
	}
	var out []string
	for _, e := range entries {
		// A name that is no version's is a writer's folder beside one
		// (.epp-build-v1.new-*), whose recipe is a copy.
		if !e.IsDir() || !versionName.MatchString(e.Name()) {
			continue
		}
		if _, err := os.Stat(filepath.Join(root, e.Name(), FileName)); err == nil {
			out = append(out, e.Name())
		}
	}
	return out, nil
}

var (
	fullSHA    = regexp.MustCompile(`^[0-9a-f]{40}$`)
	moduleHash = regexp.MustCompile(`^h1:[A-Za-z0-9+/]{43}=$`)
	patchName  = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._+-]*\.patch$`)
	// versionName is a version folder's name: no separators, not . or ..
	versionName = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._+-]*$`)
)

// MaxSeriesPatches is the most patches a version's series (its base's
// included) may have. apply parses and keeps the whole series in memory,
// and git am itself slows past a few thousand; the largest real series are
// a few hundred patches, so a series past this is a mistake or an attack
// (55,000 patches took apply past 3.8 GB).
const MaxSeriesPatches = 10000

// IsVersionName says whether v can name a version folder: what a version
// read back from a state file must be before it is joined to a path.
func IsVersionName(v string) bool { return versionName.MatchString(v) }

// NotFoundError is a version or recipe folder that does not exist: the
// caller named the wrong thing.
type NotFoundError struct{ What, Hint string }

func (e *NotFoundError) Error() string { return e.What + ": " + e.Hint }

// ValidationError lists every problem found in a recipe, so a user fixes
// them in one pass.
type ValidationError struct {
	Problems []string
	// Causes are the typed errors behind some of the problems, such as
	// an *inputfile.Error for a patch that is not a regular file.
	Causes []error
}

func (e *ValidationError) Error() string {
	return strings.Join(e.Problems, "; ")
}

// Unwrap lets callers ask for the cause of a problem with errors.As.
func (e *ValidationError) Unwrap() []error { return e.Causes }

// refusedInput is an input file refused for what it is: invalid input,
// like any other problem of the recipe.
func refusedInput(prefix string, err *inputfile.Error) *ValidationError {
	return &ValidationError{Problems: []string{prefix + err.Error()}, Causes: []error{err}}
}

// Validate checks the recipe and says exactly what is wrong.
func (r *Recipe) Validate() error {
	var (
		p      []string
		causes []error
	)
	add := func(format string, args ...any) { p = append(p, fmt.Sprintf(format, args...)) }
	// checkInput opens a listed file as Load's callers will read it, so a
	// FIFO or an endless file is refused here rather than hanging them.
	checkInput := func(what, path, root string) (missing bool) {
		err := inputfile.Check(path, root, patchLimit())
		var refused *inputfile.Error
		switch {
		case err == nil:
		case errors.As(err, &refused):
			add("%s: %v", what, err)
			causes = append(causes, err)
		case errors.Is(err, os.ErrNotExist):
			return true
		default:
			add("%s: %v", what, err)
		}
		return false
	}

	u := r.Upstream
	if u.Repository == "" {
		add("upstream.repository is missing (a git URL such as https://github.com/kubernetes-sigs/gateway-api-inference-extension.git)")
	}
	if u.Ref == "" {
		add("upstream.ref is missing (a tag such as v0.5.1, or the commit itself)")
	}
	if !fullSHA.MatchString(u.Commit) {
		add("upstream.commit %q must be the full 40-hex-digit commit the ref resolves to", u.Commit)
	}
	if u.Module != "" || u.ModuleVersion != "" || u.ModuleHash != "" {
		if u.Module == "" || u.ModuleVersion == "" || u.ModuleHash == "" {
			add("upstream.module, upstream.moduleVersion and upstream.moduleHash go together: set all three or none")
		}
		if u.ModuleHash != "" && !moduleHash.MatchString(u.ModuleHash) {
			add("upstream.moduleHash %q is not an h1: hash (h1: followed by 44 base64 characters, as in go.sum)", u.ModuleHash)
		}
	}
	if c := r.CAPI; c != nil {
		if c.Repository == "" || c.Ref == "" {
			add("capi.repository and capi.ref are required when capi is set")
		}
		if !fullSHA.MatchString(c.Commit) {
			add("capi.commit %q must be a full 40-hex-digit commit", c.Commit)
		}
		if c.Crate == "" || c.Library == "" {
			add("capi.crate and capi.library are required when capi is set (for Dynamo: libdynamo_llm and dynamo_llm_capi)")
		}
		if c.Generation != "pipeline" && c.Generation != "routers" {
			add("capi.generation %q must be pipeline or routers", c.Generation)
		}
		for i, p := range c.Patches {
			switch {
			case !filepath.IsLocal(filepath.FromSlash(p)) || !strings.HasSuffix(p, ".patch"):
				add("capi.patches[%d] %q must be a .patch file inside the recipe folder (e.g. capi/0001-fix.patch)", i, p)
			case i < len(c.PatchPaths):
				root := c.dir
				if root == "" {
					root = r.Dir
				}
				if checkInput(fmt.Sprintf("capi.patches[%d] %q", i, p), c.PatchPaths[i], root) {
					add("capi.patches[%d] %q: no such file in %s", i, p, root)
				}
			}
		}
	}
	if len(r.Series) > MaxSeriesPatches {
		add("the series has %d patches, over the %d a series may have (apply holds every patch of it in memory); squash patches or start a new base version", len(r.Series), MaxSeriesPatches)
	}
	seen := map[string]bool{}
	inherited := map[string]string{}
	for _, p := range r.Series[:r.Inherited()] {
		seen[p.Name], inherited[p.Name] = true, p.Version
	}
	for i, name := range r.Patches {
		switch {
		case !patchName.MatchString(name):
			add("patches[%d] %q must be a plain file name ending in .patch (no folders)", i, name)
		case inherited[name] != "":
			add("patches[%d] %q is already in the series of %s; give it another name", i, name, inherited[name])
		case seen[name]:
			add("patches[%d] %q is listed twice", i, name)
		default:
			if checkInput(fmt.Sprintf("patches[%d] %q", i, name), filepath.Join(r.Dir, name), r.Dir) {
				add("patches[%d] %q is listed but there is no such file in %s", i, name, r.Dir)
			}
		}
		seen[name] = true
	}
	for i, g := range r.Generated {
		if !seen[g.Patch] {
			add("generated[%d].patch %q is not in the patches list", i, g.Patch)
		}
		if g.From == "" || g.To == "" || filepath.IsAbs(g.To) || strings.Contains(g.To, "..") {
			add("generated[%d] needs from (a folder of this repository) and to (a relative folder of the upstream tree)", i)
		}
	}
	own := map[string]bool{}
	for _, name := range r.Patches {
		own[name] = true
	}
	if strays, err := filetree.Glob(r.Dir, "*.patch"); err == nil {
		for _, s := range strays {
			if !own[filepath.Base(s)] {
				add("%s is in the folder but not in the patches list (list it or delete it)", filepath.Base(s))
			}
		}
	}
	p = append(p, r.checkArguments()...)
	p = append(p, r.checkReproduces()...)
	p = append(p, r.checkDerived()...)
	p = append(p, r.checkToolchain()...)
	if len(p) > 0 {
		return &ValidationError{Problems: p, Causes: causes}
	}
	return nil
}
