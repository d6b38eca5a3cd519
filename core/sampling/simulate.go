package sampling

import (
	"math"
	"math/rand/v2"
)

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

// Program is a program for simulations: a name, and its functions'
// weights (any sum).
type Program struct {
	Name    string
	Weights []float64
}

// Programs are the programs the calibrations of this package's tests and
// of core/compare's verdict draw their profiles from: two and three
// functions of uneven shares, twenty of geometric shares, a hundred of
// Zipf's, and one function of half the time beside 99 small ones.
func Programs() []Program {
	geometric, zipf, half := make([]float64, 20), make([]float64, 100), make([]float64, 100)
	for i := range geometric {
		geometric[i] = math.Pow(0.8, float64(i))
	}
	for i := range zipf {
		zipf[i] = 1 / float64(i+1)
	}
	half[0] = 99
	for i := 1; i < len(half); i++ {
		half[i] = 1
	}
	return []Program{
		{"2 functions 90/10", []float64{9, 1}},
		{"3 functions 60/30/10", []float64{6, 3, 1}},
		{"20 functions, geometric", geometric},
		{"100 functions, Zipf", zipf},
		{"1 at 50% + 99 at 0.5%", half},
	}
}
