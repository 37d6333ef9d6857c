// Package dep is a dependency double for the bump tests.
package dep

// Hello is what the fixture upstream calls.
func Hello() string { return "hello" }
