// Package dep is a dependency double for the bump tests.
package dep

// Greet replaces Hello, which v1.2.0 drops.
func Greet() string { return "hello" }
