package sampling

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
	"time"
)

// reportCPU reports the CPU time per operation since start (the wall
// time, ns/op, counts the waits of a shared machine too).
func reportCPU(b *testing.B, start time.Duration) {
	b.ReportMetric(float64(cpuTime()-start)/1e6/float64(b.N), "cpu-ms/op")
}

// zipfTruth is k functions with shares 1/i.
func zipfTruth(k int) []float64 {
	w := make([]float64, k)
	for i := range w {
		w[i] = 1 / float64(i+1)
	}
	return w
}

// The cost of one p-value at 100,000 samples, for 10 to 5,000 functions:
// a profile within sampling error (drawn from its truth: the draws stop
// after a few tens), one just beyond it (drawn with some mass moved from
// the largest function to the second, TV about 3.5 standard deviations
// above its mean: every draw is made) and one far beyond (5% moved: the
// bound, no draws).
func BenchmarkGoodnessOfFit(b *testing.B) {
	const n = 100_000
	for _, k := range []int{10, 100, 1000, 5000} {
		truth := zipfTruth(k)
		r := rand.New(rand.NewPCG(uint64(k), 1))
		within := make([][]uint64, 64)
		for i := range within {
			within[i] = multinomial(r, n, truth)
		}
		b.Run(fmt.Sprintf("within/functions=%d", k), func(b *testing.B) {
			var draws int
			i := 0
			start := cpuTime()
			for b.Loop() {
				got, _ := GoodnessOfFit(within[i%len(within)], truth)
				draws += got.Draws
				i++
			}
			reportCPU(b, start)
			b.ReportMetric(float64(draws)/float64(b.N), "draws/op")
		})
		for _, c := range []struct {
			name string
			move float64
		}{{"beyond", nearMove(n)}, {"far", 0.05}} {
			counts := multinomial(r, n, moved(truth, c.move))
			b.Run(fmt.Sprintf("%s/functions=%d", c.name, k), func(b *testing.B) {
				var got Test
				start := cpuTime()
				for b.Loop() {
					got, _ = GoodnessOfFit(counts, truth)
				}
				reportCPU(b, start)
				b.ReportMetric(float64(got.Draws), "draws/op")
				b.ReportMetric(got.P, "p")
			})
		}
	}
}

// nearMove is the share to move from the largest function to the second
// for TV to be about 3.5 of its standard deviations (at most 0.3/√n, with
// the two functions' own deviations, about 0.0016 at 10^5 samples, taken
// back) above its mean.
func nearMove(n uint64) float64 { return 3.5*0.3/math.Sqrt(float64(n)) + 0.0016 }

// moved is truth with move (a share) moved from the largest function to
// the second.
func moved(truth []float64, move float64) []float64 {
	var total float64
	for _, v := range truth {
		total += v
	}
	out := append([]float64{}, truth...)
	out[0] -= move * total
	out[1] += move * total
	return out
}

// The cost of comparing two profiles of 100,000 samples each: of the same
// program (the draws stop early), with some mass moved from the largest
// function to the second (about 3.5 standard deviations: every draw is
// made), and 5% moved (the bound), for 10 to 5,000 functions.
func BenchmarkTwoSample(b *testing.B) {
	const n = 100_000
	for _, k := range []int{10, 100, 1000, 5000} {
		truth := zipfTruth(k)
		r := rand.New(rand.NewPCG(uint64(k), 2))
		a := multinomial(r, n, truth)
		for _, c := range []struct {
			name string
			move float64
		}{{"same", 0}, {"beyond", 1.45 * nearMove(n)}, {"far", 0.05}} {
			other := multinomial(r, n, moved(truth, c.move))
			b.Run(fmt.Sprintf("%s/functions=%d", c.name, k), func(b *testing.B) {
				var got Test
				start := cpuTime()
				for b.Loop() {
					got, _ = TwoSample(a, other)
				}
				reportCPU(b, start)
				b.ReportMetric(float64(got.Draws), "draws/op")
				b.ReportMetric(got.P, "p")
			})
		}
	}
}
