package source

import (
	"syscall"
	"time"
)

// statTimes are the change and modification times git records in an index
// entry.
func statTimes(st *syscall.Stat_t) (ctime, mtime time.Time) {
	return time.Unix(int64(st.Ctim.Sec), int64(st.Ctim.Nsec)), time.Unix(int64(st.Mtim.Sec), int64(st.Mtim.Nsec))
}
