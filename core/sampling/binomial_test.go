package sampling

import (
	"math"
	"math/rand/v2"
	"testing"
)

// pmf is Binomial(n, p)'s probability of k, by logarithms.
func pmf(k, n uint64, p float64) float64 {
	return math.Exp(lchoose(float64(n), float64(k)) + float64(k)*math.Log(p) + float64(n-k)*math.Log1p(-p))
}

// The sampler draws Binomial(n, p) on both of its paths (inversion and
// BTRS) and on both sides of p = 0.5: over 200,000 draws the empirical
// distribution function stays within the Kolmogorov–Smirnov bound of the
// exact one (1.95/√N, 0.1% for a continuous law, conservative for a
// discrete one), which also checks binomialCDF.
func TestBinomialSamplerFollowsTheLaw(t *testing.T) {
	const draws = 200_000
	for _, c := range []struct {
		n uint64
		p float64
	}{{1, 0.3}, {20, 0.1}, {100, 0.02}, {60, 0.3}, {1000, 0.7}, {100_000, 0.001}, {100_000, 0.3}, {10_000_000, 0.5}, {40, 0.999}} {
		r := rand.New(rand.NewPCG(c.n, 99))
		d := newBinomial(c.p)
		hist := map[uint64]int{}
		lo, hi := c.n, uint64(0)
		for range draws {
			x := d.draw(r, c.n)
			if x > c.n {
				t.Fatalf("Binomial(%d, %v) drew %d", c.n, c.p, x)
			}
			hist[x]++
			lo, hi = min(lo, x), max(hi, x)
		}
		var worst float64
		var cum int
		for x := lo; x <= hi; x++ {
			cum += hist[x]
			if d := math.Abs(float64(cum)/draws - binomialCDF(x, c.n, c.p)); d > worst {
				worst = d
			}
		}
		if limit := 1.95 / math.Sqrt(draws); worst > limit {
			t.Errorf("Binomial(%d, %v): the empirical CDF is %.5f from the exact one (limit %.5f)", c.n, c.p, worst, limit)
		}
	}
}

// The tails of BinomialTest and binomialCDF (the incomplete beta's
// continued fraction) agree with sums of the probabilities, to 1e-9
// relative, far into the tails and for a large n.
func TestBinomialTailsAgreeWithSums(t *testing.T) {
	for _, c := range []struct {
		n uint64
		p float64
	}{{10, 0.5}, {37, 0.1}, {200, 0.03}, {200, 0.9}, {20_000, 0.25}} {
		probs := make([]float64, c.n+1)
		for k := range probs {
			probs[k] = pmf(uint64(k), c.n, c.p)
		}
		for k := uint64(0); k <= c.n; k += max(1, c.n/97) {
			// each tail summed from its own terms
			var lower, upper float64
			for j := uint64(0); j <= k; j++ {
				lower += probs[j]
			}
			for j := k; j <= c.n; j++ {
				upper += probs[j]
			}
			want := min(1, 2*min(lower, upper))
			got := BinomialTest(k, c.n, c.p)
			if want < 1e-300 {
				if got > 1e-290 {
					t.Errorf("BinomialTest(%d, %d, %v) = %g, want about 0", k, c.n, c.p, got)
				}
				continue
			}
			if math.Abs(got-want) > 1e-9*want {
				t.Errorf("BinomialTest(%d, %d, %v) = %.12g, want %.12g", k, c.n, c.p, got, want)
			}
		}
	}
}

// meanAbsDev (de Moivre's formula) is the sum of |k − np| P(k).
func TestMeanAbsDev(t *testing.T) {
	for _, c := range []struct {
		n uint64
		p float64
	}{{1, 0.5}, {2, 0.5}, {7, 0.13}, {100, 0.01}, {1000, 0.37}, {5000, 0.999}} {
		var want float64
		for k := uint64(0); k <= c.n; k++ {
			want += math.Abs(float64(k)-float64(c.n)*c.p) * pmf(k, c.n, c.p)
		}
		if got := meanAbsDev(c.n, c.p); math.Abs(got-want) > 1e-9*max(want, 1e-9) {
			t.Errorf("meanAbsDev(%d, %v) = %.12g, want %.12g", c.n, c.p, got, want)
		}
	}
	if meanAbsDev(10, 0) != 0 || meanAbsDev(10, 1) != 0 || meanAbsDev(0, 0.5) != 0 {
		t.Error("a certain outcome deviates by nothing")
	}
}

