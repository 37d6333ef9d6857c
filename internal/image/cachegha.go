package image

import (
	"errors"
	"os"
	"strconv"
)

// errNoActionsCache is a type=gha entry outside GitHub Actions' cache
// environment and without token= and url=.
var errNoActionsCache = errors.New("type=gha needs the GitHub Actions cache service: ACTIONS_RUNTIME_TOKEN and ACTIONS_CACHE_URL or ACTIONS_RESULTS_URL " +
	"(GitHub sets them for actions, not for run steps: expose them with an action such as crazy-max/ghaction-github-runtime), or token= and url= in the value")

// addActionsEnv completes a type=gha entry from the GitHub Actions
// environment as buildx does: token from ACTIONS_RUNTIME_TOKEN; url from
// ACTIONS_CACHE_URL, else ACTIONS_RESULTS_URL; with version=2 (or
// ACTIONS_CACHE_SERVICE_V2 true) url_v2 from ACTIONS_RESULTS_URL. Values
// given in the entry win. buildx drops an entry it cannot complete; here it
// is refused, so a cache that would silently not be used is named.
func addActionsEnv(attrs map[string]string) error {
	version, ok := attrs["version"]
	if !ok {
		if v, set := os.LookupEnv("ACTIONS_CACHE_SERVICE_V2"); set {
			if b, err := strconv.ParseBool(v); err == nil && b {
				version = "2"
			}
		}
	}
	setFromEnv := func(key string, envs ...string) {
		if _, given := attrs[key]; given {
			return
		}
		for _, env := range envs {
			if v, set := os.LookupEnv(env); set {
				attrs[key] = v
				return
			}
		}
	}
	setFromEnv("token", "ACTIONS_RUNTIME_TOKEN")
	if version == "2" {
		setFromEnv("url_v2", "ACTIONS_RESULTS_URL")
	}
	setFromEnv("url", "ACTIONS_CACHE_URL", "ACTIONS_RESULTS_URL")
	if attrs["token"] == "" || (attrs["url"] == "" && attrs["url_v2"] == "") {
		return errNoActionsCache
	}
	return nil
}
