package gitformat

import (
	"bytes"
	"crypto/sha1"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/format/index"

	"github.com/epp-build/epp-build/internal/inputfile"
)

// ReadIndex reads the index file name as go-git's repository storage does: a
// missing file is an empty version 2 index, and ModTime is the file's.
func ReadIndex(name string) (*index.Index, error) {
	// Bounded and regular-only: a FIFO or a device in its place must not
	// hang or exhaust the process.
	f, err := inputfile.Open(name, "", inputfile.IndexLimit())
	if errors.Is(err, os.ErrNotExist) {
		return &index.Index{Version: 2}, nil
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	data := make([]byte, fi.Size())
	if _, err := io.ReadFull(f, data); err != nil {
		return nil, fmt.Errorf("git index %s: %w", name, err)
	}
	idx, err := DecodeIndex(data)
	if err != nil {
		return nil, fmt.Errorf("git index %s: %w", name, err)
	}
	idx.ModTime = fi.ModTime()
	return idx, nil
}

// DecodeIndex parses an index into what go-git's index.Decoder makes of it.
// The common case, which epp-build writes (version 2 or 3, entries and
// the trailer, no extensions), is parsed here in one pass; anything else
// (version 4, extensions git added, a damaged file) goes to go-git's
// decoder, which then also gives its errors.
func DecodeIndex(data []byte) (*index.Index, error) {
	if idx, ok := decodePlain(data); ok {
		return idx, nil
	}
	idx := &index.Index{}
	if err := index.NewDecoder(bytes.NewReader(data)).Decode(idx); err != nil {
		return nil, err
	}
	return idx, nil
}

// decodePlain parses an index of entries only; false when it is
// anything else.
func decodePlain(data []byte) (*index.Index, bool) {
	if len(data) < 12+trailerLength || string(data[:4]) != signature {
		return nil, false
	}
	version := binary.BigEndian.Uint32(data[4:])
	if version != 2 && version != 3 {
		return nil, false
	}
	body := data[:len(data)-trailerLength]
	if sum := sha1.Sum(body); !bytes.Equal(sum[:], data[len(body):]) {
		return nil, false
	}
	count := binary.BigEndian.Uint32(data[8:])
	if uint64(count) > uint64(len(body))/entryHeader {
		return nil, false
	}
	idx := &index.Index{Version: version}
	if count > 0 {
		idx.Entries = make([]*index.Entry, 0, count)
	}
	at := 12
	for range count {
		e, next, ok := readEntry(body, at)
		if !ok {
			return nil, false
		}
		idx.Entries = append(idx.Entries, e)
		at = next
	}
	if at != len(body) {
		return nil, false // extensions follow
	}
	return idx, true
}

// readEntry parses the entry at body[at:] and returns it with the offset
// of the next one; false when the bytes are not a whole entry.
func readEntry(body []byte, at int) (*index.Entry, int, bool) {
	if len(body)-at < entryHeader {
		return nil, 0, false
	}
	u32 := func(i int) uint32 { return binary.BigEndian.Uint32(body[at+4*i:]) }
	e := &index.Entry{Dev: u32(4), Inode: u32(5), Mode: filemode.FileMode(u32(6)), UID: u32(7), GID: u32(8), Size: u32(9)}
	if sec, nsec := u32(0), u32(1); sec != 0 || nsec != 0 {
		e.CreatedAt = time.Unix(int64(sec), int64(nsec))
	}
	if sec, nsec := u32(2), u32(3); sec != 0 || nsec != 0 {
		e.ModifiedAt = time.Unix(int64(sec), int64(nsec))
	}
	copy(e.Hash[:], body[at+40:at+60])
	flags := binary.BigEndian.Uint16(body[at+60:])
	e.Stage = index.Stage(flags>>12) & 0x3
	read := entryHeader
	if flags&extendedFlag != 0 {
		if len(body)-at < entryHeader+2 {
			return nil, 0, false
		}
		extended := binary.BigEndian.Uint16(body[at+entryHeader:])
		e.IntentToAdd = extended&intentToAdd != 0
		e.SkipWorktree = extended&skipWorktree != 0
		read += 2
	}
	nameAt := at + read
	nameLen := int(flags & nameMask)
	if nameLen == nameMask {
		end := bytes.IndexByte(body[nameAt:], 0)
		if end < 0 {
			return nil, 0, false
		}
		nameLen = end
	}
	if len(body)-nameAt < nameLen {
		return nil, 0, false
	}
	e.Name = string(body[nameAt : nameAt+nameLen])
	next := at + read + nameLen + maxPadding - (read+nameLen)%maxPadding
	if next > len(body) {
		return nil, 0, false
	}
	return e, next, true
}
