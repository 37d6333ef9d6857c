package diff3

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// A side that changed nothing takes nothing from the merge: the result is
// the other side, whole and without conflict; so is the same edit made
// on both sides.
func FuzzMergeOfAnUnchangedSideIsTheOtherSide(f *testing.F) {
	f.Add("a\nb\nc\n", "a\nB\nc\n")
	f.Add("", "new\n")
	f.Add("a\nb", "a\nb\nc")
	f.Add("x\nx\nx\n", "x\ny\nx\n")
	f.Add("package p\n\nfunc f() {\n}\n", "package p\n\nfunc f() {\n\treturn\n}\n")
	f.Fuzz(func(t *testing.T, base, x string) {
		got := Merge([]byte(base), []byte(x), []byte(base), labels)
		assert.Equal(t, x, string(got.Text), "merge(base, x, base)")
		assert.True(t, got.Clean())
		got = Merge([]byte(base), []byte(base), []byte(x), labels)
		assert.Equal(t, x, string(got.Text), "merge(base, base, x)")
		assert.True(t, got.Clean())
		got = Merge([]byte(base), []byte(x), []byte(x), labels)
		assert.Equal(t, x, string(got.Text), "merge(base, x, x)")
		assert.True(t, got.Clean())
	})
}
