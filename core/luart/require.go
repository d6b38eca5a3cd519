package luart

import (
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/proflab/proflab/core/input"
	lua "github.com/yuin/gopher-lua"
)

// moduleName is what require accepts: identifiers separated by dots
// ("stats", "lib.helpers"), so a module can never name a file outside the
// scenario's folder.
var moduleName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_-]*(\.[A-Za-z_][A-Za-z0-9_-]*)*$`)

// LibraryChunkPrefix is put before the file name of library modules in
// error messages and tracebacks ("scripts/stats.lua:12: ...").
const LibraryChunkPrefix = "scripts/"

// require is Lua's require for the sandbox: "proflab" is the lab module;
// other names are looked up in the scenario's folder (name.lua, dots as
// folders), then in the embedded library. Each module runs once per state
// (with its name as argument) and its result is cached.
func (rt *Runtime) require(L *lua.LState) int {
	a := NewArgs(L, "require")
	name := a.String(1, "name")
	if v, ok := rt.loaded[name]; ok {
		L.Push(v)
		return 1
	}
	if !moduleName.MatchString(name) || strings.HasSuffix(name, ".lua") {
		a.Errorf(1, "name", "%q is not a module name: use names such as \"stats\" or \"lib.helpers\" (a dot for each folder, no \".lua\", no slashes)", name)
	}
	for i, n := range rt.loading {
		if n == name {
			loop := append(append([]string(nil), rt.loading[i:]...), name)
			L.RaiseError("require loop: %s", strings.Join(loop, " → "))
		}
	}
	src, chunk, err := rt.findModule(name)
	if err != nil {
		L.RaiseError("%s", err)
	}
	var fn *lua.LFunction
	if rt.isLibraryChunk(chunk) {
		fn, err = loadLibrary(L, string(src), chunk)
	} else {
		fn, err = L.Load(strings.NewReader(string(src)), chunk)
	}
	if err != nil {
		L.RaiseError("require %q: %s", name, compileMessage(err, src))
	}
	depth := len(rt.loading)
	rt.loading = append(rt.loading, name)
	defer func() { rt.loading = rt.loading[:depth] }()
	L.Push(fn)
	L.Push(lua.LString(name))
	L.Call(1, 1)
	v := L.Get(-1)
	L.Pop(1)
	if v == lua.LNil {
		v = lua.LTrue
	}
	if rt.isLibraryChunk(chunk) {
		strictModule(L, name, v)
	}
	rt.loaded[name] = v
	L.Push(v)
	return 1
}

// findModule returns a module's source and chunk name.
func (rt *Runtime) findModule(name string) ([]byte, string, error) {
	rel := strings.ReplaceAll(name, ".", "/") + ".lua"
	var tried []string
	local := filepath.Join(rt.cfg.Dir, filepath.FromSlash(rel))
	src, err := input.ReadFile(input.Module, local)
	switch {
	case err == nil:
		rt.noteInput(local, src)
		return src, local, nil
	case input.Refused(err):
		return nil, "", fmt.Errorf("require %q: %w", name, err)
	case !errors.Is(err, fs.ErrNotExist):
		return nil, "", fmt.Errorf("require %q: %v", name, err)
	}
	tried = append(tried, local)
	src, err = fs.ReadFile(rt.lib, rel)
	if err == nil {
		chunk := LibraryChunkPrefix + rel
		rt.libChunks[chunk] = true
		return src, chunk, nil
	}
	tried = append(tried, "the embedded library ("+LibraryChunkPrefix+rel+")")
	msg := fmt.Sprintf("require %q: module not found; looked in %s", name, strings.Join(tried, " and "))
	if names := rt.libraryModules(); len(names) > 0 {
		msg += "; the library has " + strings.Join(names, ", ")
	}
	return nil, "", errors.New(msg)
}

// libraryModules lists the module names of the library, for messages.
func (rt *Runtime) libraryModules() []string {
	var names []string
	_ = fs.WalkDir(rt.lib, ".", func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(p, ".lua") {
			names = append(names, strings.ReplaceAll(strings.TrimSuffix(p, ".lua"), "/", "."))
		}
		return nil
	})
	return append([]string{"proflab"}, names...)
}

// isLibraryChunk reports whether a chunk name is a library module's.
func (rt *Runtime) isLibraryChunk(chunk string) bool {
	return rt.libChunks[chunk]
}
