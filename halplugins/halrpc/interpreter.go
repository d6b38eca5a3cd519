package halrpc

import (
	"bytes"
	"debug/elf"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strings"
)

// interpreter is what the system runs to execute the open file f: a
// script's interpreter (its #! line's first word) or an ELF executable's
// program interpreter (its dynamic loader, PT_INTERP); "" when it names
// none or cannot be read. kind says which ("#! line", "program
// interpreter").
func interpreter(f io.ReaderAt) (path, kind string) {
	head := make([]byte, 256)
	n, _ := f.ReadAt(head, 0)
	head = head[:n]
	if line, ok := bytes.CutPrefix(head, []byte("#!")); ok {
		if i := bytes.IndexByte(line, '\n'); i >= 0 {
			line = line[:i]
		}
		if fields := strings.Fields(string(line)); len(fields) > 0 {
			return fields[0], "#! line"
		}
		return "", ""
	}
	if !bytes.HasPrefix(head, []byte(elf.ELFMAG)) {
		return "", ""
	}
	ef, err := elf.NewFile(f)
	if err != nil {
		return "", ""
	}
	for _, p := range ef.Progs {
		if p.Type == elf.PT_INTERP && p.Filesz < 4096 {
			b := make([]byte, p.Filesz)
			if _, err := p.ReadAt(b, 0); err == nil {
				return string(bytes.TrimRight(b, "\x00")), "program interpreter"
			}
		}
	}
	return "", ""
}

// execError is the error of a plugin whose process could not be
// executed (err, from fork/exec of exe, its open file): named by the
// plugin's path, not the descriptor or private copy it was executed as,
// and, when the file's interpreter is what is missing or not executable,
// saying so. false: err is not that.
func execError(path string, exe *executable, err error) (error, bool) {
	var pe *fs.PathError
	if !errors.As(err, &pe) || pe.Op != "fork/exec" {
		return nil, false
	}
	interp, kind := interpreter(exe.f)
	if interp != "" && (errors.Is(pe.Err, fs.ErrNotExist) || errors.Is(pe.Err, fs.ErrPermission)) {
		fi, serr := os.Stat(interp)
		switch {
		case serr != nil && errors.Is(serr, fs.ErrNotExist):
			return fmt.Errorf("plugin %s: could not start: its interpreter %s (its %s) does not exist; install it, or correct the %s", path, interp, kind, kind), true
		case serr == nil && (!fi.Mode().IsRegular() || fi.Mode()&0o111 == 0):
			return fmt.Errorf("plugin %s: could not start: its interpreter %s (its %s) is not an executable file (mode %s); correct the %s or the interpreter's mode", path, interp, kind, fi.Mode(), kind), true
		}
		return fmt.Errorf("plugin %s: could not start: %w (executing it through its interpreter %s, its %s)", path, pe.Err, interp, kind), true
	}
	return fmt.Errorf("plugin %s: could not start: %w (is it a proflab HAL plugin? `make build` builds the shipped ones)", path, pe.Err), true
}
