package main

import (
	"io"
	"sync"
)

// deferredNotice holds the recipe-set notice until the command first
// writes to stderr, or ends without a usage error: a command refused for
// how it was called prints one line, its error, and not the notice of a
// recipe set it never used.
type deferredNotice struct {
	mu   sync.Mutex
	w    io.Writer
	text string
}

func (d *deferredNotice) Write(p []byte) (int, error) {
	d.flush()
	return d.w.Write(p)
}

// flush writes the notice if it is still held.
func (d *deferredNotice) flush() {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.text != "" {
		_, _ = io.WriteString(d.w, d.text)
		d.text = ""
	}
}

// drop forgets the notice.
func (d *deferredNotice) drop() {
	d.mu.Lock()
	d.text = ""
	d.mu.Unlock()
}
