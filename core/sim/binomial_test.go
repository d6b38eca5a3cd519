package sim

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestBinomialDistribution checks both samplers (inversion for n·p < 16,
// rejection above, and the p > 0.5 mirror) against the exact
// distribution: the mean within 5 standard errors, and a chi-square test
// over the bins holding 99.99% of the mass, whose statistic must stay
// below its 1−1e-6 quantile (Wilson–Hilferty), so a correct sampler
// fails with probability about 1e-6 and the fixed seed keeps it
// deterministic.
func TestBinomialDistribution(t *testing.T) {
	for _, tc := range []struct {
		n uint64
		p float64
	}{{10, 0.3}, {40, 0.2}, {100, 0.3}, {1000, 0.45}, {50, 0.9}, {3000, 0.7}, {1_000_000, 1e-5}} {
		rng := newPRNG(1, 2)
		const draws = 40_000
		counts := map[uint64]float64{}
		var sum float64
		for range draws {
			k := binomial(rng, tc.n, tc.p)
			if k > tc.n {
				t.Fatalf("Bin(%d, %v) drew %d", tc.n, tc.p, k)
			}
			counts[k]++
			sum += float64(k)
		}
		n := float64(tc.n)
		mean, sd := n*tc.p, math.Sqrt(n*tc.p*(1-tc.p))
		if got := sum / draws; math.Abs(got-mean) > 5*sd/math.Sqrt(draws) {
			t.Errorf("Bin(%d, %v): mean %.4f, want %.4f ± %.4f", tc.n, tc.p, got, mean, 5*sd/math.Sqrt(draws))
		}
		// chi-square over the central bins (expected count ≥ 5), the tails pooled
		var chi, tailObs, tailExp float64
		bins := 0
		lo, hi := uint64(math.Max(0, mean-8*sd-1)), uint64(math.Min(n, mean+8*sd+1))
		var inObs, inExp float64
		for k := lo; k <= hi; k++ {
			lg1, _ := math.Lgamma(n + 1)
			lg2, _ := math.Lgamma(float64(k) + 1)
			lg3, _ := math.Lgamma(n - float64(k) + 1)
			pk := math.Exp(lg1 - lg2 - lg3 + float64(k)*math.Log(tc.p) + (n-float64(k))*math.Log1p(-tc.p))
			exp := pk * draws
			if exp < 5 {
				tailObs += counts[k]
				tailExp += exp
				continue
			}
			d := counts[k] - exp
			chi += d * d / exp
			bins++
			inObs += counts[k]
			inExp += exp
		}
		tailObs, tailExp = draws-inObs, draws-inExp
		if tailExp >= 5 {
			d := tailObs - tailExp
			chi += d * d / tailExp
			bins++
		}
		df := float64(bins - 1)
		// the 1−1e-6 quantile of chi-square(df), z = 4.753
		q := df * math.Pow(1-2/(9*df)+4.753*math.Sqrt(2/(9*df)), 3)
		if chi > q {
			t.Errorf("Bin(%d, %v): chi-square %.1f over %d bins, above %.1f", tc.n, tc.p, chi, bins, q)
		}
	}
}

func TestMultinomialSplitsEveryDraw(t *testing.T) {
	rng := newPRNG(3, 4)
	p := []float64{0.5, 0.3, 0.2}
	out := make([]uint64, 3)
	var tot [3]float64
	for range 2000 {
		multinomial(rng, 1000, p, out)
		if out[0]+out[1]+out[2] != 1000 {
			t.Fatalf("split %v of 1000", out)
		}
		for i := range out {
			tot[i] += float64(out[i])
		}
	}
	for i, pi := range p {
		// 2e6 draws in all: the share's standard error is sqrt(p(1-p)/2e6)
		if got := tot[i] / 2e6; math.Abs(got-pi) > 5*math.Sqrt(pi*(1-pi)/2e6) {
			t.Errorf("category %d: share %.5f, want %.2f", i, got, pi)
		}
	}
}

func TestWholeAtLeast1(t *testing.T) {
	for _, tc := range []struct {
		x    float64
		want uint64
	}{{-3, 1}, {0, 1}, {0.2, 1}, {1, 1}, {1.0000001, 2}, {6210, 6210}, {6209.5, 6210}, {1e30, 1 << 62}, {math.Inf(1), 1 << 62}, {math.NaN(), 1}} {
		if got := wholeAtLeast1(tc.x); got != tc.want {
			t.Errorf("wholeAtLeast1(%v) = %d, want %d", tc.x, got, tc.want)
		}
	}
}

// TestAliasTable: the alias method's draws follow the weights (each
// share within 5 standard errors over 10^6 draws), including zero and
// tiny weights.
func TestAliasTable(t *testing.T) {
	for _, w := range [][]float64{{5, 3, 2}, {1}, {0, 1, 0, 3}, {1e-6, 1, 1, 1, 2, 0.5}} {
		var a aliasTable
		a.build(w)
		rng := rand.New(rand.NewPCG(5, 6))
		const n = 1_000_000
		counts := make([]float64, len(w))
		for range n {
			counts[a.draw(rng.Float64())]++
		}
		var tot float64
		for _, x := range w {
			tot += x
		}
		for i, x := range w {
			p := x / tot
			if got := counts[i] / n; math.Abs(got-p) > 5*math.Sqrt(p*(1-p)/n)+1e-12 {
				t.Errorf("weights %v: category %d drawn %.5f of the time, want %.5f", w, i, got, p)
			}
		}
	}
}
