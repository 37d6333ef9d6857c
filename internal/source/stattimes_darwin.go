package source

import (
	"syscall"
	"time"
)

// statTimes are the change and modification times git records in an index
// entry (st_ctimespec and st_mtimespec: git is built with USE_ST_TIMESPEC
// on macOS).
func statTimes(st *syscall.Stat_t) (ctime, mtime time.Time) {
	return time.Unix(st.Ctimespec.Sec, st.Ctimespec.Nsec), time.Unix(st.Mtimespec.Sec, st.Mtimespec.Nsec)
}
