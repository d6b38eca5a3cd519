package luart

import (
	"strings"

	lua "github.com/yuin/gopher-lua"
)

// removedGlobals are base functions a scenario must not have: they load
// code from strings or files outside require's control, or print to the
// process's standard output.
var removedGlobals = []string{"load", "loadstring", "loadfile", "dofile", "module", "_printregs"}

// openSandbox opens base, table, string, math and coroutine, then removes
// what the sandbox forbids and replaces print and math.random/randomseed.
func (rt *Runtime) openSandbox() {
	L := rt.L
	for _, lib := range []struct {
		name string
		open lua.LGFunction
	}{
		{lua.BaseLibName, lua.OpenBase},
		{lua.TabLibName, lua.OpenTable},
		{lua.StringLibName, lua.OpenString},
		{lua.MathLibName, lua.OpenMath},
		{lua.CoroutineLibName, lua.OpenCoroutine},
	} {
		L.Push(L.NewFunction(lib.open))
		L.Push(lua.LString(lib.name))
		L.Call(1, 0)
	}
	for _, name := range removedGlobals {
		L.SetGlobal(name, lua.LNil)
	}
	L.SetGlobal("print", rt.fn("print", rt.print))
	L.SetGlobal("tostring", rt.fn("tostring", rt.baseToString))
	str := L.GetGlobal("string").(*lua.LTable)
	str.RawSetString("format", rt.fn("string.format", rt.stringFormat(str.RawGetString("format").(*lua.LFunction))))
	rt.installBudgets()
	rt.installRandom()
}

// print writes its arguments, converted by tostring and separated by tabs,
// as one line of the run log.
func (rt *Runtime) print(L *lua.LState) int {
	rt.logLine(rt.joinArgs(L, 1))
	return 0
}

// joinArgs is tostring of each argument from index from on, tab separated.
func (rt *Runtime) joinArgs(L *lua.LState, from int) string {
	top := L.GetTop()
	parts := make([]string, 0, top)
	for i := from; i <= top; i++ {
		parts = append(parts, rt.tostring(L, L.Get(i)))
	}
	return strings.Join(parts, "\t")
}
