// Package input reads the files a person hands proflab (scenarios,
// configurations, sweep files, Lua modules, workloads) with two bounds: it
// reads only regular files (after following symlinks), so that a device
// such as /dev/zero or a FIFO is refused instead of filling memory or
// hanging, and it reads at most a size limit per kind of file, so that a
// mistaken path to a huge file is an error rather than an exhausted
// memory. It imports only the standard library, so that every package that
// reads user input, leaves included, can use it.
package input

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
)

// Kind is a kind of input file: its name, for messages, and the largest
// size proflab reads of it.
type Kind struct {
	// Name names the kind in messages ("scenario", "workload file").
	Name string
	// Limit is the largest size in bytes that is read.
	Limit int64
}

// The kinds of input, with the limits the README documents.
var (
	// Scenario is a Lua scenario file: at most 16 MiB.
	Scenario = Kind{Name: "scenario", Limit: 16 << 20}
	// Module is a Lua module a scenario requires from its folder: at
	// most 16 MiB.
	Module = Kind{Name: "Lua module", Limit: 16 << 20}
	// Config is a TOML configuration file: at most 16 MiB.
	Config = Kind{Name: "configuration file", Limit: 16 << 20}
	// Sweep is a TOML sweep file: at most 16 MiB.
	Sweep = Kind{Name: "sweep file", Limit: 16 << 20}
	// Workload is a TOML workload file: at most 256 MiB (imported
	// workloads can hold many functions and stacks).
	Workload = Kind{Name: "workload file", Limit: 256 << 20}
)

// ErrNotRegular is wrapped by the error of a file that is not a regular
// file (a folder, a device, a FIFO, a socket).
var ErrNotRegular = errors.New("not a regular file")

// ErrTooLarge is wrapped by the error of a file larger than its kind's
// limit.
var ErrTooLarge = errors.New("file too large")

// ReadFile reads the file at path as an input of kind k. It refuses,
// without reading, a path that is not a regular file once symlinks are
// followed, and a file larger than k.Limit; a file that grows past the
// limit while it is read is refused too. Errors name the file, say what
// it is or how large, and what to do; errors.Is matches [ErrNotRegular],
// [ErrTooLarge] and the [fs] errors (fs.ErrNotExist for a missing file).
func ReadFile(k Kind, path string) ([]byte, error) {
	data, _, err := ReadFileInfo(k, path)
	return data, err
}

// grewPast is the error of a file that grew past k's limit while it was
// read.
func grewPast(k Kind, path string) error {
	return fmt.Errorf("%s %s: %w: it grew past the limit of %s while being read; a %s is read only up to %s",
		k.Name, path, ErrTooLarge, Size(k.Limit), k.Name, Size(k.Limit))
}

// Open opens the file at path, an input of kind k, to be read as a
// stream: with ReadFile's checks (a regular file once symlinks are
// followed, no larger than k.Limit; give a Limit of math.MaxInt64 for a
// file whose size is not bounded, whose reader bounds what it keeps
// instead), but without reading it. A FIFO is refused without waiting
// for a writer.
func Open(k Kind, path string) (*os.File, error) {
	// Stat first, so that a FIFO is refused without opening it (opening a
	// FIFO for reading blocks until a writer comes).
	fi, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if err := check(k, path, fi); err != nil {
		return nil, err
	}
	// O_NONBLOCK: if the path was swapped for a FIFO after the Stat, the
	// open does not wait for a writer; the check below refuses it.
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	if fi, err = f.Stat(); err != nil {
		f.Close()
		return nil, err
	}
	if err := check(k, path, fi); err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

// Read reads an input of kind k from r (standard input, a pipe), named
// name in messages, up to k.Limit: a longer stream is refused with
// [ErrTooLarge].
func Read(k Kind, name string, r io.Reader) ([]byte, error) {
	data, err := io.ReadAll(io.LimitReader(r, k.Limit+1))
	if err != nil {
		return nil, fmt.Errorf("%s %s: %w", k.Name, name, err)
	}
	if int64(len(data)) > k.Limit {
		return nil, fmt.Errorf("%s %s: %w: more than %s; a %s is read only up to %s",
			k.Name, name, ErrTooLarge, Size(k.Limit), k.Name, Size(k.Limit))
	}
	return data, nil
}

// check refuses fi, the file at path, if it is not a regular file or is
// larger than k's limit.
func check(k Kind, path string, fi fs.FileInfo) error {
	if !fi.Mode().IsRegular() {
		return fmt.Errorf("%s %s: %w: it is %s; give the path of a %s (a regular file; a device, FIFO or folder cannot be read as one)",
			k.Name, path, ErrNotRegular, what(fi.Mode()), k.Name)
	}
	if fi.Size() > k.Limit {
		return fmt.Errorf("%s %s: %w: it is %s, and a %s is read only up to %s; check that the path names the right file",
			k.Name, path, ErrTooLarge, Size(fi.Size()), k.Name, Size(k.Limit))
	}
	return nil
}

// what says in words what kind of non-regular file mode is.
func what(mode fs.FileMode) string {
	switch {
	case mode.IsDir():
		return "a folder"
	case mode&fs.ModeNamedPipe != 0:
		return "a FIFO (named pipe)"
	case mode&fs.ModeCharDevice != 0:
		return "a character device"
	case mode&fs.ModeDevice != 0:
		return "a block device"
	case mode&fs.ModeSocket != 0:
		return "a socket"
	default:
		return "not a regular file (mode " + mode.String() + ")"
	}
}

// Size writes n bytes for people: "16 MiB", "1.5 KiB", "12 bytes".
func Size(n int64) string {
	units := []string{"KiB", "MiB", "GiB", "TiB"}
	if n < 1024 {
		return fmt.Sprintf("%d bytes", n)
	}
	v, u := float64(n)/1024, 0
	for v >= 1024 && u < len(units)-1 {
		v /= 1024
		u++
	}
	if v == float64(int64(v)) {
		return fmt.Sprintf("%d %s", int64(v), units[u])
	}
	return fmt.Sprintf("%.1f %s", v, units[u])
}

// Refused reports whether err is ReadFile refusing a file for what it is
// or its size ([ErrNotRegular], [ErrTooLarge]); such an error already
// names the file and its kind, so callers return it as it is rather than
// wrapping it under another prefix.
func Refused(err error) bool {
	return errors.Is(err, ErrNotRegular) || errors.Is(err, ErrTooLarge)
}

// Within reports whether path lies inside one of the folders dirs (or is
// one of them), by their names alone: all are absolute, ../ is taken by
// name and symlinks are not followed (resolve them first with
// filepath.EvalSymlinks to judge where a link leads).
func Within(path string, dirs ...string) bool {
	for _, d := range dirs {
		rel, err := filepath.Rel(d, path)
		if err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel) {
			return true
		}
	}
	return false
}
