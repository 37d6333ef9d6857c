package inputfile

import (
	"fmt"
	"io"
	"os"
	"strconv"
)

// Limit bounds how much of one input is read.
type Limit struct {
	Bytes int64
	// What names the kind of input in messages ("a recipe.yaml").
	What string
	// Raise says how to allow more, when that is allowed at all.
	Raise string
}

// RecipeBytes is the most a recipe.yaml may hold: the committed ones are a
// few KB, so a recipe of a megabyte is a mistake, not a recipe.
const RecipeBytes = 1 << 20

// PatchBytes is the most a patch file may hold by default. The large-hunk
// benchmark applies a 204 MB patch (a vendored tree rewritten in one hunk);
// 256 MiB leaves it room while stopping a file that never ends.
const PatchBytes = 256 << 20

// PatchLimitEnv raises the patch limit, in MiB, for a series that really
// carries a larger patch.
const PatchLimitEnv = "EPP_BUILD_MAX_PATCH_MB"

// RecipeLimit is the limit for a recipe.yaml.
func RecipeLimit() Limit {
	return Limit{Bytes: RecipeBytes, What: "a recipe.yaml"}
}

// PatchLimit is the limit for a patch file: PatchBytes, or PatchLimitEnv
// when it is set to a positive number of MiB.
func PatchLimit() Limit {
	return Limit{Bytes: FromEnvMiB(PatchLimitEnv, PatchBytes), What: "a patch file", Raise: fmt.Sprintf("set %s to a larger number of MiB if the patch is meant to be this large", PatchLimitEnv)}
}

// LimitReader reads r, named name in messages, and fails with an *Error
// once it gives more than l.Bytes: for inputs that come from a server
// rather than a file.
func LimitReader(r io.Reader, name string, l Limit) io.Reader {
	return &limitedReader{r: r, name: name, limit: l}
}

type limitedReader struct {
	r     io.Reader
	name  string
	limit Limit
	read  int64
}

func (l *limitedReader) Read(p []byte) (int, error) {
	if rest := l.limit.Bytes + 1 - l.read; int64(len(p)) > rest {
		p = p[:rest]
	}
	n, err := l.r.Read(p)
	l.read += int64(n)
	if l.read > l.limit.Bytes {
		return n, tooLarge(l.name, l.read, l.limit)
	}
	return n, err
}

// TooLarge is the *Error for an input of size bytes (as announced, before
// it is read) over l.
func TooLarge(name string, size int64, l Limit) error { return tooLarge(name, size, l) }

// FromEnvMiB is def, or the positive number of MiB the environment
// variable env holds.
func FromEnvMiB(env string, def int64) int64 {
	if mb, err := strconv.ParseInt(os.Getenv(env), 10, 64); err == nil && mb > 0 && mb < 1<<43 {
		return mb << 20
	}
	return def
}
