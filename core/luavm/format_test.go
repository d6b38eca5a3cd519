package luavm

import (
	"bufio"
	"bytes"
	"flag"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	lua "github.com/yuin/gopher-lua"

	"github.com/proflab/proflab/core/luavm/cformat"
)

var update = flag.Bool("update", false, "rebuild testdata/format/printf.c with gcc and rewrite printf.golden")

const (
	printfC      = "testdata/format/printf.c"
	printfGolden = "testdata/format/printf.golden"
)

// formatCall calls string.format of vm with args and returns its result,
// or its error message.
func formatCall(t testing.TB, vm *State, args ...lua.LValue) (string, error) {
	t.Helper()
	fn := vm.L.GetGlobal("string").(*lua.LTable).RawGetString("format")
	if err := vm.L.CallByParam(lua.P{Fn: fn, NRet: 1, Protect: true}, args...); err != nil {
		return "", err
	}
	r := vm.L.Get(-1)
	vm.L.Pop(1)
	return lua.LVAsString(r), nil
}

// string.format answers as C's printf does for the same spec after Lua
// 5.1's casts: the golden file is what printf.c printed, on x86-64 Linux
// with glibc, for ~2500 cases (every conversion of table values, and
// random flags, widths and precisions). -update rebuilds it with gcc.
func TestFormatMatchesC(t *testing.T) {
	if *update {
		regenerateGolden(t)
	}
	data, err := os.ReadFile(printfGolden)
	if err != nil {
		t.Fatal(err)
	}
	vm, _ := newTestState(t, Config{Seed: 1})
	cases, failed := 0, 0
	for n, line := range strings.Split(strings.TrimSuffix(string(data), "\n"), "\n") {
		fields := strings.Split(line, "\t")
		if len(fields) != 3 {
			t.Fatalf("%s:%d: %q has %d fields, want 3", printfGolden, n+1, line, len(fields))
		}
		spec, want := unescapeGolden(t, fields[0]), unescapeGolden(t, fields[2])
		arg := goldenArg(t, vm, fields[1])
		got, err := formatCall(t, vm, lua.LString(spec), arg)
		cases++
		if err != nil || got != want {
			failed++
			if failed <= 20 {
				t.Errorf("%s:%d: string.format(%q, %s) = %q, %v; C: %q", printfGolden, n+1, spec, fields[1], got, err, want)
			}
		}
	}
	if failed > 0 || cases < 2000 {
		t.Errorf("%d of %d cases differ from C", failed, cases)
	}
}

// regenerateGolden builds printf.c with gcc and rewrites the golden.
func regenerateGolden(t *testing.T) {
	gcc, err := exec.LookPath("gcc")
	if err != nil {
		t.Fatalf("-update builds %s with gcc, which is not installed: %v", printfC, err)
	}
	bin := filepath.Join(t.TempDir(), "printf")
	if out, err := exec.Command(gcc, "-O0", "-Wall", "-o", bin, printfC, "-lm").CombinedOutput(); err != nil {
		t.Fatalf("gcc %s: %v\n%s", printfC, err, out)
	}
	out, err := exec.Command(bin).Output()
	if err != nil {
		t.Fatalf("%s: %v", bin, err)
	}
	if err := os.WriteFile(printfGolden, out, 0o644); err != nil {
		t.Fatal(err)
	}
}

// unescapeGolden undoes printf.c's escape: \\ and \xHH.
func unescapeGolden(t *testing.T, s string) string {
	t.Helper()
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] != '\\' {
			b.WriteByte(s[i])
			continue
		}
		if i+1 < len(s) && s[i+1] == '\\' {
			b.WriteByte('\\')
			i++
			continue
		}
		if i+3 >= len(s) || s[i+1] != 'x' {
			t.Fatalf("bad escape in %q", s)
		}
		v, err := strconv.ParseUint(s[i+2:i+4], 16, 8)
		if err != nil {
			t.Fatalf("bad escape in %q: %v", s, err)
		}
		b.WriteByte(byte(v))
		i += 3
	}
	return b.String()
}

