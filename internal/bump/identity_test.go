package bump

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// noConfig keeps the user's and the system's git configuration out.
func noConfig(t *testing.T) {
	t.Setenv("GIT_CONFIG_GLOBAL", "/dev/null")
	t.Setenv("GIT_CONFIG_NOSYSTEM", "1")
}

func TestAuthorIsGitsIdentityWithItsEnvironmentFirst(t *testing.T) {
	noConfig(t)
	t.Setenv("GIT_AUTHOR_NAME", "Ada Maintainer")
	t.Setenv("GIT_AUTHOR_EMAIL", "ada@example.com")
	t.Setenv("GIT_AUTHOR_DATE", "2026-03-04T05:06:07+05:30")
	sig, err := Author(context.Background(), t.TempDir())
	require.NoError(t, err)
	assert.Equal(t, "Ada Maintainer", sig.Name)
	assert.Equal(t, "ada@example.com", sig.Email)
	assert.True(t, sig.When.Equal(time.Date(2026, 3, 4, 5, 6, 7, 0, time.FixedZone("", 5*3600+30*60))), sig.When.String())
	_, offset := sig.When.Zone()
	assert.Equal(t, 5*3600+30*60, offset)
}

func TestAuthorRefusesWhenGitHasNoIdentity(t *testing.T) {
	noConfig(t)
	for _, k := range []string{"GIT_AUTHOR_NAME", "GIT_AUTHOR_EMAIL", "EMAIL"} {
		t.Setenv(k, "")
	}
	// user.useConfigOnly stops git from making one up from the host name.
	t.Setenv("GIT_CONFIG_COUNT", "1")
	t.Setenv("GIT_CONFIG_KEY_0", "user.useConfigOnly")
	t.Setenv("GIT_CONFIG_VALUE_0", "true")
	_, err := Author(context.Background(), t.TempDir())
	var usage *UsageError
	require.True(t, errors.As(err, &usage), "%v", err)
	assert.Contains(t, err.Error(), "user.name and user.email")
}

func TestParseIdentReadsNegativeZones(t *testing.T) {
	sig, err := parseIdent("A. N. Other <other@example.org> 1767225600 -0700")
	require.NoError(t, err)
	_, offset := sig.When.Zone()
	assert.Equal(t, -7*3600, offset)
	assert.Equal(t, int64(1767225600), sig.When.Unix())
	_, err = parseIdent("<nobody@example.org> 1767225600 +0000")
	assert.Error(t, err)
}
