package patchset

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/storage/memory"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/epp-build/epp-build/internal/testutil/gitfixture"
)

const modeHeader = "From: A <a@example.com>\nDate: Wed, 23 Jul 2025 10:00:00 +0000\nSubject: Mode\n\n"

// TestModesAreTheOnesGitApplyRecords applies mode headers with the engine
// and with `git apply --index` on the same tree. What git 2.39 does, found
// by running it:
//
//   - a regular-file mode keeps only the owner's execute bit: 100664 and
//     100000 become 100644, 104755 becomes 100755 (the setuid bit is
//     dropped, not refused), and an `old mode 100664` matches a 100644 file;
//   - a type the header changes in place (100644 to 160000 or 120000) is
//     refused: "new mode (160000) of README.md does not match old mode";
//   - `deleted file mode 160000` on a regular file is refused: "wrong type";
//   - `new file mode 160000` with text is refused: "corrupt patch for
//     submodule".
//
// Two cases differ on purpose: `new file mode 040000` makes git 2.39 exit 0
// with an index entry it then cannot read ("index entry is a directory"),
// and `new file mode 644` (no file type) makes git 2.39 write 100644 while
// later git, which canonicalises modes as it parses them, reads it as a
// gitlink. The engine refuses both: only regular files and symlinks.
func TestModesAreTheOnesGitApplyRecords(t *testing.T) {
	newFile := func(mode string) string {
		return "diff --git a/new.txt b/new.txt\nnew file mode " + mode + "\nindex 0000000..3e75765\n--- /dev/null\n+++ b/new.txt\n@@ -0,0 +1 @@\n+new\n"
	}
	chmod := func(from, to string) string {
		return "diff --git a/README.md b/README.md\nold mode " + from + "\nnew mode " + to + "\n"
	}
	cases := []struct {
		name, diff, path string
		want             string // the mode committed, or "" when refused
		gitAgrees        bool
	}{
		{"executable", chmod("100644", "100755"), "README.md", "100755", true},
		{"group-writable is regular", chmod("100644", "100664"), "README.md", "100644", true},
		{"setuid is dropped", chmod("100644", "104755"), "README.md", "100755", true},
		{"permission-less regular", chmod("100644", "100000"), "README.md", "100644", true},
		{"old mode 100664 matches 100644", chmod("100664", "100755"), "README.md", "100755", true},
		{"new file 100664", newFile("100664"), "new.txt", "100644", true},
		{"new file 104755", newFile("104755"), "new.txt", "100755", true},
		{"gitlink on a file", chmod("100644", "160000"), "README.md", "", true},
		{"symlink in place of a file", chmod("100644", "120000"), "README.md", "", true},
		{"new file gitlink", newFile("160000"), "new.txt", "", true},
		{"deleted as gitlink", "diff --git a/docs/a.txt b/docs/a.txt\ndeleted file mode 160000\n--- a/docs/a.txt\n+++ /dev/null\n@@ -1 +0,0 @@\n-docs\n", "docs/a.txt", "", true},
		{"new file directory", newFile("040000"), "new.txt", "", false},
		{"new file without a type", newFile("644"), "new.txt", "", false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := baseRepo(t, map[string]string{"README.md": "# Fixture\n", "docs/a.txt": "docs\n"})
			patchFile := filepath.Join(t.TempDir(), "mode.patch")
			require.NoError(t, os.WriteFile(patchFile, []byte(modeHeader+c.diff), 0o644))
			patches, err := ParseFile(patchFile, "mode.patch")
			require.NoError(t, err)

			byGit := filepath.Join(t.TempDir(), "git")
			gitfixture.Git(t, "", "clone", "-q", dir, byGit)
			_, gitErr := gitfixture.TryGit(byGit, "apply", "--index", patchFile)

			_, err = applyPatchesToRepo(context.Background(), dir, patches, Options{})
			if c.want == "" {
				var refused *UnsafeError
				require.ErrorAs(t, err, &refused)
				assert.Contains(t, refused.Error(), c.path)
				assert.Equal(t, "", gitfixture.Git(t, dir, "status", "--porcelain"), "a refused patch writes nothing")
				if c.gitAgrees {
					assert.Error(t, gitErr, "git apply refuses it too")
				}
				return
			}
			require.NoError(t, err)
			require.NoError(t, gitErr)
			got := strings.Fields(gitfixture.Git(t, dir, "ls-tree", "HEAD", c.path))[0]
			assert.Equal(t, c.want, got)
			assert.Equal(t, strings.Fields(gitfixture.Git(t, byGit, "ls-files", "-s", c.path))[0], got, "the mode git apply records")
			// ls-tree shows modes canonicalised; fsck reads the stored ones.
			assert.Empty(t, gitfixture.Git(t, dir, "fsck", "--strict", "--no-dangling"), "git fsck finds nothing to warn about")
		})
	}
}

