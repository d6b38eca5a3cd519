package compare

import (
	"fmt"
	"testing"
)

// The cost of the detectable move (every comparison with a verdict
// computes it) from a hundred to a million samples a side.
func BenchmarkDetectable(b *testing.B) {
	for _, n := range []uint64{100, 10_000, 1_000_000} {
		for _, kind := range []string{TwoSample, Fit} {
			b.Run(fmt.Sprintf("%s/samples=%d", kind, n), func(b *testing.B) {
				for b.Loop() {
					detectable(kind, n, n, 1000)
				}
			})
		}
	}
}
