package image

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestClassifyRegistryErrors(t *testing.T) {
	cases := []struct {
		msg       string
		server    bool
		auth      bool
		retryable bool
	}{
		{msg: `failed to push 127.0.0.1:5000/x: unexpected status from HEAD request to http://127.0.0.1:5000/v2/: 503 Service Unavailable`, server: true, retryable: true},
		{msg: `failed to do request: Head "http://127.0.0.1:1/v2/x/blobs/sha256:1": dial tcp 127.0.0.1:1: connect: connection refused`, server: true, retryable: true},
		{msg: `failed to authorize: failed to fetch anonymous token: unexpected status: 401 Unauthorized`, auth: true},
		{msg: `server message: insufficient_scope: authorization failed`, auth: true},
		{msg: `failed to solve: dockerfile parse error on line 3: unknown instruction: FRM`},
	}
	for _, c := range cases {
		err := classify("reg.example:5000", 2, errors.New(c.msg))
		var se *RegistryServerError
		var ae *RegistryAuthError
		assert.Equal(t, c.server, errors.As(err, &se), c.msg)
		assert.Equal(t, c.auth, errors.As(err, &ae), c.msg)
		assert.Equal(t, c.retryable, retryable(err), c.msg)
		assert.Contains(t, err.Error(), c.msg, "the original text is kept")
	}
}

func TestAuthErrorSaysHowToFixIt(t *testing.T) {
	err := classify("reg.example:5000", 1, errors.New("401 Unauthorized"))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "docker login reg.example:5000")
	assert.Contains(t, err.Error(), "DOCKER_CONFIG")
}

// TestRegistryErrorsShowNoCredentials: whatever a registry or BuildKit
// says, typed or not, reaches the user through the one redaction rule.
func TestRegistryErrorsShowNoCredentials(t *testing.T) {
	for _, msg := range []string{
		"401 Unauthorized: denied alice:s3cret@reg.example:5000/x:y",
		"503 Service Unavailable: retry at https://alice:s3cret@reg.example:5000/v2/token?access_token=s3cret",
		"failed to push alice:s3cret@reg.example:5000/x:y: 400 Bad Request",
	} {
		err := classify("reg.example:5000", 1, errors.New(msg))
		assert.NotContains(t, err.Error(), "s3cret", msg)
		assert.Contains(t, err.Error(), "alice:xxxxx@reg.example:5000", msg)
	}
}
