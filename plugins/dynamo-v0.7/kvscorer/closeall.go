package kvscorer

import (
	"errors"
	"sync"
)

// opened are the scorers the factory opened a router for, so that the
// EPP's main can close them before it returns: closing on the handle's
// context end alone runs in a goroutine that a fast exit can beat (the
// EPP is gone milliseconds after SIGTERM), leaving the router undestroyed.
var opened struct {
	sync.Mutex
	scorers []*Scorer
}

func remember(s *Scorer) {
	opened.Lock()
	defer opened.Unlock()
	opened.scorers = append(opened.scorers, s)
}

// CloseAll closes the router of every scorer the factory opened, once
// each; the EPP's main calls it after the runner returns, because GAIE
// v0.5.1 has no plugin shutdown hook.
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
