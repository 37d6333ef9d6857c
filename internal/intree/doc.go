// Package intree holds the tests that apply each release's series to the
// real upstream tree and build and test the result there, with the C API
// test double standing in for Dynamo's library.
//
// go test runs a package's tests in the order of its files' names, and
// the order matters on two cores: the integration suites' run step mostly
// waits (timers, the control plane), so the suites come first, while the
// package beside this one in `make unit` compiles, and the release image,
// which only compiles, comes last (releaseimage_test.go), when the
// packages beside it mostly wait.
package intree
