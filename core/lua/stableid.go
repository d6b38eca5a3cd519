package luart

import (
	"fmt"
	"weak"

	lua "github.com/yuin/gopher-lua"
)

// Stable names for tables, functions, userdata and coroutines.
//
// Lua's tostring({}) shows the table's heap address ("table:
// 0xc000123456"), which differs from run to run, so a scenario that prints
// one would break the same-seed-same-bytes rule of log.txt and
// result.json. proflab's tostring (and print, string.format's %s,
// lab.check's message) shows a per-run number instead, given in the order
// the run first shows each object: "table: 0x00000001". The same object
// keeps its number for the whole run; the runtime holds only weak
// references, so numbering an object does not keep it alive.

// stableName is tostring's text for lv when it has no __tostring:
// strings, numbers, booleans and nil as Lua shows them, reference values
// with their per-run number.
func (rt *Runtime) stableName(lv lua.LValue) string {
	var key any
	switch v := lv.(type) {
	case *lua.LTable:
		key = weak.Make(v)
	case *lua.LFunction:
		key = weak.Make(v)
	case *lua.LUserData:
		key = weak.Make(v)
	case *lua.LState:
		key = weak.Make(v)
	default:
		return lv.String()
	}
	id, ok := rt.ids[key]
	if !ok {
		id = uint64(len(rt.ids) + 1)
		rt.ids[key] = id
	}
	return fmt.Sprintf("%s: 0x%08x", lv.Type().String(), id)
}

// tostring is Lua's tostring through __tostring, with stable names.
func (rt *Runtime) tostring(L *lua.LState, lv lua.LValue) string {
	if fn, ok := L.GetMetaField(lv, "__tostring").(*lua.LFunction); ok {
		L.Push(fn)
		L.Push(lv)
		L.Call(1, 1)
		s := L.Get(-1)
		L.Pop(1)
		return lua.LVAsString(s)
	}
	return rt.stableName(lv)
}

// baseToString is the tostring global.
func (rt *Runtime) baseToString(L *lua.LState) int {
	L.Push(lua.LString(rt.tostring(L, L.CheckAny(1))))
	return 1
}

// stringFormat is string.format with stable names for reference values
// given to %s (gopher-lua would print their addresses).
func (rt *Runtime) stringFormat(orig *lua.LFunction) lua.LGFunction {
	return func(L *lua.LState) int {
		top := L.GetTop()
		L.Push(orig)
		for a := 1; a <= top; a++ {
			v := L.Get(a)
			switch v.(type) {
			case *lua.LTable, *lua.LFunction, *lua.LUserData, *lua.LState:
				if a > 1 {
					v = lua.LString(rt.tostring(L, v))
				}
			}
			L.Push(v)
		}
		L.Call(top, 1)
		return 1
	}
}
