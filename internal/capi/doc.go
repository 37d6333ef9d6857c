// Package capi builds the Dynamo Rust C API (a staticlib crate) once per
// target platform, caches the result by its inputs and stages the library
// and header where the EPP's cgo binding expects them.
package capi
