package sampling

import (
	"errors"
	"math"
	"math/rand/v2"
	"testing"
)

// multinomial draws n samples with weights w (any sum) by conditional
// binomials, in w's order: the tests' own draw, independent of the
// drawer's split into binomials and an alias table.
func multinomial(r *rand.Rand, n uint64, w []float64) []uint64 { return Multinomial(r, n, w) }

// Hand-checkable cases: their p-values by enumeration, the impossible and
// the certain, and the errors.
func TestGoodnessOfFit(t *testing.T) {
	for _, c := range []struct {
		name         string
		counts       []uint64
		truth        []float64
		tv, p        float64
		method       Method
		beyond       bool
		wantExpected float64
	}{
		// 3 samples of a fair coin: TV = |x − 1.5|/3; 0 and 3 reach ½
		{"a fair coin, 3 of 3", []uint64{3, 0}, []float64{1, 1}, 0.5, 0.25, Exact, false, 0.25},
		{"a fair coin, 2 of 3", []uint64{2, 1}, []float64{1, 1}, 1.0 / 6, 1, Exact, false, 0.25},
		// 10 of 10 heads: p = 2/1024
		{"10 heads", []uint64{10, 0}, []float64{0.5, 0.5}, 0.5, 2.0 / 1024, Exact, false, 0},
		// three equal functions, 2 samples: TV 1/3 for (1,1,0)-like
		// outcomes (prob 6·2/9·… = 2/3), 2/3 for (2,0,0)-like (1/3)
		{"three functions, 2 samples apart", []uint64{2, 0, 0}, []float64{1, 1, 1}, 2.0 / 3, 1.0 / 3, Exact, false, 0},
		{"three functions, 2 samples", []uint64{1, 1, 0}, []float64{1, 1, 1}, 1.0 / 3, 1, Exact, false, 0},
		{"samples where the truth has none", []uint64{5, 1}, []float64{1, 0}, 1.0 / 6, 0, Exact, true, 0},
		{"one function", []uint64{7, 0}, []float64{3, 0}, 0, 1, Exact, false, 0},
	} {
		got, err := GoodnessOfFit(c.counts, c.truth)
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		if math.Abs(got.TV-c.tv) > 1e-12 || math.Abs(got.P-c.p) > 1e-12 || got.Method != c.method || got.Beyond() != c.beyond {
			t.Errorf("%s: %+v, want TV %v, p %v (%s), beyond %v", c.name, got, c.tv, c.p, c.method, c.beyond)
		}
		if c.wantExpected > 0 && math.Abs(got.Expected-c.wantExpected) > 1e-12 {
			t.Errorf("%s: expected TV %v, want %v", c.name, got.Expected, c.wantExpected)
		}
	}
	for _, c := range []struct {
		name   string
		counts []uint64
		truth  []float64
		want   string
	}{
		{"lengths", []uint64{1, 2}, []float64{1}, "2 counts but 1 truths"},
		{"negative", []uint64{1, 2}, []float64{1, -1}, "truth [2] is -1"},
		{"not a number", []uint64{1}, []float64{math.NaN()}, "truth [1] is NaN"},
		{"no truth", []uint64{1, 2}, []float64{0, 0}, "the truth is zero everywhere"},
	} {
		if _, err := GoodnessOfFit(c.counts, c.truth); err == nil || !contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want %q", c.name, err, c.want)
		}
	}
	if _, err := GoodnessOfFit([]uint64{0, 0}, []float64{1, 1}); !errors.Is(err, ErrNoSamples) {
		t.Errorf("no samples: error %v, want ErrNoSamples", err)
	}
}

func contains(s, sub string) bool {
	for i := 0; i+len(sub) <= len(s); i++ {
		if s[i:i+len(sub)] == sub {
			return true
		}
	}
	return false
}

