package source

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestGitLimitSettings: each setting replaces its default, in its unit;
// a value that is not a positive number (or duration) is an error naming
// the setting rather than a limit silently kept or dropped.
func TestGitLimitSettings(t *testing.T) {
	for _, env := range []string{MaxPackEnv, MaxObjectEnv, MaxPackObjectsEnv, MaxTreeDepthEnv, MaxShallowLinesEnv, FetchTimeoutEnv} {
		t.Setenv(env, "")
	}
	lim, err := gitLimitsFromEnv()
	require.NoError(t, err)
	assert.Equal(t, defaultGitLimits(), lim)

	t.Setenv(MaxPackEnv, "2048")
	t.Setenv(MaxObjectEnv, "3")
	t.Setenv(MaxPackObjectsEnv, "10")
	t.Setenv(MaxTreeDepthEnv, "8")
	t.Setenv(MaxShallowLinesEnv, "5")
	t.Setenv(FetchTimeoutEnv, "90m")
	lim, err = gitLimitsFromEnv()
	require.NoError(t, err)
	assert.Equal(t, gitLimits{packBytes: 2048 << 20, objectBytes: 3 << 20, objects: 10, treeDepth: 8, shallowLines: 5, fetchTime: 90 * time.Minute}, lim)

	for env, bad := range map[string]string{MaxPackEnv: "1G", MaxObjectEnv: "0", MaxPackObjectsEnv: "-1", MaxTreeDepthEnv: "deep", MaxShallowLinesEnv: "1.5", FetchTimeoutEnv: "30"} {
		t.Run(env, func(t *testing.T) {
			t.Setenv(env, bad)
			_, err := gitLimitsFromEnv()
			require.Error(t, err)
			assert.Contains(t, err.Error(), env)
		})
	}
}
