package source

import (
	"fmt"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/go-git/go-git/v5/plumbing/storer"
)

// peel follows annotated tags (also tags of tags) to the commit they name.
func peel(s storer.EncodedObjectStorer, h plumbing.Hash) (plumbing.Hash, error) {
	for range 16 {
		obj, err := s.EncodedObject(plumbing.AnyObject, h)
		if err != nil {
			return h, fmt.Errorf("object %s: %w", h, err)
		}
		switch obj.Type() {
		case plumbing.CommitObject:
			return h, nil
		case plumbing.TagObject:
			var tag object.Tag
			if err := tag.Decode(obj); err != nil {
				return h, fmt.Errorf("tag %s: %w", h, err)
			}
			h = tag.Target
		default:
			return h, fmt.Errorf("object %s is a %s, not a commit", h, obj.Type())
		}
	}
	return h, fmt.Errorf("tag chain at %s is too long", h)
}