// The alias table draws each index with its weight's share.
func TestAliasTable(t *testing.T) {
	w := []float64{5, 1, 0.5, 3, 0.5}
	a := newAlias(w)
	r := rand.New(rand.NewPCG(3, 4))
	const draws = 100_000
	got := make([]int, len(w))
	for range draws {
		got[a.draw(r)]++
	}
	for i, v := range w {
		share := v / 10
		sd := math.Sqrt(share * (1 - share) / draws)
		if d := float64(got[i])/draws - share; math.Abs(d) > 5*sd {
			t.Errorf("index %d: %.4f of the draws, want %.4f", i, float64(got[i])/draws, share)
		}
	}
}

// The sampler's tails, where the verdicts are decided: the share of
// draws beyond the exact 0.05% quantiles on each side is their exact
// mass (about 0.1%) within 4 standard deviations, over 1,000,000 draws.
func TestBinomialSamplerTails(t *testing.T) {
	const draws = 1_000_000
	for _, c := range []struct {
		n uint64
		p float64
	}{{100_000, 0.1}, {100_000, 0.5}, {1000, 0.3}, {100, 0.2}, {30, 0.5}} {
		var lo, hi uint64 // P(X ≤ lo) and P(X ≥ hi) at most 0.0005
		for k := uint64(0); k <= c.n && binomialCDF(k, c.n, c.p) <= 0.0005; k++ {
			lo = k
		}
		hi = c.n
		for k := c.n; k > 0 && regIncBeta(float64(k), float64(c.n-k+1), c.p) <= 0.0005; k-- {
			hi = k
		}
		mass := binomialCDF(lo, c.n, c.p) + regIncBeta(float64(hi), float64(c.n-hi+1), c.p)
		r := rand.New(rand.NewPCG(11, c.n))
		d := newBinomial(c.p)
		var beyond int
		for range draws {
			if x := d.draw(r, c.n); x <= lo || x >= hi {
				beyond++
			}
		}
		want := mass * draws
		if math.Abs(float64(beyond)-want) > 4*math.Sqrt(want) {
			t.Errorf("Binomial(%d, %v): %d draws in the 0.1%% tails, want %.0f ± %.0f", c.n, c.p, beyond, want, math.Sqrt(want))
		}
	}
}

// hyperPMF is the hypergeometric probability of x successes in n draws
// from total items of which good are successes.
func hyperPMF(x, total, good, n uint64) float64 {
	if x > good || x > n || n-x > total-good {
		return 0
	}
	return math.Exp(lchoose(float64(good), float64(x)) + lchoose(float64(total-good), float64(n-x)) - lchoose(float64(total), float64(n)))
}

// The hypergeometric sampler draws its law on both paths (inversion and
// HRUA) and every symmetry (more good than bad, more draws than left):
// the empirical distribution function within the Kolmogorov–Smirnov
// bound of the exact one over 200,000 draws.
func TestHypergeometricSamplerFollowsTheLaw(t *testing.T) {
	const draws = 200_000
	for _, c := range []struct{ total, good, n uint64 }{
		{10, 3, 4}, {100, 10, 20}, {100, 90, 20}, {100, 10, 95}, {1000, 400, 300},
		{1000, 700, 900}, {200_000, 50_000, 100_000}, {300_000, 1000, 150_000},
	} {
		r := rand.New(rand.NewPCG(c.total, c.good))
		hist := map[uint64]int{}
		for range draws {
			x := hypergeometric(r, c.total, c.good, c.n)
			if x > c.good || x > c.n {
				t.Fatalf("%+v drew %d", c, x)
			}
			hist[x]++
		}
		var cdf, worst float64
		var cum int
		for x := uint64(0); x <= min(c.good, c.n); x++ {
			cdf += hyperPMF(x, c.total, c.good, c.n)
			cum += hist[x]
			worst = max(worst, math.Abs(float64(cum)/draws-cdf))
		}
		if limit := 1.95 / math.Sqrt(draws); worst > limit {
			t.Errorf("%+v: the empirical CDF is %.5f from the exact one (limit %.5f)", c, worst, limit)
		}
	}
}
