package luavm

import (
	"errors"
	"fmt"
	"regexp"
	"runtime/debug"
	"strings"

	lua "github.com/yuin/gopher-lua"

	"github.com/proflab/proflab/core/runerr"
)

// fn wraps a Go function for Lua under the panic guard: a Go panic becomes
// a Lua error labelled as a proflab bug and is recorded, so the run fails
// even if the script catches the error with pcall. Lua errors raised on
// purpose (L.RaiseError, L.ArgError) pass through untouched.
func (s *State) fn(name string, f lua.LGFunction) *lua.LFunction {
	return s.L.NewFunction(s.guard(name, f))
}

// Func wraps a binding under the panic guard (see fn); name is what the
// user calls ("lab.machine", "p:NtClose"), which ActiveCall reports while
// it runs.
func (s *State) Func(name string, f lua.LGFunction) *lua.LFunction { return s.fn(name, f) }

// guard returns f protected against Go panics.
func (s *State) guard(name string, f lua.LGFunction) lua.LGFunction {
	call := &name // stored as is on every call: no allocation
	return func(L *lua.LState) (n int) {
		prev, prevCall := s.active, s.call.Swap(call)
		s.active = L
		defer func() {
			s.active = prev
			s.call.Store(prevCall)
			r := recover()
			if r == nil {
				return
			}
			if _, ok := r.(*lua.ApiError); ok || r == stackOverflow {
				panic(r) // a Lua error, or the scenario's own recursion
			}
			bug := &runerr.Error{
				Kind: runerr.KindBug,
				Message: fmt.Sprintf("%s proflab bug in %s: %v (a bug in proflab, not in the scenario; please report it with the scenario)",
					L.Where(1), name, r),
				GoStack: string(debug.Stack()),
			}
			s.bugs = append(s.bugs, bug)
			L.RaiseError("proflab bug in %s: %v (please report it)", name, r)
		}()
		return f(L)
	}
}

// ActiveCall names the binding the scenario is inside now ("s:events"),
// or "" between bindings. It may be called from any goroutine: the run
// abandoned inside a builtin says which one held it.
func (s *State) ActiveCall() string {
	if p := s.call.Load(); p != nil {
		return *p
	}
	return ""
}

// Exec compiles src as a chunk named name (the name that error messages
// and tracebacks show, e.g. the scenario's path) and runs it, then calls
// the Ended hook. It returns nil when the chunk ran to its end, or the
// error with a traceback.
func (s *State) Exec(name string, src []byte) *runerr.Error {
	fn, err := loadScenario(s.L, string(src), name)
	if err != nil {
		return &runerr.Error{Kind: runerr.KindLua, Message: compileMessage(err, src)}
	}
	s.L.Push(fn)
	e := s.pcall(0)
	if s.cfg.Ended != nil {
		s.cfg.Ended()
	}
	return e
}

// pcall calls the function below nargs arguments on the stack with the
// traceback handler.
func (s *State) pcall(nargs int) *runerr.Error {
	s.trace = ""
	handler := s.L.NewFunction(s.messageHandler)
	err := s.L.PCall(nargs, 0, handler)
	if err == nil {
		return nil
	}
	e := &runerr.Error{Kind: runerr.KindLua, Message: err.Error(), Traceback: s.trace}
	var api *lua.ApiError
	if errors.As(err, &api) {
		e.Message = errorText(s.L, api.Object)
		switch {
		case api.Type == lua.ApiErrorPanic && api.Object.String() == stackOverflow:
			e = overflowError(api.StackTrace)
		case api.Type == lua.ApiErrorPanic:
			e.Kind = runerr.KindBug
			e.Message = "proflab bug (the Lua interpreter panicked): " + api.Error()
		}
	}
	if b := s.Bug(); b != nil && e.Kind == runerr.KindLua && strings.Contains(e.Message, "proflab bug in") {
		e.Kind, e.GoStack = runerr.KindBug, b.GoStack
	}
	e.Message = shorten(e.Message)
	return e
}

// overflowWhere is the "file:line: " of the innermost Lua frame of a
// stack trace taken at a call stack overflow (gopher-lua panics there, so
// the message handler cannot run).
func overflowWhere(trace string) string {
	for _, line := range strings.Split(trace, "\n") {
		line = strings.TrimSpace(line)
		if w := WherePrefix(line); w != "" && !strings.HasPrefix(line, "[G]") {
			return w
		}
	}
	return ""
}

