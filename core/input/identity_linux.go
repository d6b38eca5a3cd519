package input

import (
	"io/fs"
	"syscall"
)

// sysIdentity is the device, inode and status-change time (ns) of the
// file fi describes.
func sysIdentity(fi fs.FileInfo) (dev, ino uint64, ctime int64) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return 0, 0, 0
	}
	return st.Dev, st.Ino, st.Ctim.Nano()
}
