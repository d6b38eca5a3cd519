package input

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// ErrOutside is the error of a path that lies, or whose symlinks lead,
// outside the folders it must stay in ([ResolveWithin]).
var ErrOutside = errors.New("outside the folders it may be read from")

// maxLinks is the most symlinks ResolveWithin follows for one path (as
// the system's own bound, ELOOP).
const maxLinks = 255

// ResolveWithin resolves every symlink of path, an absolute path inside
// one of the folders dirs by its name, without looking at anything
// outside those folders: components are looked at one by one from the
// folder down, and a symlink whose target lies outside every folder is
// [ErrOutside] before its target is looked at, so that the error says
// nothing of whether a file outside exists (a link root -> / inside a
// scenario's folder must not tell /etc/passwd from /etc/nonexistent). A
// missing file inside is an [fs.ErrNotExist]; real is path with its
// symlinks resolved, inside one of the folders once theirs are resolved.
func ResolveWithin(path string, dirs ...string) (real string, err error) {
	roots := make([]root, 0, len(dirs))
	for _, d := range dirs {
		r, err := filepath.EvalSymlinks(d)
		if err != nil {
			// A folder that does not exist (an embedded program's
			// "<proflab>" folder) holds no link: what lies under it
			// is inside, and looking it up says it does not exist.
			r = filepath.Clean(d)
		}
		roots = append(roots, root{name: filepath.Clean(d), real: r})
	}
	cur, rest, ok := enter(filepath.Clean(path), roots)
	if !ok {
		return "", ErrOutside
	}
	links := 0
	for len(rest) > 0 {
		c := rest[0]
		rest = rest[1:]
		if c == "" || c == "." {
			continue
		}
		next := filepath.Join(cur, c)
		fi, err := os.Lstat(next)
		if err != nil {
			return "", err // inside: whether it exists may be said
		}
		if fi.Mode()&fs.ModeSymlink == 0 {
			cur = next
			continue
		}
		if links++; links > maxLinks {
			return "", &fs.PathError{Op: "resolve", Path: path, Err: fmt.Errorf("more than %d symlinks", maxLinks)}
		}
		target, err := os.Readlink(next)
		if err != nil {
			return "", err
		}
		if !filepath.IsAbs(target) {
			target = filepath.Join(cur, target)
		}
		var more []string
		if cur, more, ok = enter(filepath.Clean(target), roots); !ok {
			return "", ErrOutside
		}
		rest = append(more, rest...)
	}
	return cur, nil
}

// root is a folder ResolveWithin may resolve in: as named, and resolved.
type root struct{ name, real string }

// enter finds the folder of roots that the clean absolute path p lies
// in by name (resolved or as named): the folder's resolved path, and p's
// components below it.
func enter(p string, roots []root) (dir string, rest []string, ok bool) {
	for _, r := range roots {
		for _, base := range []string{r.real, r.name} {
			if !Within(p, base) {
				continue
			}
			rel, err := filepath.Rel(base, p)
			if err != nil {
				continue
			}
			return r.real, strings.Split(rel, string(filepath.Separator)), true
		}
	}
	return "", nil, false
}
