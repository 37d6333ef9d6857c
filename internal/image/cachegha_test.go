package image

import (
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// actionsEnv clears every variable the gha cache reads, then sets some.
func actionsEnv(t *testing.T, set map[string]string) {
	for _, k := range []string{"ACTIONS_RUNTIME_TOKEN", "ACTIONS_CACHE_URL", "ACTIONS_RESULTS_URL", "ACTIONS_CACHE_SERVICE_V2"} {
		t.Setenv(k, "")
	}
	for k, v := range set {
		t.Setenv(k, v)
	}
	// t.Setenv cannot unset; an empty value counts as set for LookupEnv,
	// so the cleared ones are removed here.
	for _, k := range []string{"ACTIONS_RUNTIME_TOKEN", "ACTIONS_CACHE_URL", "ACTIONS_RESULTS_URL", "ACTIONS_CACHE_SERVICE_V2"} {
		if _, keep := set[k]; !keep {
			unsetenv(t, k)
		}
	}
}

func TestGHACacheReadsTheActionsEnvironmentAsBuildxDoes(t *testing.T) {
	actionsEnv(t, map[string]string{"ACTIONS_RUNTIME_TOKEN": "tok", "ACTIONS_CACHE_URL": "https://cache.example/", "ACTIONS_RESULTS_URL": "https://results.example/"})
	got, err := ParseCache([]string{"type=gha,mode=max"}, CacheExport, false)
	require.NoError(t, err)
	assert.Equal(t, map[string]string{"mode": "max", "token": "tok", "url": "https://cache.example/"}, got[0].Attrs)

	// Cache service v2: url_v2 from the results URL.
	actionsEnv(t, map[string]string{"ACTIONS_RUNTIME_TOKEN": "tok", "ACTIONS_RESULTS_URL": "https://results.example/", "ACTIONS_CACHE_SERVICE_V2": "true"})
	got, err = ParseCache([]string{"type=gha"}, CacheImport, false)
	require.NoError(t, err)
	assert.Equal(t, map[string]string{"token": "tok", "url": "https://results.example/", "url_v2": "https://results.example/"}, got[0].Attrs)

	// What the value says wins.
	got, err = ParseCache([]string{"type=gha,token=mine,url=https://mine.example/,scope=epp"}, CacheImport, false)
	require.NoError(t, err)
	assert.Equal(t, "mine", got[0].Attrs["token"])
	assert.Equal(t, "https://mine.example/", got[0].Attrs["url"])
	assert.Equal(t, "gha https://mine.example/", DescribeCache(got[0]), "the token is never in a message")

	per := CacheForPlatform(got, "linux/arm64")
	assert.Equal(t, "epp-linux-arm64", per[0].Attrs["scope"], "each node its own scope")
}

func TestGHACacheOutsideActionsIsNamed(t *testing.T) {
	actionsEnv(t, nil)
	_, err := ParseCache([]string{"type=gha"}, CacheExport, false)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "ACTIONS_RUNTIME_TOKEN")
	assert.Contains(t, err.Error(), "--cache-to")
}

// unsetenv removes k for the test and puts back its value after.
func unsetenv(t *testing.T, k string) {
	t.Helper()
	old, had := os.LookupEnv(k)
	os.Unsetenv(k)
	t.Cleanup(func() {
		if had {
			os.Setenv(k, old)
		}
	})
}