// goldenArg is the Lua value of printf.c's argument column.
func goldenArg(t *testing.T, vm *State, field string) lua.LValue {
	t.Helper()
	kind, text, _ := strings.Cut(field, " ")
	switch kind {
	case "n":
		switch text {
		case "nan":
			return lua.LNumber(math.NaN())
		case "-nan":
			return lua.LNumber(math.Copysign(math.NaN(), -1))
		}
		x, err := strconv.ParseFloat(text, 64)
		if err != nil {
			t.Fatalf("argument %q: %v", field, err)
		}
		return lua.LNumber(x)
	case "u":
		v, err := strconv.ParseUint(strings.TrimPrefix(text, "0x"), 16, 64)
		if err != nil {
			t.Fatalf("argument %q: %v", field, err)
		}
		return newU64(vm.L, v)
	case "s":
		return lua.LString(unescapeGolden(t, text))
	}
	t.Fatalf("argument %q: unknown kind", field)
	return nil
}

// The Lua 5.1 manual's string.format example (§5.4) and the answers of
// the reference interpreter for common specs.
func TestFormatLua51Examples(t *testing.T) {
	for _, tc := range []struct{ expr, want string }{
		{`string.format('%q', 'a string with "quotes" and \n new line')`, "\"a string with \\\"quotes\\\" and \\\n new line\""},
		{`string.format("pi = %.4f", math.pi)`, "pi = 3.1416"},
		{`string.format("%5.2f|%-3d|%%|%x", 3.14159, 7, 255)`, " 3.14|7  |%|ff"},
		{`string.format("%d %s", 1, "x")`, "1 x"},
		{`string.format("%3u %-25s%11u%6u%11u", 0, "Timer", 10000, 1221, 1000000)`, "  0 Timer                          10000  1221    1000000"},
		{`string.format("%5.1s|", "abc")`, "    a|"},
		{`string.format("%.3s", "abcdef")`, "abc"},
		{`string.format("%-5d|%05d|%+d|% d", 3, 3, 3, 3)`, "3    |00003|+3| 3"},
		{`string.format("%#x %#X %#o %#.0o", 255, 255, 8, 0)`, "0xff 0XFF 010 0"},
		{`string.format("%.0d|%.d|%#x", 0, 5, 0)`, "|5|0"},
		{`string.format("%#g %#.0f %#e", 1, 1, 1)`, "1.00000 1. 1.000000e+00"},
		{`string.format("%g %g %G %.0e", 100000, 1e6, 1e20, 12345)`, "100000 1e+06 1E+20 1e+04"},
		{`string.format("%c%c%c", 76, 117, 97)`, "Lua"},
		{`string.format("%c", 321)`, "A"},
		{`string.format("%d %d", 3.9, -3.9)`, "3 -3"},
		{`string.format("%x %u", -1, -3.5)`, "ffffffffffffffff 18446744073709551613"},
		{`string.format("%d %x", 2^63, 2^64)`, "-9223372036854775808 0"},
		{`string.format("%5.1f|%f|%e|%+f|%05f|%g", 0/0, -(0/0), 1/0, 1/0, -1/0, 0/0)`, " -nan|nan|inf|+inf| -inf|-nan"},
		{`string.format("%d %d %d", "10", " 0x10 ", "1e2")`, "10 16 100"},
		{`string.format("%s", ("y"):rep(150)) == ("y"):rep(150)`, "true"},
		{`string.format("%q", 12.5)`, `"12.5"`},
		{`string.format("%10q", "x")`, `"x"`},
		{`string.format("%q", "\r\0\1")`, "\"\\r\\000\x01\""},
		{`string.format(12)`, "12"},
		{`("%d-%s"):format(7, "x")`, "7-x"},
	} {
		if got := eval(t, tc.expr); got != tc.want {
			t.Errorf("%s = %q, want %q", tc.expr, got, tc.want)
		}
	}
}

// u64 values are exact in every integer conversion (all 64 bits); %d and
// %i show a u64's unsigned value; %s its tostring.
func TestFormatU64(t *testing.T) {
	for _, tc := range []struct{ expr, want string }{
		{`string.format("%x", lab.u64("0xFFFFF80000001000"))`, "fffff80000001000"},
		{`string.format("%#018X", lab.u64("0xFFFFF80000001000"))`, "0XFFFFF80000001000"},
		{`string.format("%016x", lab.u64(0x1000))`, "0000000000001000"},
		{`string.format("%o", lab.u64(-1))`, "1777777777777777777777"},
		{`string.format("%u", lab.u64(-1))`, "18446744073709551615"},
		{`string.format("%d", lab.u64(-1))`, "18446744073709551615"},
		{`string.format("%i", lab.u64("0x8000000000000000"))`, "9223372036854775808"},
		{`string.format("%+d|% 22d|%-6d|", lab.u64("0x8000000000000001"), lab.u64(5), lab.u64(5))`, "+9223372036854775809|                     5|5     |"},
		{`string.format("%.3d", lab.u64(7))`, "007"},
		{`string.format("%x", lab.u64("9007199254740993"))`, "20000000000001"},
		{`string.format("%d", lab.u64("9007199254740993"))`, "9007199254740993"},
		{`string.format("%c", lab.u64(0x141))`, "A"},
		{`string.format("%s", lab.u64(255))`, "0xFF"},
		{`string.format("%-6s|%.3s", lab.u64(255), lab.u64(255))`, "0xFF  |0xF"},
	} {
		if got := eval(t, tc.expr); got != tc.want {
			t.Errorf("%s = %q, want %q", tc.expr, got, tc.want)
		}
	}
}

