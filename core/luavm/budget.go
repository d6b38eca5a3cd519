package luavm

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strings"

	lua "github.com/yuin/gopher-lua"

	"github.com/proflab/proflab/core/runerr"
)

// A scenario's memory budget.
//
// gopher-lua has no allocator hook, so the budget is kept in three layers:
//
//   - The builtins that can make a huge value in one Go call are bounded
//     before they allocate: string concatenation (.., concat.go),
//     string.rep and table.concat refuse a result larger than the
//     budget, unpack refuses more than maxUnpack results
//     (Lua 5.1's own limit, "too many results to unpack"), and coroutines
//     nest at most maxResumeDepth deep (Lua 5.1's LUAI_MAXCCALLS, "C stack
//     overflow"), so the coroutine-recursion bomb ends at once.
//   - The interpreter's own sizes are fixed: CallStackSize frames per
//     coroutine ("stack overflow" past it) and RegistryMaxSize values.
//   - Everything else (a table grown element by element) is caught by
//     the memory watchdog (watchdog.go), which samples the Go
//     heap and ends the run's context when the heap exceeds the budget.
//
// Exceeding the budget is a Lua error of the scenario (exit status 1),
// never Go's fatal "out of memory".

// DefaultMemoryLimit is a scenario's memory budget when none is given
// (--memory, [run] memory): 1 GiB.
const DefaultMemoryLimit = 1 << 30

// maxUnpack is the most values unpack returns: Lua 5.1's LUAI_MAXCSTACK.
const maxUnpack = 8000

// maxResumeDepth is how deeply coroutines may resume one another: Lua
// 5.1's LUAI_MAXCCALLS.
const maxResumeDepth = 200

// stackOverflow is the panic value of gopher-lua's call stack overflow.
const stackOverflow = "lua callstack overflow"

// FormatBytes shows a size as people write budgets: "1 GiB", "512 MiB",
// "300 KiB", "12 bytes".
func FormatBytes(n int64) string {
	for _, u := range []struct {
		size int64
		name string
	}{{1 << 40, "TiB"}, {1 << 30, "GiB"}, {1 << 20, "MiB"}, {1 << 10, "KiB"}} {
		if n >= u.size {
			if n%u.size == 0 {
				return fmt.Sprintf("%d %s", n/u.size, u.name)
			}
			return fmt.Sprintf("%.1f %s", float64(n)/float64(u.size), u.name)
		}
	}
	return fmt.Sprintf("%d bytes", n)
}

// memoryLimit is the run's budget in bytes (0: none).
func (s *State) memoryLimit() int64 {
	switch {
	case s.cfg.MemoryLimit == 0:
		return DefaultMemoryLimit
	case s.cfg.MemoryLimit < 0:
		return 0
	}
	return s.cfg.MemoryLimit
}

// checkSize raises a Lua error when a value of n bytes (n < 0: more than
// fits in an int64) would exceed the budget.
func (s *State) checkSize(L *lua.LState, fn string, n int64) {
	limit := s.memoryLimit()
	if limit == 0 || (n >= 0 && n <= limit) {
		return
	}
	size := "more than 8 EiB"
	if n >= 0 {
		size = fmt.Sprintf("%d bytes", n)
	}
	s.raiseBudget(L, "%s: the result would be %s, over the scenario's memory budget of %s (--memory)", fn, size, FormatBytes(limit))
}

// MemoryLimit is the run's memory budget in bytes (0: none), for the
// work a binding does outside the interpreter's heap checks (an import's
// count of what it allocates).
func (s *State) MemoryLimit() int64 { return s.memoryLimit() }

// RaiseBudget raises the error of a binding whose work stopped at the
// run's memory budget (format and args: what the binding says, after the
// scenario's line), recorded as the run's budget failure: it fails the
// run as a memory budget failure even when the script catches it.
func (s *State) RaiseBudget(L *lua.LState, format string, args ...any) {
	s.raiseBudget(L, format, args...)
}

