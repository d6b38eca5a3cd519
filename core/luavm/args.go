package luavm

import (
	"fmt"
	"math"

	lua "github.com/yuin/gopher-lua"
)

// Args reads the arguments of one binding call and raises Lua errors that
// name the function and the argument. Positions are the ones the user sees:
// for a method (p:NtClose(h)) the first argument after self is 1.
type Args struct {
	L    *lua.LState
	Fn   string // as the user wrote it: "p:NtCreateProfile", "lab.u64"
	Self bool   // a method: the stack's first slot is self
}

// NewArgs returns the argument reader of a function call.
func NewArgs(L *lua.LState, fn string) Args { return Args{L: L, Fn: fn} }

// MethodArgs returns the argument reader of a method call (self skipped).
func MethodArgs(L *lua.LState, fn string) Args { return Args{L: L, Fn: fn, Self: true} }

// index is the stack index of user-visible argument i.
func (a Args) index(i int) int {
	if a.Self {
		return i + 1
	}
	return i
}

// Count is the number of user-visible arguments passed.
func (a Args) Count() int {
	n := a.L.GetTop()
	if a.Self {
		n--
	}
	if n < 0 {
		return 0
	}
	return n
}

// Get returns user-visible argument i (LNil when absent).
func (a Args) Get(i int) lua.LValue { return a.L.Get(a.index(i)) }

// Errorf raises a Lua error about argument i (named name).
func (a Args) Errorf(i int, name, format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	if name != "" {
		a.L.RaiseError("%s: argument #%d (%s): %s", a.Fn, i, name, msg)
	} else {
		a.L.RaiseError("%s: argument #%d: %s", a.Fn, i, msg)
	}
}

// Fail raises a Lua error about the call as a whole.
func (a Args) Fail(format string, args ...any) {
	a.L.RaiseError("%s: %s", a.Fn, fmt.Sprintf(format, args...))
}

// MaxArgs raises an error when more than n user-visible arguments were
// passed (decl describes what the function takes).
func (a Args) MaxArgs(n int, decl string) {
	if c := a.Count(); c > n {
		a.Fail("takes at most %d argument%s (%s), got %d", n, plural(n), decl, c)
	}
}

// Service reads a service parameter of width bytes (1, 2, 4 or 8) as the
// calling convention passes it: nil is 0 (NULL), a number must be
// integral and below 2^53 in magnitude (a negative one is its two's
// complement), a u64 is taken as is, and the result is truncated to the
// width.
func (a Args) Service(i int, name string, width int) uint64 {
	v, err := serviceValue(a.Get(i), width)
	if err != nil {
		a.Errorf(i, name, "%s", err)
	}
	return v
}

// Uint reads a required helper argument (a size, a count, a processor
// number): a number or u64, integral and in [min, max].
func (a Args) Uint(i int, name string, min, max uint64) uint64 {
	v, err := countValue(a.Get(i), min, max)
	if err != nil {
		a.Errorf(i, name, "%s", err)
	}
	return v
}

// OptUint is Uint with a default for nil.
func (a Args) OptUint(i int, name string, def, min, max uint64) uint64 {
	if a.Get(i) == lua.LNil {
		return def
	}
	return a.Uint(i, name, min, max)
}

// Int reads a required helper argument that fits an int in [min, max].
func (a Args) Int(i int, name string, min, max int) int {
	return int(a.Uint(i, name, uint64(min), uint64(max)))
}

// U64 reads an argument as lab.u64 would (number, string or u64).
func (a Args) U64(i int, name string) uint64 {
	v, err := u64From(a.Get(i))
	if err != nil {
		a.Errorf(i, name, "%s", err)
	}
	return v
}

// String reads a required string argument.
func (a Args) String(i int, name string) string {
	lv := a.Get(i)
	s, ok := lv.(lua.LString)
	if !ok {
		a.Errorf(i, name, "expected a string, got %s", TypeName(lv))
	}
	return string(s)
}

// OptString is String with a default for nil.
func (a Args) OptString(i int, name, def string) string {
	if a.Get(i) == lua.LNil {
		return def
	}
	return a.String(i, name)
}

// Table reads a required table argument.
func (a Args) Table(i int, name string) *lua.LTable {
	lv := a.Get(i)
	t, ok := lv.(*lua.LTable)
	if !ok {
		a.Errorf(i, name, "expected a table, got %s", TypeName(lv))
	}
	return t
}

// Number reads a required finite number.
func (a Args) Number(i int, name string) float64 {
	lv := a.Get(i)
	n, ok := lv.(lua.LNumber)
	if !ok {
		a.Errorf(i, name, "expected a number, got %s", TypeName(lv))
	}
	f := float64(n)
	if math.IsNaN(f) || math.IsInf(f, 0) {
		a.Errorf(i, name, "%s is not a finite number", FormatNumber(f))
	}
	return f
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}
