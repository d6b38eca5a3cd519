package luavm

import (
	"fmt"
	"math"
	"math/big"
	"strconv"
	"strings"

	lua "github.com/yuin/gopher-lua"
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

// fmtFlags are the flag characters of a conversion; Lua 5.1 allows at
// most len(fmtFlags) of them ("%-+ #0d"), repeated or not.
const fmtFlags = "-+ #0"

// fmtSpec is one conversion of a format string, such as "%-08.3f".
type fmtSpec struct {
	text                           string // as written, from '%' to the conversion
	minus, plus, space, hash, zero bool
	width                          int
	prec                           int  // -1: none given
	conv                           byte // 0 when the format ends after the flags, width and precision
}

// scanSpec reads the conversion whose '%' is f[i], as Lua 5.1's
// scanformat: flags (at most five), a width and a precision of at most
// two digits each, and the conversion character. It returns the spec and
// the index after it, or Lua 5.1's error.
func scanSpec(f string, i int) (fmtSpec, int, error) {
	sp := fmtSpec{prec: -1}
	start := i
	i++
	flags := i
	for i < len(f) && strings.IndexByte(fmtFlags, f[i]) >= 0 {
		switch f[i] {
		case '-':
			sp.minus = true
		case '+':
			sp.plus = true
		case ' ':
			sp.space = true
		case '#':
			sp.hash = true
		case '0':
			sp.zero = true
		}
		i++
	}
	if i-flags > len(fmtFlags) {
		sp.text = f[start:i]
		return sp, i, fmt.Errorf("invalid format (repeated flags)")
	}
	digits := func() int {
		n := 0
		for d := 0; d < 2 && i < len(f) && isDigit(f[i]); d++ {
			n = n*10 + int(f[i]-'0')
			i++
		}
		return n
	}
	sp.width = digits()
	if i < len(f) && f[i] == '.' {
		i++
		sp.prec = digits()
	}
	if i < len(f) && isDigit(f[i]) {
		sp.text = f[start:i]
		return sp, i, fmt.Errorf("invalid format (width or precision too long)")
	}
	if i < len(f) {
		sp.conv = f[i]
		i++
	}
	sp.text = f[start:i]
	return sp, i, nil
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// invalidOption is Lua 5.1's error for a conversion it does not know.
func (sp fmtSpec) invalidOption() error {
	switch c := sp.conv; {
	case c == 0 && sp.text[len(sp.text)-1] != 0: // the format ended first
		return fmt.Errorf("invalid option '%%' to 'format' (the format ends inside the conversion %q; write %%%% for a percent sign)", sp.text)
	case c < ' ' || c >= 0x7F:
		return fmt.Errorf("invalid option '%%\\%d' to 'format'", c)
	default:
		return fmt.Errorf("invalid option '%%%c' to 'format'", c)
	}
}

// fmtPiece is a piece of string.format's result: text, or a string that
// %q quotes as the result is built (so that a refused result is never
// built, not even in part).
type fmtPiece struct {
	text  string
	quote bool
}

func (p fmtPiece) size() int64 {
	if p.quote {
		return quotedSize(p.text)
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
			sp, _, _ := scanSpec(f, i)
			L.RaiseError("bad argument #%d to 'format' (no value) for '%s'", arg, sp.text)
		}
		sp, next, err := scanSpec(f, i)
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
			writeQuoted(&b, p.text)
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
func (s *State) formatItem(L *lua.LState, sp fmtSpec, arg int) fmtPiece {
	lv := L.Get(arg)
	switch sp.conv {
	case 'd', 'i':
		if u, ok := AsU64(lv); ok {
			return fmtPiece{text: sp.formatInteger(false, u)}
		}
		n := cLong(formatNumberArg(L, sp, arg))
		if n < 0 {
			return fmtPiece{text: sp.formatInteger(true, -uint64(n))}
		}
		return fmtPiece{text: sp.formatInteger(false, uint64(n))}
	case 'o', 'u', 'x', 'X':
		if u, ok := AsU64(lv); ok {
			return fmtPiece{text: sp.formatInteger(false, u)}
		}
		return fmtPiece{text: sp.formatInteger(false, cUnsignedLong(formatNumberArg(L, sp, arg)))}
	case 'c':
		var c byte // C's %c writes the int as an unsigned char
		if u, ok := AsU64(lv); ok {
			c = byte(u)
		} else {
			c = byte(cInt(formatNumberArg(L, sp, arg)))
		}
		return fmtPiece{text: sp.pad("", string([]byte{c}), false)}
	case 'e', 'E', 'f', 'g', 'G':
		if _, ok := AsU64(lv); ok {
			formatArgError(L, sp, arg, "number expected, got u64", "lab.tonumber(u) converts a u64 below 2^53 to a number")
		}
		return fmtPiece{text: sp.formatFloat(formatNumberArg(L, sp, arg))}
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
		if sp.prec < 0 && len(str) >= 100 {
			return fmtPiece{text: str} // whole, as Lua 5.1 (wider than any width)
		}
		if strings.IndexByte(str, 0) >= 0 {
			formatArgError(L, sp, arg, "string contains zeros", "join such a string with .. instead, or quote it with %q")
		}
		if sp.prec >= 0 && len(str) > sp.prec {
			str = str[:sp.prec]
		}
		return fmtPiece{text: sp.pad("", str, false)}
	}
	L.RaiseError("%s", sp.invalidOption().Error())
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
func formatNumberArg(L *lua.LState, sp fmtSpec, arg int) float64 {
	switch v := L.Get(arg).(type) {
	case lua.LNumber:
		return float64(v)
	case lua.LString:
		if x, ok := str2number(string(v)); ok {
			return x
		}
	}
	formatArgError(L, sp, arg, "number expected, got "+TypeName(L.Get(arg)), "")
	return 0
}

// formatArgError raises Lua 5.1's "bad argument" error, naming the
// conversion, with advice when there is some.
func formatArgError(L *lua.LState, sp fmtSpec, arg int, msg, advice string) {
	if advice != "" {
		advice = "; " + advice
	}
	L.RaiseError("bad argument #%d to 'format' (%s) for '%s'%s", arg, msg, sp.text, advice)
}

// formatInteger is an integer conversion (d i o u x X) of the value
// -mag (neg) or mag, as C's printf writes it.
func (sp fmtSpec) formatInteger(neg bool, mag uint64) string {
	var digits string
	switch sp.conv {
	case 'o':
		digits = strconv.FormatUint(mag, 8)
	case 'x':
		digits = strconv.FormatUint(mag, 16)
	case 'X':
		digits = strings.ToUpper(strconv.FormatUint(mag, 16))
	default:
		digits = strconv.FormatUint(mag, 10)
	}
	if sp.prec == 0 && mag == 0 {
		digits = ""
	}
	if len(digits) < sp.prec {
		digits = strings.Repeat("0", sp.prec-len(digits)) + digits
	}
	prefix := ""
	switch sp.conv {
	case 'd', 'i':
		prefix = sp.sign(neg)
	case 'o':
		if sp.hash && !strings.HasPrefix(digits, "0") {
			digits = "0" + digits
		}
	case 'x', 'X':
		if sp.hash && mag != 0 {
			prefix = "0" + string(sp.conv)
		}
	}
	return sp.pad(prefix, digits, sp.prec < 0)
}

// formatFloat is a floating-point conversion (e E f g G) of x, as glibc's
// printf writes it ("inf", "-nan" and the like for the values that are
// not finite, padded with spaces).
func (sp fmtSpec) formatFloat(x float64) string {
	prefix := sp.sign(math.Signbit(x))
	upper := sp.conv == 'E' || sp.conv == 'G'
	if math.IsInf(x, 0) || math.IsNaN(x) {
		body := "inf"
		if math.IsNaN(x) {
			body = "nan"
		}
		if upper {
			body = strings.ToUpper(body)
		}
		return sp.pad(prefix, body, false)
	}
	a := math.Abs(x)
	prec := sp.prec
	if prec < 0 {
		prec = 6
	}
	var body string
	switch sp.conv {
	case 'f':
		body = strconv.FormatFloat(a, 'f', prec, 64)
	case 'e', 'E':
		body = strconv.FormatFloat(a, 'e', prec, 64)
	default: // g, G: %e's precision P-1 or %f's P-1-X, X the exponent %e would show
		p := max(prec, 1)
		body = strconv.FormatFloat(a, 'e', p-1, 64)
		exp, _ := strconv.Atoi(body[strings.IndexByte(body, 'e')+1:])
		switch {
		case exp < p && exp >= -4:
			body = strconv.FormatFloat(a, 'f', p-1-exp, 64)
		case sp.hash && exp == p && belowPow10(a, p):
			// glibc (2.36): when rounding carries a value %f would show
			// (below 10^P) into %e's range, %#g keeps %f's fraction
			// digits, none: "1.e+06" for 999999.5, not "1.00000e+06"
			body = strconv.FormatFloat(a, 'e', 0, 64)
		}
		if !sp.hash {
			body = trimFraction(body)
		}
	}
	if sp.hash && !strings.Contains(body, ".") {
		if e := strings.IndexByte(body, 'e'); e >= 0 {
			body = body[:e] + "." + body[e:]
		} else {
			body += "."
		}
	}
	if upper {
		body = strings.ToUpper(body)
	}
	return sp.pad(prefix, body, true)
}

// belowPow10 reports whether a < 10^p, exactly.
func belowPow10(a float64, p int) bool {
	pow := new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(p)), nil)
	return new(big.Float).SetFloat64(a).Cmp(new(big.Float).SetInt(pow)) < 0
}

// trimFraction removes the trailing zeros of a number's fraction, and its
// point when nothing follows it ("1.500000e+00" → "1.5e+00", "100.0" →
// "100"), as %g does without '#'.
func trimFraction(s string) string {
	exp := ""
	if e := strings.IndexByte(s, 'e'); e >= 0 {
		s, exp = s[:e], s[e:]
	}
	if strings.Contains(s, ".") {
		s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
	}
	return s + exp
}

// sign is the sign a signed conversion writes: "-" for a negative value,
// else "+" with the + flag, " " with the space flag, or nothing.
func (sp fmtSpec) sign(neg bool) string {
	switch {
	case neg:
		return "-"
	case sp.plus:
		return "+"
	case sp.space:
		return " "
	}
	return ""
}

// pad widens prefix+body to the spec's width: spaces on the left, on the
// right with the - flag, or zeros between prefix and body with the 0
// flag where the conversion allows them (zeroOK).
func (sp fmtSpec) pad(prefix, body string, zeroOK bool) string {
	n := sp.width - len(prefix) - len(body)
	switch {
	case n <= 0:
		return prefix + body
	case sp.minus:
		return prefix + body + strings.Repeat(" ", n)
	case sp.zero && zeroOK:
		return prefix + strings.Repeat("0", n) + body
	}
	return strings.Repeat(" ", n) + prefix + body
}

// quotedSize is the size of %q's quoting of s.
func quotedSize(s string) int64 {
	n := int64(len(s)) + 2
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '"', '\\', '\n', '\r':
			n++
		case 0:
			n += 3
		}
	}
	return n
}

