package halrpc

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
)

// executable is a plugin's executable file, opened once: the bytes hashed
// are those of this open file, and the process is started from this open
// file, never from its path again. A path checked and then executed could
// name another file by then (a symbolic link swapped, a plugin rebuilt
// and renamed into place): what a run records would not be what ran.
type executable struct {
	f    *os.File
	path string      // as given, for messages and the process's argv[0]
	sum  string      // hex sha256 of the open file's bytes
	info fs.FileInfo // the open file's stat when it was hashed
}

// openExecutable opens the plugin executable at path and hashes it. A
// path that is not a regular file with an execute bit is refused before
// anything runs.
func openExecutable(path string) (*executable, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("plugin %s: %w", path, err)
	}
	e := &executable{f: f, path: path}
	if e.info, err = f.Stat(); err != nil {
		f.Close()
		return nil, fmt.Errorf("plugin %s: %w", path, err)
	}
	if !e.info.Mode().IsRegular() || runtime.GOOS != "windows" && e.info.Mode()&0o111 == 0 {
		f.Close()
		return nil, fmt.Errorf("plugin %s: not an executable file (mode %s)", path, e.info.Mode())
	}
	if e.sum, err = hashOpen(f, e.info); err != nil {
		f.Close()
		return nil, fmt.Errorf("plugin %s: reading it: %w", path, err)
	}
	return e, nil
}

// check compares the executable's sha256 with want (hex, from the
// configuration; "" checks nothing).
func (e *executable) check(want string) error {
	if want == "" {
		return nil
	}
	w, err := hex.DecodeString(strings.TrimSpace(want))
	if err != nil || len(w) != sha256.Size {
		return fmt.Errorf("plugin %s: sha256 %q is not 64 hex digits", e.path, want)
	}
	if hex.EncodeToString(w) != e.sum {
		return fmt.Errorf("plugin %s: %w: the file's sha256 is %s, the configuration wants %s (rebuild the plugin or update sha256)",
			e.path, ErrChecksum, e.sum, hex.EncodeToString(w))
	}
	return nil
}

// unchanged reports whether the open file still is as it was hashed: its
// size and modification time (a plugin rewritten in place while it was
// being started changes them).
func (e *executable) unchanged() bool {
	fi, err := e.f.Stat()
	return err == nil && fi.Size() == e.info.Size() && fi.ModTime().Equal(e.info.ModTime()) && sameStat(fi, e.info)
}

// command sets cmd up to start the open file and returns what to do once
// the process has exited. On Linux the child executes the open file
// itself, as its descriptor 3 (/proc/self/fd/3, the way fexecve does);
// where that cannot be done, it executes a private copy of the open file,
// written to a folder only this user can write, checked against the sum
// and removed once the process has exited.
func (e *executable) command(cmd *exec.Cmd) (cleanup func(), err error) {
	if fdExec() {
		cmd.Path = "/proc/self/fd/3"
		cmd.ExtraFiles = []*os.File{e.f}
		return func() {}, nil
	}
	dir, err := os.MkdirTemp("", "proflab-plugin-*")
	if err != nil {
		return nil, fmt.Errorf("plugin %s: making its private copy: %w", e.path, err)
	}
	remove := func() { os.RemoveAll(dir) }
	copyPath := filepath.Join(dir, filepath.Base(e.path))
	dst, err := os.OpenFile(copyPath, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o700)
	if err == nil {
		h := sha256.New()
		_, err = io.Copy(io.MultiWriter(dst, h), io.NewSectionReader(e.f, 0, e.info.Size()))
		if cerr := dst.Close(); err == nil {
			err = cerr
		}
		if err == nil && hex.EncodeToString(h.Sum(nil)) != e.sum {
			err = fmt.Errorf("it changed while it was copied; start again")
		}
	}
	if err != nil {
		remove()
		return nil, fmt.Errorf("plugin %s: making its private copy: %w", e.path, err)
	}
	cmd.Path = copyPath
	return sync.OnceFunc(remove), nil
}

// close closes the open file (the started process has its own).
func (e *executable) close() { e.f.Close() }

// hashes are the sums this process took of plugin files, by the identity
// of the file and its state (statKey): a plugin started again (after a
// crash, by another worker) is not read again unless it changed.
var hashes sync.Map

// hashOpen is the hex sha256 of the open file f, whose stat is fi.
func hashOpen(f *os.File, fi fs.FileInfo) (string, error) {
	key, ok := statKey(fi)
	if ok {
		if sum, hit := hashes.Load(key); hit {
			return sum.(string), nil
		}
	}
	h := sha256.New()
	if _, err := io.Copy(h, io.NewSectionReader(f, 0, fi.Size())); err != nil {
		return "", err
	}
	sum := hex.EncodeToString(h.Sum(nil))
	if after, err := f.Stat(); ok && err == nil && after.Size() == fi.Size() && after.ModTime().Equal(fi.ModTime()) && sameStat(after, fi) {
		hashes.Store(key, sum) // not rewritten while it was read
	}
	return sum, nil
}
