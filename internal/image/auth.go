package image

import (
	"context"
	"fmt"

	"github.com/docker/cli/cli/config/types"
	"github.com/google/go-containerregistry/pkg/authn"
	"github.com/google/go-containerregistry/pkg/name"
	"github.com/moby/buildkit/session"
	"github.com/moby/buildkit/session/auth/authprovider"

	"github.com/epp-build/epp-build/internal/redact"
)

// authAttachable answers buildkitd's credential requests from a
// go-containerregistry keychain (the standard Docker config and its
// credential helpers by default), so BuildKit pushes with the same
// credentials the verify step uses. Credentials never leave this function
// except towards buildkitd; nothing here logs them.
func authAttachable(kc authn.Keychain) session.Attachable {
	if kc == nil {
		kc = authn.DefaultKeychain
	}
	return authprovider.NewDockerAuthProvider(authprovider.DockerAuthProviderConfig{
		AuthConfigProvider: func(ctx context.Context, host string, _ []string, _ authprovider.ExpireCachedAuthCheck) (types.AuthConfig, error) {
			return keychainAuth(ctx, kc, host)
		},
	})
}

func keychainAuth(ctx context.Context, kc authn.Keychain, host string) (types.AuthConfig, error) {
	if host == authprovider.DockerHubRegistryHost {
		host = name.DefaultRegistry // Docker config keys Hub as index.docker.io
	}
	reg, err := name.NewRegistry(host, name.WeakValidation)
	if err != nil {
		return types.AuthConfig{}, fmt.Errorf("registry host %q: %w", host, err)
	}
	a, err := authn.Resolve(ctx, kc, reg)
	if err != nil {
		return types.AuthConfig{}, fmt.Errorf("credentials for %s: %w", host, err)
	}
	cfg, err := authn.Authorization(ctx, a)
	if err != nil {
		return types.AuthConfig{}, fmt.Errorf("credentials for %s: %w", host, err)
	}
	rememberAuth(cfg)
	return types.AuthConfig{
		Username:      cfg.Username,
		Password:      cfg.Password,
		Auth:          cfg.Auth,
		IdentityToken: cfg.IdentityToken,
		RegistryToken: cfg.RegistryToken,
		ServerAddress: host,
	}, nil
}

// rememberAuth registers a registry credential with the one redaction
// rule: a registry or BuildKit error may repeat it (user:password, the
// token, the base64 of the Docker config's auth), and only its value can
// be recognised there.
func rememberAuth(cfg *authn.AuthConfig) {
	if cfg == nil {
		return
	}
	redact.Remember(cfg.Username, cfg.Password)
	for _, token := range []string{cfg.Auth, cfg.IdentityToken, cfg.RegistryToken} {
		redact.Remember("", token)
	}
}

// rememberingKeychain registers every credential kc hands out.
type rememberingKeychain struct{ kc authn.Keychain }

func (k rememberingKeychain) Resolve(r authn.Resource) (authn.Authenticator, error) {
	a, err := k.kc.Resolve(r)
	if err != nil || a == nil || a == authn.Anonymous {
		return a, err
	}
	return rememberingAuthenticator{a}, nil
}

type rememberingAuthenticator struct{ a authn.Authenticator }

func (r rememberingAuthenticator) Authorization() (*authn.AuthConfig, error) {
	cfg, err := r.a.Authorization()
	if err == nil {
		rememberAuth(cfg)
	}
	return cfg, err
}

// AuthorizationContext keeps credential helpers cancellable through the
// wrapper.
func (r rememberingAuthenticator) AuthorizationContext(ctx context.Context) (*authn.AuthConfig, error) {
	cfg, err := authn.Authorization(ctx, r.a)
	if err == nil {
		rememberAuth(cfg)
	}
	return cfg, err
}
