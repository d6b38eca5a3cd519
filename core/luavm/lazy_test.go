package luavm

import (
	"fmt"
	"reflect"
	"testing"

	lua "github.com/yuin/gopher-lua"
)

// lazyOrPlain sets the global t of vm to a table of the fields x (always
// there), a, b and c: lazy ones (each build counted in builds) or plain.
func lazyOrPlain(vm *State, lazy bool, builds map[string]int) {
	L := vm.L
	t := L.NewTable()
	t.RawSetString("x", lua.LNumber(1))
	fields := map[string]func() lua.LValue{
		"a": func() lua.LValue { return lua.LNumber(2) },
		"b": func() lua.LValue {
			b := L.NewTable()
			b.Append(lua.LString("one"))
			b.Append(lua.LString("two"))
			return b
		},
		"c": func() lua.LValue { return lua.LString("three") },
	}
	if lazy {
		for k, f := range fields {
			fields[k] = func() lua.LValue { builds[k]++; return f() }
		}
		vm.SetLazy(t, fields)
	} else {
		for k, f := range fields {
			t.RawSetString(k, f())
		}
	}
	L.SetGlobal("t", t)
}

// A lazy table reads, walks, changes and converts as the plain table it
// stands for, and builds a field once, when first needed.
func TestLazyTableIsThePlainTable(t *testing.T) {
	const dump = `local function dump(v)
  if type(v) ~= "table" then return tostring(v) end
  local keys = {}
  for k in pairs(v) do keys[#keys + 1] = k end
  table.sort(keys, function(a, b) return tostring(a) < tostring(b) end)
  local out = {}
  for _, k in ipairs(keys) do out[#out + 1] = tostring(k) .. "=" .. dump(v[k]) end
  return "{" .. table.concat(out, ",") .. "}"
end
`
	for _, tt := range []struct {
		name, code string
		built      string // the fields the lazy table built, in order of name
	}{
		{"field", "return t.a", "a"},
		{"nested", "return t.b[2] .. #t.b", "b"},
		{"missing", "return tostring(t.zz) .. t.x", ""},
		{"pairs", "return dump(t)", "abc"},
		{"next", "local n = 0; for k, v in next, t do n = n + 1 end; return n .. tostring(next({}))", "abc"},
		{"rawget", "return tostring(rawget(t, 'c'))", "abc"},
		{"assign", "t.a = nil; t.c = 'new'; return dump(t)", "b"},
		{"rawset", "rawset(t, 'b', nil); return dump(t)", "abc"},
		{"getmetatable", "return tostring(getmetatable(t))", ""},
		{"setmetatable", "setmetatable(t, { __index = function() return 7 end }); return t.zz .. dump(t)", "abc"},
		{"pairs error", "local ok, e = pcall(pairs, nil); return tostring(ok) .. e", ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var got [2]string
			builds := map[string]int{}
			for i, lazy := range []bool{false, true} {
				vm, _ := newTestState(t, Config{Seed: 1})
				lazyOrPlain(vm, lazy, builds)
				if err := vm.Exec("t.lua", []byte(dump+"__r = (function() "+tt.code+" end)()")); err != nil {
					t.Fatalf("lazy %v: %v", lazy, err.Detail())
				}
				got[i] = vm.L.GetGlobal("__r").String()
			}
			if got[0] != got[1] {
				t.Errorf("plain %q, lazy %q", got[0], got[1])
			}
			var built string
			for _, k := range []string{"a", "b", "c"} {
				if builds[k] > 1 {
					t.Errorf("%s built %d times", k, builds[k])
				}
				if builds[k] == 1 {
					built += k
				}
			}
			if built != tt.built {
				t.Errorf("built %q, want %q", built, tt.built)
			}
		})
	}
}

// The host's walks (ToGo, EachPair, an options table's checks) see every
// field of a lazy table.
func TestLazyTableHostWalks(t *testing.T) {
	var want any
	for _, lazy := range []bool{false, true} {
		vm, _ := newTestState(t, Config{Seed: 1})
		lazyOrPlain(vm, lazy, map[string]int{})
		tbl := vm.L.GetGlobal("t").(*lua.LTable)
		var keys []string
		if err := EachPair(tbl, func(k, _ lua.LValue) error { keys = append(keys, k.String()); return nil }); err != nil || len(keys) != 4 {
			t.Errorf("lazy %v: EachPair saw %v (%v)", lazy, keys, err)
		}
		got, err := ToGo(tbl)
		if err != nil {
			t.Fatal(err)
		}
		if !lazy {
			want = got
		} else if !reflect.DeepEqual(got, want) {
			t.Errorf("ToGo: lazy %v, plain %v", got, want)
		}
		if tbl.Metatable != lua.LNil {
			t.Errorf("lazy %v: a table walked whole kept a metatable: %s", lazy, fmt.Sprint(tbl.Metatable))
		}
	}
}
