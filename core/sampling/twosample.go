package sampling

import (
	"encoding/binary"
	"fmt"
	"hash/fnv"
	"math"
	"math/rand/v2"
)

// TwoSample tests whether two profiles' counts per function (a and b, in
// the same order) come from the same shares: the total-variation distance
// between their shares, and the probability that sampling error alone
// gives one at least as large when both are drawn from one distribution.
//
// Given each function's samples in both (m = a + b) and the profiles'
// sizes, every split of the pooled samples that gives each profile its
// size is equally likely when both come from one distribution (the
// multivariate hypergeometric, the conditional test of Fisher's exact
// test): the p-value is the share of splits whose distance reaches the
// observed one, summed exactly when at most MaxExactOutcomes splits are
// possible, else by McDiarmid's bound when it is below what the Monte
// Carlo test resolves (see bound), else by the sequential Monte Carlo of
// the package documentation over random splits. So the test carries
// both profiles' sampling errors, and needs nothing but their counts.
// It is an error for the lengths to differ or (ErrNoSamples) either
// profile to have no samples.
func TwoSample(a, b []uint64) (Test, error) {
	if len(a) != len(b) {
		return Test{}, fmt.Errorf("%d counts against %d: give one of each per function", len(a), len(b))
	}
	var c twoCells
	for i := range a {
		if a[i]+b[i] == 0 {
			continue
		}
		c.a, c.m = append(c.a, a[i]), append(c.m, a[i]+b[i])
		c.na += a[i]
		c.nb += b[i]
	}
	if c.na == 0 || c.nb == 0 {
		return Test{}, ErrNoSamples
	}
	c.n = c.na + c.nb
	c.sort()
	out := Test{TV: c.distance(c.a, c.na), Expected: c.expected()}
	switch {
	case len(c.m) == 1:
		out.P, out.Method = 1, Exact
		return out, nil
	case c.outcomes() <= MaxExactOutcomes:
		out.P, out.Method = c.exact(out.TV), Exact
		return out, nil
	}
	if b := c.bound(out.TV); b < 1.0/(MaxDraws+1) {
		out.P, out.Method = b, Bound
		return out, nil
	}
	r := rand.New(rand.NewPCG(c.seed(), 0x74776f73616d706c)) // "twosampl"
	x := make([]uint64, len(c.m))
	out.P, out.Draws, out.Exceedances = sequential(out.TV, func() float64 {
		c.split(r, x)
		return c.distance(x, c.na)
	})
	out.Method = MonteCarlo
	return out, nil
}

// split fills x with a random split of the pooled samples that gives a
// its na (the multivariate hypergeometric, by one hypergeometric draw
// per function, the most pooled samples first).
func (c *twoCells) split(r *rand.Rand, x []uint64) {
	rest, want := c.n, c.na
	for i, m := range c.m {
		switch {
		case want == 0:
			x[i] = 0
		case want == rest: // the rest all go to a
			x[i] = m
		default:
			x[i] = hypergeometric(r, rest, m, want)
		}
		rest -= m
		want -= x[i]
	}
}

// twoCells are a two-sample test's functions with samples in either
// profile, the most pooled samples first.
type twoCells struct {
	a, m      []uint64 // a's samples, both profiles' samples
	na, nb, n uint64   // a's samples, b's, both
}

func (c *twoCells) sort() {
	idx := order(len(c.m), func(x, y int) bool {
		if c.m[x] != c.m[y] {
			return c.m[x] > c.m[y]
		}
		return c.a[x] > c.a[y]
	})
	a, m := make([]uint64, len(idx)), make([]uint64, len(idx))
	for k, i := range idx {
		a[k], m[k] = c.a[i], c.m[i]
	}
	c.a, c.m = a, m
}

// distance is the total-variation distance between a's shares (x, na in
// all) and the other profile's (the rest of the pooled samples). A draw
// that gives either profile nothing is as far as can be.
func (c *twoCells) distance(x []uint64, na uint64) float64 {
	nb := c.n - na
	if na == 0 || nb == 0 {
		return 1
	}
	fa, fb := float64(na), float64(nb)
	var sum float64
	for i, v := range x {
		sum += math.Abs(float64(v)/fa - float64(c.m[i]-v)/fb)
	}
	return sum / 2
}

