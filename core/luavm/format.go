package luavm

import (
	"strings"

	lua "github.com/yuin/gopher-lua"

	"github.com/proflab/proflab/core/luavm/cformat"
)

// string.format as Lua 5.1's (lstrlib.c, str_format), which hands each
// conversion to C's sprintf after converting its argument: %d and %i take
// the number cast to a C long, %o %u %x %X to an unsigned long, %c to an
// int, %e %E %f %g %G a double; %q quotes a string; %s a string. The
// answers here are those of Lua 5.1 built by gcc for x86-64 Linux
// (glibc's printf), byte for byte, with these choices where that build's
// answer is an accident of C (docs/scenario-api.md, "string.format"):
//
//   - A u64 is exact in every integer conversion: %x %X %o %u print its
//     64 bits, %d and %i its unsigned value (a u64 is unsigned), %c its
//     low byte. %s shows its tostring; %e %E %f %g %G refuse it.
//   - A number out of the range of the C cast converts as the x86-64
//     instruction gcc emits does (cvttsd2si): %d of NaN, ±inf or a value
//     beyond ±2^63 is -9223372036854775808 (0x8000000000000000); %x of a
//     value from 2^64 up is 0, of one below -2^63 (or of -inf, NaN)
//     8000000000000000; %c of a value beyond 32 bits is a zero byte.
//   - %c of 0 is a zero byte (Lua 5.1 loses it, as its sprintf buffer ends
//     there), and %s of a string with a zero byte is an error unless the
//     string is written whole (100 bytes or more, no precision), as the
//     manual says and Lua 5.2 does (Lua 5.1 silently cuts it at the zero).
//   - %s shows any value as tostring does (stable names for tables and
//     the like, __tostring, numbers as proflab prints them); %q quotes a
//     string or a number (as tostring shows it).

// fmtPiece is a piece of string.format's result: text, or a string that
// %q quotes as the result is built (so that a refused result is never
// built, not even in part).
type fmtPiece struct {
	text  string
	quote bool
}

func (p fmtPiece) size() int64 {
	if p.quote {
		return cformat.QuotedSize(p.text)
	}
	return int64(len(p.text))
}

// stringFormat is string.format(f, ...): Lua 5.1's, with u64 values and
// stable names (see the top of this file). Its result is refused before
// it is built when it would exceed the run's memory budget.
func (s *State) stringFormat(L *lua.LState) int {
	f := s.formatString(L)
	top := L.GetTop()
	pieces := make([]fmtPiece, 0, 2*top) // literal text and one conversion per argument
	var size int64
	add := func(p fmtPiece) {
		pieces = append(pieces, p)
		size += p.size()
	}
	arg := 1
	lit := 0 // start of the literal text not yet added
	for i := 0; i < len(f); {
		if f[i] != '%' {
			i++
			continue
		}
		if i+1 < len(f) && f[i+1] == '%' {
			add(fmtPiece{text: f[lit : i+1]})
			i += 2
			lit = i
			continue
		}
		if lit < i {
			add(fmtPiece{text: f[lit:i]})
		}
		arg++
		if arg > top {
			sp, _, _ := cformat.Scan(f, i)
			L.RaiseError("bad argument #%d to 'format' (no value) for '%s'", arg, sp.Text)
		}
		sp, next, err := cformat.Scan(f, i)
		if err != nil {
			L.RaiseError("%s", err.Error())
		}
		add(s.formatItem(L, sp, arg))
		i, lit = next, next
	}
	if lit < len(f) {
		add(fmtPiece{text: f[lit:]})
	}
	s.checkSize(L, "string.format", size)
	var b strings.Builder
	b.Grow(int(size))
	for _, p := range pieces {
		if p.quote {
			cformat.WriteQuoted(&b, p.text)
		} else {
			b.WriteString(p.text)
		}
	}
	L.Push(lua.LString(b.String()))
	return 1
}