// writeQuoted writes s as Lua 5.1's %q: between double quotes, with a
// backslash before '"', '\' and a newline, "\r" for a carriage return and
// "\000" for a zero byte; every other byte as it is.
func writeQuoted(b *strings.Builder, s string) {
	b.WriteByte('"')
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case '"', '\\', '\n':
			b.WriteByte('\\')
			b.WriteByte(c)
		case '\r':
			b.WriteString(`\r`)
		case 0:
			b.WriteString(`\000`)
		default:
			b.WriteByte(c)
		}
	}
	b.WriteByte('"')
}

// The C casts Lua 5.1 applies to a number before sprintf, as gcc compiles
// them for x86-64: cvttsd2si truncates toward zero and gives the "integer
// indefinite" value (the most negative integer) for NaN and for values
// out of the destination's range; a cast to unsigned long converts values
// from 2^63 up as value-2^63 and sets the top bit back.

const two63 = 1 << 63

// cInt is C's (int)x.
func cInt(x float64) int32 {
	if math.IsNaN(x) || x >= 1<<31 || x <= -(1<<31)-1 {
		return math.MinInt32
	}
	return int32(x)
}

// cLong is C's (long)x.
func cLong(x float64) int64 {
	if math.IsNaN(x) || x >= two63 || x < -two63 {
		return math.MinInt64
	}
	return int64(x)
}