// overflowTraceback keeps the Lua part of the stack trace of an overflow,
// shortened as traceback does.
func overflowTraceback(trace string) string {
	i := strings.Index(trace, "stack traceback:")
	if i < 0 {
		return ""
	}
	var lines []string
	for _, line := range strings.Split(trace[i+len("stack traceback:"):], "\n") {
		if line = strings.TrimSpace(line); line != "" {
			lines = append(lines, "\t"+line)
		}
	}
	if len(lines) > 22 {
		lines = append(append(lines[:10:10], "\t..."), lines[len(lines)-11:]...)
	}
	return "stack traceback:\n" + strings.Join(lines, "\n")
}

// WherePrefix returns the "file:line: " at the start of a Lua error
// message, or "" when it has none.
func WherePrefix(msg string) string {
	i := strings.Index(msg, ": ")
	if i <= 0 {
		return ""
	}
	head := msg[:i]
	j := strings.LastIndexByte(head, ':')
	if j <= 0 || j == len(head)-1 || strings.Trim(head[j+1:], "0123456789") != "" {
		return ""
	}
	return head + ": "
}

// maxMessage bounds an error message: a scenario that raises (or passes
// to a binding) a 10 MB string gets its head and tail, and its length.
const maxMessage = 4096

// shorten keeps a message of at most about maxMessage bytes: the head and
// the tail of a longer one, with the length of what it left out.
func shorten(msg string) string {
	if len(msg) <= maxMessage {
		return msg
	}
	head, tail := msg[:maxMessage*3/4], msg[len(msg)-maxMessage/4:]
	return strings.ToValidUTF8(head, "") + fmt.Sprintf(" … [%d bytes left out of a %d-byte message] … ", len(msg)-len(head)-len(tail), len(msg)) + strings.ToValidUTF8(tail, "")
}

// messageHandler runs at the point of the error, before the stack unwinds:
// it captures the traceback and returns the error value unchanged.
func (s *State) messageHandler(L *lua.LState) int {
	s.trace = traceback(L, 1)
	L.Push(L.Get(1))
	return 1
}

// syntaxError matches gopher-lua's compile errors:
// "s.lua line:2(column:7) near '=':   syntax error".
var syntaxError = regexp.MustCompile(`(?s)^(.*) line:(\d+)\(column:(\d+)\) near '(.*)':\s+(.*)$`)

// eofError matches a compile error at the end: "s.lua at EOF:   syntax error".
var eofError = regexp.MustCompile(`(?s)^(.*) at EOF:\s+(.*)$`)

// compileMessage is the syntax error of a chunk src, as
// "file:line:column: syntax error near '='"; an error at the end of the
// file names the chunk's last line that holds anything.
func compileMessage(err error, src []byte) string {
	msg := strings.TrimSpace(err.Error())
	var api *lua.ApiError
	if errors.As(err, &api) && api.Object != nil {
		msg = strings.TrimSpace(api.Object.String())
	}
	if m := syntaxError.FindStringSubmatch(msg); m != nil {
		return fmt.Sprintf("%s:%s:%s: %s near '%s'", m[1], m[2], m[3], strings.TrimSpace(m[5]), m[4])
	}
	if m := eofError.FindStringSubmatch(msg); m != nil {
		return fmt.Sprintf("%s:%d: %s at the end of the file (an unclosed bracket, string, function or block above?)", m[1], lastLine(src), strings.TrimSpace(m[2]))
	}
	return msg
}

// lastLine is the number of the last line of src holding anything but
// white space (1 for an empty chunk).
func lastLine(src []byte) int {
	lines := strings.Split(string(src), "\n")
	for i := len(lines) - 1; i > 0; i-- {
		if strings.TrimSpace(lines[i]) != "" {
			return i + 1
		}
	}
	return 1
}

// errorText is the text of an error value: a string as is, a value with
// __tostring through it, anything else described.
func errorText(L *lua.LState, lv lua.LValue) string {
	switch v := lv.(type) {
	case lua.LString:
		return string(v)
	case lua.LNumber:
		return lua.LVAsString(v)
	case nil:
		return "error with no message"
	}
	if lv == lua.LNil {
		return "error(nil) raised: an error with no message"
	}
	if mt, ok := L.GetMetaField(lv, "__tostring").(*lua.LFunction); ok && mt != nil {
		if s, ok := safeToString(L, lv); ok {
			return s
		}
	}
	return fmt.Sprintf("error raised with a %s value (not a string)", TypeName(lv))
}

