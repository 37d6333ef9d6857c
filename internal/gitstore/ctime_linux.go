package gitstore

import (
	"syscall"
	"time"
)

// changeTime is the inode change time git records as an entry's ctime.
func changeTime(st *syscall.Stat_t) time.Time {
	return time.Unix(st.Ctim.Sec, st.Ctim.Nsec)
}