// raiseBudget raises a Lua error at the scenario's line and records it:
// a budget refusal fails the run even when the script catches it.
func (s *State) raiseBudget(L *lua.LState, format string, args ...any) {
	msg := s.CallerWhere(L) + ": " + fmt.Sprintf(format, args...)
	if s.budgetError == nil {
		s.budgetError = &runerr.Error{Kind: runerr.KindMemory, Message: msg}
	}
	L.Error(lua.LString(msg), 0)
}

// installBudgets replaces the builtins that could exceed the budgets in
// one call with bounded versions (string.format bounds its own result,
// format.go).
func (s *State) installBudgets() {
	L := s.L
	str := L.GetGlobal("string").(*lua.LTable)
	tab := L.GetGlobal("table").(*lua.LTable)
	co := L.GetGlobal("coroutine").(*lua.LTable)
	str.RawSetString("rep", s.fn("string.rep", s.stringRep))
	str.RawSetString("gsub", s.fn("string.gsub", s.stringGsub))
	str.RawSetString("find", s.fn("string.find", s.stringFind))
	str.RawSetString("match", s.fn("string.match", s.stringMatch))
	str.RawSetString("gmatch", s.fn("string.gmatch", s.stringGmatch))
	tab.RawSetString("concat", s.fn("table.concat", s.tableConcat))
	tab.RawSetString("sort", s.fn("table.sort", s.tableSort))
	L.SetGlobal("unpack", s.fn("unpack", unpack))
	resume := co.RawGetString("resume").(*lua.LFunction)
	bounded := s.fn("coroutine.resume", s.coroutineResume(resume))
	co.RawSetString("resume", bounded)
	co.RawSetString("wrap", s.coroutineWrap(co.RawGetString("create").(*lua.LFunction), bounded))
}

// stringRep is string.rep(s, n), refusing results over the budget.
func (s *State) stringRep(L *lua.LState) int {
	str := L.CheckString(1)
	n := L.CheckNumber(2)
	if n < 1 || str == "" {
		L.Push(lua.LString(""))
		return 1
	}
	if float64(n) > float64(math.MaxInt64)/float64(len(str)) {
		s.checkSize(L, "string.rep", -1)
	}
	count := int64(n)
	total := count * int64(len(str))
	s.checkSize(L, "string.rep", total)
	// doubling, as strings.Repeat does, at most a chunk at a time: the
	// run's context is looked at between chunks
	var b strings.Builder
	b.Grow(int(total))
	b.WriteString(str)
	for int64(b.Len()) < total {
		s.checkEnded(L, "string.rep")
		b.WriteString(b.String()[:min(int64(b.Len()), total-int64(b.Len()), buildChunk)])
	}
	L.Push(lua.LString(b.String()))
	return 1
}

// buildChunk is the most bytes a long builtin (string.rep, table.concat)
// builds between two looks at the run's context: well under a
// millisecond of copying.
const buildChunk = 1 << 20

// checkEnded raises the error of a long builtin fn whose run's context
// ended (its time or memory budget, Ctrl-C), so that it stops within
// milliseconds instead of going on after the run was abandoned.
func (s *State) checkEnded(L *lua.LState, fn string) {
	if s.ctx.Err() != nil {
		s.raiseBuiltinEnded(L, fn, "before it finished", "a builtin working on values this large takes long: work on smaller ones")
	}
}

// raiseBuiltinEnded is RaiseEnded for a builtin of the sandbox that
// looked at the run's context. The memory watchdog ends the context at
// whatever instruction or builtin the heap's sample falls in, so a
// memory end raises exactly what the interpreter raises at its next
// instruction: the run's failure must read the same whether the end was
// seen inside string.rep or just after it (a sweep's results may not
// depend on -j, nor on the watchdog's timing). A time budget or a
// cancellation says where it stopped, with the advice.
func (s *State) raiseBuiltinEnded(L *lua.LState, fn, done, advice string) {
	var m *MemoryBudgetError
	if errors.As(context.Cause(s.ctx), &m) {
		L.RaiseError("%s", s.ctx.Err().Error()) // as gopher-lua's VM does on a done context
	}
	s.RaiseEnded(L, fn, done, advice)
}

