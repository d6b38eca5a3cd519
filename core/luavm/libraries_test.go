package luavm

import (
	"reflect"
	"slices"
	"strings"
	"testing"

	lua "github.com/yuin/gopher-lua"
)

// What openLibraries gives a state holds what gopher-lua's Open functions
// build, less the removed globals: the same keys in every table, the same
// Go code behind every function, the same constants, one function where
// the libraries have one under two names (gmatch, gfind), and the string
// library as the strings' metatable.
func TestLibrariesAsTheOpenFunctionsBuildThem(t *testing.T) {
	want := lua.NewState(lua.Options{SkipOpenLibs: true})
	defer want.Close()
	for _, open := range []lua.LGFunction{lua.OpenBase, lua.OpenTable, lua.OpenString, lua.OpenMath, lua.OpenCoroutine} {
		want.Push(want.NewFunction(open))
		want.Call(0, 0)
	}
	got := lua.NewState(lua.Options{SkipOpenLibs: true})
	defer got.Close()
	openLibraries(got)

	wg, gg := want.Get(lua.GlobalsIndex).(*lua.LTable), got.Get(lua.GlobalsIndex).(*lua.LTable)
	for _, name := range removedGlobals {
		if gg.RawGetString(name) != lua.LNil {
			t.Errorf("global %s is there", name)
		}
		wg.RawSetString(name, lua.LNil)
	}
	compareTables(t, "_G", wg, gg, wg, gg)
	if got.GetField(gg.RawGetString("string"), "gmatch") != got.GetField(gg.RawGetString("string"), "gfind") {
		t.Error("string.gmatch and string.gfind are not one function")
	}
	if got.GetMetatable(lua.LString("")) != gg.RawGetString("string") {
		t.Error("the strings' metatable is not the string library")
	}
	if gg.RawGetString("_G") != gg {
		t.Error("_G is not the globals")
	}
}

// compareTables compares a table of the libraries the Open functions
// built (w) with openLibraries' copy (g), and the tables inside.
func compareTables(t *testing.T, path string, w, g, wg, gg *lua.LTable) {
	t.Helper()
	keys := func(tb *lua.LTable) (ks []string) {
		tb.ForEach(func(k, v lua.LValue) {
			if v != lua.LNil {
				ks = append(ks, k.String())
			}
		})
		slices.Sort(ks)
		return ks
	}
	if wk, gk := keys(w), keys(g); !slices.Equal(wk, gk) {
		t.Errorf("%s: keys %v, want %v", path, gk, wk)
		return
	}
	for _, k := range keys(w) {
		wv, gv := w.RawGetString(k), g.RawGetString(k)
		where := path + "." + k
		switch wv := wv.(type) {
		case *lua.LTable:
			gv, ok := gv.(*lua.LTable)
			switch {
			case !ok:
				t.Errorf("%s is a %s, want a table", where, g.RawGetString(k).Type())
			case wv == wg || wv == w:
				if gv != gg && gv != g {
					t.Errorf("%s is not the table it refers to", where)
				}
			default:
				if gv == wv {
					t.Errorf("%s is shared with another state", where)
				}
				compareTables(t, where, wv, gv, wg, gg)
			}
		case *lua.LFunction:
			gv, ok := gv.(*lua.LFunction)
			if !ok || !gv.IsG || reflect.ValueOf(gv.GFunction).Pointer() != reflect.ValueOf(wv.GFunction).Pointer() || len(gv.Upvalues) != len(wv.Upvalues) {
				t.Errorf("%s: %v is not %v's Go function", where, gv, wv)
			}
		default:
			if gv != wv {
				t.Errorf("%s = %v, want %v", where, gv, wv)
			}
		}
	}
}

// What one state does to its libraries no other state sees: the tables
// and functions are each state's own.
func TestLibrariesAreEachStatesOwn(t *testing.T) {
	a, _ := newTestState(t, Config{})
	if err := a.Exec("a.lua", []byte(`string.upper = nil; math.pi = 3; math.extra = 1; table.insert = nil
getmetatable("").__index.len = nil; coroutine.create = nil; _G.ipairs = nil
assert(not pcall(setfenv, pairs, {}))`)); err != nil {
		t.Fatal(err.Detail())
	}
	b, log := newTestState(t, Config{})
	if err := b.Exec("b.lua", []byte(`print(string.upper("x"), math.pi, math.extra, type(table.insert), ("ab"):len(), type(coroutine.create), type(ipairs))
print(getfenv(pairs) == _G)
for _, v in ipairs({ 7 }) do print(v) end`)); err != nil {
		t.Fatal(err.Detail())
	}
	if want := "X\t3.141592653589793\tnil\tfunction\t2\tfunction\tfunction\ntrue\n7\n"; log.String() != want {
		t.Errorf("the second state saw:\n%s\nwant:\n%s", log.String(), want)
	}
}

// pairs visits a library's keys in the same order in every state (the
// Open functions' Go maps gave each state its own order).
func TestLibraryOrderIsTheSameInEveryState(t *testing.T) {
	var first string
	for i := range 20 {
		vm, log := newTestState(t, Config{})
		if err := vm.Exec("o.lua", []byte(`for _, lib in ipairs({ string, math, table, coroutine }) do
  local ks = {} for k in pairs(lib) do ks[#ks + 1] = k end print(table.concat(ks, " "))
end`)); err != nil {
			t.Fatal(err.Detail())
		}
		if i == 0 {
			first = log.String()
			if !strings.HasPrefix(first, "__index byte char dump find format gfind gmatch gsub len lower match rep reverse sub upper\n") {
				t.Errorf("string's keys in the order:\n%s", first)
			}
		} else if log.String() != first {
			t.Fatalf("state %d visits the libraries' keys in another order:\n%s\nthe first:\n%s", i, log.String(), first)
		}
	}
}

// States on different goroutines share the libraries' Go functions: using
// them side by side is race-free (go test -race), and each state's
// iterators keep their own positions.
func TestLibrariesSideBySide(t *testing.T) {
	const src = `local n = 0
for i = 1, 200 do
  for w in string.gmatch("a b c d", "%a") do n = n + #w end
  for _, v in ipairs({ 1, 2, 3 }) do n = n + v end
  for k in pairs({ x = 1, y = 2 }) do n = n + #k end
  local t = { 3, 1, 2 } table.sort(t) n = n + t[1] + math.floor(2.5) + select("#", 1, 2)
  n = n + #string.rep("x", 3) + (("abc"):upper() == "ABC" and 1 or 0)
end
print(n, getfenv(math.floor) == _G)`
	logs := make(chan string, 4)
	for range 4 {
		go func() {
			var log strings.Builder
			vm := New(Config{Log: &log})
			defer vm.Close()
			if err := vm.Exec("s.lua", []byte(src)); err != nil {
				logs <- err.Message
				return
			}
			logs <- log.String()
		}()
	}
	for range 4 {
		if got := <-logs; got != "4200\ttrue\n" {
			t.Errorf("a state printed %q, want 4200 and true", got)
		}
	}
}
