package inputfile

import "fmt"

// Error is an input refused for what it is rather than what it says: the
// file named, the problem, and how to fix it.
type Error struct {
	Path    string
	Problem string
	Fix     string
}

func (e *Error) Error() string {
	return fmt.Sprintf("%s %s; %s", e.Path, e.Problem, e.Fix)
}
