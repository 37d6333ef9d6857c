package source

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"golang.org/x/sys/unix"

	"github.com/epp-build/epp-build/internal/inputfile"
)

// The stat data of an entry's blob store lets Materialize copy the cached
// contents without reading and hashing them, as git's index lets `git
// status` skip unchanged files. When the entry is built the store is dated
// a second in the past and its stat data (size, mtime, ctime, inode,
// device) is recorded in statFile. Materialize trusts the store, and copies
// each file's range in the kernel (copy_file_range; a reflink where the
// file system has them; macOS has neither for a range, so it reads and
// writes there), only when its stat data is exactly what was
// recorded; otherwise every range is read and checked against its blob
// hash. Writing to the store changes its ctime, which no one can set back,
// so an edit is always seen. As in git, a store dated in the same second
// the stat data was recorded (racily clean) is hashed anyway. The stat file
// is only a hint: when it is missing or unreadable everything is hashed.
const statFile = "blobs.stat"

// fileStat is the stat data recorded for the store.
type fileStat struct {
	Size  int64  `json:"s"`
	Mtime int64  `json:"m"` // Unix nanoseconds
	Ctime int64  `json:"c"` // Unix nanoseconds
	Ino   uint64 `json:"i"`
	Dev   uint64 `json:"d"`
}

// statSnapshot is statFile: when the stat data was recorded, and the data.
type statSnapshot struct {
	Taken time.Time `json:"taken"`
	Store fileStat  `json:"store"`
}

// statOfUnix is the stat data of a raw fstat result (st_dev is an int32 on
// macOS, a uint64 on Linux).
func statOfUnix(st *unix.Stat_t) fileStat {
	return fileStat{Size: st.Size, Mtime: st.Mtim.Nano(), Ctime: st.Ctim.Nano(), Ino: st.Ino, Dev: uint64(st.Dev)}
}

// unchanged is whether the store, whose stat data is now, may be trusted
// without hashing: the recorded data is the same and was not recorded in
// the second the store was last written.
func (s *statSnapshot) unchanged(now fileStat) bool {
	return s != nil && now == s.Store && s.Store.Mtime < s.Taken.Truncate(time.Second).UnixNano()
}

// writeStatSnapshot records the store's stat data in dir.
func writeStatSnapshot(dir string, store fileStat) error {
	data, err := json.Marshal(statSnapshot{Taken: time.Now(), Store: store})
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, statFile), data, 0o644); err != nil {
		return fmt.Errorf("cache entry %s: %w", dir, err)
	}
	return nil
}

// readStatSnapshot reads dir's stat data; nil (hash everything) when there
// is none or it cannot be read.
func readStatSnapshot(dir string) *statSnapshot {
	data, err := inputfile.ReadFile(filepath.Join(dir, statFile), "", cacheNoteLimit)
	if err != nil {
		return nil
	}
	s := &statSnapshot{}
	if json.Unmarshal(data, s) != nil {
		return nil
	}
	return s
}
