package vulnstest

import (
	"embed"
	"io/fs"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/epp-build/epp-build/internal/vulns"
)

// The double database's entries, hand-written for stdlib's fmt so that
// any Go program that prints has a finding whatever Go built it: one
// called (fmt.Printf) and one only imported (a symbol no program links).
// DoubleVEX answers for both. In a stripped binary (the EPP's builds
// strip theirs) the scanner has no symbol table and counts every
// vulnerable symbol of a package the binary links as called, so there
// both are called.
const (
	DoubleCalled   = "GO-2099-0101"
	DoubleImported = "GO-2099-0102"
)

//go:embed testdata/osv/*.json testdata/not-affected.vex.json
var double embed.FS

// DoubleDB indexes the double's entries into a folder of the test and
// returns its file:// URL: no network, no module proxy.
func DoubleDB(t testing.TB) string {
	t.Helper()
	src := t.TempDir()
	entries, err := fs.Glob(double, "testdata/osv/*.json")
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		data, err := double.ReadFile(e)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(src, filepath.Base(e)), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	dir := filepath.Join(t.TempDir(), "vulndb")
	if _, err := vulns.IndexOSV(src, dir, time.Date(2099, 1, 1, 0, 0, 0, 0, time.UTC)); err != nil {
		t.Fatal(err)
	}
	return (&url.URL{Scheme: "file", Path: filepath.ToSlash(dir)}).String()
}

// DoubleVEX writes the OpenVEX document that says the EPP is not
// affected by either entry into a folder of the test and returns its path.
func DoubleVEX(t testing.TB) string {
	t.Helper()
	data, err := double.ReadFile("testdata/not-affected.vex.json")
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "not-affected.vex.json")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// printingProgram calls fmt.Printf, so the double database finds
// DoubleCalled in it, and links no fmt.NeverLinkedDouble.
const printingProgram = `package main

import (
	"fmt"
	"os"
)

func main() { fmt.Printf("epp double %d\n", len(os.Args)) }
`

// PrintingBinary builds a small Go program that prints, for goarch on
// linux, and returns its path. Unless strip, it keeps its symbol table,
// where the scanner tells DoubleCalled (called) from DoubleImported.
func PrintingBinary(t testing.TB, goarch string, strip bool) string {
	t.Helper()
	dir := t.TempDir()
	for name, data := range map[string]string{"go.mod": "module example.com/eppdouble\n\ngo 1.22\n", "main.go": printingProgram} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	out := filepath.Join(dir, "epp")
	args := []string{"build", "-trimpath", "-o", out}
	if strip {
		args = append(args, "-ldflags=-s -w")
	}
	cmd := exec.Command("go", append(args, ".")...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0", "GOOS=linux", "GOARCH="+goarch, "GOFLAGS=", "GOWORK=off")
	if msg, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("build the printing double for %s: %v\n%s", goarch, err, msg)
	}
	return out
}
