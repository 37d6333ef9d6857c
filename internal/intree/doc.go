// Package intree holds the tests that apply each release's series to the
// real upstream tree and build and test the result there, with the C API
// test double standing in for Dynamo's library.
package intree
