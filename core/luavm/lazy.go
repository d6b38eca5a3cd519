package luavm

import (
	"slices"

	lua "github.com/yuin/gopher-lua"
)

// Lazy tables: a binding's result whose costly fields are built when the
// scenario first reads them (m:run's stacks and truth over a workload of
// tens of thousands of stacks), so that a run pays for what its scenario
// reads. A lazy table looks like the plain table it stands for: reading a
// field builds it (and keeps it); pairs, next, rawget, rawset,
// setmetatable and the host's own walks (options tables, ToGo, EachPair)
// first build every field still pending, in sorted order; getmetatable
// says nil, as for the plain table; assigning a pending field replaces it
// unbuilt; a field reserved with Reserve is walked where the plain table
// had it. Once every field is built, the table is a plain one.

// lazyMarker is the key, in a lazy table's metatable, of its pending
// fields (Lua code cannot reach that metatable: getmetatable hides it).
const lazyMarker = "__proflab_lazy"

// lazyFields are a lazy table's fields not yet built, by name.
type lazyFields struct {
	pending map[string]func() lua.LValue
}

// SetLazy makes t lazy: each field of fields is built by its function on
// first access (the function is called once, and its value kept in t).
// t must have no metatable and none of those fields.
func (s *State) SetLazy(t *lua.LTable, fields map[string]func() lua.LValue) {
	if len(fields) == 0 {
		return
	}
	L := s.L
	if s.lazyIndex == nil { // made by the first lazy table of the state
		s.lazyIndex, s.lazyNewIndex = L.NewFunction(lazyIndex), L.NewFunction(lazyNewIndex)
	}
	mt := L.CreateTable(0, 3)
	mt.RawSetString(lazyMarker, &lua.LUserData{Value: &lazyFields{pending: fields}})
	mt.RawSetString("__index", s.lazyIndex)
	mt.RawSetString("__newindex", s.lazyNewIndex)
	t.Metatable = mt
}

// lazyOf is t's pending fields, nil for a table that is not lazy (or no
// longer: every field built).
func lazyOf(lv lua.LValue) *lazyFields {
	t, ok := lv.(*lua.LTable)
	if !ok {
		return nil
	}
	mt, ok := t.Metatable.(*lua.LTable)
	if !ok {
		return nil
	}
	ud, ok := mt.RawGetString(lazyMarker).(*lua.LUserData)
	if !ok {
		return nil
	}
	lz, _ := ud.Value.(*lazyFields)
	return lz
}

// build builds t's pending field k (if it is one) into t and returns its
// value; t becomes a plain table when nothing is left pending.
func (lz *lazyFields) build(t *lua.LTable, k string) lua.LValue {
	mk, ok := lz.pending[k]
	if !ok {
		return lua.LNil
	}
	delete(lz.pending, k)
	v := mk()
	t.RawSetString(k, v)
	if len(lz.pending) == 0 {
		t.Metatable = lua.LNil
	}
	return v
}

// Materialize builds every pending field of a lazy table, in sorted
// order, leaving a plain table; any other value is left as it is. A host
// function that walks a table it was given (ForEach, Next, RawGet of
// names it does not know) calls it first.
func Materialize(lv lua.LValue) {
	lz := lazyOf(lv)
	if lz == nil {
		return
	}
	t := lv.(*lua.LTable)
	keys := make([]string, 0, len(lz.pending))
	for k := range lz.pending {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		lz.build(t, k)
	}
}

// Reserve keeps key's place in t's order of iteration for a field set
// later, as a lazy one is: gopher-lua's pairs and next walk a table's
// keys in the order they were first set (a key set to nil keeps its
// place), so a lazy field reserved where the plain table set it is walked
// in the same order as the plain table's. key must not be set in t.
func Reserve(t *lua.LTable, key string) {
	t.RawSetString(key, lua.LFalse)
	t.RawSetString(key, lua.LNil)
}

// lazyIndex is a lazy table's __index: a pending field, built.
func lazyIndex(L *lua.LState) int {
	t := L.CheckTable(1)
	k, ok := L.Get(2).(lua.LString)
	lz := lazyOf(t)
	if !ok || lz == nil {
		L.Push(lua.LNil)
		return 1
	}
	L.Push(lz.build(t, string(k)))
	return 1
}

// lazyNewIndex is a lazy table's __newindex: a pending field assigned is
// replaced unbuilt.
func lazyNewIndex(L *lua.LState) int {
	t := L.CheckTable(1)
	k := L.Get(2)
	if lz := lazyOf(t); lz != nil {
		if ks, ok := k.(lua.LString); ok {
			delete(lz.pending, string(ks))
			if len(lz.pending) == 0 {
				t.Metatable = lua.LNil
			}
		}
	}
	L.RawSet(t, k, L.Get(3))
	return 0
}

// installLazy wraps the base functions that read or change a table
// without its metamethods, so that they see a lazy table as the plain
// one it stands for.
func (s *State) installLazy() {
	L := s.L
	for _, name := range []string{"pairs", "next", "rawget", "rawset", "setmetatable"} {
		orig, ok := L.GetGlobal(name).(*lua.LFunction)
		if !ok || orig.GFunction == nil {
			continue
		}
		g := orig.GFunction
		// the original's upvalues (pairs's next) go with it, and so its
		// errors are its own
		L.SetGlobal(name, L.NewClosure(func(L *lua.LState) int {
			Materialize(L.Get(1))
			return g(L)
		}, upvalues(orig)...))
	}
	if orig, ok := L.GetGlobal("getmetatable").(*lua.LFunction); ok && orig.GFunction != nil {
		g := orig.GFunction
		L.SetGlobal("getmetatable", L.NewClosure(func(L *lua.LState) int {
			if lazyOf(L.Get(1)) != nil {
				L.CheckAny(1)
				L.Push(lua.LNil) // the plain table it stands for has none
				return 1
			}
			return g(L)
		}, upvalues(orig)...))
	}
}

// upvalues are the values of a Go function's upvalues (pairs keeps next
// in one), for a wrapper that calls its Go code.
func upvalues(fn *lua.LFunction) []lua.LValue {
	out := make([]lua.LValue, len(fn.Upvalues))
	for i, uv := range fn.Upvalues {
		out[i] = uv.Value()
	}
	return out
}
