package sampling

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/fnv"
	"math"
	"math/rand/v2"
	"sort"
)

// ErrNoSamples is GoodnessOfFit's and TwoSample's error for a profile
// without samples: it says nothing of the truth, and has no verdict.
var ErrNoSamples = errors.New("no samples")

// GoodnessOfFit tests counts (samples per function) against truth (each
// function's truth, in the same order, in any unit: it is normalised to
// shares): the total-variation distance between the sampled and the
// truth shares, and the probability that multinomial sampling from the
// truth alone gives one at least as large (see the package
// documentation). It is an error for the lengths to differ, a truth to be
// negative or not finite, the truth to be all zero, or (ErrNoSamples)
// the counts to be.
func GoodnessOfFit(counts []uint64, truth []float64) (Test, error) {
	if len(counts) != len(truth) {
		return Test{}, fmt.Errorf("%d counts but %d truths: give one of each per function", len(counts), len(truth))
	}
	var n uint64
	var total float64
	for i, t := range truth {
		if t < 0 || math.IsNaN(t) || math.IsInf(t, 0) {
			return Test{}, fmt.Errorf("truth [%d] is %v: give a finite, non-negative value", i+1, t)
		}
		total += t
		n += counts[i]
	}
	if n == 0 {
		return Test{}, ErrNoSamples
	}
	if total <= 0 {
		return Test{}, fmt.Errorf("the truth is zero everywhere: the profile's range saw nothing to sample")
	}
	// the functions with some truth, largest first; samples where the
	// truth has none cannot come from sampling it
	var fs fitCells
	impossible := false
	for i, t := range truth {
		switch {
		case t > 0:
			fs.x = append(fs.x, counts[i])
			fs.t = append(fs.t, t/total)
		case counts[i] > 0:
			impossible = true
			fs.outside += counts[i]
		}
	}
	fs.sort()
	fs.n = n
	fs.prepare()
	out := Test{TV: fs.distance(fs.x), Expected: fs.expected()}
	switch {
	case impossible:
		out.Method = Exact // P = 0
		return out, nil
	case len(fs.t) == 1:
		out.P, out.Method = 1, Exact
		return out, nil
	case len(fs.t) == 2:
		out.P, out.Method = fs.binomialTails(out.TV), Exact
		return out, nil
	case fs.outcomes() <= MaxExactOutcomes:
		out.P, out.Method = fs.exact(out.TV), Exact
		return out, nil
	}
	if eps := out.TV - out.Expected; eps > 0 {
		if b := math.Exp(-2 * float64(n) * eps * eps); b < 1.0/(MaxDraws+1) {
			out.P, out.Method = b, Bound
			return out, nil
		}
	}
	r := rand.New(rand.NewPCG(fs.seed(), 0x73616d706c696e67)) // "sampling"
	d := fs.drawer()
	out.P, out.Draws, out.Exceedances = sequential(out.TV, func() float64 { return d.distance(r) })
	out.Method = MonteCarlo
	return out, nil
}

// fitCells are a goodness-of-fit test's functions with some truth,
// largest share first.
type fitCells struct {
	x       []uint64  // observed samples
	t       []float64 // truth shares (adding up to 1)
	n       uint64    // all samples, outside included
	outside uint64    // samples where the truth has none
	nt      []float64 // n·t
	rest    []float64 // Σ_{j ≥ i} t_j
	restNT  []float64 // Σ_{j ≥ i} n·t_j
}

func (fs *fitCells) sort() {
	// by share, then samples: the order (and the seed) does not depend
	// on the order the functions were given in
	idx := order(len(fs.t), func(a, b int) bool {
		if fs.t[a] != fs.t[b] {
			return fs.t[a] > fs.t[b]
		}
		return fs.x[a] > fs.x[b]
	})
	x, t := make([]uint64, len(idx)), make([]float64, len(idx))
	for k, i := range idx {
		x[k], t[k] = fs.x[i], fs.t[i]
	}
	fs.x, fs.t = x, t
}

