package image

import (
	"context"

	"github.com/google/go-containerregistry/pkg/name"
	"github.com/google/go-containerregistry/pkg/v1/remote"
)

// NameOptions are the reference parsing options for these settings
// (name.Insecure for a plain-HTTP registry), for other stages that talk
// to the registry with go-containerregistry.
func (o RegistryOptions) NameOptions() []name.Option { return o.nameOpts() }

// RemoteOptions are the go-containerregistry options for these settings:
// the keychain (the Docker config by default), the retry policy for 5xx
// answers, and ctx.
func (o RegistryOptions) RemoteOptions(ctx context.Context) []remote.Option {
	return o.remoteOpts(ctx)
}

// RegistryError types a go-containerregistry error from registry: an auth
// refusal is a *RegistryAuthError, a 5xx a *RegistryServerError.
func RegistryError(registry string, err error) error { return registryError(registry, err) }