// safeToString calls tostring on lv, reporting failure instead of raising.
func safeToString(L *lua.LState, lv lua.LValue) (s string, ok bool) {
	defer func() {
		if recover() != nil {
			ok = false
		}
	}()
	return L.ToStringMeta(lv).String(), true
}

// traceback formats the Lua stack from level on, like Lua's
// debug.traceback, at most 22 lines: the first 10 levels and the last 11.
//
// gopher-lua counts every tail call a frame made as a level of its own (a
// frame reused a million times by `return f()` is a million levels deep),
// so the levels are not walked one by one: the depth is found by
// bisection, and only the levels shown are looked at. A tail-call loop
// ended by the time budget is reported at once, not after formatting
// every call it made.
func traceback(L *lua.LState, level int) string {
	last := stackDepth(L, level)
	if last < level {
		return ""
	}
	var lines []string
	// A level that a tail call took is given the stack's bottom frame:
	// it is written as Lua 5.1 writes it.
	bottom, _ := L.GetStack(last)
	bottomFrame := *bottom
	show := func(from, to int) {
		for l := from; l <= to; l++ {
			dbg, _ := L.GetStack(l)
			if l < last && *dbg == bottomFrame {
				lines = append(lines, "\t(tail call): ?")
				continue
			}
			fn, err := L.GetInfo("Slnf", dbg, lua.LNil)
			if err != nil {
				return
			}
			if fn == concatFunction {
				lines = append(lines, "\t[Go]: in "+concatName)
				continue
			}
			lines = append(lines, "\t"+frameLine(dbg))
		}
	}
	if last-level+1 > 22 {
		show(level, level+9)
		lines = append(lines, "\t...")
		show(last-10, last)
	} else {
		show(level, last)
	}
	return "stack traceback:\n" + strings.Join(lines, "\n")
}

// stackDepth is the deepest level L.GetStack has from level on (level-1
// when it has none there): levels are there up to the depth and none past
// it, so it doubles a bound, then bisects.
func stackDepth(L *lua.LState, level int) int {
	has := func(l int) bool { _, ok := L.GetStack(l); return ok }
	if !has(level) {
		return level - 1
	}
	lo, step := level, 1 // has(lo)
	for has(lo + step) {
		lo += step
		step *= 2
	}
	hi := lo + step // !has(hi)
	for hi-lo > 1 {
		mid := lo + (hi-lo)/2
		if has(mid) {
			lo = mid
		} else {
			hi = mid
		}
	}
	return lo
}

// frameLine is one traceback line.
func frameLine(dbg *lua.Debug) string {
	where := "[Go]"
	if dbg.What != "G" {
		where = fmt.Sprintf("%s:%d", dbg.Source, dbg.CurrentLine)
	}
	switch {
	case dbg.What == "main" || dbg.Name == "main chunk":
		return where + ": in main chunk"
	case dbg.Name == "" || dbg.Name == "?":
		if dbg.What == "G" {
			return where + ": in a Go function"
		}
		return fmt.Sprintf("%s: in function <%s:%d>", where, dbg.Source, dbg.LineDefined)
	case strings.HasPrefix(dbg.Name, "<") || strings.HasPrefix(dbg.Name, "("):
		return where + ": in function " + dbg.Name
	}
	return fmt.Sprintf("%s: in function '%s'", where, dbg.Name)
}

// CallerWhere is "file:line" of the scenario code that called the current
// Go function: the nearest Lua frame that is not a library module, so that
// a check made by a helper of scripts/ points at the scenario's line ("?"
// when no Lua frame is found).
func (s *State) CallerWhere(L *lua.LState) string {
	first := ""
	for level := 1; ; level++ {
		dbg, ok := L.GetStack(level)
		if !ok {
			if L.Parent != nil { // a coroutine: go on in the one that resumed it
				L, level = L.Parent, 0
				continue
			}
			break
		}
		if _, err := L.GetInfo("Sl", dbg, lua.LNil); err != nil || dbg.What == "G" {
			continue
		}
		where := fmt.Sprintf("%s:%d", dbg.Source, dbg.CurrentLine)
		if first == "" {
			first = where
		}
		if !s.isLibraryChunk(dbg.Source) {
			return where
		}
	}
	if first == "" {
		return "?"
	}
	return first
}
