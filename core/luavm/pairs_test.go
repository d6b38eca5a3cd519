package luavm

import (
	"strings"
	"testing"

	lua "github.com/yuin/gopher-lua"
)

// Pairs goes through a table in one order every time (numbers, then
// strings sorted, then the rest), and stops when asked.
func TestPairsOrder(t *testing.T) {
	vm, _ := newTestState(t, Config{Seed: 1})
	if err := vm.Exec("t.lua", []byte(`__t = { "a", "b", zeta = 1, alpha = 2, mid = 3, [10] = 4, [0.5] = 5, [true] = 6 }`)); err != nil {
		t.Fatal(err.Detail())
	}
	tbl := vm.L.GetGlobal("__t").(*lua.LTable)
	want := "0.5 1 2 10 alpha mid zeta true"
	for range 20 { // Go's map order differs from one ForEach to the next
		var keys []string
		Pairs(tbl, func(k, _ lua.LValue) bool { keys = append(keys, k.String()); return true })
		if got := strings.Join(keys, " "); got != want {
			t.Fatalf("Pairs order %q, want %q", got, want)
		}
	}
	n := 0
	Pairs(tbl, func(lua.LValue, lua.LValue) bool { n++; return n < 3 })
	if n != 3 {
		t.Errorf("Pairs went on after false: %d calls, want 3", n)
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
// such key in Pairs' order, every run.
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
