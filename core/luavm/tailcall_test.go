package luavm

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	lua "github.com/yuin/gopher-lua"
)

// A tail-call loop is pure Lua: the run's context ends it at its next
// instruction, however many calls the frame it reuses has made. (The
// traceback of the error used to visit every one of those calls as a
// level of its own: seconds past the time budget, gigabytes of lines.)
func TestTailCallLoopEndsWithTheContext(t *testing.T) {
	const budget = 500 * time.Millisecond
	for _, src := range []string{
		`local function f() return f() end f()`,
		`local function f(a, b) return f(b, a) end f(1, 2)`,
		`local function f(...) return f(...) end f(1, "x", nil)`,
		`local t = setmetatable({}, { __call = function(self, x) return self(x) end }) t(1)`,
	} {
		vm, _ := newTestState(t, Config{})
		ctx, cancel := context.WithTimeout(context.Background(), budget)
		vm.SetContext(ctx)
		start := time.Now()
		err := vm.Exec("t.lua", []byte(src))
		late := time.Since(start) - budget
		cancel()
		if err == nil || !strings.Contains(err.Message, "context deadline exceeded") {
			t.Errorf("%s: error %v, want the context's deadline", src, err)
			continue
		}
		// Generous for a loaded machine: the run is abandoned 3 s late.
		if late > time.Second {
			t.Errorf("%s: ended %v after its budget, want at its next instruction", src, late)
		}
		if n := strings.Count(err.Traceback, "\n"); n > 22 {
			t.Errorf("%s: traceback of %d lines, want at most 22:\n%s", src, n, err.Traceback)
		}
	}
}

// The traceback of an error after many tail calls shows the first and
// the last levels, as it does for deep recursion.
func TestTracebackAfterManyTailCalls(t *testing.T) {
	vm, _ := newTestState(t, Config{})
	err := vm.Exec("t.lua", []byte(`local n = 0
local function f()
  n = n + 1
  if n > 200000 then error("deep") end
  return f()
end
f()`))
	if err == nil || err.Message != "t.lua:4: deep" {
		t.Fatalf("error %v, want t.lua:4: deep", err)
	}
	lines := strings.Split(err.Traceback, "\n")
	if len(lines) != 23 || lines[0] != "stack traceback:" || lines[11] != "\t..." {
		t.Fatalf("traceback of %d lines, want the header, 10 levels, ... and 11 levels:\n%s", len(lines), err.Traceback)
	}
	if !strings.HasPrefix(lines[2], "\tt.lua:4:") {
		t.Errorf("first Lua level %q, want the error's line", lines[2])
	}
	// each tail call is a level, written as Lua 5.1 writes it; the last
	// level is the main chunk's call
	if lines[3] != "\t(tail call): ?" || lines[21] != "\t(tail call): ?" || lines[22] != "\tt.lua:7: in main chunk" {
		t.Errorf("traceback:\n%s\nwant tail calls, then the main chunk's line 7", err.Traceback)
	}
}

func TestStackDepth(t *testing.T) {
	vm, _ := newTestState(t, Config{})
	var depths []int
	vm.L.SetGlobal("depth", vm.L.NewFunction(func(L *lua.LState) int {
		depths = append(depths, stackDepth(L, 1), stackDepth(L, 40))
		return 0
	}))
	if err := vm.Exec("t.lua", []byte(`local function g(n) if n == 0 then depth() else g(n - 1) end end g(0) g(30)`)); err != nil {
		t.Fatal(err.Detail())
	}
	// depth's callers: g and the main chunk;
	// 30 more levels of g; nothing at level 40 of the shallow stack.
	if want := []int{2, 39, 32, 39}; !slices.Equal(depths, want) {
		t.Errorf("depths %v, want %v", depths, want)
	}
}
