package scenario

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// Discover lists the scenarios among paths: a file is a scenario; a folder
// contributes every .lua file under it, recursively, in lexical order.
// Files whose names start with "_" are helper modules, not scenarios, and
// folders whose names start with "_" or "." are not searched. Duplicates
// are dropped. A path that does not exist is an error; finding no
// scenario at all is an error too.
func Discover(paths []string) ([]string, error) {
	var out []string
	seen := map[string]bool{}
	add := func(p string) {
		c := filepath.Clean(p)
		if !seen[c] {
			seen[c] = true
			out = append(out, p)
		}
	}
	for _, p := range paths {
		info, err := os.Stat(p)
		if err != nil {
			return nil, fmt.Errorf("cannot read %s: %w", p, err)
		}
		if !info.IsDir() {
			if !isHelper(filepath.Base(p)) {
				add(p)
			}
			continue
		}
		var found []string
		err = filepath.WalkDir(p, func(q string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			name := d.Name()
			if d.IsDir() {
				if q != p && (strings.HasPrefix(name, "_") || strings.HasPrefix(name, ".")) {
					return filepath.SkipDir
				}
				return nil
			}
			if strings.HasSuffix(name, ".lua") && !isHelper(name) {
				found = append(found, q)
			}
			return nil
		})
		if err != nil {
			return nil, fmt.Errorf("cannot search %s: %w", p, err)
		}
		sort.Strings(found)
		for _, q := range found {
			add(q)
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no scenarios found in %s (scenarios are .lua files whose names do not start with \"_\")", strings.Join(paths, ", "))
	}
	return out, nil
}

// isHelper reports whether a file name is a helper module's.
func isHelper(name string) bool { return strings.HasPrefix(name, "_") }
