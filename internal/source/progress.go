package source

import (
	"io"

	"github.com/epp-build/epp-build/internal/progress"
	"github.com/go-git/go-git/v5/plumbing/storer"
	"github.com/go-git/go-git/v5/storage"
)

// countingStorer reports the bytes of the pack a git fetch receives: go-git
// streams the server's pack into the storer's PackfileWriter.
type countingStorer struct {
	storage.Storer
	task *progress.Task
}

// watchFetch wraps s so the fetch's pack shows on p as it arrives.
// The task is nil when nothing is shown; the caller ends it with Done once
// the fetch succeeded, or Abort (a no-op after Done) on any other way out.
func watchFetch(s storage.Storer, p *progress.Reporter, shown string) (storage.Storer, *progress.Task) {
	if p == nil {
		return s, nil
	}
	if _, ok := s.(storer.PackfileWriter); !ok {
		return s, nil
	}
	task := p.Start("fetch "+shown, 0)
	return &countingStorer{Storer: s, task: task}, task
}

func (c *countingStorer) PackfileWriter() (io.WriteCloser, error) {
	w, err := c.Storer.(storer.PackfileWriter).PackfileWriter()
	if err != nil {
		return nil, err
	}
	return &countingWriter{w: w, task: c.task}, nil
}

type countingWriter struct {
	w    io.WriteCloser
	task *progress.Task
}

func (c *countingWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.task.Add(int64(n))
	return n, err
}

func (c *countingWriter) Close() error { return c.w.Close() }
