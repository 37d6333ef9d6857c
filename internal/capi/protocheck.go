package capi

import (
	"fmt"

	"github.com/epp-build/epp-build/internal/cheader"
)

// CheckPrototypes checks that every function the Go binding declares exists
// in the library's header with the same return and parameter types, and
// every struct it defines has the library's layout. Go and Rust disagreed
// on an arity for several Dynamo releases; this catches that and any type
// or layout drift before the link (which would not: C symbols carry no
// signature).
func CheckPrototypes(binding, library []byte) error {
	b, err := cheader.ParseHeader(binding)
	if err != nil {
		return fmt.Errorf("parse the Go binding's header: %w", err)
	}
	l, err := cheader.ParseHeader(library)
	if err != nil {
		return fmt.Errorf("parse the library's header: %w", err)
	}
	return cheader.Check(b, l)
}
