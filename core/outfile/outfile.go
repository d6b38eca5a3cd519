// Package outfile writes a file a person names on the command line (as
// `workload import -o FILE`): checked before any work starts, and
// written whole or not at all, so that a failure leaves no torn file and
// never replaces the input being converted. Its errors name the person's
// path, never a temporary file's. It imports only the standard library.
package outfile

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
)

// Check says whether out can receive a file, before the work that makes
// it: a new file in a folder that exists; with force, an existing
// regular file, unless it is the input (source, compared by identity, so
// that a symbolic or hard link to it is refused too; nil when there is
// none; sourceName says what it is: "the profile being imported (p)"); a
// device or FIFO (-o /dev/null) is written to as it is.
func Check(out string, force bool, source fs.FileInfo, sourceName string) error {
	fi, err := os.Stat(out)
	switch {
	case err == nil && fi.IsDir():
		return errors.New("it is a folder: give the path of a file to write")
	case err == nil && fi.Mode().IsRegular():
		if source != nil && os.SameFile(source, fi) {
			return fmt.Errorf("it is %s: give another file, or the output would replace it", sourceName)
		}
		if !force {
			return errors.New("the file exists: give a new file, or --force to replace it")
		}
		return nil
	case err == nil:
		return nil // a device or a FIFO: written to
	case !errors.Is(err, fs.ErrNotExist):
		return err
	}
	dir := filepath.Dir(out)
	if target, err := filepath.EvalSymlinks(dir); err == nil {
		dir = target
	}
	switch di, err := os.Stat(dir); {
	case errors.Is(err, fs.ErrNotExist):
		return fmt.Errorf("the folder %s does not exist: create it first", filepath.Dir(out))
	case err != nil:
		return err
	case !di.IsDir():
		return fmt.Errorf("%s is not a folder", filepath.Dir(out))
	}
	return nil
}

// Write writes path with write. A device or FIFO is written to as it
// is; any other path through a temporary file beside it (beside a
// symlink's target), renamed over it once written and closed, with the
// mode a new file gets (0644). On an error nothing is left behind, and
// the error names path's folder or says what failed, never the
// temporary file.
func Write(path string, write func(io.Writer) error) error {
	if fi, err := os.Stat(path); err == nil && !fi.Mode().IsRegular() {
		f, err := os.OpenFile(path, os.O_WRONLY, 0)
		if err != nil {
			return err
		}
		werr := write(f)
		if cerr := f.Close(); werr == nil {
			werr = cerr
		}
		return werr
	}
	if target, err := filepath.EvalSymlinks(path); err == nil {
		path = target
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*")
	if err != nil {
		return userPath(err, path)
	}
	bw := bufio.NewWriterSize(tmp, 1<<20)
	werr := write(bw)
	if werr == nil {
		werr = bw.Flush()
	}
	if werr == nil {
		werr = tmp.Chmod(0o644)
	}
	cerr := tmp.Close()
	if werr == nil {
		werr = cerr
	}
	if werr == nil {
		werr = os.Rename(tmp.Name(), path)
	}
	if werr != nil {
		os.Remove(tmp.Name())
	}
	return userPath(werr, path)
}

// userPath is err with the path of a file operation (the temporary
// file's) left out: the caller names the person's path.
func userPath(err error, path string) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		if errors.Is(pe.Err, fs.ErrNotExist) {
			return fmt.Errorf("cannot create it: the folder %s does not exist", filepath.Dir(path))
		}
		return fmt.Errorf("cannot write it: %w", pe.Err)
	}
	var le *os.LinkError
	if errors.As(err, &le) {
		return fmt.Errorf("cannot write it: %w", le.Err)
	}
	return err
}
