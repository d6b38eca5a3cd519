// Package cformat is C's printf as Lua 5.1 on x86-64 Linux hands it its
// conversions: reading a conversion as Lua 5.1's scanformat does (flags,
// a width and a precision of two digits at most), the C casts of an
// argument (cvttsd2si's answers for values out of range), and the text
// glibc's printf writes for an integer, a float, a padded string and
// Lua's %q quoting. core/luavm's string.format is built on it; it knows
// nothing of Lua values. It imports the standard library only.
package cformat

import (
	"fmt"
	"math"
	"math/big"
	"strconv"
	"strings"
)

// Flags are the flag characters of a conversion; Lua 5.1 allows at
// most len(Flags) of them ("%-+ #0d"), repeated or not.
const Flags = "-+ #0"

// Spec is one conversion of a format string, such as "%-08.3f".
type Spec struct {
	Text string // as written, from '%' to the conversion
	// Minus … Zero are the flags given.
	Minus, Plus, Space, Hash, Zero bool
	// Width is the minimum width (0: none given).
	Width int
	// Prec is the precision, -1 when none is given.
	Prec int
	// Conv is the conversion character, 0 when the format ends after the
	// flags, width and precision.
	Conv byte
}

// Scan reads the conversion whose '%' is f[i], as Lua 5.1's
// scanformat: flags (at most five), a width and a precision of at most
// two digits each, and the conversion character. It returns the spec and
// the index after it, or Lua 5.1's error.
func Scan(f string, i int) (Spec, int, error) {
	sp := Spec{Prec: -1}
	start := i
	i++
	flags := i
	for i < len(f) && strings.IndexByte(Flags, f[i]) >= 0 {
		switch f[i] {
		case '-':
			sp.Minus = true
		case '+':
			sp.Plus = true
		case ' ':
			sp.Space = true
		case '#':
			sp.Hash = true
		case '0':
			sp.Zero = true
		}
		i++
	}
	if i-flags > len(Flags) {
		sp.Text = f[start:i]
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
	sp.Width = digits()
	if i < len(f) && f[i] == '.' {
		i++
		sp.Prec = digits()
	}
	if i < len(f) && isDigit(f[i]) {
		sp.Text = f[start:i]
		return sp, i, fmt.Errorf("invalid format (width or precision too long)")
	}
	if i < len(f) {
		sp.Conv = f[i]
		i++
	}
	sp.Text = f[start:i]
	return sp, i, nil
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// InvalidOption is Lua 5.1's error for a conversion it does not know.
func (sp Spec) InvalidOption() error {
	switch c := sp.Conv; {
	case c == 0 && sp.Text[len(sp.Text)-1] != 0: // the format ended first
		return fmt.Errorf("invalid option '%%' to 'format' (the format ends inside the conversion %q; write %%%% for a percent sign)", sp.Text)
	case c < ' ' || c >= 0x7F:
		return fmt.Errorf("invalid option '%%\\%d' to 'format'", c)
	default:
		return fmt.Errorf("invalid option '%%%c' to 'format'", c)
	}
}

// Integer is an integer conversion (d i o u x X) of the value
// -mag (neg) or mag, as C's printf writes it.
func (sp Spec) Integer(neg bool, mag uint64) string {
	var digits string
	switch sp.Conv {
	case 'o':
		digits = strconv.FormatUint(mag, 8)
	case 'x':
		digits = strconv.FormatUint(mag, 16)
	case 'X':
		digits = strings.ToUpper(strconv.FormatUint(mag, 16))
	default:
		digits = strconv.FormatUint(mag, 10)
	}
	if sp.Prec == 0 && mag == 0 {
		digits = ""
	}
	if len(digits) < sp.Prec {
		digits = strings.Repeat("0", sp.Prec-len(digits)) + digits
	}
	prefix := ""
	switch sp.Conv {
	case 'd', 'i':
		prefix = sp.sign(neg)
	case 'o':
		if sp.Hash && !strings.HasPrefix(digits, "0") {
			digits = "0" + digits
		}
	case 'x', 'X':
		if sp.Hash && mag != 0 {
			prefix = "0" + string(sp.Conv)
		}
	}
	return sp.Pad(prefix, digits, sp.Prec < 0)
}

// Float is a floating-point conversion (e E f g G) of x, as glibc's
// printf writes it ("inf", "-nan" and the like for the values that are
// not finite, padded with spaces).
func (sp Spec) Float(x float64) string {
	prefix := sp.sign(math.Signbit(x))
	upper := sp.Conv == 'E' || sp.Conv == 'G'
	if math.IsInf(x, 0) || math.IsNaN(x) {
		body := "inf"
		if math.IsNaN(x) {
			body = "nan"
		}
		if upper {
			body = strings.ToUpper(body)
		}
		return sp.Pad(prefix, body, false)
	}
	a := math.Abs(x)
	prec := sp.Prec
	if prec < 0 {
		prec = 6
	}
	var body string
	switch sp.Conv {
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
		case sp.Hash && exp == p && belowPow10(a, p):
			// glibc (2.36): when rounding carries a value %f would show
			// (below 10^P) into %e's range, %#g keeps %f's fraction
			// digits, none: "1.e+06" for 999999.5, not "1.00000e+06"
			body = strconv.FormatFloat(a, 'e', 0, 64)
		}
		if !sp.Hash {
			body = trimFraction(body)
		}
	}
	if sp.Hash && !strings.Contains(body, ".") {
		if e := strings.IndexByte(body, 'e'); e >= 0 {
			body = body[:e] + "." + body[e:]
		} else {
			body += "."
		}
	}
	if upper {
		body = strings.ToUpper(body)
	}
	return sp.Pad(prefix, body, true)
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
func (sp Spec) sign(neg bool) string {
	switch {
	case neg:
		return "-"
	case sp.Plus:
		return "+"
	case sp.Space:
		return " "
	}
	return ""
}

// Pad widens prefix+body to the spec's width: spaces on the left, on the
// right with the - flag, or zeros between prefix and body with the 0
// flag where the conversion allows them (zeroOK).
func (sp Spec) Pad(prefix, body string, zeroOK bool) string {
	n := sp.Width - len(prefix) - len(body)
	switch {
	case n <= 0:
		return prefix + body
	case sp.Minus:
		return prefix + body + strings.Repeat(" ", n)
	case sp.Zero && zeroOK:
		return prefix + strings.Repeat("0", n) + body
	}
	return strings.Repeat(" ", n) + prefix + body
}

// QuotedSize is the size of %q's quoting of s.
func QuotedSize(s string) int64 {
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

// WriteQuoted writes s as Lua 5.1's %q: between double quotes, with a
// backslash before '"', '\' and a newline, "\r" for a carriage return and
// "\000" for a zero byte; every other byte as it is.
func WriteQuoted(b *strings.Builder, s string) {
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

// CInt is C's (int)x.
func CInt(x float64) int32 {
	if math.IsNaN(x) || x >= 1<<31 || x <= -(1<<31)-1 {
		return math.MinInt32
	}
	return int32(x)
}

// CLong is C's (long)x.
func CLong(x float64) int64 {
	if math.IsNaN(x) || x >= two63 || x < -two63 {
		return math.MinInt64
	}
	return int64(x)
}

// CUnsignedLong is C's (unsigned long)x.
func CUnsignedLong(x float64) uint64 {
	if x >= two63 {
		return uint64(CLong(x-two63)) ^ two63
	}
	return uint64(CLong(x))
}

// Str2Number converts a string to a number as Lua 5.1 does (luaO_str2d
// over glibc's strtod): leading and trailing white space, a sign, decimal
// digits with a point and an exponent, "0x" hex digits with a point and a
// binary exponent ("0x1p4"), "inf", "infinity" and "nan" in any case. C
// reads the string up to its first zero byte.
func Str2Number(s string) (float64, bool) {
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
