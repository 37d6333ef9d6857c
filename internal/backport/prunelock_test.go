package backport

import (
	"context"
	"errors"
	"testing"

	"github.com/stretchr/testify/require"
)

// `cache prune` takes the lock every rebase or pick command holds while it
// runs: held by a prune, the commands are refused as busy rather than
// have their work tree removed under them (and a prune passes a work tree
// by while one of them holds it).
func TestTryLockWorkTreeIsTheLockRebaseAndPickHold(t *testing.T) {
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	root := t.TempDir()
	for kind, run := range map[string]func() error{
		"rebase": func() error {
			_, err := Rebase(context.Background(), RebaseRequest{Root: root, Abort: true})
			return err
		},
		"pick": func() error {
			_, err := PickInto(context.Background(), PickRequest{Root: root, Abort: true})
			return err
		},
	} {
		dir, err := defaultDirFor(root, kind)
		require.NoError(t, err)
		unlock, ok, err := TryLockWorkTree(dir)
		require.NoError(t, err)
		require.True(t, ok)
		var busy *BusyError
		require.ErrorAs(t, run(), &busy, kind)
		require.Equal(t, "pruning", busy.Doing, "the refusal says what holds the lock")
		unlock()
		require.False(t, errors.As(run(), &busy), "%s runs once the lock is free", kind)
	}
}
