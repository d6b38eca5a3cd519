package luavm

import (
	"runtime"
	"strings"
	"testing"

	lua "github.com/yuin/gopher-lua"
)

// string.gsub answers as gopher-lua's own, replacement for replacement:
// compared with a plain gopher-lua state on captures, %0–%9, %%, a
// trailing %, tables, functions, false answers, position captures,
// limits, anchors and empty matches.
func TestGsubAnswersAsGopherLua(t *testing.T) {
	for _, expr := range []string{
		`("hello world"):gsub("o", "0")`,
		`("hello world"):gsub("(o)", "[%1]")`,
		`("hello world"):gsub("l+", "%0%0")`,
		`("hello"):gsub("l", "%1")`,
		`("hello"):gsub("l", "100%%")`,
		`("hello"):gsub("l", "x%")`,
		`("hello"):gsub("l", "%x")`,
		`("abc"):gsub("%w", { a = "1", b = true and "2" })`,
		`("abc"):gsub("(%w)", { a = 1, c = false })`,
		`("abc"):gsub("%w", function(c) if c == "b" then return nil end return c:upper() .. "!" end)`,
		`("abc"):gsub("()(%w)", function(p, c) return p .. c end)`,
		`("abc"):gsub("()", "[%1]")`,
		`("aaa"):gsub("a", "b", 2)`,
		`("aaa"):gsub("^a", "b")`,
		`("abc"):gsub("x*", "-")`,
		`("abc"):gsub("", "")`,
		`(""):gsub("x", "y")`,
		`("a.b"):gsub("%.", "%%")`,
	} {
		ref := lua.NewState()
		if err := ref.DoString(`a, n = ` + expr); err != nil {
			t.Fatalf("%s: gopher-lua: %v", expr, err)
		}
		want := ref.GetGlobal("a").String() + " " + ref.GetGlobal("n").String()
		ref.Close()
		if got := eval(t, `(function() local a, n = `+expr+` return a .. " " .. n end)()`); got != want {
			t.Errorf("%s: %q, gopher-lua %q", expr, got, want)
		}
	}
	for _, bad := range []string{`("hello"):gsub("l", "%2")`, `("hello"):gsub("(", "x")`} {
		if msg := evalErr(t, "local x = "+bad); msg == "" {
			t.Errorf("%s: no error", bad)
		}
	}
}

// string.format follows Lua 5.1 (a width or precision of at most two
// digits), and neither it nor string.gsub builds a result over the
// budget: they are refused before allocating it.
func TestStringBuildersStayInTheirBudget(t *testing.T) {
	for _, tc := range []struct{ src, want string }{
		{`string.format("%9999999d", 1)`, "invalid format (width or precision too long)"},
		{`string.format("%.100f", 1)`, "invalid format (width or precision too long)"},
		{`local big = string.rep("x", 8e6) string.format("%s%s%s", big, big, big)`, "string.format: the result would be"},
		{`local big = string.rep("x", 1e6) big:gsub("x", string.rep("y", 100))`, "string.gsub: the result would be"},
		{`local big = string.rep("x", 1e6) big:gsub("x", function() return string.rep("y", 100) end)`, "string.gsub: the result would be"},
	} {
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		vm, _ := newTestState(t, Config{MemoryLimit: 16 << 20})
		err := vm.Exec("b.lua", []byte(tc.src))
		runtime.ReadMemStats(&after)
		if err == nil || !strings.Contains(err.Message, tc.want) {
			t.Errorf("%s: %v, want %q", tc.src, err, tc.want)
		}
		if grew := after.TotalAlloc - before.TotalAlloc; grew > 512<<20 {
			t.Errorf("%s: allocated %d MB before refusing (gigabytes before the bound)", tc.src, grew>>20)
		}
	}
	if got := eval(t, `string.format("%5.2f|%-3d|%q|%%|%x", 3.14159, 7, "a\n", 255)`); got != " 3.14|7  |\"a\\\n\"|%|ff" { // Lua 5.1's %q: backslash, newline
		t.Errorf("format within the limits: %q", got)
	}
}
