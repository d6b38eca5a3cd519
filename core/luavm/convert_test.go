package luavm

import (
	"math"
	"strings"
	"testing"

	lua "github.com/yuin/gopher-lua"
)

func u64ud(v uint64) lua.LValue { return &lua.LUserData{Value: U64(v)} }

func TestServiceValue(t *testing.T) {
	tests := []struct {
		in    lua.LValue
		width int
		want  uint64
		err   string
	}{
		{lua.LNil, 4, 0, ""},
		{nil, 8, 0, ""},
		{lua.LNumber(0), 4, 0, ""},
		{lua.LNumber(0x1000), 8, 0x1000, ""},
		{lua.LNumber(-1), 1, 0xFF, ""},
		{lua.LNumber(-1), 2, 0xFFFF, ""},
		{lua.LNumber(-1), 4, 0xFFFFFFFF, ""},
		{lua.LNumber(-1), 8, math.MaxUint64, ""},
		{lua.LNumber(-2), 4, 0xFFFFFFFE, ""},
		{lua.LNumber(0x1_0000_0005), 4, 5, ""}, // wider: truncated
		{lua.LNumber(0x1FF), 1, 0xFF, ""},      // wider: truncated
		{lua.LNumber(exactLimit - 1), 8, exactLimit - 1, ""},
		{lua.LNumber(-(exactLimit - 1)), 8, 0xFFE0000000000001, ""},
		{u64ud(0xFFFFF80000001000), 8, 0xFFFFF80000001000, ""},
		{u64ud(0xFFFFF80000001000), 4, 0x00001000, ""},
		{lua.LNumber(exactLimit), 8, 0, "too large"},
		{lua.LNumber(-exactLimit), 8, 0, "too large"},
		{lua.LNumber(1.5), 4, 0, "not an integer"},
		{lua.LNumber(math.NaN()), 4, 0, "NaN"},
		{lua.LNumber(math.Inf(1)), 4, 0, "not a finite number"},
		{lua.LString("0x10"), 4, 0, "lab.u64"},
		{lua.LTrue, 4, 0, "got boolean"},
		{&lua.LTable{}, 4, 0, "got table"},
		{lua.LNumber(1), 3, 0, "width 3"},
	}
	for _, tc := range tests {
		got, err := serviceValue(tc.in, tc.width)
		switch {
		case tc.err == "" && err != nil:
			t.Errorf("serviceValue(%v, %d): %v", tc.in, tc.width, err)
		case tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)):
			t.Errorf("serviceValue(%v, %d) error = %v, want one containing %q", tc.in, tc.width, err, tc.err)
		case tc.err == "" && got != tc.want:
			t.Errorf("serviceValue(%v, %d) = %#x, want %#x", tc.in, tc.width, got, tc.want)
		}
	}
}

func TestCountValue(t *testing.T) {
	tests := []struct {
		in       lua.LValue
		min, max uint64
		want     uint64
		err      string
	}{
		{lua.LNumber(4), 1, 64, 4, ""},
		{lua.LNumber(1), 1, 64, 1, ""},
		{lua.LNumber(64), 1, 64, 64, ""},
		{u64ud(10), 0, math.MaxUint64, 10, ""},
		{lua.LNumber(0), 1, 64, 0, "from 1 to 64"},
		{lua.LNumber(65), 1, 64, 0, "out of range"},
		{lua.LNumber(-1), 0, 100, 0, "negative"},
		{lua.LNumber(-0.5), 0, 100, 0, "not an integer"},
		{lua.LNumber(2.5), 0, 100, 0, "not an integer"},
		{lua.LNumber(1e300), 0, math.MaxUint64, 0, "too large"},
		{lua.LNil, 0, 10, 0, "got nil"},
		{lua.LString("3"), 0, 10, 0, "got string"},
	}
	for _, tc := range tests {
		got, err := countValue(tc.in, tc.min, tc.max)
		switch {
		case tc.err == "" && err != nil:
			t.Errorf("countValue(%v): %v", tc.in, err)
		case tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)):
			t.Errorf("countValue(%v) error = %v, want one containing %q", tc.in, err, tc.err)
		case tc.err == "" && got != tc.want:
			t.Errorf("countValue(%v) = %d, want %d", tc.in, got, tc.want)
		}
	}
}

