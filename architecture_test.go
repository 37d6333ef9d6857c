package eppbuild

import (
	"os"
	"strings"
	"testing"
)

// TestEveryInternalPackageIsInTheArchitecture: docs/architecture.md names
// every package under internal/, so a newcomer finds each one's job.
func TestEveryInternalPackageIsInTheArchitecture(t *testing.T) {
	doc, err := os.ReadFile("docs/architecture.md")
	if err != nil {
		t.Fatal(err)
	}
	entries, err := os.ReadDir("internal")
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if e.IsDir() && !strings.Contains(string(doc), "internal/"+e.Name()+" ") {
			t.Errorf("docs/architecture.md does not name internal/%s: add it with one sentence on its job", e.Name())
		}
	}
}
