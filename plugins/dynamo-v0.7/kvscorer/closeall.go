package kvscorer

import (
	"errors"
	"io"
	"sync"
)

// opened are the scorers a factory opened a router for (this line's and
// v0.8's, which shares the list), so that the EPP's main can close them
// before it returns: closing on the handle's context end alone runs in a
// goroutine that a fast exit can beat (the EPP is gone milliseconds after
// SIGTERM), leaving the router undestroyed.
var opened struct {
	sync.Mutex
	scorers []io.Closer
}

// Remember adds a scorer whose router CloseAll closes.
func Remember(s io.Closer) {
	opened.Lock()
	defer opened.Unlock()
	opened.scorers = append(opened.scorers, s)
}

// CloseAll closes the router of every remembered scorer, once each; the
// EPP's main calls it after the runner returns, because GAIE v0.5.1 has
// no plugin shutdown hook.
func CloseAll() error {
	opened.Lock()
	scorers := opened.scorers
	opened.scorers = nil
	opened.Unlock()
	var errs []error
	for _, s := range scorers {
		errs = append(errs, s.Close())
	}
	return errors.Join(errs...)
}
