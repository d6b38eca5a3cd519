package luavm

import (
	"crypto/rand"
	"encoding/hex"
	"strings"
	"sync"

	lua "github.com/yuin/gopher-lua"
)

// String concatenation under the memory budget.
//
// gopher-lua builds a .. b in its virtual machine (OP_CONCAT), with no
// hook, in one allocation: s = s .. s went from 64 MiB to 1 GiB between
// two samples of the heap watchdog, and a chain of 250 operands can ask
// for 250 times the largest string at once. So the compiler never emits
// OP_CONCAT for a scenario: the syntax pass (syntax.go) turns each chain
// into a call of concatenate, which is OP_CONCAT's algorithm (the same
// results, metamethods and errors) with the size of each joined string
// checked against the budget before it is built.
//
// The call's function is a constant of the compiled chunk: the pass
// writes concatMarker, a string no scenario can contain (it holds a
// random nonce), and compile replaces that constant by concatFunction.
// The chunk holds no name the script could rebind, and the compiled
// chunks stay shareable between states (compile.go): the function finds
// its state from the interpreter it runs in.
//
// Other builtins need no check of their own when their result is no
// larger than an argument that already exists (string.upper, lower,
// reverse, sub); string.rep, string.format, string.gsub and table.concat
// have theirs (budget.go, budget_string.go, budget_table.go), and the
// long builtins look at the run's context as they go (budget_pattern.go,
// budget_table.go).

// concatName is what messages and tracebacks call the concatenation.
const concatName = "string concatenation (..)"

// concatMarker stands for concatFunction in a chunk's constants between
// the syntax pass and compile.
var concatMarker = func() string {
	nonce := make([]byte, 16)
	_, _ = rand.Read(nonce) // crypto/rand.Read never fails
	return "\x00proflab concatenation " + hex.EncodeToString(nonce)
}()

// concatFunction is the function the compiled chunks call for a chain of
// .. (shared by every state: a Go function's environment cannot be read
// or changed from Lua, getfenv and setfenv refuse).
var concatFunction = func() *lua.LFunction {
	L := lua.NewState(lua.Options{SkipOpenLibs: true})
	defer L.Close()
	return L.NewFunction(concatenate)
}()

// states finds the State of an interpreter (keyed by its lua.Global,
// which its coroutines share), for concatenate.
var states sync.Map // *lua.Global → *State

// stateOf is the State L belongs to, or nil.
func stateOf(L *lua.LState) *State {
	if s, ok := states.Load(L.G); ok {
		return s.(*State)
	}
	return nil
}

// concatenate is a .. b .. … for the operands on the stack: from the
// right, a run of strings and numbers is joined at once (refused when
// larger than the budget), any other pair goes through its __concat
// metamethod, or is an error, as OP_CONCAT does.
func concatenate(L *lua.LState) int {
	s := stateOf(L)
	n := L.GetTop()
	rhs := L.Get(n)
	for i := n - 1; i >= 1; {
		lhs := L.Get(i)
		if !concatenable(lhs) || !concatenable(rhs) {
			op := L.GetMetaField(lhs, "__concat")
			if op == lua.LNil {
				op = L.GetMetaField(rhs, "__concat")
			}
			if op.Type() != lua.LTFunction {
				L.RaiseError("cannot perform concat operation between %v and %v", lhs.Type().String(), rhs.Type().String())
			}
			L.Push(op)
			L.Push(lhs)
			L.Push(rhs)
			L.Call(2, 1)
			rhs = L.Get(-1)
			L.Pop(1)
			i--
			continue
		}
		first := i
		for first > 1 && concatenable(L.Get(first-1)) {
			first--
		}
		var small [8]string // most chains are short: no allocation for the list
		parts := small[:0]
		size := 0
		for k := first; k <= i; k++ {
			p := lua.LVAsString(L.Get(k))
			parts = append(parts, p)
			size += len(p)
		}
		last := lua.LVAsString(rhs)
		parts = append(parts, last)
		size += len(last)
		if s != nil {
			if limit := s.memoryLimit(); limit > 0 && int64(size) > limit {
				s.checkSize(L, concatName, int64(size))
			}
		}
		rhs = lua.LString(strings.Join(parts, ""))
		i = first - 1
	}
	L.Push(rhs)
	return 1
}

// concatenable reports whether v joins as text: a string or a number.
func concatenable(v lua.LValue) bool {
	switch v.(type) {
	case lua.LString, lua.LNumber:
		return true
	}
	return false
}

// useConcatenate puts concatFunction in place of concatMarker in the
// constants of proto and of the functions it defines.
func useConcatenate(proto *lua.FunctionProto) {
	for i, c := range proto.Constants {
		if c == lua.LString(concatMarker) {
			proto.Constants[i] = concatFunction
		}
	}
	for _, p := range proto.FunctionPrototypes {
		useConcatenate(p)
	}
}
