package output

import (
	"bytes"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/proflab/proflab/core/sampling"
)

// AccuracyFile is the per-profile, per-function comparison of sampled
// shares with the ground truth.
const AccuracyFile = "accuracy.csv"

// How far a profile is from the truth. A profile's n samples are a
// sample of the interrupts; under sampling error alone, its counts per
// function are multinomial with the truth's shares (each function's share
// of the source's event where the profile counted). The profile's
// verdict is core/sampling's test: the total-variation distance TV = ½ Σ
// |s_f − t_f| between the sampled and the truth shares, and its p-value,
// the probability that sampling error alone gives a distance at least as
// large (exact, a bound, or sequential Monte Carlo with a seed hashed
// from the counts: the same profile, the same p). p < 0.001 is beyond
// sampling error: skid, aliasing with a loop, buckets that straddle
// functions (bucket rounding), or a source that does not count what the
// truth weighs. One profile in a thousand that only sampling moved is
// called beyond by chance.
//
// Each function also gets its own test (the exact binomial test of its
// samples against its truth share), adjusted for the profile's number of
// functions (Holm): a function is beyond sampling error when its adjusted
// p is under 0.001, so a profile of thousands of functions does not name
// one by chance more than once in a thousand profiles. Its 95% Wilson
// interval describes its sampled share alone: about one function in
// twenty has its truth outside it by chance.

// The outcomes of a profile's test.
const (
	// Within: the distance is what sampling error alone gives (p ≥
	// 0.001).
	Within = "within sampling error"
	// Beyond: more than sampling error explains (p < 0.001).
	Beyond = "beyond sampling error"
	// NoSamples: the profile counted nothing, and says nothing of the
	// truth.
	NoSamples = "no samples"
	// NoTruth: the profile counted samples where the run executed
	// nothing it knows: there is no truth to judge them by.
	NoTruth = "no truth"
)

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
	// Outcome is Within, Beyond, NoSamples or NoTruth.
	Outcome string `json:"outcome"`
	// TotalVariation is ½ Σ |sampled share − truth share|; absent
	// without samples or truth, as are the fields after it.
	TotalVariation *float64 `json:"total_variation,omitempty"`
	// ExpectedTV is the distance sampling error alone gives on average.
	ExpectedTV *float64 `json:"expected_total_variation,omitempty"`
	// PValue is the probability that sampling error alone gives a
	// distance at least TotalVariation (for PMethod "bound", an upper
	// bound of it).
	PValue *float64 `json:"p_value,omitempty"`
	// PMethod says how: "exact", "bound" or "monte carlo".
	PMethod string `json:"p_method,omitempty"`
	// Draws are the Monte Carlo draws made.
	Draws int `json:"monte_carlo_draws,omitempty"`
	// Biased lists the functions beyond sampling error on their own
	// (Holm-adjusted p < 0.001), largest difference first (at most ten).
	Biased []string `json:"biased_functions,omitempty"`
	// Verdict says it in words.
	Verdict string `json:"verdict"`
	// Rows are the functions' rows of accuracy.csv, by truth share.
	Rows []FunctionAccuracy `json:"-"`
}

// FunctionAccuracy is one function's row of accuracy.csv.
type FunctionAccuracy struct {
	Name    string
	Samples uint64
	// Sampled and Truth are the function's shares of the profile's
	// samples and of its truth.
	Sampled, Truth float64
	// Low and High bound the sampled share's 95% Wilson interval.
	Low, High float64
	// P is the exact binomial test of the samples against the truth
	// share; PHolm is P adjusted for the profile's functions (Holm).
	P, PHolm float64
	// Beyond is PHolm < 0.001.
	Beyond bool
}