// Where Lua 5.1's answer is an accident of C, proflab's choices (the top
// of format.go, docs/scenario-api.md): %c of 0 is a zero byte; %s shows
// any value as tostring does and refuses short strings with zero bytes.
func TestFormatChoices(t *testing.T) {
	for _, tc := range []struct{ expr, want string }{
		{`string.format("%c", 0)`, "\x00"},
		{`string.format("%3c|%-3c|", 0, 0)`, "  \x00|\x00  |"},
		{`string.format("%s|%s|%s", nil, true, 1.5)`, "nil|true|1.5"},
		{`string.format("%s %s", {}, {})`, "table: 0x00000001 table: 0x00000002"},
		{`string.format("%s", setmetatable({}, { __tostring = function() return "T" end }))`, "T"},
		{`string.format("%s", 0.1 + 0.2) == tostring(0.1 + 0.2)`, "true"},
		{`#string.format("%s", ("\0"):rep(100))`, "100"},
	} {
		if got := eval(t, tc.expr); got != tc.want {
			t.Errorf("%s = %q, want %q", tc.expr, got, tc.want)
		}
	}
}

// Anything else is an error in Lua 5.1's words, naming the conversion,
// never Go's "%!" text.
func TestFormatErrors(t *testing.T) {
	for _, tc := range []struct{ stmt, want string }{
		{`string.format("%d", {})`, "t.lua:2: bad argument #2 to 'format' (number expected, got table) for '%d'"},
		{`string.format("%5.1f", "abc")`, "bad argument #2 to 'format' (number expected, got string) for '%5.1f'"},
		{`string.format("%s %d", "a")`, "bad argument #3 to 'format' (no value) for '%d'"},
		{`string.format("%5%")`, "bad argument #2 to 'format' (no value) for '%5%'"},
		{`string.format("%5%", 1)`, "invalid option '%%' to 'format'"},
		{`string.format("%y", 1)`, "invalid option '%y' to 'format'"},
		{`string.format("%ld", 1)`, "invalid option '%l' to 'format'"},
		{`string.format("%a", 1)`, "invalid option '%a' to 'format'"},
		{`string.format("%F", 1)`, "invalid option '%F' to 'format'"},
		{`string.format("%-5", 1)`, `invalid option '%' to 'format' (the format ends inside the conversion "%-5"; write %% for a percent sign)`},
		{`string.format("%\1", 1)`, `invalid option '%\1' to 'format'`},
		{`string.format("%-+ #0-d", 1)`, "invalid format (repeated flags)"},
		{`string.format("%123d", 1)`, "invalid format (width or precision too long)"},
		{`string.format("%1.123d", 1)`, "invalid format (width or precision too long)"},
		{`string.format("%q", {})`, "bad argument #2 to 'format' (string expected, got table) for '%q'"},
		{`string.format("%q", lab.u64(1))`, "bad argument #2 to 'format' (string expected, got u64) for '%q'"},
		{`string.format("%f", lab.u64(1))`, "bad argument #2 to 'format' (number expected, got u64) for '%f'; lab.tonumber(u) converts a u64 below 2^53 to a number"},
		{`string.format("%s", "a\0b")`, "bad argument #2 to 'format' (string contains zeros) for '%s'"},
		{`string.format({})`, "bad argument #1 to 'format' (string expected, got table)"},
	} {
		msg := evalErr(t, tc.stmt)
		if !strings.Contains(msg, tc.want) {
			t.Errorf("%s: error %q, want %q", tc.stmt, msg, tc.want)
		}
		if strings.Contains(msg, "%!") {
			t.Errorf("%s: error %q has Go's %%! text", tc.stmt, msg)
		}
	}
}

