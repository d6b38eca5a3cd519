package sampling

import (
	"math"
	"math/rand/v2"
)

// hypergeometric draws the successes among n draws without replacement
// from a population of total items of which good are successes: by
// inversion when few are expected, else by Stadlober's ratio-of-uniforms
// method (HRUA, "The ratio of uniforms approach for generating discrete
// random variates", 1990), whose cost does not grow with the population.
func hypergeometric(r *rand.Rand, total, good, n uint64) uint64 {
	switch {
	case n == 0 || good == 0:
		return 0
	case good == total:
		return n
	case n == total:
		return good
	}
	// draw with the smaller of good and bad, and of n and its complement
	g, s := min(good, total-good), min(n, total-n)
	var x uint64
	if float64(g)*float64(s)/float64(total) < 10 {
		x = hyperInversion(r, total, g, s)
	} else {
		x = hyperHRUA(r, total, g, s)
	}
	if good > total-good { // x counted the bad among the s draws
		x = s - x
	}
	if n > total-n { // the s draws were the ones left out
		x = good - x
	}
	return x
}

// hyperInversion walks the probabilities from 0 (g, s ≤ total/2).
func hyperInversion(r *rand.Rand, total, g, s uint64) uint64 {
	// P(X = 0) = C(total−g, s) / C(total, s)
	f := math.Exp(logFactorial(total-g) + logFactorial(total-s) - logFactorial(total-g-s) - logFactorial(total))
	u := r.Float64()
	var x uint64
	top := min(g, s)
	for u > f && x < top {
		u -= f
		f *= float64(g-x) * float64(s-x) / (float64(x+1) * float64(total-g-s+x+1))
		x++
	}
	return x
}

// hyperHRUA is Stadlober's HRUA for g, s ≤ total/2.
func hyperHRUA(r *rand.Rand, total, g, s uint64) uint64 {
	const d1, d2 = 1.7155277699214135, 0.8989161620588988 // 2√(2/e), 3 − 2√(3/e)
	nf, gf, sf := float64(total), float64(g), float64(s)
	p := gf / nf
	mean := float64(sf*p) + 0.5
	spread := float64(d1*math.Sqrt(float64(sf*(nf-sf)*p*(1-p)/(nf-1))+0.5)) + d2
	mode := math.Floor((sf + 1) * (gf + 1) / (nf + 2))
	lf := logFactorials()
	logAt := func(z float64) float64 {
		zi := uint64(z)
		if total < uint64(len(lf)) {
			return lf[zi] + lf[g-zi] + lf[s-zi] + lf[total-g-s+zi]
		}
		return logFactorial(zi) + logFactorial(g-zi) + logFactorial(s-zi) + logFactorial(total-g-s+zi)
	}
	atMode := logAt(mode)
	end := min(min(gf, sf)+1, math.Floor(mean+float64(16*math.Sqrt(float64(sf*(nf-sf)*p*(1-p)/(nf-1))+0.5))))
	for {
		u, v := float64(r.Float64()), float64(r.Float64())
		if u == 0 {
			continue
		}
		w := mean + float64(spread*(v-0.5)/u)
		if w < 0 || w >= end {
			continue
		}
		z := math.Floor(w)
		t := atMode - logAt(z)
		if float64(u*(4-u))-3 <= t { // the squeeze accepts
			return uint64(z)
		}
		if float64(u*(u-t)) >= 1 { // the squeeze rejects
			continue
		}
		if 2*math.Log(u) <= t {
			return uint64(z)
		}
	}
}
