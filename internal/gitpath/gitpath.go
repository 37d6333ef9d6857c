// Package gitpath holds git's rules for the paths it refuses to check out
// under another name for .git or .gitmodules: the patches and the upstream
// tree both pass them.
package gitpath

import (
	"strings"
	"unicode/utf8"
)

// A tree must not hold, nor a patch write, a path git itself would refuse
// to check out: on Windows or macOS such a path can be .git (or
// .gitmodules) under another name, and a clone of the tree there would run
// hooks or read submodule config from it. The rules are git's verify_path
// (read-cache.c) with core.protectNTFS and core.protectHFS both on, so that
// a tree built on Linux is as safe to check out on every system: the NTFS
// aliases are is_ntfs_dotgit and is_ntfs_dotgitmodules (path.c), the HFS+
// ones is_hfs_dotgit and is_hfs_dotgitmodules (utf8.c). git on Linux turns
// only protectNTFS on by default, so it accepts the HFS+ aliases unless
// core.protectHFS is set; they are refused here all the same.
//
// git (2.39) applies the .gitmodules rule to symlinks only and has no such
// rule for .gitattributes, .gitignore or .mailmap: fsck merely notes those
// as symlinks, and git apply writes them. So do we.

// AliasReason says why git refuses name as a path of an entry that is a
// symlink or not, or "" when it accepts it. Plain ".git", "." and ".." are
// left to the caller.
func AliasReason(name string, symlink bool) string {
	// Each component is checked with the rest of the path after it, as
	// git does: a few rules look past the component's end.
	for rest := name; ; {
		if ntfsDotGit(rest) {
			return "writes into .git under the name Windows gives it (NTFS drops trailing dots and spaces, reads ':' as a stream and knows .git as git~1); git refuses it"
		}
		if hfsDotName(rest, "git") {
			return "writes into .git under the name macOS gives it (HFS+ ignores case and some invisible Unicode characters); git refuses it"
		}
		if symlink && (dotGitmodules(rest) || ntfsDotGitmodules(rest) || hfsDotName(rest, "gitmodules")) {
			return "makes .gitmodules (or a name Windows or macOS reads as .gitmodules) a symlink, which would let a clone read submodule config from outside the tree; git refuses it"
		}
		i := strings.IndexByte(rest, '/')
		if i < 0 {
			return ""
		}
		rest = rest[i+1:]
	}
}

// byteAt reads s like a NUL-terminated string: past the end is 0.
func byteAt(s string, i int) byte {
	if i < len(s) {
		return s[i]
	}
	return 0
}

// dotGitmodules is the case-insensitive ".gitmodules" component that git
// refuses as a symlink on every file system.
func dotGitmodules(rest string) bool {
	const needle = ".gitmodules"
	if len(rest) < len(needle) || !strings.EqualFold(rest[:len(needle)], needle) {
		return false
	}
	c := byteAt(rest, len(needle))
	return c == 0 || c == '/'
}

// ntfsDotGit: NTFS ignores trailing dots and spaces, ends a file name at
// ':' (an alternate stream follows) and answers to the 8.3 short name
// git~1, so ".git. ", ".git::$INDEX_ALLOCATION" and "GIT~1" all open .git.
func ntfsDotGit(rest string) bool {
	var i int
	switch {
	case len(rest) >= 4 && rest[0] == '.' && strings.EqualFold(rest[1:4], "git"):
		i = 4
	case len(rest) >= 5 && strings.EqualFold(rest[:3], "git") && rest[3] == '~' && rest[4] == '1':
		i = 5
	default:
		return false
	}
	for ; ; i++ {
		switch byteAt(rest, i) {
		case 0, '/', '\\', ':':
			return true
		case '.', ' ':
		default:
			return false
		}
	}
}

// ntfsDotGitmodules: the NTFS names of .gitmodules. Besides trailing dots,
// spaces and a stream, the short name is either the first six letters
// with ~1 to ~4, or, once those are taken, a hash-like "gi7eba" prefix cut
// to make room for a longer ~N suffix (8.3 names are at most eight
// characters before any tail). Unlike ntfsDotGit the name must end the
// path or stop at ':'; a following '/' does not end it.
func ntfsDotGitmodules(rest string) bool {
	const long, short = "gitmodules", "gi7eba"
	tail := func(i int) bool {
		for ; ; i++ {
			switch byteAt(rest, i) {
			case 0, ':':
				return true
			case '.', ' ':
			default:
				return false
			}
		}
	}
	if len(rest) >= 1+len(long) && rest[0] == '.' && strings.EqualFold(rest[1:1+len(long)], long) {
		return tail(1 + len(long))
	}
	if len(rest) >= 8 && strings.EqualFold(rest[:6], long[:6]) && rest[6] == '~' && rest[7] >= '1' && rest[7] <= '4' {
		return tail(8)
	}
	// The fall-back short name: up to six characters of the prefix, '~',
	// a digit 1-9, then digits up to the eighth character.
	sawTilde := false
	i := 0
	for ; i < 8; i++ {
		c := byteAt(rest, i)
		switch {
		case c == 0:
			return false
		case sawTilde:
			if c < '0' || c > '9' {
				return false
			}
		case c == '~':
			i++
			if d := byteAt(rest, i); d < '1' || d > '9' {
				return false
			}
			sawTilde = true
		case i >= 6 || c >= 0x80:
			return false
		case asciiLower(c) != short[i]:
			return false
		}
	}
	return tail(i)
}

func asciiLower(c byte) byte {
	if 'A' <= c && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}

// hfsDotName: HFS+ folds case and drops a set of zero-width and
// direction-control code points from names, so ".G\u200cIT" is .git
// there. A byte sequence that is not UTF-8 ends the name, as it does in
// git: ".git" followed by one is refused.
func hfsDotName(rest, needle string) bool {
	r, n := nextHFSRune(rest)
	if r != '.' {
		return false
	}
	rest = rest[n:]
	for i := 0; i < len(needle); i++ {
		r, n = nextHFSRune(rest)
		if r > 127 || asciiLower(byte(r)) != needle[i] {
			return false
		}
		rest = rest[n:]
	}
	r, _ = nextHFSRune(rest)
	return r == 0 || r == '/'
}

// nextHFSRune returns the next code point HFS+ does not ignore and how many
// bytes it took, or 0 at the end of s and where s is not valid UTF-8.
func nextHFSRune(s string) (rune, int) {
	n := 0
	for n < len(s) {
		r, size := utf8.DecodeRuneInString(s[n:])
		if r == utf8.RuneError && size == 1 || r == 0xfffe || r == 0xffff {
			return 0, n
		}
		n += size
		if !hfsIgnored(r) {
			return r, n
		}
	}
	return 0, n
}

func hfsIgnored(r rune) bool {
	switch r {
	case 0x200c, 0x200d, 0x200e, 0x200f, // zero-width (non-)joiner, LTR and RTL marks
		0x202a, 0x202b, 0x202c, 0x202d, 0x202e, // directional embeddings and overrides
		0x206a, 0x206b, 0x206c, 0x206d, 0x206e, 0x206f, // deprecated shaping controls
		0xfeff: // zero-width no-break space
		return true
	}
	return false
}