// cUnsignedLong is C's (unsigned long)x.
func cUnsignedLong(x float64) uint64 {
	if x >= two63 {
		return uint64(cLong(x-two63)) ^ two63
	}
	return uint64(cLong(x))
}

// str2number converts a string to a number as Lua 5.1 does (luaO_str2d
// over glibc's strtod): leading and trailing white space, a sign, decimal
// digits with a point and an exponent, "0x" hex digits with a point and a
// binary exponent ("0x1p4"), "inf", "infinity" and "nan" in any case. C
// reads the string up to its first zero byte.
func str2number(s string) (float64, bool) {
	if z := strings.IndexByte(s, 0); z >= 0 {
		s = s[:z]
	}
	const space = " \t\n\v\f\r"
	t := strings.TrimLeft(s, space)
	num := strtodPrefix(t)
	if num == "" || strings.TrimRight(t[len(num):], space) != "" {
		return 0, false
	}
	neg := num[0] == '-'
	body := strings.TrimLeft(num, "+-")
	var x float64
	switch lower := strings.ToLower(body); {
	case strings.HasPrefix(lower, "nan"):
		x = math.NaN()
	case strings.HasPrefix(lower, "0x"):
		if !strings.Contains(lower, "p") {
			body += "p0"
		}
		x, _ = strconv.ParseFloat(body, 64)
	default:
		x, _ = strconv.ParseFloat(body, 64) // out of range: ±inf or 0, as strtod
	}
	if neg {
		x = -x
	}
	return x, true
}

