package luavm

import (
	"fmt"
	"strings"

	lua "github.com/yuin/gopher-lua"

	"github.com/proflab/proflab/core/luavm/lpattern"
)

// The string builtins that can build a result many times their input in
// one Go call, bounded by the run's memory budget before (format, in
// format.go) or while (gsub) they build it: one string.format("%9999999d"
// × 3000, …) asked for 30 GB and a gsub peaked at 3.3 times its budget,
// each inside a call that cannot be interrupted.

// stringGsub is string.gsub(s, pattern, repl [, n]), built in one pass
// (gopher-lua's copies the whole string again at every replacement) and
// refused once the result grows over the budget. Its answers are
// gopher-lua's, replacement for replacement.
func (s *State) stringGsub(L *lua.LState) int {
	str := L.CheckString(1)
	pat := L.CheckString(2)
	L.CheckTypes(3, lua.LTString, lua.LTTable, lua.LTFunction)
	repl := L.CheckAny(3)
	limit := L.OptInt(4, -1)
	mds := s.findMatches(L, "string.gsub", pat, str, 0, limit)
	if len(mds) == 0 {
		L.SetTop(1)
		L.Push(lua.LNumber(0))
		return 2
	}
	budget := s.memoryLimit()
	var b strings.Builder
	last := 0
	for _, m := range mds {
		start, end := m.Capture(0), m.Capture(1)
		r, ok := gsubReplacement(L, str, m, repl)
		if !ok {
			continue
		}
		b.WriteString(str[last:start])
		b.WriteString(r)
		last = end
		if budget > 0 && int64(b.Len()+len(str)-last) > budget {
			s.checkSize(L, "string.gsub", int64(b.Len()+len(str)-last))
		}
	}
	b.WriteString(str[last:])
	L.Push(lua.LString(b.String()))
	L.Push(lua.LNumber(len(mds)))
	return 2
}

// gsubReplacement is what replaces the match m: repl expanded (a string,
// %0–%9 its captures), looked up (a table) or called (a function); ok is
// false to keep the match (a false or nil answer).
func gsubReplacement(L *lua.LState, str string, m *lpattern.MatchData, repl lua.LValue) (string, bool) {
	switch r := repl.(type) {
	case lua.LString:
		return expandReplacement(L, str, m, string(r)), true
	case *lua.LTable:
		idx := 0
		if m.CaptureLength() > 2 { // has captures
			idx = 2
		}
		var v lua.LValue
		if m.IsPosCapture(idx) {
			v = L.GetTable(r, lua.LNumber(m.Capture(idx)))
		} else {
			v = L.GetField(r, str[m.Capture(idx):m.Capture(idx+1)])
		}
		return lua.LVAsString(v), !lua.LVIsFalse(v)
	case *lua.LFunction:
		L.Push(r)
		nargs := 0
		if m.CaptureLength() > 2 {
			for i := 2; i < m.CaptureLength(); i += 2 {
				if m.IsPosCapture(i) {
					L.Push(lua.LNumber(m.Capture(i)))
				} else {
					L.Push(lua.LString(captured(L, m, str, i)))
				}
				nargs++
			}
		} else {
			L.Push(lua.LString(captured(L, m, str, 0)))
			nargs++
		}
		L.Call(nargs, 1)
		v := L.Get(-1)
		L.Pop(1)
		return lua.LVAsString(v), !lua.LVIsFalse(v)
	}
	return "", false
}

// expandReplacement expands a string replacement as gopher-lua does: %d
// is capture d (%0 and, without captures, %1 the whole match), %% a
// percent sign, and % before anything else stays as written.
func expandReplacement(L *lua.LState, str string, m *lpattern.MatchData, repl string) string {
	var b strings.Builder
	for i := 0; i < len(repl); i++ {
		c := repl[i]
		if c != '%' || i == len(repl)-1 {
			b.WriteByte(c)
			continue
		}
		i++
		switch d := repl[i]; {
		case d == '%':
			b.WriteByte('%')
		case d >= '0' && d <= '9':
			b.WriteString(captured(L, m, str, 2*int(d-'0')))
		default:
			b.WriteByte('%')
			b.WriteByte(d)
		}
	}
	return b.String()
}

// captured is capture idx/2 of the match (a position capture as its
// number), as gopher-lua's capturedString.
func captured(L *lua.LState, m *lpattern.MatchData, str string, idx int) string {
	if idx > 2 && idx >= m.CaptureLength() {
		L.RaiseError("invalid capture index")
	}
	if idx >= m.CaptureLength() && idx == 2 {
		idx = 0
	}
	if m.IsPosCapture(idx) {
		return fmt.Sprint(m.Capture(idx))
	}
	return str[m.Capture(idx):m.Capture(idx+1)]
}
