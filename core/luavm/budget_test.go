package luavm

import (
	"context"
	"runtime"
	"strings"
	"testing"
	"time"

	lua "github.com/yuin/gopher-lua"
)

// The bounded builtins behave as Lua 5.1's within their limits.
func TestBoundedBuiltinsKeepLuaSemantics(t *testing.T) {
	vm, log := newTestState(t, Config{})
	src := `
print(select("#", unpack({ 1, 2, 3 })), unpack({ 1, 2, 3 }, 2))
print(select("#", unpack({ 1, nil, 3 }, 1, 3)), unpack({}, 1, 0))
print(select("#", unpack({}, 1, 8000)))
print(string.rep("ab", 3), string.rep("x", 0), string.rep("x", -1), ("z"):rep(2))
print(table.concat({ 1, "b", 3 }, "-"), table.concat({ "a", "b", "c" }, ",", 2, 3), table.concat({}, "x"), table.concat({ "a", "b" }, "", 1, 1e9))
local gen = coroutine.wrap(function(a) local b = coroutine.yield(a + 1) return b * 2 end)
print(gen(1), gen(5))
local co = coroutine.create(function() error("inner") end)
print(coroutine.resume(co))
print(pcall(coroutine.wrap(function() error({ code = 7 }) end)))
print(pcall(coroutine.wrap(function() error("at line") end)))
`
	if err := vm.Exec("b.lua", []byte(src)); err != nil {
		t.Fatal(err.Detail())
	}
	want := "3\t2\t3\n" +
		"3\n" +
		"8000\n" +
		"ababab\t\t\tzz\n" +
		"1-b-3\tb,c\t\tab\n" +
		"2\t10\n" +
		"false\tb.lua:9: inner\n" +
		"false\ttable: 0x00000001\n" +
		"false\tb.lua:12: at line\n"
	if got := log.String(); got != want {
		t.Errorf("log:\n%s\nwant:\n%s", got, want)
	}
	if vm.BudgetFailure() != nil {
		t.Errorf("budget failure %v within the limits", vm.BudgetFailure())
	}
}

func TestBudgetRefusals(t *testing.T) {
	for _, tc := range []struct {
		src, want string
		sticky    bool
	}{
		{`pcall(string.rep, "ab", 600)`, "string.rep: the result would be 1200 bytes, over the scenario's memory budget of 1 KiB (--memory)", true},
		{`pcall(string.rep, "x", 1e300)`, "string.rep: the result would be more than 8 EiB", true},
		{`local t = {} for i = 1, 200 do t[i] = "0123456789" end pcall(table.concat, t)`, "table.concat: the result would be", true},
		{`local function f() return coroutine.wrap(f)() end pcall(f)`, "C stack overflow (coroutines nested more than 200 deep", true},
		{`local s = string.rep("x", 600) pcall(print, s, s)`, "print: the result would be 1201 bytes, over the scenario's memory budget of 1 KiB (--memory)", true},
		{`unpack({}, 1, 8001)`, "too many results to unpack (8001; at most 8000)", false},
		{`unpack({}, -2^53, 2^53)`, "too many results to unpack", false},
	} {
		vm, _ := newTestState(t, Config{MemoryLimit: 1024})
		err := vm.Exec("b.lua", []byte(tc.src))
		got := ""
		if b := vm.BudgetFailure(); b != nil {
			got = b.Message
		} else if err != nil {
			got = err.Message
		}
		if !strings.Contains(got, tc.want) || !strings.HasPrefix(got, "b.lua:1: ") {
			t.Errorf("%s: error %q, want b.lua:1: … %q", tc.src, got, tc.want)
		}
		if sticky := vm.BudgetFailure() != nil; sticky != tc.sticky {
			t.Errorf("%s: fails the run even if caught: %v, want %v", tc.src, sticky, tc.sticky)
		}
	}
	// After a refused nesting the depth count is back to zero.
	vm, _ := newTestState(t, Config{})
	if err := vm.Exec("b.lua", []byte(`local function f() return coroutine.wrap(f)() end pcall(f)
for i = 1, 300 do assert(coroutine.wrap(function() return i end)() == i) end`)); err != nil {
		t.Fatal(err.Detail())
	}
	if vm.resumeDepth != 0 {
		t.Errorf("resume depth %d after the run", vm.resumeDepth)
	}
}

