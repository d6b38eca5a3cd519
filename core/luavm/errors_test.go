package luavm

import (
	"strings"
	"testing"

	lua "github.com/yuin/gopher-lua"

	"github.com/proflab/proflab/core/runerr"
)

func TestErrorsCarryFileLineAndTraceback(t *testing.T) {
	vm, _ := newTestState(t, Config{})
	src := "local function inner()\n  error('boom')\nend\nlocal function outer() inner() end\nouter()\n"
	err := vm.Exec("scenarios/x.lua", []byte(src))
	if err == nil {
		t.Fatal("no error")
	}
	if err.Kind != runerr.KindLua || err.Message != "scenarios/x.lua:2: boom" {
		t.Errorf("error = %+v", err)
	}
	for _, want := range []string{"stack traceback:", "scenarios/x.lua:2: in function 'inner'", "scenarios/x.lua:4: in function 'outer'", "scenarios/x.lua:5: in main chunk"} {
		if !strings.Contains(err.Traceback, want) {
			t.Errorf("traceback lacks %q:\n%s", want, err.Traceback)
		}
	}
}

func TestErrorKinds(t *testing.T) {
	tests := []struct{ src, want string }{
		{"local x = nil + 1", "s.lua:1:"},
		{"local t = nil; t.x = 1", "s.lua:1:"},
		{"error({})", "error raised with a table value"},
		{"error(setmetatable({}, {__tostring = function() return 'custom' end}))", "custom"},
		{"error(nil)", "no message"},
		{"error(42)", "42"},
		{"local x = (", "s.lua:1: syntax error at the end of the file"},
		{"local lab = lab\nfunction f()\n  return 1\n\n", "s.lua:3: syntax error at the end of the file"},
		{"local x = 1\nlocal = 2", "s.lua:2:7: syntax error near '='"},
		{"local lab = lab\nlab.u64('nope')", "s.lua:2: lab.u64: argument #1 (v)"},
	}
	for _, tc := range tests {
		vm, _ := newTestState(t, Config{})
		err := vm.Exec("s.lua", []byte(tc.src))
		if err == nil || !strings.Contains(err.Message, tc.want) {
			t.Errorf("%s: error %v, want one containing %q", tc.src, err, tc.want)
		}
	}
}

func TestGoPanicsAreReportedAsBugs(t *testing.T) {
	for _, tc := range []struct {
		name  string
		panic func()
	}{
		{"string", func() { panic("kaboom") }},
		{"nil func", func() { var f func(); f() }},
		{"index", func() { s := []int{}; _ = s[len(s)+1] }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			vm, _ := newTestState(t, Config{})
			vm.L.SetGlobal("boom", vm.Func("lab.boom", func(*lua.LState) int { tc.panic(); return 0 }))
			err := vm.Exec("s.lua", []byte("local x = 1\nboom()"))
			if err == nil || err.Kind != runerr.KindBug {
				t.Fatalf("error = %+v, want a bug", err)
			}
			if !strings.Contains(err.Message, "proflab bug in lab.boom") || !strings.Contains(err.Message, "s.lua:2") || err.GoStack == "" {
				t.Errorf("bug = %+v", err)
			}

			// Caught by pcall, it still fails the run.
			vm2, _ := newTestState(t, Config{})
			vm2.L.SetGlobal("boom", vm2.Func("lab.boom", func(*lua.LState) int { tc.panic(); return 0 }))
			if err := vm2.Exec("s.lua", []byte(`local ok, e = pcall(boom) assert(not ok and e:find("proflab bug"))`)); err != nil {
				t.Fatal(err.Detail())
			}
			if b := vm2.Bug(); b == nil || b.Kind != runerr.KindBug {
				t.Errorf("Bug() = %v, want the caught panic", b)
			}
		})
	}
}

