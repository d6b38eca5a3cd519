package luart

import (
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"strings"

	"github.com/proflab/proflab/core/input"
)

// Workload paths, inside the sandbox.
//
// A scenario names workload files (m:run{ workload = PATH },
// m:images{...}) as require names modules: only inside its own folder,
// or inside a folder the person running it allowed (Config.WorkloadDirs:
// --workload-dir, the configuration's [run] workload_dirs). Otherwise a
// scenario could read any file of the host (/proc, /etc, ../..): lines
// that end in a number came back as function names, others leaked
// through the TOML decoder's errors. A path outside those folders, or a
// symlink leading out of them, is refused saying only that it is outside:
// nothing is read, and whether the file exists is not said.
//
// A relative path is looked for in the scenario's folder first, then in
// each allowed folder in order (as require looks in the scenario's folder,
// then the library); an absolute path must lie inside one of them.

// errOutside marks a workload path outside the allowed folders.
var errOutside = errors.New("outside the folders a scenario may read workloads from")

// workloadDirs are the folders a scenario may read workloads from, as
// absolute paths: its own, then the allowed ones.
func (rt *Runtime) workloadDirs() []string {
	dirs := make([]string, 0, 1+len(rt.cfg.WorkloadDirs))
	for _, d := range append([]string{rt.cfg.Dir}, rt.cfg.WorkloadDirs...) {
		if abs, err := filepath.Abs(d); err == nil {
			dirs = append(dirs, abs)
		}
	}
	return dirs
}

// workloadPath resolves the workload path a scenario gave: path is the
// file as named (absolute, for messages and the run's inputs), real the
// same file with every symlink resolved, which is what is read. The
// error says what to do: an outside path (errors.Is errOutside) or a
// missing file names the folders.
func (rt *Runtime) workloadPath(name string) (path, real string, err error) {
	if name == "" {
		return "", "", errors.New("an empty path: name a workload file, relative to the scenario's folder")
	}
	dirs := rt.workloadDirs()
	var looked []string
	for _, cand := range candidates(name, dirs) {
		if !input.Within(cand, dirs...) {
			continue // outside: not even looked at
		}
		// symlinks resolved inside the folders only: one leading out is
		// outside whether or not its target exists
		r, err := input.ResolveWithin(cand, dirs...)
		if errors.Is(err, input.ErrOutside) {
			return "", "", outside(name, dirs) // a symlink out of the folders
		}
		if errors.Is(err, fs.ErrNotExist) {
			looked = append(looked, cand)
			continue
		}
		if err != nil {
			return "", "", fmt.Errorf("workload %q: %w", name, err)
		}
		return cand, r, nil
	}
	if len(looked) == 0 {
		return "", "", outside(name, dirs)
	}
	return "", "", fmt.Errorf("workload %q: %w (looked for %s)", name, fs.ErrNotExist, strings.Join(looked, " and "))
}

// outside is the error of a workload path outside the folders dirs.
func outside(name string, dirs []string) error {
	return fmt.Errorf("workload %q: %w (%s); name a file inside them, or allow its folder with --workload-dir DIR or the configuration's [run] workload_dirs", name, errOutside, strings.Join(dirs, ", "))
}

// candidates are the paths name may stand for: itself when absolute,
// else name in each folder of dirs, in order.
func candidates(name string, dirs []string) []string {
	if filepath.IsAbs(name) {
		return []string{filepath.Clean(name)}
	}
	out := make([]string, len(dirs))
	for i, d := range dirs {
		out[i] = filepath.Join(d, name)
	}
	return out
}
