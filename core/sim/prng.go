package sim

import (
	"math/bits"
	"math/rand/v2"
)

// prng is the simulator's random source: a PCG generator called directly
// rather than through math/rand/v2's Rand and its Source interface, which
// the engine's hot path paid for at every draw (an interrupt's function
// and IP, a segment's class). Float64 and Uint64N compute exactly what
// rand.Rand's do from the same PCG, so every run draws the numbers it drew
// before (prng_test.go holds the two side by side).
type prng struct {
	src *rand.PCG
}

// newPRNG is the source seeded with seed1 and seed2 (rand.NewPCG's).
func newPRNG(seed1, seed2 uint64) prng { return prng{src: rand.NewPCG(seed1, seed2)} }

// Float64 is a number in [0, 1): rand.Rand.Float64's.
func (r prng) Float64() float64 {
	return float64(r.src.Uint64()<<11>>11) / (1 << 53)
}

// Uint64N is a number in [0, n): rand.Rand.Uint64N's (Lemire's
// multiply-shift with the unbiasing loop, a mask for powers of two; on a
// 32-bit system rand.Rand computes the same numbers another way). n must
// not be 0.
func (r prng) Uint64N(n uint64) uint64 {
	if n == 0 {
		panic("invalid argument to Uint64N")
	}
	if n&(n-1) == 0 {
		return r.src.Uint64() & (n - 1)
	}
	hi, lo := bits.Mul64(r.src.Uint64(), n)
	if lo < n {
		thresh := -n % n
		for lo < thresh {
			hi, lo = bits.Mul64(r.src.Uint64(), n)
		}
	}
	return hi
}