func TestArgsAndFields(t *testing.T) {
	vm, _ := newTestState(t, Config{})
	var got []any
	vm.L.SetGlobal("svc", vm.Func("p:Svc", func(L *lua.LState) int {
		a := MethodArgs(L, "p:Svc")
		a.MaxArgs(3, "Handle, Length, Name")
		got = []any{a.Service(1, "Handle", 8), a.OptUint(2, "Length", 7, 0, 100), a.OptString(3, "Name", "dflt")}
		return 0
	}))
	vm.L.SetGlobal("opts", vm.Func("lab.thing", func(L *lua.LState) int {
		f := CheckFields(L, "lab.thing", L.Get(1), "cpus", "version", "pebs", "hal", "mode", "ratio", "ip")
		got = []any{f.Int("cpus", 4, 1, 64), f.String("version", "10.0"), f.Bool("pebs", true),
			f.Strings("hal", []string{"apic"}), f.Enum("mode", "user", "user", "kernel"), f.Number("ratio", 0.5),
			f.Service("ip", 8, 0), f.Has("cpus")}
		return 0
	}))
	ok := []struct {
		src  string
		want []any
	}{
		{`svc(nil, -1)`, []any{uint64(1<<64 - 1), uint64(7), "dflt"}},
		{`svc(nil, -1, 5, "n")`, []any{uint64(1<<64 - 1), uint64(5), "n"}},
		{`svc(nil)`, []any{uint64(0), uint64(7), "dflt"}},
		{`opts()`, []any{4, "10.0", true, []string{"apic"}, "user", 0.5, uint64(0), false}},
		{`opts{ cpus = 2, version = "6.1", pebs = false, hal = {"pmu", "apic"}, mode = "kernel", ratio = 2, ip = -1 }`,
			[]any{2, "6.1", false, []string{"pmu", "apic"}, "kernel", 2.0, uint64(1<<64 - 1), true}},
	}
	for _, tc := range ok {
		got = nil
		if err := vm.Exec("s.lua", []byte(tc.src)); err != nil {
			t.Errorf("%s: %s", tc.src, err.Detail())
			continue
		}
		if len(got) != len(tc.want) {
			t.Errorf("%s: got %v", tc.src, got)
			continue
		}
		for i := range got {
			if !equalAny(got[i], tc.want[i]) {
				t.Errorf("%s: value %d = %#v, want %#v", tc.src, i, got[i], tc.want[i])
			}
		}
	}
	bad := []struct{ src, want string }{
		{`svc(nil, 1, 2, "x", 4)`, "p:Svc: takes at most 3 arguments (Handle, Length, Name), got 4"},
		{`svc(nil, 2^53)`, `p:Svc: argument #1 (Handle): 9007199254740992 is too large to be exact as a Lua number; use lab.u64("0x…")`},
		{`svc(nil, 0, -1)`, "argument #2 (Length): -1 is negative; expected a whole number from 0 to 100"},
		{`svc(nil, 0, 101)`, "argument #2 (Length): 101 is out of range"},
		{`svc(nil, 0, 1.5)`, "argument #2 (Length): 1.5 is not an integer"},
		{`svc(nil, 0, 1, 5)`, "argument #3 (Name): expected a string, got number"},
		{`opts(5)`, "lab.thing: expected a table of options"},
		{`opts{ cpu = 2 }`, `lab.thing{...}: unknown field "cpu" (did you mean "cpus"?); its fields are cpus, hal, ip, mode, pebs, ratio, version`},
		{`opts{ 1 }`, "unexpected positional value [1]"},
		{`opts{ cpus = 0 }`, `lab.thing{...}: field "cpus": 0 is out of range; expected a whole number from 1 to 64`},
		{`opts{ cpus = "2" }`, `field "cpus": expected a number, got string`},
		{`opts{ pebs = 1 }`, `field "pebs": expected true or false, got number`},
		{`opts{ hal = "apic" }`, `field "hal": expected an array of strings`},
		{`opts{ hal = { "apic", 2 } }`, `field "hal": element [2] is number, expected a string`},
		{`opts{ hal = { x = "apic" } }`, `field "hal": expected an array of strings, found the key x`},
		{`opts{ mode = "both" }`, `field "mode": "both" is not accepted; expected one of "user", "kernel"`},
		{`opts{ ratio = 0/0 }`, `field "ratio": NaN is not a finite number`},
		{`opts{ ip = 1.5 }`, `field "ip": 1.5 is not an integer`},
	}
	for _, tc := range bad {
		err := vm.Exec("s.lua", []byte(tc.src))
		if err == nil || !strings.Contains(err.Message, tc.want) {
			t.Errorf("%s: error %v\nwant one containing %q", tc.src, err, tc.want)
		}
		if err != nil && !strings.HasPrefix(err.Message, "s.lua:1: ") {
			t.Errorf("%s: error %q lacks the scenario's file:line", tc.src, err.Message)
		}
	}
}

func equalAny(a, b any) bool {
	as, ok1 := a.([]string)
	bs, ok2 := b.([]string)
	if ok1 && ok2 {
		return strings.Join(as, ",") == strings.Join(bs, ",")
	}
	return a == b
}
