package sampling

import (
	"fmt"
	"math"
	"strconv"
)

// PText renders the test's p-value for people with what is known of it:
// an exact p as a value ("p = 0.31"), a bound as one ("p ≤ 3.1e-12"),
// and a Monte Carlo p with its resolution — never its floor as a value.
// A Monte Carlo p whose draws all stayed below the observed distance is
// below what its draws resolve: "p < 0.0004" after 2,999 draws ("p ≤
// 0.0001" after 9,999, where 1/(draws+1) is a round number); one with
// exceedances is the estimate and its 95% (Clopper–Pearson) interval,
// "p ≈ 0.28 [0.14, 0.45]".
func (t Test) PText() string {
	if t.Method != MonteCarlo || t.Draws == 0 {
		return FormatP(t.P, t.Method)
	}
	if t.Exceedances == 0 {
		floor := 1 / float64(t.Draws+1)
		up := roundUp(floor)
		if up == floor {
			return "p ≤ " + PNumber(up)
		}
		return "p < " + PNumber(up)
	}
	lo, hi := ClopperPearson(uint64(t.Exceedances), uint64(t.Draws))
	return fmt.Sprintf("p ≈ %s [%s, %s]", PNumber(t.P), PNumber(lo), PNumber(hi))
}

// PFloor is the smallest p-value written as a number: a p below it (one
// that underflowed to zero in the computation, or a subnormal double
// with few digits left) is written as a bound, "< 1e-300", never as an
// exact zero, which no sample can give.
const PFloor = 1e-300

// PNumber writes a p-value with the digits FormatP gives it ("0.31",
// "0.0004", "3.1e-12"), and one below PFloor as the bound "< 1e-300".
func PNumber(p float64) string {
	switch {
	case p < PFloor:
		return "< 1e-300"
	case p >= 0.01:
		return strconv.FormatFloat(p, 'f', 2, 64)
	case p >= 0.0001:
		return strconv.FormatFloat(p, 'f', 4, 64)
	}
	return strconv.FormatFloat(p, 'e', 1, 64)
}

// roundUp rounds v > 0 up to one significant digit (1/3000 → 0.0004).
func roundUp(v float64) float64 {
	scale := math.Pow(10, math.Floor(math.Log10(v)))
	d := v / scale
	if r := math.Round(d); math.Abs(d-r) < 1e-9 { // 1/10,000 is 1e-4, not 2e-4
		return r * scale
	}
	return math.Ceil(d) * scale
}

// ClopperPearson is the 95% (Clopper–Pearson, exact) interval of a
// probability seen k times in n trials: of a Monte Carlo p-value, k
// draws of n that reached the observed statistic.
func ClopperPearson(k, n uint64) (lo, hi float64) {
	if n == 0 {
		return 0, 1
	}
	kf, nf := float64(k), float64(n)
	if k > 0 { // the x with P(X ≥ k) = 2.5% at p = x: I_x(k, n−k+1) = 0.025
		lo = betaQuantile(0.025, kf, nf-kf+1)
	}
	hi = 1.0
	if k < n { // P(X ≤ k) = 2.5%: I_x(k+1, n−k) = 0.975
		hi = betaQuantile(0.975, kf+1, nf-kf)
	}
	return lo, hi
}

// betaQuantile is the x with I_x(a, b) = q, by bisection (I_x grows with
// x).
func betaQuantile(q, a, b float64) float64 {
	lo, hi := 0.0, 1.0
	for range 100 {
		mid := (lo + hi) / 2
		if regIncBeta(a, b, mid) < q {
			lo = mid
		} else {
			hi = mid
		}
	}
	return (lo + hi) / 2
}
