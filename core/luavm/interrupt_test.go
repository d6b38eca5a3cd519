package luavm

import (
	"context"
	"strings"
	"testing"
	"time"

	lua "github.com/yuin/gopher-lua"
)

// endsWithin runs src under a context that ends after budget (or when
// the script calls cancel_then(f, ...), which ends it and calls f
// inside the same Go call, with no instruction between for the
// interpreter to notice), and returns its error, failing the test when
// it has not returned within a bound far past anything but a builtin
// that never looks at the context.
func endsWithin(t *testing.T, src string, budget time.Duration) string {
	t.Helper()
	vm, _ := newTestState(t, Config{MemoryLimit: -1})
	ctx, cancel := context.WithTimeout(context.Background(), budget)
	defer cancel()
	vm.SetContext(ctx)
	vm.L.SetGlobal("cancel_then", vm.L.NewFunction(func(L *lua.LState) int {
		vm.Stop(context.Canceled)
		L.Call(L.GetTop()-1, lua.MultRet)
		return L.GetTop()
	}))
	done := make(chan string, 1)
	go func() {
		if err := vm.Exec("t.lua", []byte(src)); err != nil {
			done <- err.Message
			return
		}
		done <- ""
	}()
	select {
	case msg := <-done:
		return msg
	case <-time.After(budget + 30*time.Second):
		t.Fatalf("%s: still running 30 s after its context ended at %v: the builtin does not look at it", src, budget)
		return ""
	}
}

// Issue 36 item 7: the builtins that can work for long in one Go call
// (a pattern that backtracks, string.rep, table.concat and table.sort of
// huge inputs) look at the run's context as they go and stop with its
// error, naming themselves, instead of going on after the run ended.
func TestLongBuiltinsEndWithTheContext(t *testing.T) {
	const subject = `local s = string.rep("a", 1e6) `
	for _, c := range []struct{ name, src, want string }{
		{"string.find", subject + `string.find(s, ".-.-.-.-.-b")`, "string.find: context deadline exceeded"},
		{"string.match", subject + `string.match(s, ".-.-.-.-.-b")`, "string.match: context deadline exceeded"},
		{"string.gmatch", subject + `for w in string.gmatch(s, ".-.-.-.-.-b") do end`, "string.gmatch: context deadline exceeded"},
		{"string.gsub", subject + `string.gsub(s, ".-.-.-.-.-b", "")`, "string.gsub: context deadline exceeded"},
		{"method", subject + `s:find(".-.-.-.-.-b")`, "string.find: context deadline exceeded"},
		{"string.rep", `cancel_then(string.rep, "ab", 2^25)`, "string.rep: context canceled"},
		{"table.concat", `local t = {} for i = 1, 1e5 do t[i] = "x" end cancel_then(table.concat, t, ",")`, "table.concat: context canceled"},
		{"table.sort", `local t = {} for i = 1, 1e5 do t[i] = (i * 7919) % 1e5 end cancel_then(table.sort, t)`, "table.sort: context canceled"},
		{"table.sort by a function", `local t = {} for i = 1, 1e5 do t[i] = (i * 7919) % 1e5 end cancel_then(table.sort, t, function(a, b) return a > b end)`, "context canceled"},
	} {
		t.Run(c.name, func(t *testing.T) {
			budget := 200 * time.Millisecond
			if strings.Contains(c.src, "cancel_then") {
				budget = time.Minute // (cancel_then ends it: the setup may take its time, under -race)
			}
			if msg := endsWithin(t, c.src, budget); !strings.Contains(msg, c.want) {
				t.Errorf("error %q, want %q", msg, c.want)
			}
		})
	}
}

