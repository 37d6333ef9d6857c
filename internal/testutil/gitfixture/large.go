package gitfixture

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

// Large shape: about the size of a GAIE release tree.
const (
	LargeTextFiles = 986
	LargeExecFiles = 9
	LargeBinaries  = 4
	LargeTag       = "v1.0.0"
)

// words is the vocabulary of the generated text; Go-like tokens make the
// files compress roughly like source code.
var words = strings.Fields(`func return if else for range struct interface type package import
	var const err nil ctx context string int64 byte map chan select case default go defer
	request response scheduler endpoint pod scorer filter plugin metrics cache server handler
	:= = != == { } ( ) [ ] , . ; // * & + - 0 1 2 42 "ok" "error" true false`)

// Large builds a repository shaped like a GAIE release (about 1,000 files and
// 17 MB: deterministic pseudo-random text in nested folders, a few binaries,
// executable scripts and a symlink) with one commit tagged LargeTag
// (annotated). It takes a second or two; build it once per benchmark.
func Large(t testing.TB) *Repo {
	t.Helper()
	r := New(t)
	rng := rand.New(rand.NewPCG(2025, 17))
	for i := range LargeTextFiles {
		dir := fmt.Sprintf("pkg/area%02d/sub%d", i%37, i%5)
		size := 4<<10 + rng.IntN(24<<10)
		r.WriteBytes(t, fmt.Sprintf("%s/file%04d.go", dir, i), pseudoText(rng, size))
	}
	for i := range LargeExecFiles {
		r.WriteExec(t, fmt.Sprintf("hack/script%d.sh", i), "#!/bin/sh\n"+string(pseudoText(rng, 2<<10)))
	}
	for i := range LargeBinaries {
		bin := make([]byte, 200<<10)
		for j := range bin {
			bin[j] = byte(rng.Uint32())
		}
		r.WriteBytes(t, fmt.Sprintf("site/static/image%d.bin", i), bin)
	}
	r.Symlink(t, "docs/latest", "../pkg/area00")
	commit := r.Commit(t, "large fixture", map[string]string{"README.md": "# large fixture\n"})
	r.Tag(t, LargeTag, commit, true)
	return r
}

// pseudoText returns about size bytes of word salad broken into lines.
func pseudoText(rng *rand.Rand, size int) []byte {
	var b strings.Builder
	b.Grow(size + 64)
	line := 0
	for b.Len() < size {
		w := words[rng.IntN(len(words))]
		b.WriteString(w)
		line += len(w) + 1
		if line > 60+rng.IntN(40) {
			b.WriteByte('\n')
			line = 0
		} else {
			b.WriteByte(' ')
		}
	}
	b.WriteByte('\n')
	return []byte(b.String())
}
