// Package halscaffold writes a new HAL plugin module (`proflab hal new`):
// a Go module wired to a local proflab checkout by a replace directive
// (proflab is not on the Go module proxy), a main.go on the SDK
// (halplugins/hal and halrpc) that already passes the conformance suite,
// a test that runs the suite, a sample configuration, a scenario that uses
// the HAL, and a README. The HAL is a counter with a fixed skid, or with
// Options.Timer a ProfileTime timer whose periods jitter. Everything it writes builds with `go build` and
// passes `proflab hal check` as written.
package halscaffold

import (
	"bytes"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"text/template"
)

// ProflabModule is proflab's module path.
const ProflabModule = "github.com/proflab/proflab"

// The templates: template/*.tmpl for every HAL, and the HAL's own
// main.go, lab.toml and scenario.lua in template/counter or
// template/timer.
//
//go:embed template/*.tmpl template/counter/*.tmpl template/timer/*.tmpl
var templates embed.FS

// Options describe the module to write.
type Options struct {
	// Name is the HAL's name: lower-case letters, digits and dashes,
	// starting with a letter ("jitter"). The plugin executable is
	// proflab-hal-NAME.
	Name string
	// Dir is the folder to write (created; it must be new or empty).
	Dir string
	// Module is the Go module path (default proflab-hal-NAME).
	Module string
	// Proflab is the proflab checkout the module builds against (the
	// folder holding proflab's go.mod).
	Proflab string
	// Timer writes a timer HAL (ProfileTime, jittered one-shot periods)
	// instead of a counter HAL.
	Timer bool
}

var nameRe = regexp.MustCompile(`^[a-z][a-z0-9-]*$`)

// data is what the templates see.
type data struct {
	Name, Module, Plugin, Proflab, GoVersion, ProflabModule string
	Requires                                                []string
	Timer                                                   bool
}

// Write writes the module and returns the files written, relative to
// o.Dir.
func Write(o Options) ([]string, error) {
	if !nameRe.MatchString(o.Name) {
		return nil, fmt.Errorf("HAL name %q: use lower-case letters, digits and dashes, starting with a letter (for example jitter)", o.Name)
	}
	if o.Module == "" {
		o.Module = "proflab-hal-" + o.Name
	}
	root, err := filepath.Abs(o.Proflab)
	if err != nil {
		return nil, err
	}
	gomod, err := os.ReadFile(filepath.Join(root, "go.mod"))
	if err != nil || !bytes.Contains(gomod, []byte("module "+ProflabModule+"\n")) {
		return nil, fmt.Errorf("%s is not a proflab checkout (no go.mod of %s there): give --proflab DIR", root, ProflabModule)
	}
	gosum, err := os.ReadFile(filepath.Join(root, "go.sum"))
	if err != nil {
		return nil, fmt.Errorf("the proflab checkout has no go.sum: %w", err)
	}
	d := data{Name: o.Name, Module: o.Module, Plugin: "proflab-hal-" + o.Name, Proflab: filepath.ToSlash(root), ProflabModule: ProflabModule, Timer: o.Timer}
	d.GoVersion, d.Requires = parseGoMod(string(gomod))
	if ents, err := os.ReadDir(o.Dir); err == nil && len(ents) > 0 {
		return nil, fmt.Errorf("%s is not empty: give a new or empty folder", o.Dir)
	} else if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, err
	}
	if err := os.MkdirAll(o.Dir, 0o755); err != nil {
		return nil, err
	}
	var files []string
	kind := "counter"
	if o.Timer {
		kind = "timer"
	}
	tmpls, _ := fs.Glob(templates, "template/*.tmpl")
	own, _ := fs.Glob(templates, "template/"+kind+"/*.tmpl")
	tmpls = append(tmpls, own...)
	sort.Slice(tmpls, func(i, j int) bool { return filepath.Base(tmpls[i]) < filepath.Base(tmpls[j]) })
	for _, t := range tmpls {
		name := strings.TrimSuffix(filepath.Base(t), ".tmpl")
		if name == "gitignore" {
			name = ".gitignore"
		}
		text, err := templates.ReadFile(t)
		if err != nil {
			return nil, err
		}
		tp, err := template.New(name).Delims("[[", "]]").Parse(string(text))
		if err != nil {
			return nil, fmt.Errorf("template %s: %w", name, err)
		}
		var b bytes.Buffer
		if err := tp.Execute(&b, d); err != nil {
			return nil, fmt.Errorf("template %s: %w", name, err)
		}
		if err := os.WriteFile(filepath.Join(o.Dir, name), b.Bytes(), 0o644); err != nil {
			return nil, err
		}
		files = append(files, name)
	}
	if err := os.WriteFile(filepath.Join(o.Dir, "go.sum"), gosum, 0o644); err != nil {
		return nil, err
	}
	return append(files, "go.sum"), nil
}

var requireRe = regexp.MustCompile(`^\s*(?:require\s+)?([A-Za-z0-9._~/-]+\.[A-Za-z0-9._~/-]+)\s+(v[^\s]+)`)

// parseGoMod returns the go directive's version and proflab's
// requirements ("path version"), which the new module needs too.
func parseGoMod(text string) (goVersion string, requires []string) {
	inBlock := false
	for _, line := range strings.Split(text, "\n") {
		t := strings.TrimSpace(line)
		switch {
		case strings.HasPrefix(t, "go "):
			goVersion = strings.TrimSpace(strings.TrimPrefix(t, "go "))
		case t == "require (":
			inBlock = true
		case t == ")":
			inBlock = false
		case inBlock || strings.HasPrefix(t, "require "):
			if m := requireRe.FindStringSubmatch(t); m != nil {
				requires = append(requires, m[1]+" "+m[2])
			}
		}
	}
	return goVersion, requires
}

// FindProflab returns the proflab checkout holding dir or one of its
// parents, or "".
func FindProflab(dir string) string {
	dir, err := filepath.Abs(dir)
	if err != nil {
		return ""
	}
	for {
		b, err := os.ReadFile(filepath.Join(dir, "go.mod"))
		if err == nil && bytes.Contains(b, []byte("module "+ProflabModule+"\n")) {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return ""
		}
		dir = parent
	}
}