// The rewritten builtins answer as gopher-lua's own do, on the same
// script.
func TestLongBuiltinsAnswerAsGopherLua(t *testing.T) {
	const src = `
print(string.find("hello world", "o w"))
print(string.find("hello", "l+"))
print(string.find("a.b", ".", 1, true))
print(string.find("abc", "", 2))
print(string.find("abc", "x"))
print(string.find("key=val", "(%w+)=(%w+)"))
print(string.find("abc", "()b()"))
print(string.find("abcabc", "b", -2))
print(string.find("abcabc", "b", -20))
print(string.find("abcabc", "c", 0))
print(string.match("key=val", "(%w+)=(%w+)"))
print(string.match("hello", "l+"))
print(string.match("abc", "x"))
print(string.match("abcabc", "c", -1))
print(string.match("abc", "()b"))
print(string.match("abc", "b", -10))
local words = {} for k, v in string.gmatch("a=1, b=2", "(%w+)=(%w+)") do words[#words + 1] = k .. v end print(table.concat(words, " "))
local all = "" for w in ("one two"):gmatch("%a+") do all = all .. w end print(all)
print(string.gsub("hello world", "o", "0"))
print(string.gsub("abc", "%w", "%0%0", 2))
print(string.rep("ab", 3), string.rep("x", 0), #string.rep("xyz", 1000000), string.rep("", 5))
print(table.concat({ 1, "b", 2.5 }, "-"))
print(table.concat({ "a", "b", "c" }, ",", 2))
print(table.concat({ "a", "b" }, ",", 3))
print(table.concat({ "a", "b" }, ",", 0))
print(table.concat({}, ","))
print(table.concat({ "a", "b", "c" }, "", 2, 3))
print(table.concat({ "a", "b", "c" }, "", 3, 2))
local t = { 5, 2, 8, 1 } table.sort(t) print(table.concat(t, " "))
local u = { "b", "c", "a" } table.sort(u, function(a, b) return a > b end) print(table.concat(u, " "))
print((pcall(table.concat, { {} })), (pcall(table.sort, { 1, "x" })), (pcall(string.find, "a", "(%")))
`
	run := func(L *lua.LState) string {
		var out strings.Builder
		L.SetGlobal("print", L.NewFunction(func(L *lua.LState) int {
			for i := 1; i <= L.GetTop(); i++ {
				if i > 1 {
					out.WriteByte('\t')
				}
				out.WriteString(L.ToStringMeta(L.Get(i)).String())
			}
			out.WriteByte('\n')
			return 0
		}))
		if err := L.DoString(src); err != nil {
			t.Fatal(err)
		}
		return out.String()
	}
	stock := lua.NewState()
	defer stock.Close()
	want := run(stock)
	vm, _ := newTestState(t, Config{})
	if got := run(vm.L); got != want {
		t.Errorf("got\n%s\ngopher-lua's\n%s", got, want)
	}
}

// The memory watchdog ends a run's context wherever the heap's sample
// falls: inside a long builtin or between two instructions. Either way
// the run's error and its budget failure read the same, so that a sweep's
// results do not depend on the watchdog's timing or on -j (a string.rep
// that saw the end named itself, the next instruction did not).
func TestMemoryEndReadsTheSameInsideABuiltin(t *testing.T) {
	run := func(src string) (msg, failure string) {
		vm, _ := newTestState(t, Config{MemoryLimit: -1})
		vm.SetContext(context.Background())
		vm.L.SetGlobal("stop_then", vm.L.NewFunction(func(L *lua.LState) int {
			vm.Stop(&MemoryBudgetError{Limit: 64 << 20, Heap: 65 << 20, Runs: 1})
			L.Call(L.GetTop()-1, lua.MultRet)
			return L.GetTop()
		}))
		err := vm.Exec("t.lua", []byte(src))
		if err == nil {
			t.Fatalf("%s: no error", src)
		}
		if f := vm.BudgetFailure(); f != nil {
			failure = string(f.Kind) + ": " + f.Message
		}
		return err.Message, failure
	}
	between, betweenFailure := run(`stop_then(function() end)`)
	for _, src := range []string{
		`stop_then(string.rep, "ab", 2^25)`,
		`local t = {} for i = 1, 1e5 do t[i] = "x" end stop_then(table.concat, t, ",")`,
		`local t = {} for i = 1, 1e5 do t[i] = (i * 7919) % 1e5 end stop_then(table.sort, t)`,
	} {
		msg, failure := run(src)
		if msg != between || failure != betweenFailure {
			t.Errorf("%s:\n%q, %q\nwant, as between two instructions:\n%q, %q", src, msg, failure, between, betweenFailure)
		}
	}
}
