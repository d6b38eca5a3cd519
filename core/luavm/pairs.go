package luavm

import (
	"cmp"

	lua "github.com/yuin/gopher-lua"
)

// EachPair calls fn for every pair of t and returns the error fn gave
// for the first key in a fixed order (number keys ascending, then string
// keys sorted, then the other keys by type and text), or nil. gopher-lua's
// ForEach follows Go's map order, so a loop that stopped at the first bad
// key or value would name a different one from run to run; through
// EachPair it names the same one, as a run's result must (same
// configuration and seed, same bytes). It costs what ForEach costs: the
// pairs are not sorted.
func EachPair(t *lua.LTable, fn func(k, v lua.LValue) error) error {
	Materialize(t)
	var first error
	var firstKey lua.LValue
	t.ForEach(func(k, v lua.LValue) {
		if err := fn(k, v); err != nil && (first == nil || compareKeys(k, firstKey) < 0) {
			first, firstKey = err, k
		}
	})
	return first
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