// unpack is Lua 5.1's unpack(t, i, j), with its limit on the number of
// results (the interpreter's took quadratic time for large counts).
func unpack(L *lua.LState) int {
	t := L.CheckTable(1)
	i := L.OptNumber(2, 1)
	j := lua.LNumber(t.Len())
	if L.GetTop() >= 3 && L.Get(3) != lua.LNil {
		j = L.CheckNumber(3)
	}
	if i > j {
		return 0
	}
	if float64(j)-float64(i) >= maxUnpack {
		L.RaiseError("too many results to unpack (%.0f; at most %d)", float64(j)-float64(i)+1, maxUnpack)
	}
	first, last := int(i), int(j)
	for k := first; k <= last; k++ {
		L.Push(t.RawGetInt(k))
	}
	return last - first + 1
}

// coroutineResume is coroutine.resume, refusing to nest coroutines more
// than maxResumeDepth deep (each nested coroutine holds a whole Lua stack:
// without the limit, a coroutine that resumes a new one recursively eats
// gigabytes in seconds).
func (s *State) coroutineResume(orig *lua.LFunction) lua.LGFunction {
	return func(L *lua.LState) int {
		if s.resumeDepth >= maxResumeDepth {
			s.raiseBudget(L, "C stack overflow (coroutines nested more than %d deep; each holds a whole Lua stack)", maxResumeDepth)
		}
		s.resumeDepth++
		defer func() { s.resumeDepth-- }()
		top := L.GetTop()
		L.Push(orig)
		for a := 1; a <= top; a++ {
			L.Push(L.Get(a))
		}
		L.Call(top, lua.MultRet)
		if L.GetTop()-top == 2 && L.Get(top+1) == lua.LFalse && L.Get(top+2) == lua.LString(stackOverflow) {
			// The coroutine's call stack overflowed (gopher-lua's panic,
			// made a string): where it did is gone with the coroutine.
			s.overflowed(&runerr.Error{Kind: runerr.KindLua, Message: s.CallerWhere(L) + ": " + overflowText(" in a coroutine")})
			L.Replace(top+2, lua.LString(s.budgetError.Message))
		}
		return L.GetTop() - top
	}
}

// wrapSource is coroutine.wrap over the bounded resume: like Lua's, the
// function it returns raises the coroutine's error as is.
const wrapSource = `local create, resume, error = ...
return function(f)
  local co = create(f)
  local function pass(ok, ...)
    if ok then return ... end
    error((...), 0)
  end
  return function(...) return pass(resume(co, ...)) end
end`

// coroutineWrap builds coroutine.wrap from create and the bounded resume.
func (s *State) coroutineWrap(create, resume *lua.LFunction) lua.LValue {
	L := s.L
	const chunk = "coroutine.wrap"
	fn, err := loadLibrary(L, wrapSource, chunk)
	if err != nil {
		panic(err) // the source above is fixed
	}
	s.libChunks[chunk] = true // messages point at the scenario's line
	L.Push(fn)
	L.Push(create)
	L.Push(resume)
	L.Push(L.GetGlobal("error"))
	L.Call(3, 1)
	wrap := L.Get(-1)
	L.Pop(1)
	return wrap
}

// RaiseEnded raises the error of a binding fn that stopped because the
// run's context ended, at the scenario's line: the memory budget
// (recorded as the run's budget failure, with what the call had done and
// advice), or else the context's cause (the time budget, a cancellation,
// a host's Stop).
func (s *State) RaiseEnded(L *lua.LState, fn, done, advice string) {
	var m *MemoryBudgetError
	if errors.As(context.Cause(s.ctx), &m) {
		s.raiseBudget(L, "%s: %s %s; %s", fn, m.Error(), done, advice)
	}
	L.RaiseError("%s: %v", fn, context.Cause(s.ctx))
}