// Expected is E[TV] under sampling from the truth: the mean distance of
// many drawn profiles.
func TestExpectedDistance(t *testing.T) {
	truth := []float64{0.5, 0.3, 0.1, 0.05, 0.05}
	r := rand.New(rand.NewPCG(5, 6))
	const n, profiles = 1000, 20_000
	var sum, sq float64
	for range profiles {
		fs := cellsOf(multinomial(r, n, truth), truth)
		tv := fs.distance(fs.x)
		sum += tv
		sq += tv * tv
	}
	one, err := GoodnessOfFit(multinomial(r, n, truth), truth)
	if err != nil {
		t.Fatal(err)
	}
	want := one.Expected
	mean := sum / profiles
	sd := math.Sqrt((sq/profiles - mean*mean) / profiles)
	if math.Abs(mean-want) > 4*sd {
		t.Errorf("mean distance %.5f ± %.5f, Expected %.5f", mean, sd, want)
	}
}

// The exact p-value (enumeration, binomial tails) and the Monte Carlo
// drawer agree: the drawer's share of draws reaching the observed
// distance estimates the exact p.
func TestMonteCarloAgreesWithExact(t *testing.T) {
	for _, c := range []struct {
		counts []uint64
		truth  []float64
	}{
		{[]uint64{40, 35, 5}, []float64{0.5, 0.3, 0.2}},
		{[]uint64{12, 3, 3, 1}, []float64{0.4, 0.3, 0.2, 0.1}},
		{[]uint64{700, 300}, []float64{0.72, 0.28}},
		{[]uint64{9, 1, 0, 0, 0, 0}, []float64{0.5, 0.1, 0.1, 0.1, 0.1, 0.1}}, // the alias table's tail
	} {
		exact, err := GoodnessOfFit(c.counts, c.truth)
		if err != nil || exact.Method != Exact {
			t.Fatalf("%v: %+v %v, want an exact p", c.counts, exact, err)
		}
		fs := cellsOf(c.counts, c.truth)
		d := fs.drawer()
		r := rand.New(rand.NewPCG(7, 8))
		const draws = 40_000
		var reached int
		for range draws {
			if d.distance(r) >= reach(exact.TV) {
				reached++
			}
		}
		est := float64(reached) / draws
		sd := math.Sqrt(exact.P * (1 - exact.P) / draws)
		if math.Abs(est-exact.P) > 5*sd+1e-9 {
			t.Errorf("%v: Monte Carlo %.4f, exact %.4f", c.counts, est, exact.P)
		}
	}
}

// cellsOf prepares a goodness-of-fit test's functions as GoodnessOfFit
// does, for the drawer alone.
func cellsOf(counts []uint64, truth []float64) *fitCells {
	var fs fitCells
	var total float64
	for _, v := range truth {
		total += v
	}
	for i, v := range truth {
		fs.x = append(fs.x, counts[i])
		fs.t = append(fs.t, v/total)
		fs.n += counts[i]
	}
	fs.sort()
	fs.prepare()
	return &fs
}

// The drawer splits where it costs least: a profile with few samples over
// many functions draws them from the alias table, one with many samples
// draws every function's binomial; both give the exact distribution
// (TestMonteCarloAgreesWithExact).
func TestDrawerSplit(t *testing.T) {
	truth := make([]float64, 1000)
	for i := range truth {
		truth[i] = 1 / float64(i+1)
	}
	few := cellsOf(append([]uint64{100}, make([]uint64, 999)...), truth).drawer()
	many := cellsOf(append([]uint64{1_000_000}, make([]uint64, 999)...), truth).drawer()
	if few.head > 10 || many.head != 1000 {
		t.Errorf("binomials for %d of 1000 functions at 100 samples, %d at 10^6", few.head, many.head)
	}
}

// The same inputs give the same p, draws included, in any order.
func TestGoodnessOfFitIsDeterministic(t *testing.T) {
	truth := []float64{0.3, 0.25, 0.2, 0.15, 0.1}
	counts := []uint64{310, 240, 205, 140, 105}
	a, err := GoodnessOfFit(counts, truth)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := GoodnessOfFit(append([]uint64{}, counts...), append([]float64{}, truth...))
	if a != b || a.Method != MonteCarlo || a.Draws < StopExceedances {
		t.Errorf("%+v then %+v", a, b)
	}
	// the functions in another order: the same test
	c, _ := GoodnessOfFit([]uint64{105, 140, 205, 240, 310}, []float64{0.1, 0.15, 0.2, 0.25, 0.3})
	if c != a {
		t.Errorf("reversed: %+v, want %+v", c, a)
	}
}

