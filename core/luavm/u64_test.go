package luavm

import (
	"testing"

	lua "github.com/yuin/gopher-lua"
)

func TestU64Values(t *testing.T) {
	tests := []struct{ expr, want string }{
		{`lab.u64("0xFFFFF80000001000")`, "0xFFFFF80000001000"},
		{`lab.u64("0xfffff80000001000")`, "0xFFFFF80000001000"},
		{`lab.u64("0xFFFF_F800_0000_1000")`, "0xFFFFF80000001000"},
		{`lab.u64("18446735277616533504")`, "0xFFFFF80000001000"},
		{`lab.u64(" 42 ")`, "0x2A"},
		{`lab.u64(-1)`, "0xFFFFFFFFFFFFFFFF"},
		{`lab.u64("-1")`, "0xFFFFFFFFFFFFFFFF"},
		{`lab.u64(0)`, "0x0"},
		{`lab.u64(4096)`, "0x1000"},
		{`lab.u64(2^53 - 1)`, "0x1FFFFFFFFFFFFF"},
		{`lab.u64(lab.u64(7))`, "0x7"},
		{`lab.u64("0xFFFFFFFFFFFFFFFF")`, "0xFFFFFFFFFFFFFFFF"},
	}
	for _, tc := range tests {
		if got := eval(t, tc.expr); got != tc.want {
			t.Errorf("%s = %s, want %s", tc.expr, got, tc.want)
		}
	}
}

func TestU64Arithmetic(t *testing.T) {
	tests := []struct{ expr, want string }{
		{`lab.u64("0xFFFFF80000001000") + 1`, "0xFFFFF80000001001"},
		{`1 + lab.u64("0xFFFFF80000001000")`, "0xFFFFF80000001001"},
		{`lab.u64("0xFFFFF80000001000") + 0xFFF`, "0xFFFFF80000001FFF"},
		{`lab.u64("0xFFFFF80000001000") - 0x1000`, "0xFFFFF80000000000"},
		{`0x2000 - lab.u64(0x1000)`, "0x1000"},
		{`lab.u64(0) - 1`, "0xFFFFFFFFFFFFFFFF"},
		{`lab.u64(-1) + 1`, "0x0"},
		{`lab.u64(-1) + lab.u64(2)`, "0x1"},
		{`lab.u64(5) + -1`, "0x4"},
		{`lab.u64("0x100000000") * lab.u64("0x100000000")`, "0x0"},
		{`lab.u64("0xFFFFFFFF") * 0x10`, "0xFFFFFFFF0"},
		{`lab.u64(-1) / 2`, "0x7FFFFFFFFFFFFFFF"},
		{`lab.u64(7) / 2`, "0x3"},
		{`100 / lab.u64(7)`, "0xE"},
		{`lab.u64("0xFFFFF80000001000") % 0x1000`, "0x0"},
		{`lab.u64("0xFFFFF80000001234") % 0x1000`, "0x234"},
		{`lab.u64(2) ^ 64`, "0x0"},
		{`lab.u64(2) ^ 63`, "0x8000000000000000"},
		{`-lab.u64(1)`, "0xFFFFFFFFFFFFFFFF"},
		{`lab.u64(1) + "0x10"`, "0x11"},
		{`"addr " .. lab.u64(4096)`, "addr 0x1000"},
		{`lab.u64(4096) .. " bytes"`, "0x1000 bytes"},
		{`1 .. lab.u64(1)`, "10x1"},
	}
	for _, tc := range tests {
		if got := eval(t, tc.expr); got != tc.want {
			t.Errorf("%s = %s, want %s", tc.expr, got, tc.want)
		}
	}
}

func TestU64Comparisons(t *testing.T) {
	tests := []struct{ expr, want string }{
		{`lab.u64(5) == lab.u64(5)`, "true"},
		{`lab.u64("0xFFFFF80000001000") == lab.u64("0xFFFFF80000001000")`, "true"},
		{`lab.u64(5) == lab.u64(6)`, "false"},
		{`lab.u64(5) ~= lab.u64(6)`, "true"},
		{`lab.u64(5) == 5`, "false"}, // Lua 5.1: == between different types is false
		{`lab.u64(1) < lab.u64(-1)`, "true"},
		{`lab.u64(-1) < lab.u64(1)`, "false"},
		{`lab.u64(2) <= lab.u64(2)`, "true"},
		{`lab.u64(3) > lab.u64(2)`, "true"},
		{`lab.u64(3) >= lab.u64(4)`, "false"},
		{`lab.tonumber(lab.u64(4096))`, "4096"},
		{`lab.tonumber(lab.u64(2^53 - 1))`, "9007199254740991"},
		{`lab.tonumber(12)`, "12"},
		{`type(lab.u64(1))`, "userdata"},
		{`getmetatable(lab.u64(1))`, "proflab.u64"},
	}
	for _, tc := range tests {
		if got := eval(t, tc.expr); got != tc.want {
			t.Errorf("%s = %s, want %s", tc.expr, got, tc.want)
		}
	}
}

