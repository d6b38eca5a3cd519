package halhost

import (
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
)

// Search is where plugin executables named without a path are looked for,
// in order: beside the proflab executable, in each folder of
// PROFLAB_PLUGIN_PATH, then in each folder of PATH.
type Search struct {
	// ExeDir is the folder of the proflab executable ("" skips it).
	ExeDir string
	// PluginPath is PROFLAB_PLUGIN_PATH's value (a list like PATH).
	PluginPath string
	// Path is PATH's value.
	Path string
}

// EnvPluginPath is the environment variable listing plugin folders.
const EnvPluginPath = "PROFLAB_PLUGIN_PATH"

// DefaultSearch returns the search of this process: its executable's
// folder and the environment's PROFLAB_PLUGIN_PATH and PATH.
func DefaultSearch() Search {
	s := Search{PluginPath: os.Getenv(EnvPluginPath), Path: os.Getenv("PATH")}
	if exe, err := os.Executable(); err == nil {
		if real, err := filepath.EvalSymlinks(exe); err == nil {
			exe = real
		}
		s.ExeDir = filepath.Dir(exe)
	}
	return s
}

// Find returns the executable for plugin as an absolute, cleaned path:
// plugin itself if it contains a path separator (relative to the working
// directory), else the first match along the search, whose relative
// folders ("." in PROFLAB_PLUGIN_PATH or PATH) are resolved against the
// working directory. The path is absolute so that what a run records
// (path and sha256) is what it executes: a bare name handed to exec would
// be looked up in PATH again and could start another program. The error
// says where it looked and what to do.
func (s Search) Find(plugin string) (string, error) {
	if plugin == "" {
		return "", fmt.Errorf("no plugin named")
	}
	if strings.ContainsRune(plugin, '/') || strings.ContainsRune(plugin, filepath.Separator) {
		p, err := filepath.Abs(plugin)
		if err != nil {
			return "", err
		}
		if err := executable(p); err != nil {
			return "", fmt.Errorf("plugin %s: %v", plugin, err)
		}
		return p, nil
	}
	name := plugin
	if runtime.GOOS == "windows" && filepath.Ext(name) == "" {
		name += ".exe"
	}
	var looked []string
	seen := map[string]bool{}
	try := func(dir, why string) string {
		if dir == "" || seen[dir] {
			return ""
		}
		seen[dir] = true
		abs, err := filepath.Abs(dir) // relative to the working directory, cleaned
		if err != nil {
			looked = append(looked, fmt.Sprintf("%s (%s; not resolvable: %v)", dir, why, err))
			return ""
		}
		if abs != filepath.Clean(dir) {
			looked = append(looked, fmt.Sprintf("%s (%s, in the working directory: %s)", dir, why, abs))
		} else {
			looked = append(looked, fmt.Sprintf("%s (%s)", dir, why))
		}
		p := filepath.Join(abs, name)
		if executable(p) == nil {
			return p
		}
		return ""
	}
	if p := try(s.ExeDir, "beside proflab"); p != "" {
		return p, nil
	}
	for _, d := range filepath.SplitList(s.PluginPath) {
		if p := try(d, EnvPluginPath); p != "" {
			return p, nil
		}
	}
	for _, d := range filepath.SplitList(s.Path) {
		if p := try(d, "PATH"); p != "" {
			return p, nil
		}
	}
	return "", fmt.Errorf("plugin %q not found; looked in: %s. Run `make build` to build the shipped plugins into ./bin (beside proflab), set %s to the folder holding it, or give its path in the config",
		plugin, strings.Join(looked, ", "), EnvPluginPath)
}

func executable(p string) error {
	fi, err := os.Stat(p)
	if err != nil {
		return fmt.Errorf("not found: %v", err)
	}
	if fi.IsDir() {
		return fmt.Errorf("%s is a folder, not an executable", p)
	}
	if !fi.Mode().IsRegular() {
		return fmt.Errorf("%s is not a regular file (mode %s), not an executable", p, fi.Mode())
	}
	if runtime.GOOS != "windows" && fi.Mode()&0o111 == 0 {
		return fmt.Errorf("%s is not executable (chmod +x it)", p)
	}
	return nil
}

// warnTo receives the warnings of plugins that others could replace
// (standard error; tests swap it).
var warnTo io.Writer = os.Stderr

// warned holds what has been warned of in this process, so that each
// plugin or folder is warned of once however many hosts and runs use it.
var warned sync.Map

// warnIfWritable warns, once per process for each file and folder, when
// the plugin executable at path, or the folder holding it, is writable by
// other users (mode o+w): they could replace the plugin with a program of
// their own, which proflab would then run. The warning goes to log (the
// run log, if any) and to standard error.
func warnIfWritable(path string, log *slog.Logger) {
	for _, w := range writableByOthers(path) {
		if _, dup := warned.LoadOrStore(w.path, true); dup {
			continue
		}
		if log != nil {
			log.Warn(w.msg, "path", w.path)
		}
		fmt.Fprintf(warnTo, "proflab: warning: %s\n", w.msg)
	}
}

// writable is one warning of writableByOthers: the file or folder, and
// the message.
type writable struct{ path, msg string }

// writableByOthers lists the plugin executable at path and its folder if
// other users may write to them.
func writableByOthers(path string) []writable {
	if runtime.GOOS == "windows" {
		return nil // no o+w bit; ACLs are beyond this check
	}
	var out []writable
	if fi, err := os.Stat(path); err == nil && fi.Mode().Perm()&0o002 != 0 {
		out = append(out, writable{path, fmt.Sprintf("HAL plugin %s is writable by other users (mode %s): anyone on this machine can replace the program proflab runs; run `chmod o-w %s`", path, fi.Mode(), path)})
	}
	dir := filepath.Dir(path)
	if fi, err := os.Stat(dir); err == nil && fi.Mode().Perm()&0o002 != 0 {
		msg := fmt.Sprintf("the folder %s, which holds HAL plugin %s, is writable by other users (mode %s): anyone on this machine can put another program in the plugin's place; run `chmod o-w %s` or move the plugins to a folder only you can write", dir, filepath.Base(path), fi.Mode(), dir)
		out = append(out, writable{dir, msg})
	}
	return out
}
