package luavm

import (
	"strings"
	"testing"
	"testing/fstest"
)

// strictLib is a library module whose functions check their options and
// arguments as scripts/ does, through a helper (so that the check runs
// two library frames below the scenario's line).
const strictLib = `
local lab = lab
local M = {}
local SPEC = { base = "integer", bucket = "integer", check = "boolean", name = "string",
  process = "integer|false", ratio = "number", fn = "function", p = "object", any = "any", u = "u64", t = "table" }
local function create(spec) return lab.options("lib.create", spec, SPEC) end
function M.create(spec) local o = create(spec) return o end
function M.run(m, n, what)
  lab.arguments("lib.run", { "m:table", "n:integer", "what:string|nil" }, m, n, what)
  return true
end
return M
`

// newStrictState is a state whose library is strictLib (require "lib")
// and whose lab has the checks under the proflab module's names.
func newStrictState(t *testing.T) *State {
	t.Helper()
	vm, _ := newTestState(t, Config{Library: fstest.MapFS{"lib.lua": {Data: []byte(strictLib)}}})
	lab := vm.L.GetGlobal("lab")
	vm.L.SetField(lab, "options", vm.Func("lab.options", vm.OptionsFunc("lab.options")))
	vm.L.SetField(lab, "arguments", vm.Func("lab.arguments", vm.ArgumentsFunc("lab.arguments")))
	vm.L.SetField(lab, "suggest", vm.Func("lab.suggest", SuggestFunc("lab.suggest")))
	return vm
}

// The library's checks refuse an unknown key with the nearest one, and a
// value of the wrong type, in Fields' and Args' words, at the line of the
// scenario that called the library (not the library's own line); what is
// right passes, and the options table comes back (a new one for nil).
func TestLibraryOptionsAndArguments(t *testing.T) {
	ok := []string{
		`assert(L.create(nil).base == nil)`,
		`assert(L.create{ base = 0x400000, bucket = 4, check = false, process = false, name = "x" }.bucket == 4)`,
		`assert(L.create{ base = lab.u64("0xFFFFF80000000000"), process = -1, ratio = 0.5, u = lab.u64(1) }.ratio == 0.5)`,
		`assert(L.create{ fn = print, t = {}, any = coroutine.create(print) }.t ~= nil)`,
		`assert(L.run({}, 3) and L.run({}, lab.u64(3), "cycles"))`,
	}
	for _, src := range ok {
		vm := newStrictState(t)
		if err := vm.Exec("t.lua", []byte("local L = require 'lib'\n"+src)); err != nil {
			t.Errorf("%s: %s", src, err.Detail())
		}
	}
	bad := []struct{ src, want string }{
		{`L.create{ sorce = 1, bucketsize = 4 }`,
			`lib.create{...}: unknown field "bucketsize"; unknown field "sorce"; its fields are any, base, bucket, check, fn, name, p, process, ratio, t, u`},
		{`L.create{ bukcet = 4 }`, `lib.create{...}: unknown field "bukcet" (did you mean "bucket"?); its fields are`},
		{`L.create{ 4 }`, `lib.create{...}: unexpected positional value [1]; options are passed by name, e.g. { any = … }`},
		{`L.create("x")`, `lib.create: expected a table of options ({ any = … }), got string`},
		{`L.create{ bucket = "4" }`, `lib.create{...}: field "bucket": expected a number or a u64, got the string "4"`},
		{`L.create{ bucket = 1.5 }`, `lib.create{...}: field "bucket": 1.5 is not an integer`},
		{`L.create{ check = "no" }`, `lib.create{...}: field "check": expected true or false, got string`},
		{`L.create{ process = true }`, `lib.create{...}: field "process": expected a whole number or a u64, or false, got boolean`},
		{`L.create{ ratio = 0/0 }`, `field "ratio": NaN is not a finite number`},
		{`L.create{ name = 5 }`, `field "name": expected a string, got number`},
		{`L.create{ p = lab.u64(1) }`, `field "p": expected a proflab object (a machine, process, thread…), got u64`},
		{`L.create{ u = 1 }`, `field "u": expected a u64, got number`},
		{`L.create{ fn = "print" }`, `field "fn": expected a function, got string`},
		{`L.run(nil, 1)`, `lib.run: argument #1 (m): expected a table, got nil`},
		{`L.run({}, "3")`, `lib.run: argument #2 (n): expected a number or a u64, got the string "3"`},
		{`L.run({}, 3, 5)`, `lib.run: argument #3 (what): expected a string, or nil, got number`},
	}
	for _, tc := range bad {
		vm := newStrictState(t)
		err := vm.Exec("t.lua", []byte("local L = require 'lib'\n"+tc.src))
		if err == nil || !strings.Contains(err.Message, tc.want) {
			t.Errorf("%s: error %v\nwant one containing %q", tc.src, err, tc.want)
			continue
		}
		if !strings.HasPrefix(err.Message, "t.lua:2: ") {
			t.Errorf("%s: error %q is not at the scenario's line (t.lua:2)", tc.src, err.Message)
		}
	}
}

