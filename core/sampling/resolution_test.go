package sampling

import (
	"math"
	"testing"
)

// PText says what is known of p: exact and bounds as values, a Monte
// Carlo p below its draws' resolution as "p <" it, one with exceedances
// with its interval; never the floor 1/(draws+1) as a value.
func TestPText(t *testing.T) {
	for _, c := range []struct {
		name string
		t    Test
		want string
	}{
		{"exact", Test{P: 0.3123, Method: Exact}, "p = 0.31"},
		{"underflowed", Test{P: 0, Method: Exact}, "p < 1e-300"},
		{"underflowed bound", Test{P: 0, Method: Bound}, "p < 1e-300"},
		{"subnormal", Test{P: 5e-310, Method: Exact}, "p < 1e-300"},
		{"smallest written", Test{P: 2e-300, Method: Exact}, "p = 2.0e-300"},
		{"bound", Test{P: 3.1e-12, Method: Bound}, "p ≤ 3.1e-12"},
		{"none of the first 2,999", Test{P: 1.0 / 3000, Method: MonteCarlo, Draws: EarlyDraws}, "p < 0.0004"},
		{"none of 9,999", Test{P: 1.0 / 10000, Method: MonteCarlo, Draws: MaxDraws}, "p ≤ 0.0001"},
		{"10 of 12", Test{P: 10.0 / 12, Method: MonteCarlo, Draws: 12, Exceedances: 10}, "p ≈ 0.83 [0.52, 0.98]"},
		{"3 of 9,999", Test{P: 4.0 / 10000, Method: MonteCarlo, Draws: MaxDraws, Exceedances: 3}, "p ≈ 0.0004 [6.2e-05, 0.0009]"},
	} {
		if got := c.t.PText(); got != c.want {
			t.Errorf("%s: %q, want %q", c.name, got, c.want)
		}
	}
}

// ClopperPearson against known intervals, and its coverage at the ends.
func TestClopperPearson(t *testing.T) {
	for _, c := range []struct {
		k, n   uint64
		lo, hi float64
	}{
		{5, 10, 0.187086, 0.812914},
		{0, 10, 0, 0.308497},
		{10, 10, 0.691503, 1},
		{1, 100, 0.000253, 0.054460},
	} {
		lo, hi := ClopperPearson(c.k, c.n)
		if math.Abs(lo-c.lo) > 1e-5 || math.Abs(hi-c.hi) > 1e-5 {
			t.Errorf("ClopperPearson(%d, %d) = [%.6f, %.6f], want [%.6f, %.6f]", c.k, c.n, lo, hi, c.lo, c.hi)
		}
	}
}

// hyperMeanAbsDev is the hypergeometric's mean absolute deviation: the
// sum over its support.
func TestHyperMeanAbsDev(t *testing.T) {
	for _, c := range [][3]uint64{{10, 3, 4}, {3833, 3545, 1993}, {3833, 229, 1993}, {100, 50, 50}, {20, 20, 5}, {20, 5, 20}, {7, 1, 3}, {1000, 999, 1}} {
		total, good, n := c[0], c[1], c[2]
		mu := float64(n) * float64(good) / float64(total)
		var want float64
		for x := uint64(0); x <= min(good, n); x++ {
			if n-x > total-good {
				continue
			}
			want += math.Abs(float64(x)-mu) * math.Exp(lchoose(float64(good), float64(x))+lchoose(float64(total-good), float64(n-x))-lchoose(float64(total), float64(n)))
		}
		if got := hyperMeanAbsDev(total, good, n); math.Abs(got-want) > 1e-9*max(1, want) {
			t.Errorf("hyperMeanAbsDev(%d, %d, %d) = %v, want %v", total, good, n, got, want)
		}
	}
}