func TestU64Errors(t *testing.T) {
	tests := []struct {
		stmt      string
		fragments []string
	}{
		{`local x = lab.u64(7) / 0`, []string{"t.lua:2:", "division by zero"}},
		{`local x = lab.u64(7) % lab.u64(0)`, []string{"modulo by zero"}},
		{`local x = lab.u64(1.5)`, []string{"lab.u64", "1.5 is not an integer"}},
		{`local x = lab.u64(2^53)`, []string{"too large", `lab.u64("0x…")`}},
		{`local x = lab.u64(0xFFFFF80000001000)`, []string{"NaN", `lab.u64("0x…")`}},
		{`local x = lab.u64(0x7FFFF80000001000)`, []string{"too large", `lab.u64("0x…")`}},
		{`local x = lab.u64("0x1FFFFFFFFFFFFFFFF")`, []string{"does not fit in 64 bits"}},
		{`local x = lab.u64("zz")`, []string{`"zz" is not an integer`}},
		{`local x = lab.u64("0x")`, []string{"is not an integer"}},
		{`local x = lab.u64({})`, []string{"got table"}},
		{`local x = lab.u64()`, []string{"got nil"}},
		{`local x = lab.u64(1) + 0.5`, []string{"0.5 is not an integer"}},
		{`local x = lab.u64(1) + {}`, []string{"u64 add"}},
		{`local x = lab.u64(1) .. {}`, []string{"concatenate"}},
		{`local x = lab.u64(1) < 2`, []string{"attempt to compare"}},
		{`local x = lab.tonumber(lab.u64(2^53 - 1) + 1)`, []string{"lab.tonumber", "0x20000000000000", "2^53"}},
		{`local x = lab.tonumber("1")`, []string{"expected a u64 or a number"}},
		{`local x = lab.u64(0/0)`, []string{"NaN"}},
		{`local x = lab.u64(1/0)`, []string{"not a finite number"}},
	}
	for _, tc := range tests {
		wantErr(t, tc.stmt, tc.fragments...)
	}
}

func TestParseU64(t *testing.T) {
	tests := []struct {
		in   string
		want uint64
		ok   bool
	}{
		{"0", 0, true}, {"0x0", 0, true}, {"0X10", 16, true}, {"-0x1", 1<<64 - 1, true},
		{"+5", 5, true}, {"1_000", 1000, true}, {"_1", 0, false}, {"1_", 0, false},
		{"1__0", 0, false}, {"", 0, false}, {"-", 0, false}, {"0x", 0, false},
		{"18446744073709551615", 1<<64 - 1, true}, {"18446744073709551616", 0, false},
		{"0xG", 0, false}, {"1.5", 0, false},
	}
	for _, tc := range tests {
		got, err := parseU64(tc.in)
		if (err == nil) != tc.ok || (tc.ok && got != tc.want) {
			t.Errorf("parseU64(%q) = %#x, %v; want %#x, ok=%v", tc.in, got, err, tc.want, tc.ok)
		}
	}
}

func TestU64String(t *testing.T) {
	for v, want := range map[uint64]string{0: "0x0", 0xABC: "0xABC", 1<<64 - 1: "0xFFFFFFFFFFFFFFFF"} {
		if got := U64(v).String(); got != want {
			t.Errorf("U64(%#x) = %s, want %s", v, got, want)
		}
	}
}

// The u64 metatable is made with a state's first u64, wherever that is
// made (a coroutine shares the state's registry), and not before.
func TestU64MetatableOnFirstUse(t *testing.T) {
	vm, log := newTestState(t, Config{})
	if mt := vm.L.GetTypeMetatable(u64TypeName); mt != lua.LNil {
		t.Fatalf("a fresh state has the u64 metatable %v", mt)
	}
	src := `local co = coroutine.wrap(function() return lab.u64("0xFFFFFFFFFFFFFFFF") end)
local big = co()
print(big + 1, big > lab.u64(1), tostring(big), getmetatable(big))`
	if err := vm.Exec("u.lua", []byte(src)); err != nil {
		t.Fatal(err.Detail())
	}
	if want := "0x0\ttrue\t0xFFFFFFFFFFFFFFFF\tproflab.u64\n"; log.String() != want {
		t.Errorf("log %q, want %q", log.String(), want)
	}
	if vm.L.GetTypeMetatable(u64TypeName) == lua.LNil {
		t.Error("no u64 metatable after a u64 was made")
	}
}