// A spec the library got wrong is the library's error, at its own line,
// naming the type it does not know and the nearest one.
func TestLibrarySpecErrors(t *testing.T) {
	for _, tc := range []struct{ src, want string }{
		{`lab.options("f", {}, { a = "strnig" })`, `lab.options: argument #3 (spec): field "a": unknown type "strnig" (did you mean "string"?); the types are any, nil, boolean, false, number, integer, u64, string, table, function, object`},
		{`lab.options("f", {}, { "string" })`, `lab.options: argument #3 (spec): expected { name = "type", … }`},
		{`lab.arguments("f", { "n" }, 1)`, `lab.arguments: argument #2 (spec): element [1] (n): expected "name:type"`},
		{`lab.arguments("f", { 5 }, 1)`, `element [1] is number; expected "name:type"`},
		{`lab.arguments("f", { "n:int" }, 1)`, `element [1] (n:int): unknown type "int"`},
	} {
		vm := newStrictState(t)
		err := vm.Exec("t.lua", []byte("\n"+tc.src))
		if err == nil || !strings.Contains(err.Message, tc.want) || !strings.HasPrefix(err.Message, "t.lua:2: ") {
			t.Errorf("%s: error %v\nwant one at t.lua:2 containing %q", tc.src, err, tc.want)
		}
	}
}

// Several unknown keys are all named, in sorted order, whatever the order
// Go's map gives the table's keys: the same error every run.
func TestLibraryOptionsErrorIsStable(t *testing.T) {
	const want = `unknown field "wwwww1"; unknown field "xxxxx2"; unknown field "yyyyy3"; unknown field "zzzzz4"; its`
	for i := 0; i < 20; i++ {
		vm := newStrictState(t)
		err := vm.Exec("t.lua", []byte(`require('lib').create{ zzzzz4 = 1, xxxxx2 = 1, wwwww1 = 1, yyyyy3 = 1 }`))
		if err == nil || !strings.Contains(err.Message, want) {
			t.Fatalf("run %d: error %v, want %q", i, err, want)
		}
	}
}

// lab.suggest is core/suggest's rule: the nearest name within a third of
// the typed name's length (at least 2), else nil.
func TestSuggestFunc(t *testing.T) {
	vm := newStrictState(t)
	for src, want := range map[string]string{
		`lab.suggest("profilesource", { "start", "profilesources" })`: "profilesources",
		`lab.suggest("PROFINT", { "profint" })`:                       "profint",
		`lab.suggest("zz", { "profilesources" })`:                     "nil",
		`lab.suggest("x", {})`:                                        "nil",
	} {
		if err := vm.Exec("t.lua", []byte("__r = tostring("+src+")")); err != nil {
			t.Errorf("%s: %s", src, err.Detail())
			continue
		}
		if got := vm.L.GetGlobal("__r").String(); got != want {
			t.Errorf("%s = %s, want %s", src, got, want)
		}
	}
	if err := vm.Exec("t.lua", []byte(`lab.suggest("x", { 1 })`)); err == nil || !strings.Contains(err.Message, "lab.suggest: argument #2 (names): element [1] is number, expected a string") {
		t.Errorf("names of numbers: %v", err)
	}
}

// BenchmarkLibraryOptions measures one library call's checks: a profile
// spec of five options and three arguments, as profile.create makes them.
func BenchmarkLibraryOptions(b *testing.B) {
	vm, _ := newTestState(b, Config{Library: fstest.MapFS{"lib.lua": {Data: []byte(strictLib)}}})
	lab := vm.L.GetGlobal("lab")
	vm.L.SetField(lab, "options", vm.Func("lab.options", vm.OptionsFunc("lab.options")))
	vm.L.SetField(lab, "arguments", vm.Func("lab.arguments", vm.ArgumentsFunc("lab.arguments")))
	if err := vm.Exec("setup.lua", []byte(`L = require 'lib'`)); err != nil {
		b.Fatal(err.Detail())
	}
	src := []byte(`for i = 1, 1000 do
  L.create{ base = 0x400000, bucket = 4, check = false, process = false, name = "x" }
  L.run({}, 3, "cycles")
end`)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if err := vm.Exec("bench.lua", src); err != nil {
			b.Fatal(err.Detail())
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/1000, "ns/call-pair")
}