// %q's result counts in the budget before it is built.
func TestFormatQuoteStaysInBudget(t *testing.T) {
	vm, _ := newTestState(t, Config{MemoryLimit: 16 << 20})
	err := vm.Exec("q.lua", []byte(`local s = string.rep("\0", 5e6) string.format("%q", s)`))
	if err == nil || !strings.Contains(err.Message, "string.format: the result would be 20000002 bytes") {
		t.Errorf("%%q of 5 MB of zero bytes under a 16 MiB budget: %v", err)
	}
}

// A few hundred random specs and arguments give the same answer (or the
// same error) as the real Lua 5.1, when it is installed (Debian's lua5.1).
// The cases leave out proflab's documented choices (%c of a zero byte, %s
// of anything but a string without zero bytes, a format that ends inside
// a conversion).
func TestFormatMatchesLua51(t *testing.T) {
	lua51, err := exec.LookPath("lua5.1")
	if err != nil {
		t.Skip("lua5.1 is not installed (apt-get install lua5.1)")
	}
	body := lua51Cases(rand.New(rand.NewPCG(51, 5)), 400)
	ref := filepath.Join(t.TempDir(), "cases.lua")
	prelude := `local function emit(ok, r) r = tostring(r) io.write(ok and "R" or "E", #r, ":", r, "\n") end` + "\n"
	if err := os.WriteFile(ref, []byte(prelude+body), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(lua51, ref).Output()
	if err != nil {
		t.Fatalf("lua5.1: %v", err)
	}
	want := parseEmitted(t, out)

	vm, _ := newTestState(t, Config{Seed: 1})
	var got bytes.Buffer
	vm.L.SetGlobal("emit", vm.L.NewFunction(func(L *lua.LState) int {
		r := L.Get(2).String()
		tag := "E"
		if lua.LVAsBool(L.Get(1)) {
			tag = "R"
		}
		fmt.Fprintf(&got, "%s%d:%s\n", tag, len(r), r)
		return 0
	}))
	if e := vm.Exec("cases.lua", []byte("local emit = emit\n"+body)); e != nil {
		t.Fatal(e.Detail())
	}
	have := parseEmitted(t, got.Bytes())
	if len(have) != len(want) {
		t.Fatalf("%d answers, lua5.1 gave %d", len(have), len(want))
	}
	lines := strings.Split(body, "\n")
	for i := range want {
		w, h := want[i], have[i]
		ok := w == h
		if w[0] == 'E' && h[0] == 'E' { // ours names the conversion too
			ok = strings.HasPrefix(withoutPlace(h[1:]), withoutPlace(w[1:]))
		}
		if !ok {
			t.Errorf("%s\nlua5.1: %q\nproflab: %q", lines[i], w, h)
		}
	}
}

// withoutPlace is an error message without its "…cases.lua:N: ".
func withoutPlace(msg string) string {
	if i := strings.Index(msg, "cases.lua:"); i >= 0 {
		if j := strings.Index(msg[i:], ": "); j >= 0 {
			return msg[i+j+2:]
		}
	}
	return msg
}

// lua51Cases writes n lines, each a call of string.format with a random
// spec and argument, passed to emit(ok, result or message).
func lua51Cases(r *rand.Rand, n int) string {
	var b strings.Builder
	for range n {
		spec, args := lua51Case(r)
		fmt.Fprintf(&b, "emit(pcall(function() return string.format(%s%s) end))\n", luaQuote(spec), args)
	}
	return b.String()
}

// lua51Case is a random format and the Lua source of its arguments.
func lua51Case(r *rand.Rand) (string, string) {
	var spec strings.Builder
	if r.IntN(4) == 0 {
		spec.WriteString("<")
	}
	spec.WriteByte('%')
	flags := 0
	if r.IntN(2) == 0 {
		flags = 1 + r.IntN(3)
		if r.IntN(10) == 0 {
			flags = 6
		}
	}
	for range flags {
		spec.WriteByte(cformat.Flags[r.IntN(len(cformat.Flags))])
	}
	if r.IntN(2) == 0 {
		spec.WriteString(strconv.Itoa(1 + r.IntN([]int{20, 99, 300}[r.IntN(3)])))
	}
	if r.IntN(2) == 0 {
		spec.WriteString("." + strconv.Itoa(r.IntN([]int{10, 99, 300}[r.IntN(3)])))
	}
	convs := "diouxXceEfgGsq"
	if r.IntN(12) == 0 {
		convs = "%aylhnpF"
	}
	conv := convs[r.IntN(len(convs))]
	spec.WriteByte(conv)
	if r.IntN(4) == 0 {
		spec.WriteString(">")
	}
	switch {
	case r.IntN(25) == 0:
		return spec.String(), ""
	case r.IntN(25) == 0 && conv != 's': // %s shows a table's tostring
		return spec.String(), ", {}"
	}
	switch conv {
	case 's', 'q':
		return spec.String(), ", " + luaQuote(randomText(r, conv == 'q'))
	case 'c':
		for {
			if x := randomLuaNumber(r); x.ok && byte(cformat.CInt(x.v)) != 0 {
				return spec.String(), ", " + x.src
			}
		}
	}
	if r.IntN(8) == 0 {
		strs := []string{"10", " 0x1A ", "1e3", "  12  ", "0x", "1.5e", "inf", "-nan", "nan(1)", "0x1p4", "abc", "12abc", "0X1.8P1", "-0", ".5", "5."}
		return spec.String(), ", " + luaQuote(strs[r.IntN(len(strs))])
	}
	return spec.String(), ", " + randomLuaNumber(r).src
}

type luaNumber struct {
	src string
	v   float64
	ok  bool // v is the value (false for NaN, whose bits come from the division)
}

// randomLuaNumber is a number of a random magnitude as Lua source.
func randomLuaNumber(r *rand.Rand) luaNumber {
	switch r.IntN(20) {
	case 0:
		return luaNumber{src: "1/0", v: math.Inf(1), ok: true}
	case 1:
		return luaNumber{src: "-1/0", v: math.Inf(-1), ok: true}
	case 2:
		return luaNumber{src: "0/0"}
	case 3:
		return luaNumber{src: "-(0/0)"}
	}
	x := r.Float64() * math.Pow(10, float64(r.IntN(44)-12))
	if r.IntN(3) == 0 {
		x = math.Floor(x)
	}
	if r.IntN(4) == 0 {
		x = -x
	}
	return luaNumber{src: "(" + strconv.FormatFloat(x, 'g', 17, 64) + ")", v: x, ok: true}
}

// randomText is a random string: printable for %s, any bytes for %q.
func randomText(r *rand.Rand, anyBytes bool) string {
	n := r.IntN(12)
	if r.IntN(10) == 0 {
		n = 95 + r.IntN(10)
	}
	b := make([]byte, n)
	for i := range b {
		if anyBytes && r.IntN(3) == 0 {
			b[i] = "\x00\r\n\"\\\x01\xff"[r.IntN(7)]
		} else {
			b[i] = byte(' ' + r.IntN(95))
		}
	}
	return string(b)
}

// luaQuote is s as a Lua string literal, every byte outside letters and
// digits as a three-digit decimal escape.
func luaQuote(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == ' ' {
			b.WriteByte(c)
		} else {
			fmt.Fprintf(&b, "\\%03d", c)
		}
	}
	b.WriteByte('"')
	return b.String()
}

