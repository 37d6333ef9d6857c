package recipe

import (
	"fmt"

	"gopkg.in/yaml.v3"
)

// setPin writes u into the recipe's upstream mapping key by key, so the
// comments on and around each key stay; keys u leaves empty (a pin
// without a module) are removed, a mapping that is missing is added.
func setPin(root *yaml.Node, u Upstream) error {
	var fresh yaml.Node
	if err := fresh.Encode(u); err != nil {
		return err
	}
	pin := valueOf(root, "upstream")
	if pin == nil || pin.Kind != yaml.MappingNode {
		setKey(root, "upstream", &fresh)
		return nil
	}
	want := map[string]*yaml.Node{}
	var order []string
	for i := 0; i+1 < len(fresh.Content); i += 2 {
		want[fresh.Content[i].Value] = fresh.Content[i+1]
		order = append(order, fresh.Content[i].Value)
	}
	kept := pin.Content[:0]
	for i := 0; i+1 < len(pin.Content); i += 2 {
		key, val := pin.Content[i], pin.Content[i+1]
		if _, known := upstreamKeys[key.Value]; !known {
			kept = append(kept, key, val) // not ours to judge: Load reports it
			continue
		}
		w, ok := want[key.Value]
		if !ok {
			continue
		}
		if val.Kind != yaml.ScalarNode {
			return fmt.Errorf("upstream.%s is not a plain value", key.Value)
		}
		val.Value, val.Tag, val.Style = w.Value, w.Tag, 0
		delete(want, key.Value)
		kept = append(kept, key, val)
	}
	pin.Content = kept
	for _, k := range order {
		if w, ok := want[k]; ok {
			pin.Content = append(pin.Content, &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: k}, w)
		}
	}
	return nil
}

var upstreamKeys = map[string]struct{}{
	"repository": {}, "ref": {}, "commit": {}, "module": {}, "moduleVersion": {}, "moduleHash": {},
}

// redescribe rewrites the description's mentions of the old pin as the
// new pin, and returns a note for each mention it could not account for.
func redescribe(root *yaml.Node, old, u Upstream) []string {
	desc := valueOf(root, "description")
	if desc == nil || desc.Kind != yaml.ScalarNode {
		return nil
	}
	var others []string
	var capi CAPI
	if n := valueOf(root, "capi"); n != nil && n.Decode(&capi) == nil {
		others = append(others, capi.Commit)
	}
	var rep Reproduces
	if n := valueOf(root, "reproduces"); n != nil && n.Decode(&rep) == nil {
		others = append(others, rep.Commit)
	}
	text, foreign := Redescribe(desc.Value, old, u, others...)
	desc.Value = text
	var notes []string
	for _, f := range foreign {
		notes = append(notes, fmt.Sprintf("the description %q names %s, not the new pin %s: say which upstream it stands on (lint reports it)", text, f, PinName(u)))
	}
	return notes
}
