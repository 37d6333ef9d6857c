package recipe

import "gopkg.in/yaml.v3"

// RenameGenerated renames the patch of each entry of the recipe's own
// generated list through rename (old name -> new) and drops, returning
// them, the entries whose patch has no new name; the rest of the file,
// comments included, stays as it is.
func RenameGenerated(dir string, rename map[string]string) (dropped []Package, err error) {
	err = edit(dir, func(root *yaml.Node) error {
		gen := valueOf(root, "generated")
		if gen == nil || gen.Kind != yaml.SequenceNode {
			return nil
		}
		dropped = renameGenerated(gen, rename)
		if len(gen.Content) == 0 {
			deleteKey(root, "generated")
		}
		return nil
	})
	return dropped, err
}
