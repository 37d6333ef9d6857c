package patchset

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"testing"
)

const fuzzSource = "# Fixture\nline one\nline two\nline three\nline four\nline five\n"

// FuzzParseApply feeds arbitrary bytes through the parser and the text
// applier: it must never panic, every failure must be one of the typed
// errors, and a successful apply must change exactly the counted lines.
func FuzzParseApply(f *testing.F) {
	seeds, _ := filepath.Glob(filepath.Join("..", "..", "testdata", "hostile", "*.patch"))
	for _, s := range seeds {
		data, err := os.ReadFile(s)
		if err == nil {
			f.Add(data)
		}
	}
	f.Add([]byte("From: A <a@b>\nDate: Wed, 23 Jul 2025 10:00:00 +0000\nSubject: x\n\n" +
		"diff --git a/README.md b/README.md\n--- a/README.md\n+++ b/README.md\n@@ -2,2 +2,3 @@\n line one\n+inserted\n line two\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		patches, err := Parse("fuzz.patch", data)
		if err != nil {
			var pe *ParseError
			if !errors.As(err, &pe) {
				t.Fatalf("parse error of unexpected type %T: %v", err, err)
			}
			return
		}
		for _, p := range patches {
			if err := check([]*Patch{p}); err != nil {
				var ue *UnsafeError
				if !errors.As(err, &ue) {
					t.Fatalf("path or mode error of unexpected type %T", err)
				}
				continue
			}
			for _, f := range p.Files {
				if f.IsBinary || len(f.TextFragments) == 0 {
					continue
				}
				res, _, err := applyText(p, f, []byte(fuzzSource))
				if err != nil {
					var ce *ConflictError
					if !errors.As(err, &ce) {
						t.Fatalf("apply error of unexpected type %T: %v", err, err)
					}
					continue
				}
				var added, deleted int64
				for _, frag := range f.TextFragments {
					added += frag.LinesAdded
					deleted += frag.LinesDeleted
				}
				var out bytes.Buffer
				if err := res.writeTo(&out); err != nil {
					t.Fatal(err)
				}
				if int64(out.Len()) != res.size() {
					t.Fatalf("wrote %d bytes, planned %d", out.Len(), res.size())
				}
				before := int64(indexLines([]byte(fuzzSource)).count())
				after := int64(indexLines(out.Bytes()).count())
				// A last line without a newline can merge with the next one.
				if d := after - (before - deleted + added); d > 1 || d < -1 {
					t.Fatalf("applied %d+/%d- lines to %d lines and got %d", added, deleted, before, after)
				}
				if !bytes.Contains(data, []byte("@@")) {
					t.Fatalf("applied text fragments from input without a hunk header")
				}
			}
		}
	})
}