func TestHeapWatchdogEndsTheRun(t *testing.T) {
	vm, _ := newTestState(t, Config{MemoryLimit: 32 << 20})
	vm.SetContext(context.Background())
	start := time.Now()
	err := vm.Exec("b.lua", []byte(`local t = {} for i = 1, 1e9 do t[i] = { i } end`))
	if err == nil {
		t.Fatal("an endless allocation ended without an error")
	}
	b := vm.BudgetFailure()
	if b == nil || !strings.Contains(b.Message, "scenario exceeded its memory budget of 32 MiB (--memory)") {
		t.Fatalf("budget failure %v (error %s)", b, err.Detail())
	}
	// Ends, not fast: without the watchdog the loop runs for hours; the
	// bound is loose for a shared machine under the race detector.
	if took := time.Since(start); took > 2*time.Minute {
		t.Errorf("the watchdog took %s", took)
	}
}

func TestFormatBytes(t *testing.T) {
	for n, want := range map[int64]string{12: "12 bytes", 1 << 10: "1 KiB", 1536: "1.5 KiB", 1 << 30: "1 GiB", 3 << 40: "3 TiB"} {
		if got := FormatBytes(n); got != want {
			t.Errorf("FormatBytes(%d) = %q, want %q", n, got, want)
		}
	}
}

func TestStableNames(t *testing.T) {
	vm, log := newTestState(t, Config{})
	if err := vm.Exec("s.lua", []byte(`local t, f = {}, function() end
print(tostring(t), tostring(f), tostring(t), tostring(print), string.format("%s|%5.2f", t, 1), tostring(nil), tostring(1.5), tostring("s"))
print(tostring(setmetatable({}, { __tostring = function() return "custom" end })))
print(t == t, tostring({}) ~= tostring({}))`)); err != nil {
		t.Fatal(err.Detail())
	}
	want := "table: 0x00000001\tfunction: 0x00000002\ttable: 0x00000001\tfunction: 0x00000003\ttable: 0x00000001| 1.00\tnil\t1.5\ts\ncustom\ntrue\ttrue\n"
	if got := log.String(); got != want {
		t.Errorf("log:\n%s\nwant:\n%s", got, want)
	}
}

// BenchmarkBuiltins runs the builtins the budgets and stable names wrap.
func BenchmarkBuiltins(b *testing.B) {
	vm := New(Config{})
	defer vm.Close()
	src := []byte(`local t, three, ten = {}, { 1, 2, 3 }, { "a", "b", "c", "d", "e", "f", "g", "h", "i", "j" }
for i = 1, 1000 do
  local s = tostring(t) .. string.format("%s %d", "x", i) .. string.rep("ab", 8) .. table.concat(ten, ",")
  local a, b, c = unpack(three)
end`)
	for b.Loop() {
		if err := vm.Exec("bench.lua", src); err != nil {
			b.Fatal(err.Detail())
		}
	}
}

// Naming short-lived tables keeps neither them nor their entries; numbers
// are never reused.
func TestStableNamesForgetDeadObjects(t *testing.T) {
	vm, log := newTestState(t, Config{})
	if err := vm.Exec("s.lua", []byte(`for i = 1, 1000 do local s = tostring({}) end`)); err != nil {
		t.Fatal(err.Detail())
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		runtime.GC()
		vm.ids.mu.Lock()
		n := len(vm.ids.ids)
		vm.ids.mu.Unlock()
		if n < 1000 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d entries still held after collections", n)
		}
		time.Sleep(10 * time.Millisecond)
	}
	if err := vm.Exec("s.lua", []byte(`print(tostring({}))`)); err != nil {
		t.Fatal(err.Detail())
	}
	if got := log.String(); got != "table: 0x000003e9\n" {
		t.Errorf("a new table after 1000 is %q, want number 1001", got)
	}
}

// ActiveCall names the binding running now, from another goroutine, and
// is empty between bindings.
func TestActiveCall(t *testing.T) {
	vm, _ := newTestState(t, Config{})
	vm.SetContext(context.Background())
	inside := make(chan string, 1)
	vm.L.SetGlobal("probe", vm.Func("lab.probe", func(L *lua.LState) int {
		got := make(chan string)
		go func() { got <- vm.ActiveCall() }()
		inside <- <-got
		return 0
	}))
	if err := vm.Exec("a.lua", []byte("probe()")); err != nil {
		t.Fatal(err.Detail())
	}
	if got := <-inside; got != "lab.probe" {
		t.Errorf("inside the binding: ActiveCall %q", got)
	}
	if got := vm.ActiveCall(); got != "" {
		t.Errorf("after it: ActiveCall %q", got)
	}
}
