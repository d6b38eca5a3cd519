package luavm

import (
	"cmp"
	"slices"

	lua "github.com/yuin/gopher-lua"
)

// Pairs calls fn for each pair of t in a fixed order, until fn returns
// false: number keys ascending, then string keys sorted, then the other
// keys by type and text. gopher-lua's ForEach follows Go's map order, so
// a loop that reports the first bad key or value it meets would name a
// different one from run to run; through Pairs it names the same one, as
// a run's result must (same configuration and seed, same bytes).
func Pairs(t *lua.LTable, fn func(k, v lua.LValue) bool) {
	type pair struct{ k, v lua.LValue }
	var ps []pair
	t.ForEach(func(k, v lua.LValue) { ps = append(ps, pair{k, v}) })
	slices.SortFunc(ps, func(a, b pair) int { return compareKeys(a.k, b.k) })
	for _, p := range ps {
		if !fn(p.k, p.v) {
			return
		}
	}
}

// compareKeys orders table keys: numbers, then strings, then the rest.
func compareKeys(a, b lua.LValue) int {
	rank := func(v lua.LValue) int {
		switch v.(type) {
		case lua.LNumber:
			return 0
		case lua.LString:
			return 1
		}
		return 2
	}
	if c := cmp.Compare(rank(a), rank(b)); c != 0 {
		return c
	}
	switch x := a.(type) {
	case lua.LNumber:
		return cmp.Compare(float64(x), float64(b.(lua.LNumber)))
	case lua.LString:
		return cmp.Compare(string(x), string(b.(lua.LString)))
	}
	if c := cmp.Compare(a.Type().String(), b.Type().String()); c != 0 {
		return c
	}
	return cmp.Compare(a.String(), b.String()) // booleans; tables and functions by address
}