func (fs *fitCells) prepare() {
	k, nf := len(fs.t), float64(fs.n)
	fs.nt, fs.rest, fs.restNT = make([]float64, k), make([]float64, k+1), make([]float64, k+1)
	for i := k - 1; i >= 0; i-- {
		fs.nt[i] = nf * fs.t[i]
		fs.rest[i] = fs.rest[i+1] + fs.t[i]
		fs.restNT[i] = fs.restNT[i+1] + fs.nt[i]
	}
}

// distance is the total-variation distance of counts x (and the samples
// outside) from the truth.
func (fs *fitCells) distance(x []uint64) float64 {
	sum := float64(fs.outside)
	for i, v := range x {
		sum += math.Abs(float64(v) - fs.nt[i])
	}
	return sum / (2 * float64(fs.n))
}

// expected is E[TV] under multinomial sampling from the truth: the
// functions' mean absolute deviations (exact, by linearity).
func (fs *fitCells) expected() float64 {
	var sum float64
	for _, t := range fs.t {
		sum += meanAbsDev(fs.n, t)
	}
	return sum / (2 * float64(fs.n))
}

// outcomes is how many count vectors n samples over the functions can
// give, C(n+k−1, k−1), or more than MaxExactOutcomes.
func (fs *fitCells) outcomes() float64 {
	k := float64(len(fs.t))
	return math.Exp(lchoose(float64(fs.n)+k-1, k-1))
}

// exact sums the probability of every count vector whose distance is at
// least obs.
func (fs *fitCells) exact(obs float64) float64 {
	nf := float64(fs.n)
	lt := make([]float64, len(fs.t))
	for i, t := range fs.t {
		lt[i] = math.Log(t)
	}
	lnf, _ := math.Lgamma(nf + 1)
	threshold := float64(reach(obs) * 2 * nf)
	var p float64
	var walk func(i int, rem uint64, logp, dev float64)
	walk = func(i int, rem uint64, logp, dev float64) {
		if rem == 0 { // the rest get nothing
			if dev+fs.restNT[i] >= threshold {
				p += math.Exp(lnf + logp)
			}
			return
		}
		if i == len(fs.t)-1 {
			v := float64(rem)
			lg, _ := math.Lgamma(v + 1)
			if dev+math.Abs(v-fs.nt[i]) >= threshold {
				p += math.Exp(lnf + logp + float64(v*lt[i]) - lg)
			}
			return
		}
		for v := uint64(0); v <= rem; v++ {
			vf := float64(v)
			lg, _ := math.Lgamma(vf + 1)
			walk(i+1, rem-v, logp+float64(vf*lt[i])-lg, dev+math.Abs(vf-fs.nt[i]))
		}
	}
	walk(0, fs.n, 0, 0)
	return min(1, p)
}

// binomialTails is the exact p of two functions: the first's samples
// are Binomial(n, t), and TV is |x − nt|/n, so p is both tails of it
// beyond the observed deviation.
func (fs *fitCells) binomialTails(obs float64) float64 {
	d := float64(reach(obs) * float64(fs.n))
	var p float64
	if lo := math.Floor(fs.nt[0] - d); lo >= 0 {
		p += binomialCDF(uint64(lo), fs.n, fs.t[0])
	}
	if hi := math.Ceil(fs.nt[0] + d); hi <= float64(fs.n) {
		if hi <= 0 {
			return 1
		}
		p += regIncBeta(hi, float64(fs.n)-hi+1, fs.t[0]) // P(X ≥ hi)
	}
	return min(1, p)
}

// fitDrawer draws multinomial samples from the truth and returns their
// distance from it. The largest shares are drawn by conditional binomials
// (cost per function), the small ones that follow by the samples left
// for them (cost per sample, from an alias table), split where the cost
// is least: a profile of 100 samples over 5,000 functions costs about
// 100 steps a draw, not 5,000.
type fitDrawer struct {
	fs    *fitCells
	head  int            // functions drawn by binomials
	cond  []binomialDist // each head function's share of what is left
	tail  aliasTable     // the functions after the head
	count []uint64       // a draw's samples per tail function
	hit   []int          // the tail functions a draw gave samples to
}

