package luavm

import (
	"fmt"
	"strconv"
	"strings"

	lua "github.com/yuin/gopher-lua"
)

// U64 is the Go value inside a lab.u64 userdata: an exact unsigned 64-bit
// integer.
type U64 uint64

// u64TypeName is the registry key of the u64 metatable.
const u64TypeName = "proflab.u64"

// String formats the value as docs/scenario-api.md#values prescribes:
// "0x", upper-case hex, no padding ("0xFFFFF80000001000", "0x0").
func (v U64) String() string { return "0x" + strings.ToUpper(strconv.FormatUint(uint64(v), 16)) }

// newU64 returns a u64 userdata holding v.
func newU64(L *lua.LState, v uint64) *lua.LUserData {
	ud := L.NewUserData()
	ud.Value = U64(v)
	ud.Metatable = u64Metatable(L)
	return ud
}

// u64Metatable is the metatable of u64 values, registered in L's registry
// when the state makes its first one: a run that makes none (most do not)
// does not build its dozen metamethods. A script reaches it only through
// a u64 value (its __metatable hides it), so when it is made changes
// nothing a script sees.
func u64Metatable(L *lua.LState) lua.LValue {
	mt := L.GetTypeMetatable(u64TypeName)
	if mt == lua.LNil {
		if s := stateOf(L); s != nil {
			s.registerU64(s.L)
			mt = L.GetTypeMetatable(u64TypeName)
		}
	}
	return mt
}

// pushU64 pushes a u64 userdata holding v.
func pushU64(L *lua.LState, v uint64) { L.Push(newU64(L, v)) }

// AsU64 reports whether lv is a u64 userdata, and its value.
func AsU64(lv lua.LValue) (uint64, bool) {
	ud, ok := lv.(*lua.LUserData)
	if !ok {
		return 0, false
	}
	v, ok := ud.Value.(U64)
	return uint64(v), ok
}

// ResultValue converts a value the API returns: a number when below 2^53,
// a u64 otherwise (docs/scenario-api.md#values, "Results").
func ResultValue(L *lua.LState, v uint64) lua.LValue {
	if v < exactLimit {
		return lua.LNumber(v)
	}
	return newU64(L, v)
}

// PushResult pushes ResultValue(L, v).
func PushResult(L *lua.LState, v uint64) { L.Push(ResultValue(L, v)) }

// parseU64 parses the string forms lab.u64 accepts: "0x" hex or decimal,
// optionally signed ("-1" is all ones), surrounding spaces ignored, and
// underscores between digits allowed ("0xFFFF_F800_0000_1000").
func parseU64(s string) (uint64, error) {
	t := strings.TrimSpace(s)
	neg := false
	switch {
	case strings.HasPrefix(t, "-"):
		neg, t = true, t[1:]
	case strings.HasPrefix(t, "+"):
		t = t[1:]
	}
	base := 10
	if len(t) > 1 && t[0] == '0' && (t[1] == 'x' || t[1] == 'X') {
		base, t = 16, t[2:]
	}
	if t == "" || t[0] == '_' || t[len(t)-1] == '_' || strings.Contains(t, "__") {
		return 0, fmt.Errorf("%q is not an integer (write \"0x\" and hex digits, or decimal digits)", s)
	}
	v, err := strconv.ParseUint(strings.ReplaceAll(t, "_", ""), base, 64)
	if err != nil {
		if ne, ok := err.(*strconv.NumError); ok && ne.Err == strconv.ErrRange {
			return 0, fmt.Errorf("%q does not fit in 64 bits", s)
		}
		return 0, fmt.Errorf("%q is not an integer (write \"0x\" and hex digits, or decimal digits)", s)
	}
	if neg {
		v = -v
	}
	return v, nil
}

