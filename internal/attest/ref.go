package attest

import (
	"errors"
	"fmt"
	"net/http"
	"regexp"
	"slices"
	"strings"

	"github.com/google/go-containerregistry/pkg/name"
	"github.com/google/go-containerregistry/pkg/v1/remote"
	"github.com/google/go-containerregistry/pkg/v1/remote/transport"

	"github.com/epp-build/epp-build/internal/image"
	"github.com/epp-build/epp-build/internal/redact"
)

// ReferenceError is an image reference that does not parse: a mistake in
// the command line, found before the registry is asked anything.
type ReferenceError struct {
	Ref string
	Err error
}

func (e *ReferenceError) Error() string {
	// The parser's message quotes the reference, userinfo and all.
	return redact.Text(fmt.Sprintf("image reference %q: %v (want REGISTRY/REPO:TAG or REGISTRY/REPO@sha256:...)", e.Ref, e.Err))
}

func (e *ReferenceError) Unwrap() error { return e.Err }

// ParseReference parses an inspect, verify or sign REF; a *ReferenceError
// when it does not parse.
func ParseReference(ref string, ro image.RegistryOptions) (name.Reference, error) {
	r, err := name.ParseReference(ref, ro.NameOptions()...)
	if err != nil {
		return nil, &ReferenceError{Ref: ref, Err: err}
	}
	return r, nil
}

// NoSuchImageError means the registry answered and holds no manifest at
// the reference: a mistyped tag or repository, or an image not pushed
// yet. Tags are some of the repository's tags, to pick the right one
// from; none when the repository does not exist or cannot be listed.
type NoSuchImageError struct {
	Ref  string
	Tags []string
	// More is how many tags there are beyond Tags.
	More int
	Err  error
}

func (e *NoSuchImageError) Error() string {
	msg := fmt.Sprintf("no such image %s: the registry has no manifest there", e.Ref)
	switch {
	case len(e.Tags) == 0:
		msg += "; check the repository and tag, or push it with `epp-build build --push`"
	case e.More > 0:
		msg += fmt.Sprintf("; the repository has the tags %s and %d more", strings.Join(e.Tags, ", "), e.More)
	default:
		msg += "; the repository has the tags " + strings.Join(e.Tags, ", ")
	}
	return redact.Text(msg)
}

func (e *NoSuchImageError) Unwrap() error { return e.Err }

// shownTags bounds the tags a NoSuchImageError lists: enough to spot a
// typo, short enough for one line.
const shownTags = 8

// validTag is the OCI distribution spec's tag grammar: a hostile
// registry's tag list cannot put anything else into the message.
var validTag = regexp.MustCompile(`^[A-Za-z0-9_][A-Za-z0-9_.-]{0,127}$`)

// notFound reports whether err is the registry saying there is no such
// manifest or repository. A bare 404 counts only for the manifest
// itself: one for /v2/ is a server that is not a registry.
func notFound(err error) bool {
	var te *transport.Error
	if !errors.As(err, &te) {
		return false
	}
	if te.StatusCode == http.StatusNotFound && te.Request != nil && strings.Contains(te.Request.URL.Path, "/manifests/") {
		return true
	}
	for _, d := range te.Errors {
		if d.Code == transport.ManifestUnknownErrorCode || d.Code == transport.NameUnknownErrorCode {
			return true
		}
	}
	return false
}

// noSuchImage is the error for a manifest the registry does not have,
// with the repository's tags when it lists them.
func noSuchImage(r name.Reference, err error, opts []remote.Option) error {
	e := &NoSuchImageError{Ref: r.Name(), Err: err}
	tags, listErr := remote.List(r.Context(), opts...)
	if listErr != nil {
		return e
	}
	tags = slices.DeleteFunc(tags, func(t string) bool {
		// cosign's signature and attestation tags are not images to inspect.
		return !validTag.MatchString(t) || strings.HasPrefix(t, "sha256-")
	})
	slices.Sort(tags)
	if len(tags) > shownTags {
		e.More = len(tags) - shownTags
		tags = tags[:shownTags]
	}
	e.Tags = tags
	return e
}
