package recipe

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// FuzzLoad feeds arbitrary recipe.yaml text to Load. It must never panic,
// must refuse anything it cannot use with a *ValidationError (refused
// input), and what it accepts must hold a full commit and plain patch
// names inside the recipe's folder, no git or cargo argument that reads as
// an option, and folders that stay where they belong.
func FuzzLoad(f *testing.F) {
	seeds, _ := filepath.Glob(filepath.Join("..", "..", "patches", "*", FileName))
	if len(seeds) == 0 {
		f.Fatal("no committed recipes to seed from")
	}
	for _, s := range seeds {
		data, err := os.ReadFile(s)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Add([]byte(pin + "extends: ../../etc\npatches: []\n"))
	f.Add([]byte(pin + "patches: [../x.patch, a.patch, a.patch]\n"))
	f.Add([]byte(pin + capiPin + "patches: []\n"))
	f.Add([]byte(strings.Replace(pin, "ref: v1.0.0", "ref: --upload-pack=x", 1) + "patches: []\n"))
	f.Add([]byte(pin + strings.Replace(capiPin, "crate: libdynamo_llm", "crate: --config=x", 1) + "patches: []\n"))
	f.Add([]byte(pin + strings.Replace(capiPin, "dir: lib/bindings/c", "dir: ../../..", 1) + "patches: []\n"))
	f.Add([]byte(pin + "generated:\n  - {patch: a.patch, from: ../../../../etc, to: x}\npatches: [a.patch]\n"))
	f.Add([]byte(pin + "derived: {from: v0, onto: v1.0.0}\npatches: []\n"))
	f.Add([]byte(pin + "derived: {from: ../v0, onto: -x}\nreproduces: {release: v1.4.2}\npatches: []\n"))
	f.Add([]byte("upstream: [\n"))
	f.Add([]byte(""))

	root := f.TempDir()
	dir := filepath.Join(root, "v1")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		f.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "a.patch"), []byte("patch"), 0o644); err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if err := os.WriteFile(filepath.Join(dir, FileName), data, 0o644); err != nil {
			t.Fatal(err)
		}
		r, err := Load(dir)
		if err != nil {
			var invalid *ValidationError
			if !errors.As(err, &invalid) {
				t.Fatalf("refused without a *ValidationError: %T %v", err, err)
			}
			return
		}
		if !fullSHA.MatchString(r.Upstream.Commit) {
			t.Fatalf("accepted commit %q", r.Upstream.Commit)
		}
		for _, p := range r.Series {
			if strings.ContainsAny(p.Name, `/\`) || filepath.Dir(p.Path) != dir {
				t.Fatalf("accepted patch %q at %s", p.Name, p.Path)
			}
		}
		args := []string{r.Upstream.Repository, r.Upstream.Ref}
		if c := r.CAPI; c != nil {
			args = append(args, c.Repository, c.Ref, c.Crate, c.Library, c.Dir)
			if c.Dir != "" && !filepath.IsLocal(c.Dir) {
				t.Fatalf("accepted capi.dir %q", c.Dir)
			}
		}
		for _, a := range args {
			if strings.HasPrefix(a, "-") {
				t.Fatalf("accepted an option-looking value %q", a)
			}
		}
		for _, g := range r.Generated {
			if !within(filepath.Dir(root), g.FromDir) {
				t.Fatalf("accepted generated from %q at %s", g.From, g.FromDir)
			}
		}
	})
}
