package compare

import (
	"fmt"
	"math"

	"github.com/proflab/proflab/core/sampling"
)

// Detectable is what a comparison can find at its sample counts: the
// smallest share of the samples moved into a function of Base share
// (1%) that the function's own test finds with probability Power (80%)
// at the rows' level (AlphaRows over the rows tested: Holm's first
// step). The whole profile's test adds a little to that (the
// calibration in docs/workload-import.md).
type Detectable struct {
	Kind                      string
	SourceSamples, LabSamples uint64
	Base, Power               float64
	// Shift is the smallest move found with probability Power; 0 when
	// even all the samples moved into the function are not.
	Shift float64
}

// The move Detectable measures.
const (
	// DetectBase is the share of the function a move goes into.
	DetectBase = 0.01
	// DetectPower is how often the move is to be found.
	DetectPower = 0.8
)

// detectable computes the smallest move into a DetectBase function that
// the row test of kind finds with probability DetectPower, with ns source
// and nl lab samples and tests rows in the Holm family (see rowPower):
// the move is bracketed by doubling from 0.1% and then bisected to a
// sixteen-thousandth of the bracket.
func detectable(kind string, ns, nl uint64, tests int) *Detectable {
	d := &Detectable{Kind: kind, SourceSamples: ns, LabSamples: nl, Base: DetectBase, Power: DetectPower}
	rp := &rowPower{kind: kind, ns: ns, nl: nl, base: d.Base, level: AlphaRows / float64(max(1, tests)), reject: map[uint64]int{}}
	lo, hi := 0.0, 0.001
	for rp.power(hi) < d.Power {
		if hi == 1-d.Base {
			return d // not even every sample moved
		}
		lo, hi = hi, min(2*hi, 1-d.Base)
	}
	for range 14 {
		mid := (lo + hi) / 2
		if rp.power(mid) < d.Power {
			lo = mid
		} else {
			hi = mid
		}
	}
	d.Shift = hi
	return d
}

// rowPower is how often a row test at level finds a function of share
// base in the source with base+shift in the lab. Goodness of fit: the
// lab's samples X are Binomial(nl, base+shift), and the test rejects from
// the first x above the mean whose p is under level (exact). Two-sample:
// given the function's m samples on both sides the source's are
// Binomial(m, ns/(ns+nl)) under the test, and the test rejects at and
// below some k(m), which does not depend on the move (kept in reject);
// the alternative is taken as Poisson on each side (m Poisson, the
// source's share of it binomial), summed over m.
type rowPower struct {
	kind         string
	ns, nl       uint64
	base, level  float64
	reject       map[uint64]int // k(m): the largest k that rejects, -1 for none
	fitThreshold uint64         // goodness of fit: the first x that rejects (0: not yet found)
}

func (rp *rowPower) power(shift float64) float64 {
	p1 := rp.base + shift
	if rp.kind == Fit {
		if rp.fitThreshold == 0 {
			mean := uint64(math.Ceil(float64(rp.nl) * rp.base))
			rp.fitThreshold = firstBelow(max(mean, 1), rp.nl, func(x uint64) bool { return sampling.BinomialTest(x, rp.nl, rp.base) < rp.level })
		}
		if rp.fitThreshold > rp.nl {
			return 0
		}
		return 1 - sampling.BinomialCDF(rp.fitThreshold-1, rp.nl, p1)
	}
	ls, ll := float64(float64(rp.ns)*rp.base), float64(float64(rp.nl)*p1)
	lambda, pi := ls+ll, ls/(ls+ll)
	sd := math.Sqrt(lambda)
	// m within 8 standard deviations (the rest weighs under 1e-14), every
	// m while they are few, a smooth sum's samples beyond
	from, to := uint64(max(0, math.Floor(lambda-float64(8*sd)))), uint64(lambda+float64(8*sd))
	stride := max(1, uint64(sd/30))
	var out float64
	for m := from; m <= to; m += stride {
		k := rp.k(m, stride)
		if k < 0 {
			continue
		}
		pm := math.Exp(float64(float64(m)*math.Log(lambda)) - lambda - lgamma(float64(m)+1))
		out += float64(float64(stride) * pm * sampling.BinomialCDF(uint64(k), m, pi))
	}
	return min(1, out)
}

// k is the largest k at or below m·q (q = ns/(ns+nl)) that the
// two-sample row test rejects with m samples on both sides, -1 for none:
// from k(m − stride) when known (it moves little), else by bisection.
func (rp *rowPower) k(m, stride uint64) int {
	if k, ok := rp.reject[m]; ok {
		return k
	}
	q := float64(rp.ns) / float64(rp.ns+rp.nl)
	rejects := func(k uint64) bool { return sampling.BinomialTest(k, m, q) < rp.level }
	mean := int(math.Floor(float64(m) * q))
	k, ok := rp.reject[m-stride]
	if !ok || m < stride { // the first from 0 up that does not reject, less one
		k = int(firstBelow(0, uint64(mean)+1, func(k uint64) bool { return !rejects(k) })) - 1
	} else {
		for k+1 <= mean && rejects(uint64(k+1)) {
			k++
		}
		for k >= 0 && !rejects(uint64(k)) {
			k--
		}
	}
	rp.reject[m] = k
	return k
}

// firstBelow is the first x in [lo, hi] for which ok holds (ok false
// then true along x), or hi+1 for none, by bisection.
func firstBelow(lo, hi uint64, ok func(uint64) bool) uint64 {
	end := hi + 1
	for lo < end {
		mid := lo + (end-lo)/2
		if ok(mid) {
			end = mid
		} else {
			lo = mid + 1
		}
	}
	return lo
}

func lgamma(x float64) float64 {
	v, _ := math.Lgamma(x)
	return v
}

// String says it for people: "with 1,993 source samples and 3,890 lab
// samples, a move of 2.1% of the samples into a function of 1% is found
// 80% of the time".
func (d Detectable) String() string {
	counts := fmt.Sprintf("with %s source samples and %s lab samples", thousands(d.SourceSamples), thousands(d.LabSamples))
	if d.Kind == Fit {
		counts = fmt.Sprintf("with %s lab samples against the source's shares", thousands(d.LabSamples))
	}
	if d.Shift == 0 {
		return fmt.Sprintf("%s, no move into a function of %.0f%% is found %.0f%% of the time: too few samples", counts, 100*d.Base, 100*d.Power)
	}
	return fmt.Sprintf("%s, a move of %.1f%% of the samples into a function of %.0f%% is found %.0f%% of the time", counts, 100*d.Shift, 100*d.Base, 100*d.Power)
}

// thousands writes n with thousands separators: 1,993.
func thousands(n uint64) string {
	s := fmt.Sprint(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}
