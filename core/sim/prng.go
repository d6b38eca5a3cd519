package sim

import "math/bits"

// prng is the simulator's random source: math/rand/v2's PCG generator
// (its 128-bit LCG step and DXSM output), written here so that a draw is
// inlined into the engine's hot path rather than called through rand.Rand
// and its Source interface (an interrupt's function and IP, a segment's
// class). Float64 and Uint64N compute exactly what rand.Rand's do over
// rand.NewPCG with the same seeds, so every run draws the numbers it drew
// before (prng_test.go holds the two side by side).
type prng struct {
	s *pcgState
}

// pcgState is the generator's 128-bit state (rand.PCG's).
type pcgState struct{ hi, lo uint64 }

// newPRNG is the source seeded with seed1 and seed2 (rand.NewPCG's).
func newPRNG(seed1, seed2 uint64) prng { return prng{s: &pcgState{seed1, seed2}} }

// Uint64 is the next 64 random bits: rand.PCG.Uint64's.
func (r prng) Uint64() uint64 {
	const (
		mulHi    = 2549297995355413924
		mulLo    = 4865540595714422341
		incHi    = 6364136223846793005
		incLo    = 1442695040888963407
		cheapMul = 0xda942042e4dd58b5
	)
	p := r.s
	// state = state * mul + inc
	hi, lo := bits.Mul64(p.lo, mulLo)
	hi += p.hi*mulLo + p.lo*mulHi
	lo, c := bits.Add64(lo, incLo, 0)
	hi += incHi + c
	p.lo, p.hi = lo, hi
	// DXSM "double xorshift multiply"
	hi ^= hi >> 32
	hi *= cheapMul
	hi ^= hi >> 48
	return hi * (lo | 1)
}

// Float64 is a number in [0, 1): rand.Rand.Float64's (the low 53 bits
// over 2^53).
func (r prng) Float64() float64 {
	return float64(r.Uint64()<<11>>11) / (1 << 53)
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
		return r.Uint64() & (n - 1)
	}
	hi, lo := bits.Mul64(r.Uint64(), n)
	if lo < n {
		thresh := -n % n
		for lo < thresh {
			hi, lo = bits.Mul64(r.Uint64(), n)
		}
	}
	return hi
}
