package sim

import (
	"math/rand/v2"
	"testing"
)

// TestPRNGAsRand draws from prng and from rand.Rand over the same PCG
// seeds, interleaving Float64 and Uint64N of many bounds (powers of two,
// small, large, near 2^64 where the unbiasing loop runs): every number
// must be the same, or runs would change.
func TestPRNGAsRand(t *testing.T) {
	bounds := []uint64{1, 2, 3, 7, 8, 10, 1000, 1 << 20, 1<<20 + 1, 1<<32 - 1, 1 << 40, 1<<63 + 1, ^uint64(0), ^uint64(0) - 1}
	for _, seed := range []uint64{0, 1, 42, 0x9E3779B97F4A7C15} {
		want := rand.New(rand.NewPCG(seed, seed^0x9E3779B97F4A7C15))
		got := newPRNG(seed, seed^0x9E3779B97F4A7C15)
		for i := range 20000 {
			if i%3 == 0 {
				if w, g := want.Float64(), got.Float64(); w != g {
					t.Fatalf("seed %d draw %d: Float64 %v, rand.Rand's %v", seed, i, g, w)
				}
				continue
			}
			n := bounds[i%len(bounds)]
			if w, g := want.Uint64N(n), got.Uint64N(n); w != g {
				t.Fatalf("seed %d draw %d: Uint64N(%d) %d, rand.Rand's %d", seed, i, n, g, w)
			}
		}
	}
}
