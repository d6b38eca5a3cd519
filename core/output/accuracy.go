package output

import (
	"bytes"
	"encoding/csv"
	"fmt"
	"math"
	"sort"
	"strconv"

	"github.com/proflab/proflab/core/sim"
)

// AccuracyFile is the per-profile, per-function comparison of sampled
// shares with the ground truth.
const AccuracyFile = "accuracy.csv"

// How far a profile is from the truth. A profile's n samples are a
// sample of the interrupts; under sampling error alone, function f's
// sampled share s_f is a binomial proportion around its truth share t_f
// (its share of the source's event where the profile counted). Each
// function gets the 95% Wilson score interval of s_f; a truth share
// outside it is a difference larger than sampling error explains at 95%
// (one function in twenty is flagged by chance alone). For the whole
// profile, the total-variation distance TV = ½ Σ |s_f − t_f| is compared
// with what sampling noise alone allows: its expectation is at most
// ½ Σ √(t_f(1−t_f)/n), and one sample moves TV by at most 1/n, so by
// McDiarmid's inequality TV exceeds that plus √(ln(1000)/(2n)) with
// probability below 0.1%. A profile past that bound is biased: skid,
// aliasing with a loop, buckets that straddle functions (bucket
// rounding), or a source that does not count what the truth weighs.

// Distance is the total-variation distance between n samples' shares
// and the truth's (in the same order, each adding up to 1), and the bound
// sampling error alone stays under with 99.9% probability (see above).
func Distance(sampled, truth []float64, n float64) (tv, bound float64) {
	var noise float64
	for i, t := range truth {
		tv += math.Abs(sampled[i]-t) / 2
		noise += math.Sqrt(t*(1-t)/n) / 2
	}
	return tv, noise + math.Sqrt(math.Log(1000)/(2*n))
}

// ProfileAccuracy is one profile's distance from the truth.
type ProfileAccuracy struct {
	// Profile is the pprof file of the profile.
	Profile string `json:"profile"`
	Machine int    `json:"machine"`
	Owner   uint32 `json:"owner_pid"`
	Handle  string `json:"handle"`
	Source  string `json:"source"`
	// Samples are the profile's bucket counts, all functions.
	Samples uint64 `json:"samples"`
	// Functions are the functions with a sample or some truth.
	Functions int `json:"functions"`
	// TotalVariation is ½ Σ |sampled share − truth share|.
	TotalVariation float64 `json:"total_variation"`
	// NoiseBound is what sampling error alone stays under (99.9%).
	NoiseBound float64 `json:"noise_bound"`
	// Biased lists the functions whose truth share lies outside their
	// sampled share's 95% interval, largest difference first (at most
	// ten).
	Biased []string `json:"biased_functions,omitempty"`
	// Verdict says it in words.
	Verdict string `json:"verdict"`
}

// functionAccuracy is one function's row of accuracy.csv.
type functionAccuracy struct {
	name            string
	samples         uint64
	sampled, truth  float64 // shares
	low, high       float64 // 95% interval of the sampled share
	outsideInterval bool
}

// wilson is the 95% Wilson score interval of k successes in n trials.
func wilson(k, n uint64) (lo, hi float64) {
	if n == 0 {
		return 0, 1
	}
	const z = 1.959963984540054
	p, nf := float64(k)/float64(n), float64(n)
	den := 1 + z*z/nf
	mid := (p + z*z/(2*nf)) / den
	half := z * math.Sqrt(p*(1-p)/nf+z*z/(4*nf*nf)) / den
	return max(0, mid-half), min(1, mid+half)
}

