//go:build !unix

package dirswap

import "errors"

const oNoFollow = 0

var errBusy = errors.New("held by a running writer")

// Without flock a folder is not locked: Clean may take a live writer's
// folder for a leftover only when two writers share a patches folder.
func lockDir(string) (func(), error)    { return func() {}, nil }
func tryLockDir(string) (func(), error) { return func() {}, nil }
