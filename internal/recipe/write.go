package recipe

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"

	"gopkg.in/yaml.v3"
)

// SetPatches rewrites the patches list of the recipe in dir, keeping the
// rest of the file (comments included) as it is.
func SetPatches(dir string, names []string) error {
	return edit(dir, func(root *yaml.Node) error {
		setKey(root, "patches", patchList(names))
		return nil
	})
}

// Rebased rewrites the recipe in dir to stand on its own at another
// upstream pin: the pin replaced, extends removed, the whole series listed.
func Rebased(dir string, u Upstream, names []string) error {
	return edit(dir, func(root *yaml.Node) error {
		var pin yaml.Node
		if err := pin.Encode(u); err != nil {
			return err
		}
		deleteKey(root, "extends")
		setKey(root, "upstream", &pin)
		setKey(root, "patches", patchList(names))
		return nil
	})
}

func edit(dir string, change func(root *yaml.Node) error) error {
	path := filepath.Join(dir, FileName)
	data, err := os.ReadFile(path)
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
	if err := change(doc.Content[0]); err != nil {
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
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, out.Bytes(), 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, path)
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