// A distance far beyond sampling error is judged by McDiarmid's bound,
// without draws; one clearly beyond stops after 2,999 draws none of
// which reached it; one near the threshold takes every draw.
func TestBoundEarlyStopAndFullDraws(t *testing.T) {
	truth := []float64{0.3, 0.25, 0.2, 0.15, 0.1}
	far, _ := GoodnessOfFit([]uint64{3300, 2500, 2000, 1500, 700}, truth)
	if far.Method != Bound || !far.Beyond() || far.Draws != 0 || far.P > 1e-4 {
		t.Errorf("far: %+v", far)
	}
	// 10,000 samples, 2.5% moved from the largest to the smallest: TV
	// 0.025, its mean under sampling error 0.0078, McDiarmid's bound 0.03
	clear, _ := GoodnessOfFit([]uint64{2750, 2500, 2000, 1500, 1250}, truth)
	if clear.Method != MonteCarlo || !clear.Beyond() || clear.Draws != EarlyDraws {
		t.Errorf("clearly beyond: %+v", clear)
	}
	// 1.9% moved: p about 0.0005
	near, _ := GoodnessOfFit([]uint64{2810, 2500, 2000, 1500, 1190}, truth)
	if near.Method != MonteCarlo || !near.Beyond() || near.Draws != MaxDraws {
		t.Errorf("near: %+v", near)
	}
}

// shape is a truth for the calibration: weights per function.
type shape struct {
	name string
	w    []float64
}

func shapes() []shape {
	var out []shape
	for _, p := range Programs() {
		out = append(out, shape{p.Name, p.Weights})
	}
	return out
}

// profilesPerCase is how many simulated profiles each calibration case
// judges: 2,000 by default, 300 under -short.
func profilesPerCase() int {
	if testing.Short() {
		return 300
	}
	return 2000
}

// sampleCounts are the calibration's numbers of samples.
var sampleCounts = []uint64{100, 1000, 10_000, 100_000}

// Calibration: profiles drawn from the truth itself (pure sampling
// noise) are called beyond sampling error at most 0.2% of the time (the
// test's level is 0.1%): at each number of samples over the 10,000
// profiles of the five shapes of truth, and at most 0.4% in any case of
// 2,000 (a case's count of false alarms is Poisson with mean 2 at best:
// 5 happens one case in twenty). Under -short, 300 profiles a case only
// show rates under 1%.
func TestFalseAlarmsUnderPureNoise(t *testing.T) {
	profiles := profilesPerCase()
	perCase, pooled := 0.004, 0.002
	if testing.Short() {
		perCase, pooled = 0.01, 0.01
	}
	ss := shapes()
	alarms := make([][]int, len(ss)) // by shape, then sample count
	t.Run("shapes", func(t *testing.T) {
		for si, s := range ss {
			alarms[si] = make([]int, len(sampleCounts))
			t.Run(s.name, func(t *testing.T) {
				t.Parallel()
				for ni, n := range sampleCounts {
					r := rand.New(rand.NewPCG(uint64(si), n))
					var draws int
					methods := map[Method]int{}
					for range profiles {
						got, err := GoodnessOfFit(multinomial(r, n, s.w), s.w)
						if err != nil {
							t.Fatal(err)
						}
						if got.Beyond() {
							alarms[si][ni]++
						}
						draws += got.Draws
						methods[got.Method]++
					}
					a := alarms[si][ni]
					t.Logf("%-24s n=%-6d false alarms %d of %d (%.2f%%), %.0f draws a profile, %v", s.name, n, a, profiles,
						100*float64(a)/float64(profiles), float64(draws)/float64(profiles), methods)
					if float64(a) > perCase*float64(profiles) {
						t.Errorf("%d samples: %d false alarms in %d profiles of pure noise, want at most %.1f%%", n, a, profiles, 100*perCase)
					}
				}
			})
		}
	})
	for ni, n := range sampleCounts {
		var sum int
		for si := range ss {
			sum += alarms[si][ni]
		}
		all := profiles * len(ss)
		t.Logf("n=%-6d false alarms %d of %d profiles (%.3f%%)", n, sum, all, 100*float64(sum)/float64(all))
		if float64(sum) > pooled*float64(all) {
			t.Errorf("%d samples: %d false alarms in %d profiles of pure noise, want at most %.1f%%", n, sum, all, 100*pooled)
		}
	}
}

