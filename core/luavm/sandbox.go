package luavm

import (
	"slices"
	"strings"

	lua "github.com/yuin/gopher-lua"
)

// removedGlobals are base functions a scenario must not have: they load
// code from strings or files outside require's control, or print to the
// process's standard output.
var removedGlobals = []string{"load", "loadstring", "loadfile", "dofile", "module", "_printregs"}

// openSandbox opens base, table, string, math and coroutine without what
// the sandbox forbids (libraries.go), then replaces print and
// math.random/randomseed.
func (s *State) openSandbox() {
	L := s.L
	openLibraries(L)
	L.SetGlobal("print", s.fn("print", s.Print))
	L.SetGlobal("tostring", s.fn("tostring", s.baseToString))
	str := L.GetGlobal("string").(*lua.LTable)
	str.RawSetString("format", s.fn("string.format", s.stringFormat))
	s.installBudgets()
	s.installProtectedCalls()
	s.installRandom()
	s.installLazy()
	s.explainMissing()
}

// leftOut are the standard globals the sandbox does not have; reading one
// is an error that says why, instead of a nil that fails later with
// "attempt to index a non-table object(nil)".
var leftOut = []string{"io", "os", "debug", "package", "load", "loadstring", "loadfile", "dofile", "module"}

// explainMissing gives _G a metatable whose __index raises that error for
// the names in leftOut; every other missing global is still nil.
func (s *State) explainMissing() {
	L := s.L
	advice := s.cfg.SandboxAdvice
	if advice == "" {
		advice = "print writes to the run's log; require loads modules"
	}
	mt := L.CreateTable(0, 1)
	mt.RawSetString("__index", s.fn("sandbox", func(L *lua.LState) int {
		name, ok := L.Get(2).(lua.LString)
		if ok && slices.Contains(leftOut, string(name)) {
			L.RaiseError("%s is not available in a proflab scenario: the sandbox leaves out %s, so that a run depends only on its configuration and seed (%s)",
				name, strings.Join(leftOut, ", "), advice)
		}
		L.Push(lua.LNil)
		return 1
	}))
	L.SetMetatable(L.Get(lua.GlobalsIndex), mt)
}

// Print is the print global: it writes its arguments, converted by
// tostring (stable names) and separated by tabs, as one line of the run
// log. A host module may offer it under another name too (lab.log).
func (s *State) Print(L *lua.LState) int {
	s.Log(s.joinArgs(L, 1))
	return 0
}

// joinArgs is tostring of each argument from index from on, tab
// separated; a line larger than the memory budget is refused before it
// is built (print(s, s, s, …) of a big string asked for its sum at once).
func (s *State) joinArgs(L *lua.LState, from int) string {
	top := L.GetTop()
	parts := make([]string, 0, top)
	var size int64
	for i := from; i <= top; i++ {
		p := s.ToString(L, L.Get(i))
		parts = append(parts, p)
		size += int64(len(p)) + 1
	}
	if limit := s.memoryLimit(); limit > 0 && size > limit {
		name := s.ActiveCall() // print, or a host's name for it (lab.log)
		if name == "" {
			name = "print"
		}
		s.checkSize(L, name, size-1)
	}
	return strings.Join(parts, "\t")
}
