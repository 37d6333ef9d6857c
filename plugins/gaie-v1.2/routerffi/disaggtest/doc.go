// Package disaggtest holds the tests of the disaggregated scorers (disagg)
// over the real binding (routerffi) linked to the C API test double. They
// are a package of their own, not routerffi's tests, because a release
// line's series adds disagg in a later patch than the binding: each patch
// of the series must compile on its own.
package disaggtest