// TestBinaryPatchesAreCheckedAgainstTheirIndexLine: a binary result must be
// the blob the index line promises, and the file must be the blob it names
// before, as git apply checks both.
func TestBinaryPatchesAreCheckedAgainstTheirIndexLine(t *testing.T) {
	base := map[string]string{"blob.bin": "\x00\x01\x02binary\n" + numbered(200, "b")}
	dir := baseRepo(t, base)
	patches := seriesFromGit(t, dir, func() {
		gitfixture.WriteFiles(t, dir, map[string]string{"blob.bin": "\x00\x01\x02binary changed\n" + numbered(200, "b")})
		gitfixture.Git(t, dir, "commit", "-q", "-am", "Change the blob")
	})
	require.Len(t, patches, 1)
	f := patches[0].Files[0]
	require.True(t, f.IsBinary)

	t.Run("as made by git", func(t *testing.T) {
		work := filepath.Join(t.TempDir(), "w")
		gitfixture.Git(t, "", "clone", "-q", dir, work)
		_, err := applyPatchesToRepo(context.Background(), work, patches, Options{})
		require.NoError(t, err)
		assert.Equal(t, f.NewOIDPrefix, gitfixture.Git(t, work, "rev-parse", "HEAD:blob.bin"))
	})
	t.Run("result differs from the index line", func(t *testing.T) {
		edited := *patches[0]
		g := *f
		g.NewOIDPrefix = strings.Repeat("4", 40)
		edited.Files = append(edited.Files[:0:0], &g)
		_, err := applyPatch(mustLoad(t, dir), &edited)
		var refused *UnsafeError
		require.ErrorAs(t, err, &refused)
		assert.Contains(t, err.Error(), "promises "+strings.Repeat("4", 40))
	})
	t.Run("preimage differs from the index line", func(t *testing.T) {
		work := filepath.Join(t.TempDir(), "w")
		gitfixture.Git(t, "", "clone", "-q", dir, work)
		gitfixture.WriteFiles(t, work, map[string]string{"blob.bin": "\x00other\n"})
		gitfixture.Git(t, work, "commit", "-q", "-am", "Other base")
		_, err := applyPatch(mustLoad(t, work), patches[0])
		var fileErr *FileError
		require.ErrorAs(t, err, &fileErr)
		assert.Contains(t, err.Error(), "made against blob "+f.OldOIDPrefix)
	})
	t.Run("abbreviated index line", func(t *testing.T) {
		edited := *patches[0]
		g := *f
		g.OldOIDPrefix, g.NewOIDPrefix = f.OldOIDPrefix[:7], f.NewOIDPrefix[:7]
		edited.Files = append(edited.Files[:0:0], &g)
		_, err := applyPatch(mustLoad(t, dir), &edited)
		var refused *UnsafeError
		require.True(t, errors.As(err, &refused), "got %v", err)
		assert.Contains(t, err.Error(), "without a full index line")
	})
}

// mustLoad reads the tree at dir's HEAD, with new objects kept in memory.
func mustLoad(t *testing.T, dir string) *tree {
	t.Helper()
	repo, err := git.PlainOpen(dir)
	require.NoError(t, err)
	head, err := repo.Head()
	require.NoError(t, err)
	tr, err := loadTree(dir, repo.Storer, memory.NewStorage(), head.Hash())
	require.NoError(t, err)
	return tr
}
