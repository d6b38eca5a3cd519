package luavm

import (
	"strings"
	"testing"
)

// Syntax nested deeper than the compiler can take is refused at its line
// before compiling: 10^6 nested tables (or a chain of 2·10^6 field
// accesses) ended the process with Go's fatal stack overflow, 30,000
// nested blocks took 10 s to compile; 5,000 levels of each kind compiled
// (slowly) or failed for another reason.
func TestDeepSyntaxIsRefused(t *testing.T) {
	nest := func(open, mid, close string, n int) string {
		return strings.Repeat(open, n) + mid + strings.Repeat(close, n)
	}
	for _, tc := range []struct{ name, src string }{
		{"10^6 nested tables", "local t = " + nest("{", "", "}", 1e6)},
		{"blocks", nest("do ", "", " end", 5000)},
		{"functions", "local f = " + nest("function() return ", "1", " end", 5000)},
		{"field accesses", "local t = x" + strings.Repeat(".a", 5000)},
		{"calls", "local t = f" + strings.Repeat("()", 5000)},
		{"a sum", "local t = 1" + strings.Repeat(" + 1", 5000)},
		{"unary minus", "local t = " + strings.Repeat("- ", 5000) + "1"},
		{"elseif branches", "if x then" + strings.Repeat(" elseif x then", 5000) + " end"},
		{"calls in a concatenation", "local s = 'a' .. " + nest("f(", "1", ")", 5000)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			vm, _ := newTestState(t, Config{})
			err := vm.Exec("deep.lua", []byte("local x, f\n"+tc.src))
			if err == nil || !strings.HasPrefix(err.Message, "deep.lua:2: chunk has too many syntax levels: blocks, brackets and operators nest more than 1000 deep here") {
				t.Errorf("error %v, want deep.lua:2: chunk has too many syntax levels", err)
			}
		})
	}
}

// The nesting Lua 5.1 accepts (it refuses 200 levels) compiles and runs
// as before, and so does a long sum (a left-associative chain, which Lua
// 5.1 does not count).
func TestNestingWithinTheLimitCompiles(t *testing.T) {
	nest := func(open, mid, close string) string {
		return strings.Repeat(open, 190) + mid + strings.Repeat(close, 190)
	}
	for _, tc := range []struct{ src, want string }{
		{"local t = " + nest("{", "", "}") + " print(type(t[1][1]))", "table"},
		{"print(" + nest("(", "1", ")") + ")", "1"},
		{nest("do ", "print(2)", " end"), "2"},
		{"print(#('a'" + strings.Repeat(" .. 'a'", 189) + "))", "190"},
		{"print(1" + strings.Repeat(" + 1", 900) + ")", "901"},
		{"local f = " + nest("function() return ", "3", " end") + " for i = 1, 190 do f = f() end print(f)", "3"},
	} {
		vm, log := newTestState(t, Config{})
		if err := vm.Exec("ok.lua", []byte(tc.src)); err != nil {
			t.Errorf("%.60s…: %s", tc.src, err.Message)
			continue
		}
		if got := strings.TrimSpace(log.String()); got != tc.want {
			t.Errorf("%.60s…: printed %q, want %q", tc.src, got, tc.want)
		}
	}
}
