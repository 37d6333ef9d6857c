package outdir

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestLockWaitsAndSaysWhy: a second Lock on the same out waits for the
// first, says so once naming the holder, and the lock file is gone after.
func TestLockWaitsAndSaysWhy(t *testing.T) {
	out := filepath.Join(t.TempDir(), "new", "out")
	unlock, err := Lock(context.Background(), out, nil)
	require.NoError(t, err)
	var notices []string
	var got atomic.Bool
	done := make(chan struct{})
	go func() {
		defer close(done)
		u, err := Lock(context.Background(), out, func(f string, a ...any) { notices = append(notices, fmt.Sprintf(f, a...)) })
		if assert.NoError(t, err) {
			got.Store(true)
			u()
		}
	}()
	time.Sleep(100 * time.Millisecond)
	assert.False(t, got.Load(), "the second waits")
	unlock()
	<-done
	assert.Equal(t, []string{fmt.Sprintf("waiting for another epp-build apply into %s (pid %d)", out, os.Getpid())}, notices)
	assert.NoFileExists(t, LockPath(out))

	unlock, err = Lock(context.Background(), out, nil)
	require.NoError(t, err)
	defer unlock()
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	_, err = Lock(ctx, out, nil)
	assert.ErrorIs(t, err, context.DeadlineExceeded, "Ctrl-C stops the wait")
}