// expected is E[TV] over the splits, exactly: each function's a is
// hypergeometric (its m pooled samples, na of the N drawn for a), and a/na
// − b/nb = (N/(na·nb))(a − m·na/N), so E[TV] is the functions' mean
// absolute deviations (hyperMeanAbsDev) times N/(2·na·nb). (Binomial
// splits would leave out the finite-population factor (N−m)/(N−1) of
// each function's variance, and overstate E[TV] by up to twice when one
// function holds most samples.)
func (c *twoCells) expected() float64 {
	var sum float64
	for _, m := range c.m {
		sum += hyperMeanAbsDev(c.n, m, c.na)
	}
	return sum * float64(c.n) / (float64(c.na) * float64(c.nb)) / 2
}

// hyperMeanAbsDev is E|X − μ| of X hypergeometric (n drawn without
// replacement from total items of which good are successes; μ =
// n·good/total). With j = ⌊μ⌋ + 1 it is 2·j·(total − good − n + j)/total
// · P(X = j): (x − μ)P(x) = g(x) − g(x+1) for g(x) = x(total − good − n +
// x)/total · P(x), so the deviations above μ sum to g(j), and those below
// equal them (the binomial's is de Moivre's formula, its limit).
func hyperMeanAbsDev(total, good, n uint64) float64 {
	if total == 0 || good == 0 || good == total || n == 0 || n == total {
		return 0
	}
	t, g, nf := float64(total), float64(good), float64(n)
	j := math.Floor(nf*g/t) + 1
	bad := t - g
	if j > min(g, nf) || nf-j > bad { // X never exceeds μ: X is constant
		return 0
	}
	logP := lchoose(g, j) + lchoose(bad, nf-j) - lchoose(t, nf)
	return 2 * j * (bad - nf + j) / t * math.Exp(logP)
}

// bound is McDiarmid's bound on p for a random split: drawing a's na
// samples one by one without replacement, each draw moves the expected
// distance by at most c = 1/na + 1/nb (a different draw swaps one
// sample between the profiles, which moves TV by at most that), so
// P(TV ≥ E + ε) ≤ exp(−2ε²/(na c²)), and by symmetry with nb; E is
// bounded by Σ √Var(a_f) (Jensen), Var(a_f) hypergeometric.
func (c *twoCells) bound(obs float64) float64 {
	n, fa, fb := float64(c.n), float64(c.na), float64(c.nb)
	var e float64
	for _, m := range c.m {
		q := float64(m) / n
		e += math.Sqrt(fa * q * (1 - q) * (n - fa) / (n - 1))
	}
	e = float64(e * (n / (fa * fb) / 2))
	eps := obs - e
	if eps <= 0 {
		return 1
	}
	step := 1/fa + 1/fb
	return math.Exp(-2 * eps * eps / (min(fa, fb) * step * step))
}

// outcomes is how many splits of the pooled samples give a its na:
// at most Π (m_i + 1).
func (c *twoCells) outcomes() float64 {
	var l float64
	for _, m := range c.m {
		l += math.Log(float64(m) + 1)
	}
	return math.Exp(l)
}

// exact sums, over every split of the pooled samples that gives a its
// na, the hypergeometric probability Π C(m_i, x_i) / C(N, na) of the
// splits whose distance reaches obs.
func (c *twoCells) exact(obs float64) float64 {
	k := len(c.m)
	total := c.n
	// the most the functions after i can take
	after := make([]uint64, k+1)
	for i := k - 1; i >= 0; i-- {
		after[i] = after[i+1] + c.m[i]
	}
	lc := make([][]float64, k) // log C(m_i, v)
	for i, m := range c.m {
		lc[i] = make([]float64, m+1)
		for v := range m + 1 {
			lc[i][v] = lchoose(float64(m), float64(v))
		}
	}
	norm := lchoose(float64(total), float64(c.na))
	fa, fb := float64(c.na), float64(c.nb)
	threshold := float64(reach(obs) * 2)
	var p float64
	var walk func(i int, rem uint64, logp, dev float64)
	walk = func(i int, rem uint64, logp, dev float64) {
		if i == k {
			if rem == 0 && dev >= threshold {
				p += math.Exp(logp - norm)
			}
			return
		}
		lo := uint64(0)
		if rem > after[i+1] {
			lo = rem - after[i+1]
		}
		for v := lo; v <= min(rem, c.m[i]); v++ {
			walk(i+1, rem-v, logp+lc[i][v], dev+math.Abs(float64(v)/fa-float64(c.m[i]-v)/fb))
		}
	}
	walk(0, c.na, 0, 0)
	return min(1, p)
}

func (c *twoCells) seed() uint64 {
	h := fnv.New64a()
	var b [8]byte
	for i := range c.m {
		binary.LittleEndian.PutUint64(b[:], c.a[i])
		h.Write(b[:])
		binary.LittleEndian.PutUint64(b[:], c.m[i])
		h.Write(b[:])
	}
	return h.Sum64()
}
