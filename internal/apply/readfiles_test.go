package apply

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/epp-build/epp-build/internal/source"
)

// ReadFiles gives the pinned commit's files. Once the commit is cached its
// tag is not asked about: a tag moved since does not stop the read (a fetch
// of the pin refuses it), since the files are the commit's either way.
func TestReadFilesReadsThePinnedCommit(t *testing.T) {
	ctx := context.Background()
	r, up := seriesOn(t)
	f := Fetcher{Kind: source.Git, CacheDir: t.TempDir()}

	got, err := f.ReadFiles(ctx, r.Upstream, []string{"main.go", "plugin.go"})
	require.NoError(t, err, "a pin not cached yet is fetched by its tag")
	assert.Equal(t, map[string][]byte{"main.go": []byte("package main\n\nfunc main() {}\n")}, got, "plugin.go is the patch's, not the pin's")

	up.MoveTag(t, "v1.0.0", up.RevParse(t, "HEAD"), true)
	_, err = f.Fetch(ctx, r.Upstream)
	var moved *source.MismatchError
	require.ErrorAs(t, err, &moved)
	got, err = f.ReadFiles(ctx, r.Upstream, []string{"main.go"})
	require.NoError(t, err)
	assert.Equal(t, "package main\n\nfunc main() {}\n", string(got["main.go"]))
}
