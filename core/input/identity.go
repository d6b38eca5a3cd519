package input

import (
	"io"
	"io/fs"
	"os"
	"time"
)

// An Identity tells, without reading a file, whether it may have changed
// since it was read: its device and inode, size, modification time and
// (where the system keeps one) status-change time, which every write,
// rename over it or truncation moves. Two equal Identities of one path
// name the same bytes, unless the file was changed within its file
// system's timestamp granularity of when it was read: an Identity
// that is not [Identity.Settled] does not vouch for the file's bytes.
type Identity struct {
	dev, ino     uint64
	size         int64
	mtime, ctime int64 // ns since the epoch; ctime 0 where unknown
}

// RecentChange is how old a file's last change must be, when it is read,
// for its Identity to be trusted: timestamps are kept at a granularity
// (a kernel tick, or up to 2 s on some file systems), so a file written
// again within it can keep its times and size.
const RecentChange = 2 * time.Second

// IdentityOf is the identity of the file fi describes.
func IdentityOf(fi fs.FileInfo) Identity {
	id := Identity{size: fi.Size(), mtime: fi.ModTime().UnixNano()}
	id.dev, id.ino, id.ctime = sysIdentity(fi)
	return id
}

// IdentityAt is the identity of the regular file at path (symlinks
// followed), or false for a path that is none.
func IdentityAt(path string) (Identity, bool) {
	fi, err := os.Stat(path)
	if err != nil || !fi.Mode().IsRegular() {
		return Identity{}, false
	}
	return IdentityOf(fi), true
}

// Settled reports whether the file's last change (id's times) came at
// least RecentChange before readAt, when its reading began, so that id
// can stand for the bytes read: a file changed more recently (or, by a
// clock that disagrees, after readAt) must be read again to be known.
func (id Identity) Settled(readAt time.Time) bool {
	return readAt.UnixNano()-max(id.mtime, id.ctime) >= int64(RecentChange)
}

// ReadFileInfo is ReadFile that also returns what the opened file was
// when its reading began (its Stat), for [IdentityOf].
func ReadFileInfo(k Kind, path string) ([]byte, fs.FileInfo, error) {
	f, err := Open(k, path)
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, nil, err
	}
	data, err := io.ReadAll(io.LimitReader(f, k.Limit+1))
	if err != nil {
		return nil, nil, &fs.PathError{Op: "read", Path: path, Err: err}
	}
	if int64(len(data)) > k.Limit {
		return nil, nil, grewPast(k, path)
	}
	return data, fi, nil
}
