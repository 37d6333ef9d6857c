//go:build !linux

package dirswap

import "errors"

var errNoExchange = errors.New("the system cannot exchange two folders")

// exchange is not a system call here: swap falls back to two renames.
var exchange = func(a, b string) error { return errNoExchange }

func renameNoReplace(from, to string) error { return renameIfAbsent(from, to) }
