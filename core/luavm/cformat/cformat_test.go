package cformat_test

import (
	"math"
	"testing"

	"github.com/proflab/proflab/core/luavm/cformat"
)

// Strings convert to numbers as Lua 5.1's luaO_str2d over glibc's strtod.
func TestStr2Number(t *testing.T) {
	negNaN := math.Copysign(math.NaN(), -1)
	for _, tc := range []struct {
		s    string
		want float64
		ok   bool
	}{
		{"10", 10, true}, {" 0x10 ", 16, true}, {"0X1p4", 16, true}, {"0x.8", 0.5, true},
		{"1e2", 100, true}, {".5", 0.5, true}, {"5.", 5, true}, {"-2.5e-1", -0.25, true},
		{"010", 10, true}, {"\t7\n", 7, true}, {"inf", math.Inf(1), true}, {"-Infinity", math.Inf(-1), true},
		{"nan", math.NaN(), true}, {"-nan", negNaN, true}, {"nan(12)", math.NaN(), true}, {"1e400", math.Inf(1), true},
		{"12\x00abc", 12, true},
		{"", 0, false}, {" ", 0, false}, {"abc", 0, false}, {"12abc", 0, false}, {"0x", 0, false},
		{"1e", 0, false}, {".", 0, false}, {"1_000", 0, false}, {"- 1", 0, false}, {"0xg", 0, false},
	} {
		got, ok := cformat.Str2Number(tc.s)
		same := got == tc.want || (math.IsNaN(got) && math.IsNaN(tc.want) && math.Signbit(got) == math.Signbit(tc.want))
		if ok != tc.ok || (ok && !same) {
			t.Errorf("cformat.Str2Number(%q) = %v, %v; want %v, %v", tc.s, got, ok, tc.want, tc.ok)
		}
	}
}
