package luavm_test

import (
	"fmt"
	"os"
	"testing/fstest"

	lua "github.com/yuin/gopher-lua"

	"github.com/proflab/proflab/core/luavm"
)

// A chunk runs in the sandbox: print writes to the log, math.random is
// seeded from the configuration, and what the sandbox leaves out is an
// error that says so, at the chunk's file:line.
func ExampleState_Exec() {
	vm := luavm.New(luavm.Config{Seed: 7, Log: os.Stdout})
	defer vm.Close()

	err := vm.Exec("hello.lua", []byte(`
print("hello from", _VERSION, rawget(_G, "io"), rawget(_G, "load"))
math.randomseed(1) local a = math.random(100)
math.randomseed(1) print("same seed, same draw:", a == math.random(100))
print(tostring({}), tostring(print)) -- numbered per run, never heap addresses
`))
	fmt.Println("error:", err)

	err = vm.Exec("escape.lua", []byte(`local f = io.open("/etc/passwd")`))
	fmt.Println("error:", err.Message)
	// Output:
	// hello from	Lua 5.1	nil	nil
	// same seed, same draw:	true
	// table: 0x00000001	function: 0x00000002
	// error: <nil>
	// error: escape.lua:1: io is not available in a proflab scenario: the sandbox leaves out io, os, debug, package, load, loadstring, loadfile, dofile, module, so that a run depends only on its configuration and seed (print writes to the run's log; require loads modules)
}

// A builtin that would build a result over the memory budget refuses
// before allocating it; the refusal fails the run (BudgetFailure) even
// when the script catches the error.
func ExampleConfig_memoryLimit() {
	vm := luavm.New(luavm.Config{MemoryLimit: 1 << 20})
	defer vm.Close()

	err := vm.Exec("big.lua", []byte(`
local ok, msg = pcall(string.rep, "x", 2^21)
assert(not ok)`))
	fmt.Println("script error:", err)
	fmt.Println("run failed:", vm.BudgetFailure().Message)
	// Output:
	// script error: <nil>
	// run failed: big.lua:2: string.rep: the result would be 2097152 bytes, over the scenario's memory budget of 1 MiB (--memory)
}

// require finds modules in the scenario's folder, then in the library
// the configuration gives (proflab's is the embedded scripts/ folder). A
// library module's table is strict: a misspelt name is an error, not nil.
func ExampleConfig_library() {
	lib := fstest.MapFS{
		"stats.lua": {Data: []byte(`local M = {}
function M.mean(t) local s = 0 for _, x in ipairs(t) do s = s + x end return s / #t end
return M`)},
	}
	vm := luavm.New(luavm.Config{Library: lib, Log: os.Stdout}) // Dir "": the current folder
	defer vm.Close()

	err := vm.Exec("s.lua", []byte(`
local stats = require "stats"
print(stats.mean({ 1, 2, 6 }))
print(stats.maen({ 1 }))`))
	fmt.Println(err.Message)
	// Output:
	// 3
	// s.lua:4: the library module "stats" has no maen; did you mean mean?
}

// Lua numbers hold integers exactly below 2^53 only; u64 values are
// exact unsigned 64-bit integers whose arithmetic wraps modulo 2^64. A
// host offers the constructor under its own name (proflab's lab.u64), and
// a binding returns a u64 with ResultValue once a value reaches 2^53.
func ExampleU64Func() {
	vm := luavm.New(luavm.Config{Log: os.Stdout})
	defer vm.Close()
	vm.L.SetGlobal("u64", vm.Func("u64", luavm.U64Func("u64")))
	vm.L.SetGlobal("kernel_base", vm.Func("kernel_base", func(L *lua.LState) int {
		luavm.PushResult(L, 0xFFFFF80000000000)
		return 1
	}))

	err := vm.Exec("u.lua", []byte(`
local base = kernel_base()
print(type(base), base + 0x1000, base - u64("0xFFFFF7FFFFFFFFFF"))
print(u64(0) - 1, u64(-1) == u64("0xFFFF_FFFF_FFFF_FFFF"), "addr " .. u64(4096))
print(u64(2^53))`))
	fmt.Println(err.Message)
	// Output:
	// userdata	0xFFFFF80000001000	0x1
	// 0xFFFFFFFFFFFFFFFF	true	addr 0x1000
	// u.lua:5: u64: argument #1 (v): 9007199254740992 is too large to be exact as a Lua number; use lab.u64("0x…") for values of 2^53 and more
}

// A binding reads its arguments with Args (or an options table with
// CheckFields), whose errors name the function and the argument as the
// user wrote them; a Go panic in a binding is reported as a proflab bug
// that fails the run even when the script catches it.
func ExampleState_Func() {
	vm := luavm.New(luavm.Config{Log: os.Stdout})
	defer vm.Close()
	vm.L.SetGlobal("alloc", vm.Func("x:alloc", func(L *lua.LState) int {
		a := luavm.NewArgs(L, "x:alloc")
		a.MaxArgs(2, "size, prot")
		size := a.Uint(1, "size", 1, 1<<32)
		prot := a.OptString(2, "prot", "rw")
		L.Push(lua.LString(fmt.Sprintf("%d bytes %s", size, prot)))
		return 1
	}))
	vm.L.SetGlobal("broken", vm.Func("lab.broken", func(L *lua.LState) int {
		panic("an impossible state") // a bug in the binding
	}))

	err := vm.Exec("a.lua", []byte(`
print(alloc(4096), alloc(16, "r"))
print(pcall(alloc, -1))
print(pcall(broken) == false)`))
	fmt.Println(err, vm.Bug().Kind)
	// Output:
	// 4096 bytes rw	16 bytes r
	// false	a.lua:3: x:alloc: argument #1 (size): -1 is negative; expected a whole number from 1 to 4294967296
	// true
	// <nil> bug
}
