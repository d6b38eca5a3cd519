package sampling

import (
	"math"
	"math/rand/v2"
	"sync"
)

// binomial draws from Binomial(n, p).
func binomial(r *rand.Rand, n uint64, p float64) uint64 { return newBinomial(p).draw(r, n) }

// binomialDist is a success probability with what its draws reuse, for
// draws of any number of trials: by inversion when np is small, else by
// Hörmann's transformed rejection with squeeze (BTRS, "The generation of
// binomial random variates", 1993), whose cost does not grow with n.
type binomialDist struct {
	p    float64 // at most 0.5: draws of a larger p count the failures
	flip bool
	logq float64 // log(1 − p)
	lpq  float64 // log(p / (1 − p))
}

func newBinomial(p float64) binomialDist {
	d := binomialDist{p: p}
	if p > 0.5 {
		d.p, d.flip = 1-p, true
	}
	if d.p > 0 {
		d.logq = math.Log1p(-d.p)
		d.lpq = math.Log(d.p) - d.logq
	}
	return d
}

// draw is one draw of n trials.
func (d binomialDist) draw(r *rand.Rand, n uint64) uint64 {
	var x uint64
	switch {
	case n == 0 || d.p <= 0:
	case float64(n)*d.p < 10:
		x = d.inversion(r, n)
	default:
		x = d.btrs(r, n)
	}
	if d.flip {
		return n - x
	}
	return x
}

// inversion walks the probabilities from 0 (np < 10, p ≤ 0.5: about np
// + 1 steps, and q^n does not underflow).
func (d binomialDist) inversion(r *rand.Rand, n uint64) uint64 {
	s := d.p / (1 - d.p)
	a := float64(n+1) * s
	f := math.Exp(float64(n) * d.logq) // P(X = 0)
	u := r.Float64()
	var x uint64
	for u > f {
		u -= f
		x++
		f *= a/float64(x) - s // P(X = x) from P(X = x−1)
		if x == n || f <= 0 {
			break
		}
	}
	return x
}

// btrs is Hörmann's BTRS for p ≤ 0.5 and np ≥ 10. The squeeze accepts
// most draws; the exact test's log-factorials come from a table when it
// is needed.
func (d binomialDist) btrs(r *rand.Rand, n uint64) uint64 {
	p := d.p
	nf := float64(n)
	spq := math.Sqrt(nf * p * (1 - p))
	b := 1.15 + float64(2.53*spq)
	a := -0.0873 + float64(0.0248*b) + float64(0.01*p)
	c := float64(nf*p) + 0.5
	vr := 0.92 - 4.2/b
	var alpha, m, h float64 // for the exact test, on first use
	for {
		u := float64(r.Float64()) - 0.5
		v := r.Float64()
		us := 0.5 - math.Abs(u)
		if us <= 0 {
			continue
		}
		k := math.Floor(float64((float64(2*a)/us+b)*u) + c)
		if k < 0 || k > nf {
			continue
		}
		if us >= 0.07 && v <= vr {
			return uint64(k)
		}
		if alpha == 0 {
			alpha = (2.83 + 5.1/b) * spq
			m = math.Floor((nf + 1) * p) // the mode
			h = logFactorial(uint64(m)) + logFactorial(n-uint64(m))
		}
		v = math.Log(v * alpha / (a/(us*us) + b))
		ki := uint64(k)
		if v <= h-logFactorial(ki)-logFactorial(n-ki)+float64((k-m)*d.lpq) {
			return ki
		}
	}
}

// logFactorials holds log k! for k below its length, made on first use
// (1 MiB, about a millisecond): BTRS's exact test needs two a rejection.
var logFactorials = sync.OnceValue(func() []float64 {
	t := make([]float64, 1<<17)
	for k := 2; k < len(t); k++ {
		t[k] = t[k-1] + math.Log(float64(k))
	}
	return t
})

// logFactorial is log k!.
func logFactorial(k uint64) float64 {
	if t := logFactorials(); k < uint64(len(t)) {
		return t[k]
	}
	v, _ := math.Lgamma(float64(k) + 1)
	return v
}
