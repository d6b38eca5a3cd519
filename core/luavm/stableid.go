package luavm

import (
	"fmt"
	"runtime"
	"sync"
	"weak"

	lua "github.com/yuin/gopher-lua"
)

// Stable names for tables, functions, userdata and coroutines.
//
// Lua's tostring({}) shows the table's heap address ("table:
// 0xc000123456"), which differs from run to run, so a scenario that prints
// one would break the same-seed-same-bytes rule of log.txt and
// result.json. proflab's tostring (and print, string.format's %s, and
// what a host shows through ToString, such as lab.check's message) shows
// a per-run number instead, given in the order the run first shows each
// object: "table: 0x00000001". The same object
// keeps its number for the whole run; the state holds only weak
// references, so numbering an object does not keep it alive.

// stableName is tostring's text for lv when it has no __tostring:
// strings, numbers, booleans and nil as Lua shows them, reference values
// with their per-run number.
func (s *State) stableName(lv lua.LValue) string {
	var id uint64
	switch v := lv.(type) {
	case *lua.LTable:
		id = idOf(&s.ids, v)
	case *lua.LFunction:
		id = idOf(&s.ids, v)
	case *lua.LUserData:
		id = idOf(&s.ids, v)
	case *lua.LState:
		id = idOf(&s.ids, v)
	default:
		return lv.String()
	}
	return fmt.Sprintf("%s: 0x%08x", lv.Type().String(), id)
}

// stableIDs numbers objects in the order they are first asked about. It
// holds weak references and forgets an object when the collector frees it
// (numbers are never reused), so naming millions of short-lived tables
// does not keep them, or their entries, alive.
type stableIDs struct {
	mu   sync.Mutex // cleanups run on a goroutine of the runtime package
	ids  map[any]uint64
	next uint64
}

// idOf is the number of p, given on first use.
func idOf[T any](s *stableIDs, p *T) uint64 {
	key := weak.Make(p)
	s.mu.Lock()
	defer s.mu.Unlock()
	if id, ok := s.ids[key]; ok {
		return id
	}
	if s.ids == nil {
		s.ids = map[any]uint64{}
	}
	s.next++
	s.ids[key] = s.next
	runtime.AddCleanup(p, s.forget, any(key))
	return s.next
}

func (s *stableIDs) forget(key any) {
	s.mu.Lock()
	delete(s.ids, key)
	s.mu.Unlock()
}

// ToString is Lua's tostring through __tostring, with stable names for
// tables, functions, userdata and coroutines ("table: 0x00000001").
func (s *State) ToString(L *lua.LState, lv lua.LValue) string {
	if fn, ok := L.GetMetaField(lv, "__tostring").(*lua.LFunction); ok {
		L.Push(fn)
		L.Push(lv)
		L.Call(1, 1)
		v := L.Get(-1)
		L.Pop(1)
		return lua.LVAsString(v)
	}
	return s.stableName(lv)
}

// baseToString is the tostring global.
func (s *State) baseToString(L *lua.LState) int {
	L.Push(lua.LString(s.ToString(L, L.CheckAny(1))))
	return 1
}
