package image

import (
	"fmt"
	"strings"

	"github.com/google/go-containerregistry/pkg/name"
)

// Target is where an image is pushed: by digest to Repository, then tagged
// Tag ("" when the reference named no tag: pushed by digest only).
type Target struct {
	Repository name.Repository
	Tag        string
}

// ParseTarget parses REPOSITORY[:TAG] once; a digest is refused, since a
// build cannot know its digest in advance.
func ParseTarget(ref string, insecure bool) (Target, error) {
	var opts []name.Option
	if insecure {
		opts = append(opts, name.Insecure)
	}
	r, err := name.ParseReference(ref, opts...)
	if err != nil {
		return Target{}, fmt.Errorf("%q is not an image reference: %w", ref, err)
	}
	tag, ok := r.(name.Tag)
	if !ok {
		return Target{}, fmt.Errorf("%q names a digest: give a repository, with a tag if it should be tagged", ref)
	}
	t := Target{Repository: tag.Context()}
	// Without a tag the reference parses as :latest; only a tag the user
	// wrote is applied.
	if strings.LastIndex(ref, ":") > strings.LastIndex(ref, "/") {
		t.Tag = tag.String()
	}
	return t, nil
}

// Ref is the image's reference by digest.
func (t Target) Ref(digest string) string { return t.Repository.Name() + "@" + digest }

// Name names the image inside an OCI tarball: the tag, else the repository.
func (t Target) Name() string {
	if t.Tag != "" {
		return t.Tag
	}
	return t.Repository.Name()
}