// parseEmitted splits emit's output ("R" or "E", the length, ":", the
// text, a newline) into tag+text strings.
func parseEmitted(t *testing.T, out []byte) []string {
	t.Helper()
	var res []string
	rd := bufio.NewReader(bytes.NewReader(out))
	for {
		tag, err := rd.ReadByte()
		if err != nil {
			return res
		}
		head, err := rd.ReadString(':')
		if err != nil {
			t.Fatalf("emitted output cut at answer %d", len(res)+1)
		}
		n, err := strconv.Atoi(strings.TrimSuffix(head, ":"))
		if err != nil {
			t.Fatalf("answer %d: bad length %q", len(res)+1, head)
		}
		text := make([]byte, n+1)
		if _, err := io.ReadFull(rd, text); err != nil {
			t.Fatalf("answer %d: %v", len(res)+1, err)
		}
		res = append(res, string(tag)+string(text[:n]))
	}
}

// BenchmarkStringFormat formats a row of the profile source listing, as
// scenarios print tables.
func BenchmarkStringFormat(b *testing.B) {
	vm, _ := newTestState(b, Config{Seed: 1})
	fn := vm.L.GetGlobal("string").(*lua.LTable).RawGetString("format")
	args := []lua.LValue{lua.LString("%3d %-25s%11d%6d%11d %5.1f%%"), lua.LNumber(2), lua.LString("TotalIssues"), lua.LNumber(65536), lua.LNumber(4096), lua.LNumber(2147483647), lua.LNumber(12.345)}
	b.ReportAllocs()
	for b.Loop() {
		if err := vm.L.CallByParam(lua.P{Fn: fn, NRet: 1, Protect: true}, args...); err != nil {
			b.Fatal(err)
		}
		vm.L.Pop(1)
	}
}
