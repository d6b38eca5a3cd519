package luavm

import (
	"errors"
	"strings"
	"testing"

	lua "github.com/yuin/gopher-lua"
)

// EachPair returns the error of the first key in its order (numbers,
// then strings sorted, then the rest), whatever Go's map order, after
// calling fn for every pair.
func TestEachPairOrder(t *testing.T) {
	vm, _ := newTestState(t, Config{Seed: 1})
	if err := vm.Exec("t.lua", []byte(`__t = { "a", "b", zeta = 1, alpha = 2, mid = 3, [10] = 4, [0.5] = 5, [true] = 6 }`)); err != nil {
		t.Fatal(err.Detail())
	}
	tbl := vm.L.GetGlobal("__t").(*lua.LTable)
	for _, tc := range []struct {
		bad  func(k lua.LValue) bool
		want string
	}{
		{func(k lua.LValue) bool { return true }, "0.5"},
		{func(k lua.LValue) bool { _, s := k.(lua.LString); return s }, "alpha"},
		{func(k lua.LValue) bool { s, ok := k.(lua.LString); return ok && s > "b" }, "mid"},
		{func(k lua.LValue) bool { _, b := k.(lua.LBool); return b }, "true"},
		{func(k lua.LValue) bool { n, ok := k.(lua.LNumber); return ok && n > 1 }, "2"},
	} {
		for range 20 { // Go's map order differs from one ForEach to the next
			calls := 0
			err := EachPair(tbl, func(k, _ lua.LValue) error {
				calls++
				if tc.bad(k) {
					return errors.New(k.String())
				}
				return nil
			})
			if err == nil || err.Error() != tc.want || calls != 8 {
				t.Fatalf("EachPair: %v after %d calls, want %q after 8", err, calls, tc.want)
			}
		}
	}
	if err := EachPair(tbl, func(lua.LValue, lua.LValue) error { return nil }); err != nil {
		t.Errorf("EachPair with no error: %v", err)
	}
}

// A table's first bad field, in a value converted for a record, is the
// same one every run: the first in sorted order.
func TestToGoNamesTheSameField(t *testing.T) {
	vm, _ := newTestState(t, Config{Seed: 1})
	if err := vm.Exec("t.lua", []byte(`__t = { zeta = print, alpha = print, mid = print, beta = print }`)); err != nil {
		t.Fatal(err.Detail())
	}
	for range 20 {
		_, err := ToGo(vm.L.GetGlobal("__t"))
		if err == nil || !strings.HasPrefix(err.Error(), `field "alpha": `) {
			t.Fatalf("ToGo: %v, want the error of field \"alpha\"", err)
		}
	}
}

// A table with keys that are neither names nor indexes names the first
// such key in EachPair's order, every run.
func TestToGoNamesTheSameKey(t *testing.T) {
	vm, _ := newTestState(t, Config{Seed: 1})
	if err := vm.Exec("t.lua", []byte(`__t = { 1, 2, [7] = 1, [9] = 1, [0.5] = 1, [true] = 1 }`)); err != nil {
		t.Fatal(err.Detail())
	}
	for range 20 {
		_, err := ToGo(vm.L.GetGlobal("__t"))
		if err == nil || !strings.Contains(err.Error(), "table key 0.5 ") {
			t.Fatalf("ToGo: %v, want the error of key 0.5", err)
		}
	}
}
