package sampling

import (
	"math"
	"sort"
)

// BinomialTest is the two-sided exact p-value of k successes in n trials
// of probability p: twice the smaller tail, at most 1. It is one
// function's test against its truth share (k of its samples among the
// profile's n).
func BinomialTest(k, n uint64, p float64) float64 {
	switch {
	case n == 0:
		return 1
	case p <= 0:
		return boolP(k == 0)
	case p >= 1:
		return boolP(k == n)
	}
	lower := binomialCDF(k, n, p) // P(X ≤ k)
	upper := 1.0                  // P(X ≥ k)
	if k > 0 {
		upper = regIncBeta(float64(k), float64(n-k+1), p)
	}
	return min(1, 2*min(lower, upper))
}

// ConditionalTest is the two-sided p-value that a function's a samples
// of na in one profile and b of nb in another come from the same share:
// given its a+b samples in both, a is Binomial(a+b, na/(na+nb)) (the exact
// conditional test of two Poisson counts; for multinomial samples it is
// slightly conservative).
func ConditionalTest(a, na, b, nb uint64) float64 {
	if na == 0 || nb == 0 {
		return 1
	}
	return BinomialTest(a, a+b, float64(na)/float64(na+nb))
}

func boolP(ok bool) float64 {
	if ok {
		return 1
	}
	return 0
}

// binomialCDF is P(X ≤ k) of X ~ Binomial(n, p).
func binomialCDF(k, n uint64, p float64) float64 {
	if k >= n {
		return 1
	}
	return regIncBeta(float64(n-k), float64(k+1), 1-p)
}

// regIncBeta is the regularized incomplete beta function I_x(a, b), by
// its continued fraction (modified Lentz), evaluated on the side where it
// converges fast, so that small tails keep their relative precision.
func regIncBeta(a, b, x float64) float64 {
	switch {
	case x <= 0:
		return 0
	case x >= 1:
		return 1
	}
	la, _ := math.Lgamma(a)
	lb, _ := math.Lgamma(b)
	lab, _ := math.Lgamma(a + b)
	front := lab - la - lb + float64(a*math.Log(x)) + float64(b*math.Log1p(-x))
	if x < (a+1)/(a+b+2) {
		return math.Exp(front) * betaFraction(a, b, x) / a
	}
	return 1 - math.Exp(front)*betaFraction(b, a, 1-x)/b
}

// betaFraction is the continued fraction of I_x(a, b) (Numerical
// Recipes' betacf); it converges in O(√max(a, b)) terms.
func betaFraction(a, b, x float64) float64 {
	const eps, tiny = 1e-15, 1e-300
	limit := 1000 + int(20*math.Sqrt(max(a, b)))
	c, d := 1.0, 1-(a+b)*x/(a+1)
	if math.Abs(d) < tiny {
		d = tiny
	}
	d = 1 / d
	h := d
	step := func(aa float64) float64 {
		d = 1 + float64(aa*d)
		if math.Abs(d) < tiny {
			d = tiny
		}
		c = 1 + aa/c
		if math.Abs(c) < tiny {
			c = tiny
		}
		d = 1 / d
		return float64(d * c)
	}
	for m := 1; m <= limit; m++ {
		mf := float64(m)
		h *= step(mf * (b - mf) * x / ((a + 2*mf - 1) * (a + 2*mf)))
		del := step(-(a + mf) * (a + b + mf) * x / ((a + 2*mf) * (a + 2*mf + 1)))
		h *= del
		if math.Abs(del-1) < eps {
			break
		}
	}
	return h
}

// Holm adjusts p-values for testing them all at once (Holm's step-down
// method): a function whose adjusted p is below Alpha differs beyond
// sampling error with a family-wise error rate under Alpha, however many
// functions the profile has. The result is in the order of p.
func Holm(p []float64) []float64 {
	idx := make([]int, len(p))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(i, j int) bool { return p[idx[i]] < p[idx[j]] })
	out := make([]float64, len(p))
	running := 0.0
	for rank, i := range idx {
		running = max(running, min(1, float64(len(p)-rank)*p[i]))
		out[i] = running
	}
	return out
}

// Wilson is the 95% Wilson score interval of a share, k successes in n
// trials: the share's own interval, one function at a time (about one
// function in twenty has its truth outside by chance alone).
func Wilson(k, n uint64) (lo, hi float64) {
	if n == 0 {
		return 0, 1
	}
	const z = 1.959963984540054
	p, nf := float64(k)/float64(n), float64(n)
	den := 1 + z*z/nf
	mid := (p + z*z/(2*nf)) / den
	half := z * math.Sqrt(p*(1-p)/nf+z*z/(4*nf*nf)) / den
	return max(0, mid-half), min(1, mid+half)
}

// BinomialCDF is P(X ≤ k) of X ~ Binomial(n, p): the power of a test
// whose rejection region is a tail.
func BinomialCDF(k, n uint64, p float64) float64 {
	switch {
	case p <= 0:
		return 1
	case p >= 1:
		return boolP(k >= n)
	}
	return binomialCDF(k, n, p)
}
