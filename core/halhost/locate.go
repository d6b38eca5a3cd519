package halhost

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
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

// Find returns the executable for plugin: plugin itself if it contains a
// path separator, else the first match along the search. The error says
// where it looked and what to do.
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
		looked = append(looked, fmt.Sprintf("%s (%s)", dir, why))
		p := filepath.Join(dir, name)
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
	if runtime.GOOS != "windows" && fi.Mode()&0o111 == 0 {
		return fmt.Errorf("%s is not executable (chmod +x it)", p)
	}
	return nil
}
