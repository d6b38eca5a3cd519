package luavm

import (
	"fmt"
	"slices"
	"sync"

	lua "github.com/yuin/gopher-lua"
)

// The standard libraries of the sandbox, made once per process.
//
// gopher-lua's Open functions register every library function of every
// state anew, from Go maps: for a sweep's trivial run, a fifth of its
// cost. What they build is the same each time, tables of Go functions and
// constants, so libraryTemplate records it once (from a scratch state the
// Open functions ran in) and openLibraries gives each state its own
// tables over it:
//
//   - The tables (the globals, string, math, table, coroutine) are each
//     state's own, made anew: a run that sets string.format or adds to
//     math changes its own tables only.
//   - The Go functions in them are the template's, shared by every state:
//     nothing in a function value can be changed from Lua. setfenv
//     refuses a Go function, getfenv of one gives the calling state's
//     globals (never the function's environment), and the debug library,
//     which could reach upvalues, is not in the sandbox. A function keeps
//     no state of its own between calls (gmatch's iterator keeps its
//     position in the userdata each call returns).
//   - The constants (strings, numbers) are immutable in Lua.
//
// Each table's keys are set in sorted order, so pairs(string) visits them
// in the same order in every run (the Go maps' order changed from state
// to state). The functions the sandbox leaves out (removedGlobals) are not
// in the template at all.

// libTemplate describes the tables the Open functions built: tables[0] is
// the globals, every other table is reached from it.
type libTemplate struct {
	tables     []libTable
	stringMeta int // the table that is the strings' metatable
}

// libTable is one table: its keys, sorted, and their values.
type libTable struct {
	keys   []string
	values []libValue
}

// libValue is a table's value: a constant or a Go function (shared), or
// another table of the template (made anew for each state).
type libValue struct {
	value lua.LValue // a string, number, boolean or Go function; nil for a table
	table int        // index into tables, when value is nil
}

// libraries is the template of base, table, string, math and coroutine.
var libraries = sync.OnceValue(func() *libTemplate {
	L := lua.NewState(lua.Options{SkipOpenLibs: true})
	defer L.Close()
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
	t, err := recordLibraries(L)
	if err != nil {
		panic(err) // gopher-lua's libraries are fixed: a test builds the template
	}
	return t
})

// recordLibraries records the tables reachable from L's globals.
func recordLibraries(L *lua.LState) (*libTemplate, error) {
	r := &libRecorder{t: &libTemplate{}, tables: map[*lua.LTable]int{}, env: L.NewTable()}
	globals := L.Get(lua.GlobalsIndex).(*lua.LTable)
	r.table(globals)
	for i := 0; i < len(r.order); i++ { // the list grows as tables are found
		if err := r.fill(i, r.order[i], i == 0); err != nil {
			return nil, err
		}
	}
	meta, ok := L.GetMetatable(lua.LString("")).(*lua.LTable)
	if !ok {
		return nil, fmt.Errorf("the string library set no metatable for strings")
	}
	idx, ok := r.tables[meta]
	if !ok {
		return nil, fmt.Errorf("the strings' metatable is not a library table")
	}
	r.t.stringMeta = idx
	return r.t, nil
}

// libRecorder walks the libraries' tables for recordLibraries.
type libRecorder struct {
	t      *libTemplate
	order  []*lua.LTable
	tables map[*lua.LTable]int
	env    *lua.LTable // the shared functions' environment: empty, and unreachable from Lua
}

// table is the index of tb, recorded (empty) when first seen.
func (r *libRecorder) table(tb *lua.LTable) int {
	if i, ok := r.tables[tb]; ok {
		return i
	}
	i := len(r.order)
	r.tables[tb] = i
	r.order = append(r.order, tb)
	r.t.tables = append(r.t.tables, libTable{})
	return i
}

// fill records the keys and values of the table of index i.
func (r *libRecorder) fill(i int, tb *lua.LTable, globals bool) error {
	if tb.Metatable != lua.LNil {
		return fmt.Errorf("library table %d has a metatable", i)
	}
	var keys []string
	var bad error
	tb.ForEach(func(k, _ lua.LValue) {
		s, ok := k.(lua.LString)
		switch {
		case !ok:
			bad = fmt.Errorf("library table %d has a key %v that is not a string", i, k)
		case globals && slices.Contains(removedGlobals, string(s)):
		default:
			keys = append(keys, string(s))
		}
	})
	if bad != nil {
		return bad
	}
	slices.Sort(keys)
	lt := libTable{keys: keys, values: make([]libValue, len(keys))}
	for j, k := range keys {
		v, err := r.value(tb.RawGetString(k))
		if err != nil {
			return fmt.Errorf("library table %d, key %q: %w", i, k, err)
		}
		lt.values[j] = v
	}
	r.t.tables[i] = lt
	return nil
}

// value records one value of a library table.
func (r *libRecorder) value(v lua.LValue) (libValue, error) {
	switch v := v.(type) {
	case lua.LString, lua.LNumber, lua.LBool:
		return libValue{value: v}, nil
	case *lua.LTable:
		return libValue{table: r.table(v)}, nil
	case *lua.LFunction:
		return libValue{value: v}, r.function(v)
	}
	return libValue{}, fmt.Errorf("a %s value", v.Type())
}

// function readies a Go function to be shared: its environment is
// replaced by an empty table, so that the scratch state's globals are
// not kept, and the Go functions it keeps as upvalues (pairs keeps its
// iterator) are checked alike.
func (r *libRecorder) function(f *lua.LFunction) error {
	if !f.IsG {
		return fmt.Errorf("a Lua function")
	}
	f.Env = r.env
	for _, uv := range f.Upvalues {
		up, ok := uv.Value().(*lua.LFunction)
		if !ok {
			return fmt.Errorf("a Go function keeping a %s", uv.Value().Type())
		}
		if err := r.function(up); err != nil {
			return err
		}
	}
	return nil
}

// openLibraries gives L its libraries: the globals filled in, the
// library tables made anew over the shared functions and constants, the
// strings' metatable set.
func openLibraries(L *lua.LState) {
	t := libraries()
	tables := make([]*lua.LTable, len(t.tables))
	tables[0] = L.Get(lua.GlobalsIndex).(*lua.LTable)
	for i := 1; i < len(tables); i++ {
		tables[i] = L.CreateTable(0, len(t.tables[i].keys))
	}
	for i, lt := range t.tables {
		tb := tables[i]
		for j, k := range lt.keys {
			if v := lt.values[j]; v.value != nil {
				tb.RawSetString(k, v.value)
			} else {
				tb.RawSetString(k, tables[v.table])
			}
		}
	}
	L.SetMetatable(lua.LString(""), tables[t.stringMeta])
}
