package luavm

import (
	"strings"
	"testing"

	lua "github.com/yuin/gopher-lua"
)

// The budgeted concatenation gives what gopher-lua's OP_CONCAT gives:
// the same text for strings and numbers, the same metamethod calls in the
// same order, the same errors, and one value of a call or ... operand.
func TestConcatenationMatchesTheInterpreter(t *testing.T) {
	prelude := `local log = {}
local mt = { __concat = function(a, b)
  local function name(v) return type(v) == "table" and v.name or tostring(v) end
  log[#log + 1] = name(a) .. "+" .. name(b)
  return "<" .. name(a) .. name(b) .. ">"
end }
local A, B = setmetatable({ name = "A" }, mt), setmetatable({ name = "B" }, mt)
local function two() return "x", "y" end
local function none() end
local function show(...) local t = { n = select("#", ...), ... } for i = 1, t.n do t[i] = tostring(t[i]) end return t.n .. ":" .. table.concat(t, ",") end
local function f(...) return ... .. "!" end
`
	for _, expr := range []string{
		`"a" .. "b" .. "c"`,
		`1 .. 2`, `1.5 .. "|" .. -0.1 .. "|" .. 1e15 .. "|" .. 1e100 .. "|" .. 2^53 .. "|" .. 0/0 .. "|" .. 1/0 .. "|" .. -1/0`,
		`"n" .. 123456789012`,
		`A .. "s"`, `"s" .. A`, `A .. B`, `"p" .. A .. "q" .. B .. "r"`, `1 .. 2 .. A .. 3 .. 4`,
		`("a" .. "b") .. ("c" .. "d")`,
		`two() .. "z"`, `"z" .. two()`, `show("a" .. two())`, `show(two() .. two())`,
		`f("v", "w")`, `show((function() return "k" .. two() end)())`,
		`{ "q" .. two() }`, `#("ab" .. "cd")`,
		`"a" .. none()`, `nil .. "a"`, `"a" .. true`, `{} .. "a"`, `"a" .. {}`, `A .. nil`,
		`"a" .. lab.u64(255) .. "b"`, `lab.u64(1) .. lab.u64(2)`,
	} {
		src := prelude + "local ok, v = pcall(function() return " + expr + " end)\nreturn ok, type(v) == 'table' and show(unpack(v)) or tostring(v), table.concat(log, ' ')"
		want := referenceConcat(t, src)
		vm, _ := newTestState(t, Config{})
		fn, err := loadScenario(vm.L, src, "c.lua")
		if err != nil {
			t.Fatal(err)
		}
		vm.L.Push(fn)
		if err := vm.L.PCall(0, 3, nil); err != nil {
			t.Errorf("%s: %v", expr, err)
			continue
		}
		got := [3]string{vm.L.Get(-3).String(), vm.L.Get(-2).String(), vm.L.Get(-1).String()}
		if got != want {
			t.Errorf("%s = %q, gopher-lua's %q", expr, got, want)
		}
	}
}

// referenceConcat runs src in a plain gopher-lua state (with the u64
// type), whose concatenations are its OP_CONCAT.
func referenceConcat(t *testing.T, src string) [3]string {
	t.Helper()
	L := lua.NewState()
	defer L.Close()
	s := &State{L: L, loaded: map[string]lua.LValue{}, libChunks: map[string]bool{}}
	s.registerU64(L)
	lab := L.NewTable()
	lab.RawSetString("u64", L.NewFunction(U64Func("lab.u64")))
	L.SetGlobal("lab", lab)
	fn, err := L.Load(strings.NewReader(src), "c.lua")
	if err != nil {
		t.Fatal(err)
	}
	L.Push(fn)
	if err := L.PCall(0, 3, nil); err != nil {
		t.Fatal(err)
	}
	return [3]string{L.Get(-3).String(), L.Get(-2).String(), L.Get(-1).String()}
}

// s = s .. s is refused before it is built, naming the concatenation: it
// went past a 64 MiB budget to 1 GiB between two samples of the heap
// watchdog, and the message blamed "a string pattern match".
func TestConcatenationUnderTheBudget(t *testing.T) {
	for _, tc := range []struct{ src, want string }{
		{`local s = string.rep("x", 600) pcall(function() return s .. s end)`,
			"b.lua:1: string concatenation (..): the result would be 1200 bytes, over the scenario's memory budget of 1 KiB (--memory)"},
		{`local s = "x" for i = 1, 40 do s = s .. s end`,
			"b.lua:1: string concatenation (..): the result would be 2048 bytes, over the scenario's memory budget of 1 KiB (--memory)"},
		{`local s = string.rep("x", 300) local t = s .. 1 .. s .. 2 .. s .. 3 .. s`,
			"b.lua:1: string concatenation (..): the result would be 1203 bytes"},
		{"local t = setmetatable({}, { __concat = function(a, b) return b .. b end })\nlocal s = t .. string.rep('y', 600)",
			"b.lua:1: string concatenation (..): the result would be 1200 bytes"},
	} {
		vm, _ := newTestState(t, Config{MemoryLimit: 1024})
		_ = vm.Exec("b.lua", []byte(tc.src))
		b := vm.BudgetFailure()
		if b == nil || !strings.HasPrefix(b.Message, tc.want) {
			t.Errorf("%s: run failure %v, want %q", tc.src, b, tc.want)
		}
	}
	vm, _ := newTestState(t, Config{MemoryLimit: 1024})
	err := vm.Exec("b.lua", []byte("local s = string.rep('x', 600)\nlocal t = s .. s"))
	if err == nil || !strings.Contains(err.Traceback, "[Go]: in string concatenation (..)\n\tb.lua:2: in main chunk") {
		t.Errorf("traceback of a refused concatenation: %v", err)
	}
	vm, log := newTestState(t, Config{MemoryLimit: 1024})
	if err := vm.Exec("b.lua", []byte(`local s = string.rep("x", 500) print(#(s .. s))`)); err != nil || log.String() != "1000\n" {
		t.Errorf("within the budget: %v, log %q", err, log.String())
	}
}

// BenchmarkConcatenation is a loop of short concatenations, the common
// case the budgeted concatenation must keep cheap.
func BenchmarkConcatenation(b *testing.B) {
	vm := New(Config{})
	defer vm.Close()
	src := []byte(`local n = 0
for i = 1, 10000 do
  local s = "row " .. i .. ": " .. n
  n = n + #s
end`)
	for b.Loop() {
		if err := vm.Exec("bench.lua", src); err != nil {
			b.Fatal(err.Detail())
		}
	}
}
