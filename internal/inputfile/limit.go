package inputfile

import (
	"fmt"
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
	l := Limit{Bytes: PatchBytes, What: "a patch file", Raise: fmt.Sprintf("set %s to a larger number of MiB if the patch is meant to be this large", PatchLimitEnv)}
	if mb, err := strconv.ParseInt(os.Getenv(PatchLimitEnv), 10, 64); err == nil && mb > 0 && mb < 1<<43 {
		l.Bytes = mb << 20
	}
	return l
}
