package luavm

import (
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	lua "github.com/yuin/gopher-lua"

	"github.com/proflab/proflab/core/input"
)

// moduleName is what require accepts: identifiers separated by dots
// ("stats", "lib.helpers"), so a module can never name a file outside the
// scenario's folder.
var moduleName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_-]*(\.[A-Za-z_][A-Za-z0-9_-]*)*$`)

// libraryChunkPrefix is put before the file name of library modules in
// error messages and tracebacks ("scripts/stats.lua:12: ...").
const libraryChunkPrefix = "scripts/"

// require is Lua's require for the sandbox: a name given to Preload
// ("proflab") is that module; other names are looked up in the scenario's
// folder (name.lua, dots as folders), then in the library. Each module
// runs once per state (with its name as argument) and its result is
// cached.
func (s *State) require(L *lua.LState) int {
	a := NewArgs(L, "require")
	name := a.String(1, "name")
	if v, ok := s.loaded[name]; ok {
		L.Push(v)
		return 1
	}
	if !moduleName.MatchString(name) || strings.HasSuffix(name, ".lua") {
		a.Errorf(1, "name", "%q is not a module name: use names such as \"stats\" or \"lib.helpers\" (a dot for each folder, no \".lua\", no slashes)", name)
	}
	for i, n := range s.loading {
		if n == name {
			loop := append(append([]string(nil), s.loading[i:]...), name)
			L.RaiseError("require loop: %s", strings.Join(loop, " → "))
		}
	}
	src, chunk, err := s.findModule(name)
	if err != nil {
		L.RaiseError("%s", err)
	}
	var fn *lua.LFunction
	if s.isLibraryChunk(chunk) {
		fn, err = loadLibrary(L, string(src), chunk)
	} else {
		fn, err = loadChunk(L, string(src), chunk)
	}
	if err != nil {
		L.RaiseError("require %q: %s", name, compileMessage(err, src))
	}
	depth := len(s.loading)
	s.loading = append(s.loading, name)
	defer func() { s.loading = s.loading[:depth] }()
	L.Push(fn)
	L.Push(lua.LString(name))
	L.Call(1, 1)
	v := L.Get(-1)
	L.Pop(1)
	if v == lua.LNil {
		v = lua.LTrue
	}
	if s.isLibraryChunk(chunk) {
		strictModule(L, name, v)
	}
	s.loaded[name] = v
	L.Push(v)
	return 1
}

// findModule returns a module's source and chunk name.
func (s *State) findModule(name string) ([]byte, string, error) {
	rel := strings.ReplaceAll(name, ".", "/") + ".lua"
	var tried []string
	local := filepath.Join(s.cfg.Dir, filepath.FromSlash(rel))
	if leadsOut(local, s.cfg.Dir) {
		return nil, "", fmt.Errorf("require %q: %s is a symlink that leads outside the scenario's folder, which a scenario may not read; copy the module into the folder", name, local)
	}
	src, err := input.ReadFile(input.Module, local)
	switch {
	case err == nil:
		if s.cfg.FileRead != nil {
			s.cfg.FileRead(local, src)
		}
		return src, local, nil
	case input.Refused(err):
		return nil, "", fmt.Errorf("require %q: %w", name, err)
	case !errors.Is(err, fs.ErrNotExist):
		return nil, "", fmt.Errorf("require %q: %v", name, err)
	}
	tried = append(tried, local)
	if s.cfg.Library != nil {
		src, err = fs.ReadFile(s.cfg.Library, rel)
		if err == nil {
			chunk := libraryChunkPrefix + rel
			s.libChunks[chunk] = true
			return src, chunk, nil
		}
		tried = append(tried, "the embedded library ("+libraryChunkPrefix+rel+")")
	}
	msg := fmt.Sprintf("require %q: module not found; looked in %s", name, strings.Join(tried, " and "))
	if names := s.libraryModules(); len(names) > 0 {
		msg += "; the library has " + strings.Join(names, ", ")
	}
	return nil, "", errors.New(msg)
}

// libraryModules lists the preloaded modules and those of the library,
// for messages.
func (s *State) libraryModules() []string {
	var names []string
	if s.cfg.Library != nil {
		_ = fs.WalkDir(s.cfg.Library, ".", func(p string, d fs.DirEntry, err error) error {
			if err == nil && !d.IsDir() && strings.HasSuffix(p, ".lua") {
				names = append(names, strings.ReplaceAll(strings.TrimSuffix(p, ".lua"), "/", "."))
			}
			return nil
		})
	}
	return append(slices.Clone(s.preloaded), names...)
}

// isLibraryChunk reports whether a chunk name is a library module's.
func (s *State) isLibraryChunk(chunk string) bool {
	return s.libChunks[chunk]
}

// leadsOut reports whether path, a file inside the folder dir, is a
// symlink (or lies under one) that leads outside dir: the sandbox reads
// only the scenario's own folder, and a link out of it would let a module
// name any host file (its first line shown in a syntax error). Where the
// link leads is not looked at (input.ResolveWithin): a link out is
// reported so whether or not its target exists.
func leadsOut(path, dir string) bool {
	abs, err := filepath.Abs(path)
	if err != nil {
		return false
	}
	absDir, err := filepath.Abs(dir)
	if err != nil {
		return false
	}
	_, err = input.ResolveWithin(abs, absDir)
	return errors.Is(err, input.ErrOutside)
}
