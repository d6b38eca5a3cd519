package luavm

import (
	"strings"
	"testing"

	lua "github.com/yuin/gopher-lua"

	"github.com/proflab/proflab/core/runerr"
)

// A call stack overflow inside pcall or xpcall fails the run at the line
// that overflowed (exit status 1), even when caught, and leaves the state
// sound: gopher-lua unwound such a call to 8 frames too few, then ran a
// function that had returned ("index out of range", "nil pointer
// dereference", reported as a proflab bug).
func TestStackOverflowInsideProtectedCalls(t *testing.T) {
	for _, src := range []string{
		// the scenario, and the same with the other parity of
		// frames (the overflow then hits a pcall entered on a full stack)
		"local function r(n) pcall(r, n + 1) end\nr(1)\nprint('after')",
		"local function r(n) pcall(r, n + 1) end\npcall(r, 1)\nprint('after')",
		"local function r(n) xpcall(function() r(n + 1) end, function(e) return e end) end\nr(1)\nprint('after')",
		"local function r(n) pcall(r, n + 1) end\nfor i = 1, 20 do r(1) end\nprint('after')",
		"local function r(n) r(n + 1) end\nlocal ok, e = pcall(r, 1)\nprint(ok and 'after' or 'after')",
		"local function deep(n) if n == 0 then return pcall(deep, 0) end return deep(n - 1) end\ndeep(1021)\nprint('after')",
	} {
		vm, log := newTestState(t, Config{})
		if err := vm.Exec("t.lua", []byte(src)); err != nil {
			t.Errorf("%s: error %s", src, err.Detail())
			continue
		}
		if b := vm.Bug(); b != nil {
			t.Errorf("%s: a proflab bug: %s", src, b.Detail())
		}
		if log.String() != "after\n" {
			t.Errorf("%s: log %q, want the line after the recursion", src, log.String())
		}
		b := vm.BudgetFailure()
		if b == nil || b.Kind != runerr.KindLua || !strings.HasPrefix(b.Message, "t.lua:1: stack overflow (more than 1024 nested calls: endless recursion?)") {
			t.Errorf("%s: run failure %+v, want t.lua:1: stack overflow", src, b)
		}
	}
}

// pcall and xpcall keep Lua's answers; the overflow message is what pcall
// returns, and a coroutine's overflow is reported at its resume.
func TestProtectedCallsAnswers(t *testing.T) {
	vm, log := newTestState(t, Config{})
	src := `print(pcall(function(a, b) return a + b, "x" end, 1, 2))
print(pcall(error, "boom", 0))
print(pcall(nil))
print(pcall(setmetatable({}, { __call = function(self, v) return v * 2 end }), 21))
print(xpcall(function() return 1, 2 end, print))
print(xpcall(function() error({}) end, function(e) return type(e) end))
print(select("#", pcall(function() end)))
local function r() r() end
local ok, e = pcall(r)
print(ok, e)`
	if err := vm.Exec("p.lua", []byte(src)); err != nil {
		t.Fatal(err.Detail())
	}
	want := "true\t3\tx\n" +
		"false\tboom\n" +
		"false\tattempt to call a nil value\n" +
		"true\t42\n" +
		"true\t1\t2\n" +
		"false\ttable\n" +
		"1\n" +
		"false\tp.lua:8: stack overflow (more than 1024 nested calls: endless recursion?)\n"
	if got := log.String(); got != want {
		t.Errorf("log:\n%s\nwant:\n%s", got, want)
	}

	vm, _ = newTestState(t, Config{})
	err := vm.Exec("c.lua", []byte("local f = coroutine.wrap(function() local function r() r() end r() end)\nprint(pcall(f))"))
	if b := vm.BudgetFailure(); err != nil || b == nil || b.Message != "c.lua:2: stack overflow in a coroutine (more than 1024 nested calls: endless recursion?)" {
		t.Errorf("coroutine: error %v, run failure %v", err, b)
	}
}

// A host's protected callback gets the script's error and keeps the
// overflow rule.
func TestCallProtected(t *testing.T) {
	vm, _ := newTestState(t, Config{})
	if err := vm.Exec("h.lua", []byte("hook = function(x) if x == 1 then error('no', 0) end local function r() r() end r() end")); err != nil {
		t.Fatal(err.Detail())
	}
	hook := vm.L.GetGlobal("hook")
	if err := vm.CallProtected(vm.L, hook, lua.LNumber(1)); err == nil || err.Error() != "no" {
		t.Errorf("error %v, want no", err)
	}
	if vm.BudgetFailure() != nil {
		t.Errorf("run failure %v before any overflow", vm.BudgetFailure())
	}
	if err := vm.CallProtected(vm.L, hook, lua.LNumber(2)); err == nil || !strings.Contains(err.Error(), "stack overflow") {
		t.Errorf("error %v, want the stack overflow", err)
	}
	if b := vm.BudgetFailure(); b == nil || !strings.HasPrefix(b.Message, "h.lua:1: stack overflow") {
		t.Errorf("run failure %v, want the overflow", b)
	}
}
