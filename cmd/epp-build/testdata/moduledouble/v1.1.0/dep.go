// Package dep is a dependency double for the bump tests.
package dep

// Hello is what the fixture upstream calls.
func Hello() string { return "hello" }

// Goodbye is new in v1.1.0.
func Goodbye() string { return "goodbye" }
