package gitformat

import (
	"crypto/sha1"
	"encoding/binary"
	"io"
	"sort"
	"time"

	"github.com/go-git/go-git/v5/plumbing/format/index"
)

// Field layout of an index entry (git's index-format.txt).
const (
	entryHeader   = 62 // stat data, mode, ids, size, hash and flags
	nameMask      = 0xfff
	extendedFlag  = 0x4000
	intentToAdd   = 1 << 13
	skipWorktree  = 1 << 14
	signature     = "DIRC"
	maxPadding    = 8
	trailerLength = sha1.Size
)

// ErrInvalidTimestamp is a time before 1970, which the index cannot hold:
// go-git's own error, so callers can test for either.
var ErrInvalidTimestamp = index.ErrInvalidTimestamp

// EncodeIndex writes idx to w exactly as go-git's index.Encoder does: the
// entries sorted by name (idx.Entries is sorted in place), no extensions,
// the SHA-1 trailer. Versions 2 and 3 are written here; version 4 (path
// prefix compression, which nothing here writes) goes to go-git's encoder.
func EncodeIndex(w io.Writer, idx *index.Index) error {
	if idx.Version != 2 && idx.Version != 3 {
		return index.NewEncoder(w).Encode(idx)
	}
	sort.Slice(idx.Entries, func(i, j int) bool { return idx.Entries[i].Name < idx.Entries[j].Name })
	size := 12 + trailerLength
	for _, e := range idx.Entries {
		size += entryHeader + 2 + len(e.Name) + maxPadding
	}
	buf := make([]byte, 0, size)
	buf = append(buf, signature...)
	buf = binary.BigEndian.AppendUint32(buf, idx.Version)
	buf = binary.BigEndian.AppendUint32(buf, uint32(len(idx.Entries)))
	for _, e := range idx.Entries {
		var err error
		if buf, err = appendEntry(buf, e); err != nil {
			return err
		}
	}
	sum := sha1.Sum(buf)
	buf = append(buf, sum[:]...)
	_, err := w.Write(buf)
	return err
}

func appendEntry(buf []byte, e *index.Entry) ([]byte, error) {
	start := len(buf)
	for _, t := range []time.Time{e.CreatedAt, e.ModifiedAt} {
		sec, nsec, err := timeFields(t)
		if err != nil {
			return nil, err
		}
		buf = binary.BigEndian.AppendUint32(buf, sec)
		buf = binary.BigEndian.AppendUint32(buf, nsec)
	}
	for _, v := range []uint32{e.Dev, e.Inode, uint32(e.Mode), e.UID, e.GID, e.Size} {
		buf = binary.BigEndian.AppendUint32(buf, v)
	}
	buf = append(buf, e.Hash[:]...)
	flags := uint16(e.Stage&0x3) << 12
	if l := len(e.Name); l < nameMask {
		flags |= uint16(l)
	} else {
		flags |= nameMask
	}
	if e.IntentToAdd || e.SkipWorktree {
		var extended uint16
		if e.IntentToAdd {
			extended |= intentToAdd
		}
		if e.SkipWorktree {
			extended |= skipWorktree
		}
		buf = binary.BigEndian.AppendUint16(buf, flags|extendedFlag)
		buf = binary.BigEndian.AppendUint16(buf, extended)
	} else {
		buf = binary.BigEndian.AppendUint16(buf, flags)
	}
	buf = append(buf, e.Name...)
	// One to eight NULs end the name and pad the entry to a multiple of 8.
	pad := maxPadding - (len(buf)-start)%maxPadding
	for range pad {
		buf = append(buf, 0)
	}
	return buf, nil
}

// timeFields is a time as the index stores it: zero for the zero time.
func timeFields(t time.Time) (sec, nsec uint32, err error) {
	if t.IsZero() {
		return 0, 0, nil
	}
	if t.Unix() < 0 || t.UnixNano() < 0 {
		return 0, 0, ErrInvalidTimestamp
	}
	return uint32(t.Unix()), uint32(t.Nanosecond()), nil
}