// formatString is string.format's first argument: a string, or a number
// as its text (as Lua 5.1's luaL_checklstring).
func (s *State) formatString(L *lua.LState) string {
	switch v := L.Get(1).(type) {
	case lua.LString:
		return string(v)
	case lua.LNumber:
		return v.String()
	}
	L.RaiseError("bad argument #1 to 'format' (string expected, got %s)", TypeName(L.Get(1)))
	return ""
}

// formatItem converts argument arg by the spec sp.
func (s *State) formatItem(L *lua.LState, sp cformat.Spec, arg int) fmtPiece {
	lv := L.Get(arg)
	switch sp.Conv {
	case 'd', 'i':
		if u, ok := AsU64(lv); ok {
			return fmtPiece{text: sp.Integer(false, u)}
		}
		n := cformat.CLong(formatNumberArg(L, sp, arg))
		if n < 0 {
			return fmtPiece{text: sp.Integer(true, -uint64(n))}
		}
		return fmtPiece{text: sp.Integer(false, uint64(n))}
	case 'o', 'u', 'x', 'X':
		if u, ok := AsU64(lv); ok {
			return fmtPiece{text: sp.Integer(false, u)}
		}
		return fmtPiece{text: sp.Integer(false, cformat.CUnsignedLong(formatNumberArg(L, sp, arg)))}
	case 'c':
		var c byte // C's %c writes the int as an unsigned char
		if u, ok := AsU64(lv); ok {
			c = byte(u)
		} else {
			c = byte(cformat.CInt(formatNumberArg(L, sp, arg)))
		}
		return fmtPiece{text: sp.Pad("", string([]byte{c}), false)}
	case 'e', 'E', 'f', 'g', 'G':
		if _, ok := AsU64(lv); ok {
			formatArgError(L, sp, arg, "number expected, got u64", "lab.tonumber(u) converts a u64 below 2^53 to a number")
		}
		return fmtPiece{text: sp.Float(formatNumberArg(L, sp, arg))}
	case 'q':
		switch v := lv.(type) {
		case lua.LString:
			return fmtPiece{text: string(v), quote: true}
		case lua.LNumber:
			return fmtPiece{text: s.ToString(L, v), quote: true}
		}
		formatArgError(L, sp, arg, "string expected, got "+TypeName(lv), "")
	case 's':
		str := s.formatText(L, lv)
		if sp.Prec < 0 && len(str) >= 100 {
			return fmtPiece{text: str} // whole, as Lua 5.1 (wider than any width)
		}
		if strings.IndexByte(str, 0) >= 0 {
			formatArgError(L, sp, arg, "string contains zeros", "join such a string with .. instead, or quote it with %q")
		}
		if sp.Prec >= 0 && len(str) > sp.Prec {
			str = str[:sp.Prec]
		}
		return fmtPiece{text: sp.Pad("", str, false)}
	}
	L.RaiseError("%s", sp.InvalidOption().Error())
	return fmtPiece{}
}

// formatText is the text %s shows for lv: tostring's (a u64's hex, a
// table's stable name, __tostring's answer).
func (s *State) formatText(L *lua.LState, lv lua.LValue) string {
	if u, ok := AsU64(lv); ok {
		return U64(u).String()
	}
	if str, ok := lv.(lua.LString); ok {
		return string(str)
	}
	return s.ToString(L, lv)
}

// formatNumberArg is argument arg as a number, as Lua 5.1's
// luaL_checknumber: a number, or a string that converts to one.
func formatNumberArg(L *lua.LState, sp cformat.Spec, arg int) float64 {
	switch v := L.Get(arg).(type) {
	case lua.LNumber:
		return float64(v)
	case lua.LString:
		if x, ok := cformat.Str2Number(string(v)); ok {
			return x
		}
	}
	formatArgError(L, sp, arg, "number expected, got "+TypeName(L.Get(arg)), "")
	return 0
}

// formatArgError raises Lua 5.1's "bad argument" error, naming the
// conversion, with advice when there is some.
func formatArgError(L *lua.LState, sp cformat.Spec, arg int, msg, advice string) {
	if advice != "" {
		advice = "; " + advice
	}
	L.RaiseError("bad argument #%d to 'format' (%s) for '%s'%s", arg, msg, sp.Text, advice)
}
