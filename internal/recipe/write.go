package recipe

import (
	"bytes"
	"errors"
	"fmt"
	"path/filepath"

	"github.com/epp-build/epp-build/internal/atomicfile"

	"gopkg.in/yaml.v3"

	"github.com/epp-build/epp-build/internal/inputfile"
)

// SetPatches rewrites the patches list of the recipe in dir, keeping the
// rest of the file (comments included) as it is.
func SetPatches(dir string, names []string) error {
	return edit(dir, func(root *yaml.Node) error {
		setKey(root, "patches", patchList(names))
		return nil
	})
}

// WithPatches is r as Load reads it after SetPatches(r.Dir, names): its
// own patches named names, after the ones it inherits.
func (r *Recipe) WithPatches(names []string) *Recipe {
	c := *r
	c.Patches = append([]string(nil), names...)
	c.Series = append([]SeriesPatch(nil), r.Series[:r.Inherited()]...)
	for _, p := range names {
		c.Series = append(c.Series, SeriesPatch{Name: p, Path: filepath.Join(r.Dir, p), Version: r.Version})
	}
	return &c
}

// Rebased rewrites the recipe in dir to stand on its own at another
// upstream pin: the pin replaced, extends removed, the whole series listed.
// What the recipe inherited (description, upstream, capi, toolchain,
// generated) is copied in from the recipes it extended, comments included. Each
// generated entry's patch is renamed through rename (old name -> new); an
// entry whose patch has no new name is dropped and returned. A generated
// entry's from stays as written: dir is a sibling of the recipes it came
// from.
func Rebased(dir string, u Upstream, names []string, rename map[string]string) (dropped []Package, err error) {
	res, err := RebasedRecipe(dir, u, names, rename)
	return res.Dropped, err
}

// RebaseResult is what rewriting a recipe onto a new pin left for the
// user: generated entries dropped, and notes such as a description that
// still names another pin.
type RebaseResult struct {
	Dropped []Package
	Notes   []string
}

// RebasedRecipe is Rebased, with its notes. The pin is edited in place in
// the recipe's node tree, so every comment stays where it was; the
// description's and the header comment's mentions of the old pin are
// rewritten to name the new one.
func RebasedRecipe(dir string, u Upstream, names []string, rename map[string]string) (res RebaseResult, err error) {
	return RebasedRecipeAs(dir, u, names, rename, nil)
}

// RebasedRecipeAs is RebasedRecipe for a new version made by the rebase
// (d; nil for a rebase over the version itself): the recipe says it is
// derived from d.From onto the new pin, in place of the release the old
// version reproduced, and its header comment says so first.
func RebasedRecipeAs(dir string, u Upstream, names []string, rename map[string]string, d *Derivation) (res RebaseResult, err error) {
	err = editNodes(dir, func(doc, root *yaml.Node) error {
		// The header is the comment above the first key (or above the
		// document, when a blank line parts them); the first key may be
		// extends, which goes.
		holder := doc
		if doc.HeadComment == "" && len(root.Content) > 0 {
			holder = root.Content[0]
		}
		header := holder.HeadComment
		holder.HeadComment = ""
		if base := valueOf(root, "extends"); base != nil {
			if err := inheritNodes(root, filepath.Join(filepath.Dir(dir), base.Value), nil); err != nil {
				return err
			}
		}
		deleteKey(root, "extends")
		var old Upstream
		if pin := valueOf(root, "upstream"); pin != nil {
			_ = pin.Decode(&old)
		}
		if err := setPin(root, u); err != nil {
			return err
		}
		res.Notes = redescribe(root, old, u)
		if d != nil {
			// The old version's notes are about its pin: a new version
			// reads them at the new one. Over itself, every comment stays
			// as its author wrote it.
			header, _ = Redescribe(header, old, u)
			header = derive(root, *d, u, header)
		} else {
			header = rederive(root, u, header)
		}
		if gen := valueOf(root, "generated"); gen != nil {
			res.Dropped = renameGenerated(gen, rename)
			if len(gen.Content) == 0 {
				deleteKey(root, "generated")
			}
		}
		setKey(root, "patches", patchList(names))
		if holder == doc {
			doc.HeadComment = header
		} else if len(root.Content) > 0 {
			root.Content[0].HeadComment = joinComments(header, root.Content[0].HeadComment)
		}
		return nil
	})
	return res, err
}

// joinComments puts the header above a comment the first key has of its
// own (one inherited from a base recipe, say).
func joinComments(header, own string) string {
	switch {
	case header == "":
		return own
	case own == "":
		return header
	}
	return header + "\n" + own
}

