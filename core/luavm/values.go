package luavm

import (
	"fmt"
	"math"
	"sort"

	lua "github.com/yuin/gopher-lua"
)

// MaxValueDepth bounds the nesting of tables converted to Go.
const MaxValueDepth = 32

// ToGo converts a Lua value to a JSON-friendly Go value: nil → nil,
// boolean → bool, number → float64 (NaN and infinities are errors: JSON
// has no such numbers), string → string, u64 → uint64, a table that is an
// array (keys 1..n) → []any, a table with string keys → map[string]any.
// Functions, coroutines, other userdata and tables mixing kinds of keys are
// errors that say what was found.
func ToGo(lv lua.LValue) (any, error) { return toGo(lv, 0) }

// toGo is ToGo for a value depth tables deep.
func toGo(lv lua.LValue, depth int) (any, error) {
	if depth > MaxValueDepth {
		return nil, fmt.Errorf("tables nested more than %d deep (a table that contains itself?)", MaxValueDepth)
	}
	switch v := lv.(type) {
	case *lua.LNilType:
		return nil, nil
	case lua.LBool:
		return bool(v), nil
	case lua.LNumber:
		f := float64(v)
		if math.IsNaN(f) || math.IsInf(f, 0) {
			return nil, fmt.Errorf("%s cannot be recorded (JSON has no NaN or infinity)", FormatNumber(f))
		}
		return f, nil
	case lua.LString:
		return string(v), nil
	case *lua.LTable:
		return tableToGo(v, depth)
	}
	if u, ok := AsU64(lv); ok {
		return u, nil
	}
	return nil, fmt.Errorf("a %s cannot be recorded; record numbers, strings, booleans, u64 values or tables of them", TypeName(lv))
}

// tableToGo converts an array or a string-keyed table.
func tableToGo(t *lua.LTable, depth int) (any, error) {
	Materialize(t)
	n := t.Len()
	var strKeys, others int
	var bad lua.LValue
	t.ForEach(func(k, _ lua.LValue) {
		if _, ok := k.(lua.LString); ok {
			strKeys++
			return
		}
		if kv, ok := k.(lua.LNumber); ok {
			if f := float64(kv); f >= 1 && f <= float64(n) && f == math.Trunc(f) {
				return
			}
		}
		others++
		if bad == nil || compareKeys(k, bad) < 0 { // the first in EachPair's order
			bad = k
		}
	})
	switch {
	case others > 0:
		return nil, fmt.Errorf("table key %s is neither a string nor an array index 1..n", lua.LVAsString(bad))
	case strKeys > 0 && n > 0:
		return nil, fmt.Errorf("a table mixes array elements and named fields; use one or the other")
	case strKeys > 0:
		m := make(map[string]any, strKeys)
		err := EachPair(t, func(k, v lua.LValue) error {
			gv, err := toGo(v, depth+1)
			if err != nil {
				return fmt.Errorf("field %q: %w", string(k.(lua.LString)), err)
			}
			m[string(k.(lua.LString))] = gv
			return nil
		})
		return m, err
	}
	arr := make([]any, n)
	for i := 1; i <= n; i++ {
		gv, err := toGo(t.RawGetInt(i), depth+1)
		if err != nil {
			return nil, fmt.Errorf("element [%d]: %w", i, err)
		}
		arr[i-1] = gv
	}
	return arr, nil
}

// ToLua converts a Go value (as parameters come: bool, string, the
// integer and float kinds, []any, map[string]any, nil) to Lua. Integers of
// 2^53 and more become u64 values; other types become their fmt text.
func ToLua(L *lua.LState, v any) lua.LValue {
	switch x := v.(type) {
	case nil:
		return lua.LNil
	case bool:
		return lua.LBool(x)
	case string:
		return lua.LString(x)
	case float64:
		return lua.LNumber(x)
	case float32:
		return lua.LNumber(x)
	case int:
		return intToLua(L, int64(x))
	case int64:
		return intToLua(L, x)
	case int32:
		return lua.LNumber(x)
	case uint32:
		return lua.LNumber(x)
	case uint64:
		return ResultValue(L, x)
	case uint:
		return ResultValue(L, uint64(x))
	case []any:
		t := L.CreateTable(len(x), 0)
		for _, e := range x {
			t.Append(ToLua(L, e))
		}
		return t
	case map[string]any:
		return paramsTable(L, x)
	}
	return lua.LString(fmt.Sprint(v))
}

// intToLua converts a signed integer: a number when exact, otherwise a u64
// (two's complement for large negative values).
func intToLua(L *lua.LState, i int64) lua.LValue {
	if i > -exactLimit && i < exactLimit {
		return lua.LNumber(i)
	}
	return newU64(L, uint64(i))
}

// paramsTable converts a parameter map to a table (keys in sorted order,
// so that the table is built the same way every run).
func paramsTable(L *lua.LState, m map[string]any) *lua.LTable {
	t := L.CreateTable(0, len(m))
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		t.RawSetString(k, ToLua(L, m[k]))
	}
	return t
}