// strtodPrefix is the longest prefix of t that strtod converts ("" when
// it converts nothing).
func strtodPrefix(t string) string {
	i := 0
	if i < len(t) && (t[i] == '+' || t[i] == '-') {
		i++
	}
	rest := strings.ToLower(t[i:])
	for _, word := range []string{"infinity", "inf", "nan"} {
		if !strings.HasPrefix(rest, word) {
			continue
		}
		end := i + len(word)
		if word == "nan" && end < len(t) && t[end] == '(' { // nan(n-char-sequence)
			k := end + 1
			for k < len(t) && (isDigit(t[k]) || t[k] == '_' || (t[k]|0x20 >= 'a' && t[k]|0x20 <= 'z')) {
				k++
			}
			if k < len(t) && t[k] == ')' {
				end = k + 1
			}
		}
		return t[:end]
	}
	digitsFrom := func(j int, ok func(byte) bool) int {
		for j < len(t) && ok(t[j]) {
			j++
		}
		return j
	}
	isHex := func(c byte) bool { return isDigit(c) || (c|0x20 >= 'a' && c|0x20 <= 'f') }
	mantissa := func(j int, ok func(byte) bool) (int, bool) {
		k := digitsFrom(j, ok)
		n := k - j
		if k < len(t) && t[k] == '.' {
			m := digitsFrom(k+1, ok)
			n += m - k - 1
			k = m
		}
		return k, n > 0
	}
	exponent := func(j int, marker byte) int {
		if j >= len(t) || t[j]|0x20 != marker {
			return j
		}
		k := j + 1
		if k < len(t) && (t[k] == '+' || t[k] == '-') {
			k++
		}
		if e := digitsFrom(k, isDigit); e > k {
			return e
		}
		return j
	}
	if strings.HasPrefix(rest, "0x") {
		if end, ok := mantissa(i+2, isHex); ok {
			return t[:exponent(end, 'p')]
		}
	}
	end, ok := mantissa(i, isDigit)
	if !ok {
		return ""
	}
	return t[:exponent(end, 'e')]
}