// inheritNodes copies description, upstream, capi, toolchain and generated from the recipe in
// baseDir (and what it extends) into root where root lacks them; the
// base's generated entries come first, as Load orders them.
func inheritNodes(root *yaml.Node, baseDir string, seen []string) error {
	for _, s := range seen {
		if s == baseDir {
			return fmt.Errorf("extends itself through %s", baseDir)
		}
	}
	path := filepath.Join(baseDir, FileName)
	data, err := readRecipe(path, baseDir)
	if err != nil {
		return fmt.Errorf("base recipe: %w", err)
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil || len(doc.Content) == 0 || doc.Content[0].Kind != yaml.MappingNode {
		return fmt.Errorf("base recipe %s: not a mapping (%v)", path, err)
	}
	base := doc.Content[0]
	if next := valueOf(base, "extends"); next != nil {
		if err := inheritNodes(base, filepath.Join(filepath.Dir(baseDir), next.Value), append(seen, baseDir)); err != nil {
			return err
		}
	}
	for _, key := range []string{"description", "upstream", "capi", "toolchain"} {
		if valueOf(root, key) == nil && valueOf(base, key) != nil {
			setKey(root, key, valueOf(base, key))
			keepKeyComments(root, base, key)
		}
	}
	if gen := valueOf(base, "generated"); gen != nil {
		own := valueOf(root, "generated")
		merged := &yaml.Node{Kind: yaml.SequenceNode, Tag: "!!seq", Content: append([]*yaml.Node(nil), gen.Content...)}
		if own != nil {
			merged.Content = append(merged.Content, own.Content...)
		}
		setKey(root, "generated", merged)
		keepKeyComments(root, base, "generated")
	}
	return nil
}

// keepKeyComments gives key in root the comments its key has in base
// (the comment above "generated:" says what the list is), unless root's
// key has comments of its own.
func keepKeyComments(root, base *yaml.Node, key string) {
	from, to := keyOf(base, key), keyOf(root, key)
	if from == nil || to == nil || to.HeadComment != "" || to.LineComment != "" {
		return
	}
	to.HeadComment, to.LineComment, to.FootComment = from.HeadComment, from.LineComment, from.FootComment
}

func keyOf(m *yaml.Node, key string) *yaml.Node {
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			return m.Content[i]
		}
	}
	return nil
}

// renameGenerated renames the patch of each entry of the generated list
// and drops the entries whose patch is gone.
func renameGenerated(gen *yaml.Node, rename map[string]string) []Package {
	var dropped []Package
	kept := gen.Content[:0]
	for _, item := range gen.Content {
		patch := valueOf(item, "patch")
		if patch == nil {
			kept = append(kept, item)
			continue
		}
		if n, ok := rename[patch.Value]; ok {
			patch.Value = n
			kept = append(kept, item)
			continue
		}
		var p Package
		_ = item.Decode(&p)
		dropped = append(dropped, p)
	}
	gen.Content = kept
	return dropped
}

func valueOf(m *yaml.Node, key string) *yaml.Node {
	if m.Kind != yaml.MappingNode {
		return nil
	}
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			return m.Content[i+1]
		}
	}
	return nil
}

func edit(dir string, change func(root *yaml.Node) error) error {
	return editNodes(dir, func(_, root *yaml.Node) error { return change(root) })
}

// editNodes is edit with the document node too, which holds a comment
// set apart from the first key by a blank line.
func editNodes(dir string, change func(doc, root *yaml.Node) error) error {
	path := filepath.Join(dir, FileName)
	data, err := readRecipe(path, dir)
	if err != nil {
		return fmt.Errorf("recipe %s: %w", path, err)
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return fmt.Errorf("recipe %s: %w", path, err)
	}
	if len(doc.Content) == 0 || doc.Content[0].Kind != yaml.MappingNode {
		return fmt.Errorf("recipe %s: not a mapping", path)
	}
	if err := change(&doc, doc.Content[0]); err != nil {
		return fmt.Errorf("recipe %s: %w", path, err)
	}
	var out bytes.Buffer
	enc := yaml.NewEncoder(&out)
	enc.SetIndent(2)
	if err := enc.Encode(&doc); err != nil {
		return err
	}
	if bytes.Equal(out.Bytes(), data) {
		return nil
	}
	return atomicfile.Write(path, out.Bytes(), 0o644)
}

// readRecipe reads a recipe.yaml to rewrite it; one that is not a bounded
// regular file in its folder is refused as invalid, as Load refuses it.
func readRecipe(path, dir string) ([]byte, error) {
	data, err := inputfile.ReadFile(path, dir, inputfile.RecipeLimit())
	var refused *inputfile.Error
	if errors.As(err, &refused) {
		return nil, refusedInput("", refused)
	}
	return data, err
}

func patchList(names []string) *yaml.Node {
	list := &yaml.Node{Kind: yaml.SequenceNode, Tag: "!!seq"}
	for _, n := range names {
		list.Content = append(list.Content, &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: n})
	}
	if len(names) == 0 {
		list.Style = yaml.FlowStyle
	}
	return list
}

// setKey replaces the value of key in a mapping, or adds the key before
// the patches list (which reads best last).
func setKey(root *yaml.Node, key string, value *yaml.Node) {
	at := len(root.Content)
	for i := 0; i+1 < len(root.Content); i += 2 {
		if root.Content[i].Value == key {
			value.HeadComment = root.Content[i+1].HeadComment
			root.Content[i+1] = value
			return
		}
		if root.Content[i].Value == "patches" {
			at = i
		}
	}
	kv := []*yaml.Node{{Kind: yaml.ScalarNode, Tag: "!!str", Value: key}, value}
	root.Content = append(root.Content[:at], append(kv, root.Content[at:]...)...)
}

func deleteKey(root *yaml.Node, key string) {
	for i := 0; i+1 < len(root.Content); i += 2 {
		if root.Content[i].Value == key {
			root.Content = append(root.Content[:i], root.Content[i+2:]...)
			return
		}
	}
}
