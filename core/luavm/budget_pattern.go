package luavm

import (
	"strings"

	lua "github.com/yuin/gopher-lua"

	"github.com/proflab/proflab/core/luavm/lpattern"
)

// The pattern builtins (string.find, match, gmatch and gsub) match with
// lpattern, gopher-lua's matcher counting its steps: a pathological
// pattern (string.find(string.rep("a", 1e6), ".-.-.-.-.-b") backtracks
// for days) looks at the run's context every lpattern.CheckEvery steps
// and stops, within milliseconds, when the time or memory budget ends
// the run, instead of going on in the background after the run was
// abandoned. Their answers are gopher-lua's, call for call.

// patternAdvice is what a pattern stopped by a budget tells the scenario.
const patternAdvice = "a pattern with several '-' or '*' items that fails backtracks over every way to split the subject: anchor it, use fewer such items, or match in steps"

// findMatches is lpattern.Find under the run's context: a budget that
// ends the run raises its error (fn: the builtin) at the scenario's line.
func (s *State) findMatches(L *lua.LState, fn, pattern, str string, offset, limit int) []*lpattern.MatchData {
	mds, err := lpattern.Find(pattern, []byte(str), offset, limit, s.ctx.Err)
	if err != nil {
		if s.ctx.Err() != nil {
			s.raiseBuiltinEnded(L, fn, "while matching a pattern", patternAdvice)
		}
		L.RaiseError("%s", err.Error())
	}
	return mds
}

// stringFind is string.find(s, pattern [, init [, plain]]).
func (s *State) stringFind(L *lua.LState) int {
	str := L.CheckString(1)
	pattern := L.CheckString(2)
	if len(pattern) == 0 {
		L.Push(lua.LNumber(1))
		L.Push(lua.LNumber(0))
		return 2
	}
	init := stringIndex(str, L.OptInt(3, 1))
	if L.GetTop() == 4 && lua.LVAsBool(L.Get(4)) {
		pos := strings.Index(str[init:], pattern)
		if pos < 0 {
			L.Push(lua.LNil)
			return 1
		}
		L.Push(lua.LNumber(init+pos) + 1)
		L.Push(lua.LNumber(init + pos + len(pattern)))
		return 2
	}
	mds := s.findMatches(L, "string.find", pattern, str, init, 1)
	if len(mds) == 0 {
		L.Push(lua.LNil)
		return 1
	}
	md := mds[0]
	L.Push(lua.LNumber(md.Capture(0) + 1))
	L.Push(lua.LNumber(md.Capture(1)))
	pushCaptures(L, str, md)
	return md.CaptureLength()/2 + 1
}

// stringMatch is string.match(s, pattern [, init]).
func (s *State) stringMatch(L *lua.LState) int {
	str := L.CheckString(1)
	pattern := L.CheckString(2)
	offset := L.OptInt(3, 1)
	if offset < 0 {
		offset = len(str) + offset + 1
	}
	offset = max(offset-1, 0)
	mds := s.findMatches(L, "string.match", pattern, str, offset, 1)
	if len(mds) == 0 {
		L.Push(lua.LNil)
		return 0 // (gopher-lua's answer: no value, not nil)
	}
	md := mds[0]
	if md.CaptureLength() == 2 {
		L.Push(lua.LString(str[md.Capture(0):md.Capture(1)]))
		return 1
	}
	pushCaptures(L, str, md)
	return md.CaptureLength()/2 - 1
}

// stringGmatch is string.gmatch(s, pattern): every match is found at the
// call, as gopher-lua's are, and the iterator returns them in turn.
func (s *State) stringGmatch(L *lua.LState) int {
	str := L.CheckString(1)
	pattern := L.CheckString(2)
	mds := s.findMatches(L, "string.gmatch", pattern, str, 0, -1)
	next := 0
	L.Push(L.NewFunction(func(L *lua.LState) int {
		if next == len(mds) {
			return 0
		}
		md := mds[next]
		next++
		if md.CaptureLength() == 2 {
			L.Push(lua.LString(str[md.Capture(0):md.Capture(1)]))
			return 1
		}
		pushCaptures(L, str, md)
		return md.CaptureLength()/2 - 1
	}))
	return 1
}

// pushCaptures pushes a match's captures (a position capture as its
// number).
func pushCaptures(L *lua.LState, str string, md *lpattern.MatchData) {
	for i := 2; i < md.CaptureLength(); i += 2 {
		if md.IsPosCapture(i) {
			L.Push(lua.LNumber(md.Capture(i)))
		} else {
			L.Push(lua.LString(str[md.Capture(i):md.Capture(i+1)]))
		}
	}
}

// stringIndex is a Lua start index i (from 1; negative from the end)
// as a byte offset into str, as gopher-lua's luaIndex2StringIndex makes
// string.find's init.
func stringIndex(str string, i int) int {
	if i != 0 {
		i--
	}
	if i < 0 {
		i = len(str) + i + 1
	}
	return max(0, i)
}
