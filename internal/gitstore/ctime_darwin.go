package gitstore

import (
	"syscall"
	"time"
)

// changeTime is the inode change time git records as an entry's ctime
// (st_ctimespec: git is built with USE_ST_TIMESPEC on macOS).
func changeTime(st *syscall.Stat_t) time.Time {
	return time.Unix(st.Ctimespec.Sec, st.Ctimespec.Nsec)
}
