//go:build !unix

package inputfile

const (
	openFlags = 0
	noFollow  = 0
)
