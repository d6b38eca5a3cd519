// Package sampling says whether sampled counts differ from what they were
// drawn from by more than sampling error explains: a profile's samples
// against the ground truth (GoodnessOfFit), two profiles of one program
// against each other (TwoSample), and the per-function tests beside them
// (BinomialTest, ConditionalTest, Holm, Wilson). It imports the standard
// library only.
//
// # The verdict
//
// A profile's n samples are a sample of its interrupts: under sampling
// error alone, the counts per function are multinomial with the truth's
// shares. The statistic is the total-variation distance TV = ½ Σ |s_f −
// t_f| between the sampled shares s and the truth's t, and the p-value is
// the probability that multinomial sampling from the truth alone gives a
// distance at least as large. A difference is beyond sampling error when
// p < Alpha (0.001): one profile in a thousand that only sampling error
// moved is called biased, whatever its number of samples or functions.
//
// # How p is computed
//
// Deterministically (the same inputs give the same p), the first of:
//
//   - Exact, when it is certain: samples where the truth has none are
//     impossible by sampling alone (p = 0); a truth of one function is
//     always met (p = 1).
//   - Exact, for two functions: the first's samples are binomial, and p
//     is the two tails beyond the observed deviation.
//   - Exact, when the outcomes are few: when at most [MaxExactOutcomes]
//     count vectors are possible (three functions up to about 100
//     samples, five up to about 15), p sums their probabilities.
//   - Bound, when the distance is far beyond: one sample moves TV by at
//     most 1/n, so by McDiarmid's inequality P(TV ≥ E[TV] + ε) ≤
//     exp(−2nε²), where E[TV] is computed exactly (each function's mean
//     absolute deviation, de Moivre's formula). When that bound is below
//     what the Monte Carlo test can resolve (1/(MaxDraws+1)), p is the
//     bound: an upper bound, reported as such.
//   - Monte Carlo otherwise, sequential (Besag and Clifford, 1991):
//     multinomial draws from the truth (conditional binomials, the
//     largest shares first) with a pseudo-random generator seeded by a
//     hash of the inputs, until [StopExceedances] draws reach the
//     observed distance (p = StopExceedances/draws) or [MaxDraws] draws
//     are made (p = (exceedances+1)/(MaxDraws+1)), or none of the first
//     [EarlyDraws] reaches it (p = 1/3,000). Stopping at 10 exceedances
//     changes no verdict (with 10 or more in 9,999 draws p ≥ 11/10,000 >
//     Alpha), and stopping early at none in 2,999 keeps the verdict's
//     false-alarm rate under Alpha (see EarlyDraws). A profile within
//     sampling error costs tens of draws; one clearly beyond it 2,999;
//     only one near the threshold all 9,999.
//
// A Monte Carlo p is known only to its draws' resolution: Test keeps
// the draws and how many reached the observed distance, and Test.PText
// prints it as such ("p < 0.0004" when none did, else the estimate with
// its 95% Clopper–Pearson interval), never the floor 1/(draws+1) as a
// value.
//
// The tests of this package show the calibration: over thousands of
// profiles drawn from the truth (2 to 300 functions, 100 to 100,000
// samples) the share called beyond sampling error stays under 0.2%.
package sampling

import (
	"fmt"
	"math"
)

// Alpha is the level of every verdict: a p-value below it is beyond
// sampling error.
const Alpha = 0.001

// The Monte Carlo test's limits (see the package documentation).
const (
	// MaxDraws is the most draws one p-value costs; the smallest Monte
	// Carlo p-value is 1/(MaxDraws+1) = 0.0001.
	MaxDraws = 9999
	// StopExceedances stops the draws: once that many draws reach the
	// observed statistic, p is at least that many over MaxDraws+1, above
	// Alpha, and the draws made estimate it.
	StopExceedances = 10
	// EarlyDraws stops the draws early the other way: when none of the
	// first 2,999 reaches the observed statistic, p = 1/3,000, beyond
	// sampling error. It costs the test almost nothing: under sampling
	// error alone the observed statistic's rank among the draws is
	// uniform, so the test calls a profile beyond with probability
	// P(at most 8 of 9,999 reach it) + P(none of the first 2,999 does,
	// and more than 8 of all do) = 0.0009 + 0.0000134 < Alpha
	// (TestSequentialSize computes it), and a profile far beyond costs
	// 2,999 draws instead of 9,999.
	EarlyDraws = 2999
	// MaxExactOutcomes is the most outcomes an exact p-value sums.
	MaxExactOutcomes = 5000
)

// Method says how a p-value was computed.
type Method string

// The methods.
const (
	// Exact sums the probabilities of every outcome, or knows p for
	// certain (samples where the truth has none: p = 0).
	Exact Method = "exact"
	// MonteCarlo estimates p by sequential Monte Carlo draws.
	MonteCarlo Method = "monte carlo"
	// Bound is an upper bound on p (McDiarmid's inequality), given when
	// the distance is so far beyond sampling error that the Monte Carlo
	// test could not resolve p.
	Bound Method = "bound"
)

// Test is the outcome of a test of sampled counts.
type Test struct {
	// TV is the observed total-variation distance, ½ Σ |s_f − t_f|.
	TV float64
	// Expected is TV's mean under sampling error alone (exact for
	// GoodnessOfFit).
	Expected float64
	// P is the p-value: the probability that sampling error alone gives
	// a distance at least TV (for Method Bound, an upper bound of it).
	P      float64
	Method Method
	// Draws are the Monte Carlo draws made (0 for the other methods), and
	// Exceedances how many of them reached TV: P's resolution (see
	// Test.PText).
	Draws, Exceedances int
}

// Beyond reports whether the distance is beyond sampling error: P <
// Alpha.
func (t Test) Beyond() bool { return t.P < Alpha }

// FormatP renders a p-value for people: "p = 0.31", "p = 0.0004", "p ≤
// 3.1e-12" for a bound, and "p < 1e-300" for one below PFloor (a p that
// underflowed to zero is too small to write, not zero).
func FormatP(p float64, m Method) string {
	rel := "="
	if m == Bound {
		rel = "≤"
	}
	switch {
	case p < PFloor:
		return "p " + PNumber(p)
	case p >= 0.01:
		return fmt.Sprintf("p %s %.2f", rel, p)
	case p >= 0.0001:
		return fmt.Sprintf("p %s %.4f", rel, p)
	}
	return fmt.Sprintf("p %s %.1e", rel, p)
}

// lchoose is log C(n, k).
func lchoose(n, k float64) float64 {
	a, _ := math.Lgamma(n + 1)
	b, _ := math.Lgamma(k + 1)
	c, _ := math.Lgamma(n - k + 1)
	return a - b - c
}

// meanAbsDev is E|X − np| of X ~ Binomial(n, p), by de Moivre's formula:
// 2 (m+1) C(n, m+1) p^(m+1) q^(n−m) with m = ⌊np⌋.
func meanAbsDev(n uint64, p float64) float64 {
	if n == 0 || p <= 0 || p >= 1 {
		return 0
	}
	nf := float64(n)
	m := math.Floor(nf * p)
	if m >= nf {
		return 0
	}
	return math.Exp(math.Ln2 + math.Log(m+1) + lchoose(nf, m+1) + float64((m+1)*math.Log(p)) + float64((nf-m)*math.Log1p(-p)))
}
