package capi

import (
	"fmt"

	"github.com/epp-build/epp-build/internal/cheader"
)

// CheckPrototypes checks that every function the Go binding declares exists
// in the library's header with the same number of parameters. Go and Rust
// disagreed on an arity for several Dynamo releases; this catches it before
// the link (which would not: C symbols carry no signature).
func CheckPrototypes(binding, library []byte) error {
	b, err := cheader.Parse(binding)
	if err != nil {
		return fmt.Errorf("parse the Go binding's header: %w", err)
	}
	l, err := cheader.Parse(library)
	if err != nil {
		return fmt.Errorf("parse the library's header: %w", err)
	}
	return cheader.Check(b, l)
}