// binomialCost is a binomial draw's cost in alias draws (measured: about
// 40 ns against 8).
const binomialCost = 5

func (fs *fitCells) drawer() *fitDrawer {
	k, nf := len(fs.t), float64(fs.n)
	d := &fitDrawer{fs: fs, head: k}
	best := float64(k) * binomialCost
	for j := 0; j < k; j++ {
		if c := float64(float64(j)*binomialCost) + float64(nf*fs.rest[j]); c < best {
			best, d.head = c, j
		}
	}
	d.cond = make([]binomialDist, d.head)
	for i := range d.cond {
		d.cond[i] = newBinomial(fs.t[i] / fs.rest[i])
	}
	if d.head < k {
		d.tail = newAlias(fs.t[d.head:])
		d.count = make([]uint64, k-d.head)
	}
	return d
}

// distance draws n samples from the truth and returns their distance
// from it.
func (d *fitDrawer) distance(r *rand.Rand) float64 {
	fs := d.fs
	rem := fs.n
	var sum float64
	for i, c := range d.cond {
		if rem == 0 { // the rest get nothing
			return (sum + fs.restNT[i]) / (2 * float64(fs.n))
		}
		x := rem
		if i < len(fs.t)-1 {
			x = c.draw(r, rem)
		}
		sum += math.Abs(float64(x) - fs.nt[i])
		rem -= x
	}
	if d.count != nil {
		// Σ over the tail of |x − nt| is Σ nt, corrected where x > 0
		sum += fs.restNT[d.head]
		for range rem {
			j := d.tail.draw(r)
			if d.count[j] == 0 {
				d.hit = append(d.hit, j)
			}
			d.count[j]++
		}
		for _, j := range d.hit {
			nt := fs.nt[d.head+j]
			sum += math.Abs(float64(d.count[j])-nt) - nt
			d.count[j] = 0
		}
		d.hit = d.hit[:0]
	}
	return sum / (2 * float64(fs.n))
}

// seed hashes the test's inputs: the same inputs draw the same numbers.
func (fs *fitCells) seed() uint64 {
	h := fnv.New64a()
	var b [8]byte
	put := func(v uint64) {
		binary.LittleEndian.PutUint64(b[:], v)
		h.Write(b[:])
	}
	put(fs.n)
	for i := range fs.t {
		put(fs.x[i])
		put(math.Float64bits(fs.t[i]))
	}
	return h.Sum64()
}

// reach is how far below obs a statistic still counts as reaching it: the
// same distance computed in another order may differ in its last bits.
func reach(obs float64) float64 { return float64(obs * (1 - 1e-9)) }

// sequential is the sequential Monte Carlo p-value of obs (Besag and
// Clifford): draws until StopExceedances of them reach obs (p =
// StopExceedances/draws), or MaxDraws (p = (reached+1)/(MaxDraws+1));
// and, when none of the first EarlyDraws reaches obs, stops there (p =
// 1/(EarlyDraws+1)): see EarlyDraws. It returns p, the draws made and
// how many of them reached obs.
func sequential(obs float64, draw func() float64) (p float64, draws, exceed int) {
	at := reach(obs)
	for l := 1; l <= MaxDraws; l++ {
		if draw() >= at {
			exceed++
			if exceed == StopExceedances {
				return float64(StopExceedances) / float64(l), l, exceed
			}
		}
		if l == EarlyDraws && exceed == 0 {
			return 1.0 / float64(EarlyDraws+1), l, 0
		}
	}
	return float64(exceed+1) / float64(MaxDraws+1), MaxDraws, exceed
}

// order is the indexes 0…n-1 sorted stably by before (of two indexes):
// the permutation that puts parallel slices in that order.
func order(n int, before func(a, b int) bool) []int {
	idx := make([]int, n)
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(i, j int) bool { return before(idx[i], idx[j]) })
	return idx
}
