package luavm

import (
	"errors"
	"fmt"

	lua "github.com/yuin/gopher-lua"

	"github.com/proflab/proflab/core/runerr"
)

// Protected calls: pcall, xpcall and the hosts' callbacks.
//
// gopher-lua's call stack overflow inside a protected call corrupts the
// state: with the growing call stack (Options.MinimizeStackMemory), a
// protected call entered with the stack exactly full unwinds to 8 frames
// below where it started, and the interpreter then runs a function that
// has returned (an index out of range, a nil pointer dereference, wrong
// results). So every protected call first makes sure there is room for
// one more frame, with an unprotected call of a function that does
// nothing: when there is none, the overflow is raised in the caller's
// frame, where unwinding is right.
//
// A stack overflow is the end of the run, as a budget is: it fails the
// run (exit status 1, at the line that overflowed) even when pcall or
// xpcall caught it, which gets false and the same message, so that an
// endless recursion swallowed by pcall cannot pass for a result. A Go
// panic of the interpreter itself inside a protected call is a proflab
// bug (exit status 4), not a Lua error for the script to catch.

// installProtectedCalls replaces pcall and xpcall.
func (s *State) installProtectedCalls() {
	s.noop = s.L.NewFunction(func(*lua.LState) int { return 0 })
	s.L.SetGlobal("pcall", s.fn("pcall", s.pcallBuiltin))
	s.L.SetGlobal("xpcall", s.fn("xpcall", s.xpcallBuiltin))
}

// pcallBuiltin is Lua's pcall(f, ...), as gopher-lua's but for the
// overflow and panic rules above.
func (s *State) pcallBuiltin(L *lua.LState) int {
	L.CheckAny(1)
	v := L.Get(1)
	if v.Type() != lua.LTFunction && L.GetMetaField(v, "__call").Type() != lua.LTFunction {
		L.Push(lua.LFalse)
		L.Push(lua.LString("attempt to call a " + v.Type().String() + " value"))
		return 2
	}
	s.ensureFrame(L)
	if err := s.protect(L, L.PCall(L.GetTop()-1, lua.MultRet, nil)); err != nil {
		L.Push(lua.LFalse)
		L.Push(err)
		return 2
	}
	L.Insert(lua.LTrue, 1)
	return L.GetTop()
}

// xpcallBuiltin is Lua's xpcall(f, handler), as gopher-lua's but for the
// overflow and panic rules above.
func (s *State) xpcallBuiltin(L *lua.LState) int {
	fn := L.CheckFunction(1)
	handler := L.CheckFunction(2)
	top := L.GetTop()
	s.ensureFrame(L)
	L.Push(fn)
	if err := s.protect(L, L.PCall(0, lua.MultRet, handler)); err != nil {
		L.Push(lua.LFalse)
		L.Push(err)
		return 2
	}
	L.Insert(lua.LTrue, top+1)
	return L.GetTop() - top
}

// CallProtected calls fn(args...) in L, discarding its results, and
// returns its error: a host's callback into the script (a hook the
// scenario registered) under the rules above.
func (s *State) CallProtected(L *lua.LState, fn lua.LValue, args ...lua.LValue) error {
	s.ensureFrame(L)
	L.Push(fn)
	for _, a := range args {
		L.Push(a)
	}
	if v := s.protect(L, L.PCall(len(args), 0, nil)); v != nil {
		return errors.New(errorText(L, v))
	}
	return nil
}

// ensureFrame raises the stack overflow here, in the caller's frame, when
// the call stack has no room for the frame a protected call pushes first.
func (s *State) ensureFrame(L *lua.LState) {
	L.Push(s.noop)
	L.Call(0, 0)
}

// protect judges the error of a protected call: nil for none, else the
// error value the script gets. A stack overflow or an interpreter panic
// is recorded (see above).
func (s *State) protect(L *lua.LState, err error) lua.LValue {
	if err == nil {
		return nil
	}
	var api *lua.ApiError
	if !errors.As(err, &api) {
		return lua.LString(err.Error())
	}
	if api.Type != lua.ApiErrorPanic {
		return api.Object
	}
	if api.Object.String() == stackOverflow {
		s.overflowed(overflowError(api.StackTrace))
		return lua.LString(s.budgetError.Message)
	}
	msg := "proflab bug (the Lua interpreter panicked): " + api.Object.String()
	s.RecordBug(&runerr.Error{Kind: runerr.KindBug, Message: s.CallerWhere(L) + ": " + msg, GoStack: api.StackTrace})
	return lua.LString(msg)
}

// overflowText says what a stack overflow is; in says where ("", " in a
// coroutine").
func overflowText(in string) string {
	return fmt.Sprintf("stack overflow%s (more than %d nested calls: endless recursion?)", in, callStackSize)
}

// overflowed records a call stack overflow the script may have caught: it
// fails the run. The first one recorded is kept.
func (s *State) overflowed(e *runerr.Error) {
	if s.budgetError == nil {
		s.budgetError = e
	}
}

// overflowError is the error of a call stack overflow, from the stack
// trace gopher-lua took where it overflowed: the innermost Lua line and
// the Lua part of the trace.
func overflowError(trace string) *runerr.Error {
	return &runerr.Error{
		Kind:      runerr.KindLua,
		Message:   overflowWhere(trace) + overflowText(""),
		Traceback: overflowTraceback(trace),
	}
}
