package backport

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/epp-build/epp-build/internal/patchset"
)

// binaryPatch is git format-patch --binary --full-index of a new 6-byte
// file, "\x00\x01\x02bin".
const binaryPatch = `From 1490c6a3ae0f132eed60e9255d8bfe89fb473776 Mon Sep 17 00:00:00 2001
From: A <a@example.org>
Date: Thu, 3 Dec 2026 13:25:40 +0000
Subject: [PATCH] add bin

---
 b.bin | Bin 0 -> 6 bytes
 1 file changed, 0 insertions(+), 0 deletions(-)
 create mode 100644 b.bin

diff --git a/b.bin b/b.bin
new file mode 100644
index 0000000000000000000000000000000000000000..677273046bce3115f56c248238f3b83f77cfc239
GIT binary patch
literal 6
NcmZQzWJ=1+0{{Yf0X+Z!

literal 0
HcmV?d00001

-- 
2.39.5
`

func TestCollectRefusesBinaryChangesThatCannotApply(t *testing.T) {
	picks, err := Collect([]string{writePatch(t, "bin.patch", binaryPatch)}, PickOptions{Upstream: "u", Reason: "r"})
	require.NoError(t, err, "a whole binary patch is picked")
	require.Len(t, picks, 1)

	for name, c := range map[string]struct {
		text, says string
	}{
		"no data": {strings.Replace(binaryPatch, "GIT binary patch\nliteral 6\nNcmZQzWJ=1+0{{Yf0X+Z!\n\nliteral 0\nHcmV?d00001\n", "Binary files /dev/null and b/b.bin differ\n", 1),
			"b.bin: binary change without data"},
		// The zlib data of "XXXXXX", another 6 bytes, under the same index line.
		"another blob's data": {strings.Replace(binaryPatch, "NcmZQzWJ=1+0{{Yf0X+Z!", "Kc$|xf00968J^~Q{", 1),
			"promises 677273046bce3115f56c248238f3b83f77cfc239"},
		"a size that is not the data's": {strings.Replace(binaryPatch, "literal 6\n", "literal 7\n", 1),
			"b.bin: binary data is corrupt"},
		"a size past the limit": {strings.Replace(binaryPatch, "literal 6\n", "literal 99999999999\n", 1),
			"over the"},
	} {
		t.Run(name, func(t *testing.T) {
			picks, err := Collect([]string{writePatch(t, "bin.patch", c.text)}, PickOptions{Upstream: "u", Reason: "r"})
			var refused *patchset.ParseError
			require.ErrorAs(t, err, &refused, "picked: %v", picks)
			assert.ErrorContains(t, err, c.says)
		})
	}
}