// registerU64 installs the u64 metatable in L's registry (u64Metatable
// calls it when the state makes its first u64).
func (s *State) registerU64(L *lua.LState) {
	mt := L.NewTypeMetatable(u64TypeName)
	arith := func(op string, f func(L *lua.LState, a, b uint64) uint64) {
		mt.RawSetString(op, s.fn("u64 "+op, func(L *lua.LState) int {
			a := u64Operand(L, 1, op)
			b := u64Operand(L, 2, op)
			pushU64(L, f(L, a, b))
			return 1
		}))
	}
	arith("__add", func(_ *lua.LState, a, b uint64) uint64 { return a + b })
	arith("__sub", func(_ *lua.LState, a, b uint64) uint64 { return a - b })
	arith("__mul", func(_ *lua.LState, a, b uint64) uint64 { return a * b })
	arith("__div", func(L *lua.LState, a, b uint64) uint64 {
		if b == 0 {
			L.RaiseError("u64 division by zero")
		}
		return a / b
	})
	arith("__mod", func(L *lua.LState, a, b uint64) uint64 {
		if b == 0 {
			L.RaiseError("u64 modulo by zero")
		}
		return a % b
	})
	arith("__pow", func(_ *lua.LState, a, b uint64) uint64 { return powMod64(a, b) })
	mt.RawSetString("__unm", s.fn("u64 __unm", func(L *lua.LState) int {
		v, _ := AsU64(L.Get(1))
		pushU64(L, -v)
		return 1
	}))
	compare := func(op string, f func(a, b uint64) bool) {
		mt.RawSetString(op, s.fn("u64 "+op, func(L *lua.LState) int {
			a := u64Operand(L, 1, op)
			b := u64Operand(L, 2, op)
			L.Push(lua.LBool(f(a, b)))
			return 1
		}))
	}
	compare("__eq", func(a, b uint64) bool { return a == b })
	compare("__lt", func(a, b uint64) bool { return a < b })
	compare("__le", func(a, b uint64) bool { return a <= b })
	mt.RawSetString("__tostring", s.fn("u64 __tostring", func(L *lua.LState) int {
		v, _ := AsU64(L.Get(1))
		L.Push(lua.LString(U64(v).String()))
		return 1
	}))
	mt.RawSetString("__concat", s.fn("u64 __concat", func(L *lua.LState) int {
		L.Push(lua.LString(concatPiece(L, L.Get(1)) + concatPiece(L, L.Get(2))))
		return 1
	}))
	mt.RawSetString("__metatable", lua.LString(u64TypeName))
}

// u64Operand converts one operand of a u64 metamethod: a u64, an integral
// number (negative numbers are taken modulo 2^64) or a string lab.u64
// accepts.
func u64Operand(L *lua.LState, n int, op string) uint64 {
	lv := L.Get(n)
	if v, ok := AsU64(lv); ok {
		return v
	}
	v, err := u64From(lv)
	if err != nil {
		L.RaiseError("u64 %s: operand %d: %s", strings.TrimPrefix(op, "__"), n, err)
	}
	return v
}

// concatPiece is the text of one operand of "..": a u64 as its tostring,
// anything else as Lua would show it.
func concatPiece(L *lua.LState, lv lua.LValue) string {
	if v, ok := AsU64(lv); ok {
		return U64(v).String()
	}
	switch lv.Type() {
	case lua.LTString, lua.LTNumber:
		return lua.LVAsString(lv)
	}
	L.RaiseError("attempt to concatenate a %s value with a u64", lv.Type())
	return ""
}

// powMod64 is a**b modulo 2^64.
func powMod64(a, b uint64) uint64 {
	r := uint64(1)
	for b > 0 {
		if b&1 == 1 {
			r *= a
		}
		a *= a
		b >>= 1
	}
	return r
}

// u64From converts what lab.u64 accepts: a u64, an integral number with
// magnitude below 2^53 (negative: two's complement), or a string.
func u64From(lv lua.LValue) (uint64, error) {
	switch v := lv.(type) {
	case lua.LNumber:
		i, err := exactInt(float64(v))
		if err != nil {
			return 0, err
		}
		return uint64(i), nil
	case lua.LString:
		return parseU64(string(v))
	}
	if v, ok := AsU64(lv); ok {
		return v, nil
	}
	return 0, fmt.Errorf("expected a number, a string or a u64, got %s", TypeName(lv))
}

// U64Func is the Lua function that makes a u64: from a number (integral,
// below 2^53 in magnitude, negative ones as two's complement), a string
// ("0x…" or decimal, optionally signed, underscores allowed between
// digits) or a u64. The proflab module offers it as lab.u64; fn is the
// name its errors give ("lab.u64").
func U64Func(fn string) lua.LGFunction {
	return func(L *lua.LState) int {
		pushU64(L, NewArgs(L, fn).U64(1, "v"))
		return 1
	}
}

// ToNumberFunc is the Lua function that turns a u64 (or a number) into a
// Lua number, an error unless it is below 2^53. The proflab module offers
// it as lab.tonumber; fn is the name its errors give ("lab.tonumber").
func ToNumberFunc(fn string) lua.LGFunction {
	return func(L *lua.LState) int {
		a := NewArgs(L, fn)
		lv := a.Get(1)
		if n, ok := lv.(lua.LNumber); ok {
			L.Push(n)
			return 1
		}
		v, ok := AsU64(lv)
		if !ok {
			a.Errorf(1, "u", "expected a u64 or a number, got %s", TypeName(lv))
		}
		if v >= exactLimit {
			a.Errorf(1, "u", "%s is 2^53 or more, so a Lua number cannot hold it exactly; keep it as a u64", U64(v))
		}
		L.Push(lua.LNumber(v))
		return 1
	}
}
