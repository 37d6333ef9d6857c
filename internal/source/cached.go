package source

import (
	"context"
	"time"
)

// GitCached says whether the cache folder (cacheDir "" = CacheDir())
// holds a valid entry for commit fetched over git: a fetch of that pin
// then needs the network at most to confirm its tag, and goes on without.
func GitCached(ctx context.Context, cacheDir, commit string) bool {
	if !fullHash.MatchString(commit) {
		return false
	}
	c, err := openCache(cacheDir, nil)
	if err != nil {
		return false
	}
	return c.lookup(ctx, "git-"+commit, expectation{commit: commit}) != nil
}

// Reachable asks the repository for its refs, as a fetch's first step,
// within timeout: nil when it answers.
func Reachable(ctx context.Context, repository string, timeout time.Duration) error {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	_, err := listRefs(ctx, newRemoteRepo(repository))
	return err
}
