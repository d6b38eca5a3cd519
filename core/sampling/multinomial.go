package sampling

import "math/rand/v2"

// Multinomial draws n samples over weights w (any sum, none negative) by
// conditional binomials in w's order: a profile of n samples of a
// program whose functions take those shares, for simulations such as
// the calibrations of the tests that use this package.
func Multinomial(r *rand.Rand, n uint64, w []float64) []uint64 {
	rest := make([]float64, len(w)+1)
	for i := len(w) - 1; i >= 0; i-- {
		rest[i] = rest[i+1] + w[i]
	}
	x := make([]uint64, len(w))
	for i, v := range w {
		if i == len(w)-1 {
			x[i] = n
			break
		}
		x[i] = binomial(r, n, v/rest[i])
		n -= x[i]
	}
	return x
}