// Power: 1% of the mass moved from one function to another, at 100,000
// samples, is found in at least 99% of profiles, for every shape: from
// the largest function to the second, to the smallest, and between the
// fifth and the sixth where the fifth has 1% to give.
func TestPowerOnePercentMoved(t *testing.T) {
	profiles := 300
	if testing.Short() {
		profiles = 50
	}
	const n = 100_000
	for si, s := range shapes() {
		var total float64
		for _, v := range s.w {
			total += v
		}
		moves := [][2]int{{0, 1}, {0, len(s.w) - 1}}
		if len(s.w) > 5 && s.w[4] >= 0.01*total {
			moves = append(moves, [2]int{4, 5})
		}
		if len(s.w) == 2 {
			moves = moves[:1]
		}
		for _, move := range moves {
			moved := append([]float64{}, s.w...)
			moved[move[0]] -= 0.01 * total
			moved[move[1]] += 0.01 * total
			r := rand.New(rand.NewPCG(uint64(si)+100, uint64(move[1])))
			var found int
			methods := map[Method]int{}
			for range profiles {
				got, err := GoodnessOfFit(multinomial(r, n, moved), s.w)
				if err != nil {
					t.Fatal(err)
				}
				if got.Beyond() {
					found++
				}
				methods[got.Method]++
			}
			power := float64(found) / float64(profiles)
			t.Logf("%-24s 1%% from #%d to #%d at %d samples: found in %d of %d (power %.3f), %v", s.name, move[0]+1, move[1]+1, n, found, profiles, power, methods)
			if power < 0.99 {
				t.Errorf("%s: power %.3f to find 1%% moved from #%d to #%d, want at least 0.99", s.name, power, move[0]+1, move[1]+1)
			}
		}
	}
}

// The sequential Monte Carlo test's size: under sampling error alone
// (a continuous statistic) the observed one's rank among the draws is
// uniform, so the draws reach it independently with a probability u that
// is uniform on [0, 1]. The test calls a profile beyond when at most 8 of
// 9,999 draws reach it, or none of the first 2,999 does: the
// probability of that, integrated over u, is at most Alpha.
func TestSequentialSize(t *testing.T) {
	lgamma := func(x float64) float64 { v, _ := math.Lgamma(x); return v }
	// P(at most g of n reach it) = (g+1)/(n+1) over u uniform
	final := float64(StopExceedances-1) / float64(MaxDraws+1)
	// P(none of the first L, and j > 8 of the other M): C(M,j) B(j+1, L+M−j+1)
	L, M := float64(EarlyDraws), float64(MaxDraws-EarlyDraws)
	var early float64
	for j := float64(StopExceedances - 1); j <= M; j++ {
		early += math.Exp(lgamma(M+1) - lgamma(M-j+1) + lgamma(L+M-j+1) - lgamma(L+M+2))
	}
	size := final + early
	t.Logf("size %.7f: %.7f from the last draw, %.7f from the early stop", size, final, early)
	if size >= Alpha {
		t.Errorf("the sequential test's size is %v, not under %v", size, Alpha)
	}
	// and it stops there
	var calls int
	p, draws, _ := sequential(1, func() float64 { calls++; return 0 })
	if draws != EarlyDraws || calls != EarlyDraws || p != 1.0/(EarlyDraws+1) {
		t.Errorf("never reached: p %v after %d draws", p, draws)
	}
}
