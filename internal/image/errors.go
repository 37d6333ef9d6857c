package image

import (
	"fmt"
	"regexp"

	"github.com/epp-build/epp-build/internal/redact"
)

// RegistryServerError means the registry kept answering 5xx (or could not
// be reached) after the retries.
type RegistryServerError struct {
	Registry string
	Attempts int
	Err      error
}

func (e *RegistryServerError) Error() string {
	// The registry's and BuildKit's text may quote a token URL or an
	// Authorization header.
	if e.Attempts > 0 {
		return redact.Text(fmt.Sprintf("registry %s failed after %d attempt(s): %v (is the registry up and healthy?)", e.Registry, e.Attempts, e.Err))
	}
	return redact.Text(fmt.Sprintf("registry %s failed after retries: %v (is the registry up and healthy?)", e.Registry, e.Err))
}

func (e *RegistryServerError) Unwrap() error { return e.Err }

// RegistryAuthError means the registry refused the credentials (or their
// absence). It never includes the credentials themselves: a refusal's
// text may echo them (basic-auth userinfo, a token URL, the header), so
// it is shown through the one redaction rule.
type RegistryAuthError struct {
	Registry string
	Err      error
}

func (e *RegistryAuthError) Error() string {
	return redact.Text(fmt.Sprintf("registry %s refused access: %v (log in with `docker login %s` or point DOCKER_CONFIG at a config with credentials for it)", e.Registry, e.Err, e.Registry))
}

func (e *RegistryAuthError) Unwrap() error { return e.Err }

var (
	serverErrorText = regexp.MustCompile(`\b5\d\d (Internal Server Error|Not Implemented|Bad Gateway|Service Unavailable|Gateway Timeout)\b|connection refused|connection reset by peer|\bEOF\b`)
	authErrorText   = regexp.MustCompile(`(?i)\b401 Unauthorized\b|\b403 Forbidden\b|authorization failed|insufficient_scope|failed to authorize|unauthorized: `)
)

// classify turns a BuildKit or registry error into a typed one when its
// text says what happened (BuildKit reports registry failures as strings
// across gRPC).
func classify(registry string, attempts int, err error) error {
	if err == nil {
		return nil
	}
	msg := err.Error()
	switch {
	case authErrorText.MatchString(msg):
		return &RegistryAuthError{Registry: registry, Err: err}
	case serverErrorText.MatchString(msg):
		return &RegistryServerError{Registry: registry, Attempts: attempts, Err: err}
	}
	// Any other registry or BuildKit failure may still quote a reference
	// with userinfo or a token URL.
	return redact.Error(err)
}

func retryable(err error) bool {
	_, ok := err.(*RegistryServerError)
	return ok
}