// profileAccuracy compares one profile's samples, charged to functions
// as its buckets are (to the function at a bucket's start), with each
// function's exact truth inside the profile's range.
func profileAccuracy(p namedProfile) ProfileAccuracy {
	truth := p.truth
	pa := ProfileAccuracy{Profile: p.file, Machine: p.machine, Owner: p.rec.Owner.ID(), Handle: fmt.Sprintf("0x%X", p.rec.Handle), Source: p.rec.Info.Source.Name()}
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
	for _, r := range p.rows {
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
	var fns []FunctionAccuracy
	for _, ref := range order {
		a := by[ref]
		if a.samples == 0 && a.truth == 0 {
			continue
		}
		f := FunctionAccuracy{Name: display[ref], Samples: a.samples}
		if totalTruth > 0 {
			f.Truth = a.truth / totalTruth
		}
		fns = append(fns, f)
	}
	sort.SliceStable(fns, func(i, j int) bool {
		if fns[i].Truth != fns[j].Truth {
			return fns[i].Truth > fns[j].Truth
		}
		return fns[i].Name < fns[j].Name
	})
	pa.Functions, pa.Rows = len(fns), fns
	switch {
	case pa.Samples == 0:
		pa.Outcome = NoSamples
		pa.Verdict = "no samples: the profile counted nothing, so it says nothing of the truth (did its source's interrupt run, and does its range hold the code that ran?)"
		return pa
	case totalTruth <= 0:
		pa.Outcome = NoTruth
		pa.Verdict = fmt.Sprintf("no truth: %d samples where the run executed nothing it knows, so nothing to judge them by", pa.Samples)
		return pa
	}
	judge(&pa)
	return pa
}

// judge tests a profile with samples and truth: the distance, its p-value
// and verdict, and each function's test.
func judge(pa *ProfileAccuracy) {
	n := pa.Samples
	counts, truths, ps := make([]uint64, len(pa.Rows)), make([]float64, len(pa.Rows)), make([]float64, len(pa.Rows))
	for i := range pa.Rows {
		f := &pa.Rows[i]
		f.Sampled = float64(f.Samples) / float64(n)
		f.Low, f.High = sampling.Wilson(f.Samples, n)
		f.P = sampling.BinomialTest(f.Samples, n, f.Truth)
		counts[i], truths[i], ps[i] = f.Samples, f.Truth, f.P
	}
	for i, adj := range sampling.Holm(ps) {
		pa.Rows[i].PHolm = adj
		pa.Rows[i].Beyond = adj < sampling.Alpha
	}
	t, err := sampling.GoodnessOfFit(counts, truths)
	if err != nil { // samples and truth were checked: a bug
		pa.Outcome = NoTruth
		pa.Verdict = "no verdict: " + err.Error()
		return
	}
	pa.TotalVariation, pa.ExpectedTV, pa.PValue = &t.TV, &t.Expected, &t.P
	pa.PMethod, pa.Draws = string(t.Method), t.Draws
	var biased []FunctionAccuracy
	for _, f := range pa.Rows {
		if f.Beyond {
			biased = append(biased, f)
		}
	}
	sort.SliceStable(biased, func(i, j int) bool {
		return math.Abs(biased[i].Sampled-biased[i].Truth) > math.Abs(biased[j].Sampled-biased[j].Truth)
	})
	for i, f := range biased {
		if i == 10 {
			break
		}
		pa.Biased = append(pa.Biased, f.Name)
	}
	head := fmt.Sprintf("%d samples, total variation %.4f (sampling error alone gives %.4f on average), %s", n, t.TV, t.Expected, t.PText())
	if t.Beyond() {
		pa.Outcome = Beyond
		pa.Verdict = Beyond + ": " + head + ": more than chance explains (skid, aliasing, bucket rounding, or a source that does not count what the truth weighs)"
	} else {
		pa.Outcome = Within
		pa.Verdict = Within + ": " + head
	}
	if len(pa.Biased) > 0 {
		some := pa.Biased[:min(3, len(pa.Biased))]
		pa.Verdict += fmt.Sprintf("; %d function%s beyond it on %s own: %s", len(biased), plural(len(biased)), pluralIts(len(biased)), strings.Join(some, ", "))
		if len(biased) > len(some) {
			pa.Verdict += ", …"
		}
	}
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

func pluralIts(n int) string {
	if n == 1 {
		return "its"
	}
	return "their"
}

// AccuracyHeader is accuracy.csv's header: a row per profile and
// function; the profile's own columns (outcome, distance, p) repeat on
// its rows. A profile without samples has its functions' truth (or one
// row without a function) and empty numbers.
var AccuracyHeader = []string{"profile", "machine", "owner_pid", "handle", "source", "function", "samples", "sampled_share", "truth_share",
	"ci95_low", "ci95_high", "difference", "p_value", "p_holm", "beyond_sampling_error", "profile_outcome", "profile_total_variation", "profile_p_value"}

// accuracyCSV writes accuracy.csv.
func accuracyCSV(profs []ProfileAccuracy) ([]byte, error) {
	var b bytes.Buffer
	w := csv.NewWriter(&b)
	_ = w.Write(AccuracyHeader)
	ff := func(v float64) string { return strconv.FormatFloat(v, 'f', 6, 64) }
	fp := func(v float64) string { return strconv.FormatFloat(v, 'g', 4, 64) }
	for _, pa := range profs {
		tv, p := "", ""
		if pa.TotalVariation != nil {
			tv, p = ff(*pa.TotalVariation), fp(*pa.PValue)
		}
		head := []string{pa.Profile, strconv.Itoa(pa.Machine), strconv.FormatUint(uint64(pa.Owner), 10), pa.Handle, pa.Source}
		tail := []string{pa.Outcome, tv, p}
		if len(pa.Rows) == 0 {
			_ = w.Write(slices.Concat(head, []string{"", "0", "", "", "", "", "", "", "", ""}, tail))
		}
		for _, f := range pa.Rows {
			row := []string{f.Name, strconv.FormatUint(f.Samples, 10), "", ff(f.Truth), "", "", "", "", "", ""}
			if pa.TotalVariation != nil {
				beyond := "no"
				if f.Beyond {
					beyond = "yes"
				}
				row = []string{f.Name, strconv.FormatUint(f.Samples, 10), ff(f.Sampled), ff(f.Truth), ff(f.Low), ff(f.High), ff(f.Sampled - f.Truth), fp(f.P), fp(f.PHolm), beyond}
			}
			_ = w.Write(slices.Concat(head, row, tail))
		}
	}
	w.Flush()
	return b.Bytes(), w.Error()
}

// MaxProfileSamples is the most samples ReadAccuracy takes for one
// profile, all its rows together: 2^53, what float64 shares count exactly
// (a lab profile of a year at 8 kHz holds 2.5·10^11). More is a damaged
// or edited file, refused at the line that passes it, not added until
// the total wraps.
const MaxProfileSamples = 1 << 53

// ReadAccuracy reads an accuracy.csv back: each profile with its outcome,
// distance and p-value, and its functions' rows as written (samples,
// shares, interval, tests; `proflab compare` needs the samples and truth
// shares). The verdict's words, the expected distance and the biased
// functions are not in the file: they stay empty. name names the file in
// errors. It reads r as a stream, a record at a time (bound its lines
// with input.BoundLines); a profile whose samples add up past
// MaxProfileSamples is an error naming the line.
func ReadAccuracy(name string, r io.Reader) ([]ProfileAccuracy, error) {
	cr := csv.NewReader(r)
	head, err := cr.Read()
	if err != nil && !errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if !slices.Equal(head, AccuracyHeader) {
		return nil, fmt.Errorf("%s: not an accuracy.csv of this proflab (its header is not %s): rerun the scenario with --out", name, strings.Join(AccuracyHeader, ","))
	}
	var out []ProfileAccuracy
	at := map[string]int{}
	for {
		rec, err := cr.Read()
		if errors.Is(err, io.EOF) {
			return out, nil
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		line, _ := cr.FieldPos(0)
		bad := func(col int, what string) error {
			return fmt.Errorf("%s:%d: %s %q is not %s", name, line, AccuracyHeader[col], rec[col], what)
		}
		k, ok := at[rec[0]]
		if !ok {
			pa := ProfileAccuracy{Profile: rec[0], Handle: rec[3], Source: rec[4], Outcome: rec[15]}
			if pa.Machine, err = strconv.Atoi(rec[1]); err != nil {
				return nil, bad(1, "a machine number")
			}
			owner, err := strconv.ParseUint(rec[2], 10, 32)
			if err != nil {
				return nil, bad(2, "a process id")
			}
			pa.Owner = uint32(owner)
			if rec[16] != "" {
				tv, err1 := strconv.ParseFloat(rec[16], 64)
				p, err2 := strconv.ParseFloat(rec[17], 64)
				if err1 != nil || err2 != nil {
					return nil, bad(16, "a distance and a p-value")
				}
				pa.TotalVariation, pa.PValue = &tv, &p
			}
			k = len(out)
			at[rec[0]] = k
			out = append(out, pa)
		}
		pa := &out[k]
		samples, err := strconv.ParseUint(rec[6], 10, 64)
		if err != nil {
			return nil, bad(6, "a count")
		}
		if samples > MaxProfileSamples-pa.Samples {
			return nil, fmt.Errorf("%s:%d: samples %s: %s's samples add up to more than 2^53 (%d), more than a profile holds: the file is damaged or was edited; rerun the scenario with --out", name, line, rec[6], pa.Profile, uint64(MaxProfileSamples))
		}
		pa.Samples += samples
		if rec[5] == "" && samples == 0 {
			continue // a profile without functions
		}
		f := FunctionAccuracy{Name: rec[5], Samples: samples}
		if f.Truth, err = strconv.ParseFloat(rec[8], 64); err != nil {
			return nil, bad(8, "a share")
		}
		if pa.TotalVariation != nil { // the test's columns are filled
			for _, c := range []struct {
				col  int
				v    *float64
				what string
			}{{7, &f.Sampled, "a share"}, {9, &f.Low, "a share"}, {10, &f.High, "a share"}, {12, &f.P, "a p-value"}, {13, &f.PHolm, "a p-value"}} {
				if *c.v, err = strconv.ParseFloat(rec[c.col], 64); err != nil {
					return nil, bad(c.col, c.what)
				}
			}
			switch rec[14] {
			case "yes":
				f.Beyond = true
			case "no":
			default:
				return nil, bad(14, "yes or no")
			}
		}
		pa.Rows = append(pa.Rows, f)
		pa.Functions++
	}
}