// profileAccuracy compares one profile's samples, charged to functions
// as its buckets are (to the function at a bucket's start), with each
// function's exact truth inside the profile's range; ok is false when
// the profile has no truth or no sample.
func profileAccuracy(file string, rows []row, truth []sim.FunctionEvents) (ProfileAccuracy, []functionAccuracy, bool) {
	if len(rows) == 0 {
		return ProfileAccuracy{}, nil, false
	}
	r0 := rows[0]
	pa := ProfileAccuracy{Profile: file, Machine: r0.machine, Owner: r0.rec.Owner.ID(), Handle: fmt.Sprintf("0x%X", r0.rec.Handle), Source: r0.rec.Info.Source.Name()}
	type agg struct {
		samples uint64
		truth   float64
	}
	by := map[string]*agg{} // by qualified reference
	var order []string
	display := map[string]string{}
	get := func(ref, name string) *agg {
		a := by[ref]
		if a == nil {
			a = &agg{}
			by[ref] = a
			order = append(order, ref)
			display[ref] = name
		}
		return a
	}
	var totalTruth float64
	for _, f := range truth {
		get(f.Ref, f.Name).truth += f.Events
		totalTruth += f.Events
	}
	for _, r := range rows {
		ref, name := "[no function]", "[no function]"
		if r.fn.Name != "" {
			ref, name = r.fn.Ref(), r.fn.Name
		}
		get(ref, name).samples += uint64(r.count)
		pa.Samples += uint64(r.count)
	}
	// a name two images define is shown qualified
	seen := map[string]int{}
	for _, ref := range order {
		seen[display[ref]]++
	}
	for _, ref := range order {
		if seen[display[ref]] > 1 {
			display[ref] = ref
		}
	}
	if pa.Samples == 0 || totalTruth <= 0 {
		return pa, nil, false
	}
	n := float64(pa.Samples)
	var fns []functionAccuracy
	var sampled, truthShares []float64
	for _, ref := range order {
		a := by[ref]
		if a.samples == 0 && a.truth == 0 {
			continue
		}
		fa := functionAccuracy{name: display[ref], samples: a.samples, sampled: float64(a.samples) / n, truth: a.truth / totalTruth}
		fa.low, fa.high = wilson(a.samples, pa.Samples)
		fa.outsideInterval = fa.truth < fa.low || fa.truth > fa.high
		sampled, truthShares = append(sampled, fa.sampled), append(truthShares, fa.truth)
		fns = append(fns, fa)
	}
	sort.SliceStable(fns, func(i, j int) bool {
		if fns[i].truth != fns[j].truth {
			return fns[i].truth > fns[j].truth
		}
		return fns[i].name < fns[j].name
	})
	pa.Functions = len(fns)
	pa.TotalVariation, pa.NoiseBound = Distance(sampled, truthShares, n)
	var biased []functionAccuracy
	for _, f := range fns {
		if f.outsideInterval {
			biased = append(biased, f)
		}
	}
	sort.SliceStable(biased, func(i, j int) bool {
		return math.Abs(biased[i].sampled-biased[i].truth) > math.Abs(biased[j].sampled-biased[j].truth)
	})
	for i, f := range biased {
		if i == 10 {
			break
		}
		pa.Biased = append(pa.Biased, f.name)
	}
	if pa.TotalVariation <= pa.NoiseBound {
		pa.Verdict = fmt.Sprintf("within sampling error: %d samples, total variation %.4f ≤ %.4f", pa.Samples, pa.TotalVariation, pa.NoiseBound)
	} else {
		pa.Verdict = fmt.Sprintf("biased: %d samples, total variation %.4f > %.4f, more than sampling error explains (skid, aliasing, bucket rounding, or a source that does not count what the truth weighs)", pa.Samples, pa.TotalVariation, pa.NoiseBound)
	}
	return pa, fns, true
}

// accuracyCSV writes accuracy.csv: a row per profile and function.
func accuracyCSV(profs []ProfileAccuracy, fns [][]functionAccuracy) ([]byte, error) {
	var b bytes.Buffer
	w := csv.NewWriter(&b)
	_ = w.Write([]string{"profile", "machine", "owner_pid", "handle", "source", "function", "samples", "sampled_share", "truth_share", "ci95_low", "ci95_high", "difference", "beyond_sampling_error"})
	ff := func(v float64) string { return strconv.FormatFloat(v, 'f', 6, 64) }
	for i, pa := range profs {
		for _, f := range fns[i] {
			beyond := "no"
			if f.outsideInterval {
				beyond = "yes"
			}
			_ = w.Write([]string{pa.Profile, strconv.Itoa(pa.Machine), strconv.FormatUint(uint64(pa.Owner), 10), pa.Handle, pa.Source, f.name,
				strconv.FormatUint(f.samples, 10), ff(f.sampled), ff(f.truth), ff(f.low), ff(f.high), ff(f.sampled - f.truth), beyond})
		}
	}
	w.Flush()
	return b.Bytes(), w.Error()
}