// FuzzServiceValue checks the conversion's invariants on any number: no
// panic; an accepted value is integral and exact, fits the width, and
// agrees with the two's complement of the number; a rejected one says why.
func FuzzServiceValue(f *testing.F) {
	for _, seed := range []float64{0, 1, -1, 0.5, 4096, -4096, exactLimit, exactLimit - 1, -exactLimit, 1e300, math.Inf(-1), math.NaN(), 0x1_0000_0005} {
		f.Add(seed, uint8(3), "0x10")
	}
	f.Fuzz(func(t *testing.T, n float64, w uint8, s string) {
		width := []int{1, 2, 4, 8}[w%4]
		mask := uint64(math.MaxUint64)
		if width < 8 {
			mask = 1<<(8*width) - 1
		}
		got, err := serviceValue(lua.LNumber(n), width)
		exact := !math.IsNaN(n) && n == math.Trunc(n) && math.Abs(n) < exactLimit
		if exact != (err == nil) {
			t.Fatalf("serviceValue(%v, %d): err = %v, exact = %v", n, width, err, exact)
		}
		if err != nil {
			if err.Error() == "" {
				t.Fatal("empty error message")
			}
		} else {
			if got&^mask != 0 {
				t.Fatalf("serviceValue(%v, %d) = %#x exceeds the width", n, width, got)
			}
			if want := uint64(int64(n)) & mask; got != want {
				t.Fatalf("serviceValue(%v, %d) = %#x, want %#x", n, width, got, want)
			}
		}
		if v, err := countValue(lua.LNumber(n), 0, math.MaxUint64); err == nil && (n < 0 || float64(v) != n) {
			t.Fatalf("countValue(%v) = %d", n, v)
		}
		if v, err := parseU64(s); err == nil {
			if got, err := serviceValue(u64ud(v), width); err != nil || got != v&mask {
				t.Fatalf("u64 %#x at width %d = %#x, %v", v, width, got, err)
			}
		}
	})
}

func TestDataValue(t *testing.T) {
	tests := []struct {
		in    lua.LValue
		width int
		want  uint64
		err   string
	}{
		{lua.LNumber(0x80), 1, 0x80, ""},
		{lua.LNumber(-128), 1, 0x80, ""}, // two's complement when it fits the signed range
		{lua.LNumber(-1), 2, 0xFFFF, ""},
		{lua.LNumber(-2), 8, 0xFFFFFFFFFFFFFFFE, ""},
		{lua.LNumber(0xFFFFFFFF), 4, 0xFFFFFFFF, ""},
		{u64ud(math.MaxUint64), 8, math.MaxUint64, ""},
		{u64ud(0xFF), 1, 0xFF, ""},
		{lua.LNumber(0x100), 1, 0, "256 does not fit in 8 bits"}, // never truncated
		{lua.LNumber(-129), 1, 0, "-129 does not fit in 8 bits"},
		{u64ud(0x1_0000_0000), 4, 0, "0x100000000 does not fit in 32 bits"},
		{lua.LNumber(1.5), 4, 0, "not an integer"},
		{lua.LNil, 4, 0, "expected a number or a u64, got nil"},
		{lua.LString("1"), 4, 0, "got string"},
		{lua.LNumber(1), 3, 0, "width 3"},
	}
	for _, tc := range tests {
		got, err := DataValue(tc.in, tc.width)
		switch {
		case tc.err == "" && err != nil:
			t.Errorf("DataValue(%v, %d): %v", tc.in, tc.width, err)
		case tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)):
			t.Errorf("DataValue(%v, %d) error = %v, want one containing %q", tc.in, tc.width, err, tc.err)
		case tc.err == "" && got != tc.want:
			t.Errorf("DataValue(%v, %d) = %#x, want %#x", tc.in, tc.width, got, tc.want)
		}
	}
}
