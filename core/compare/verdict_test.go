package compare_test

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/proflab/proflab/core/compare"
	"github.com/proflab/proflab/core/output"
)

// program is a source and a lab profile over the same functions, f0 the
// hottest: w are the functions' weights.
func program(w []float64) []string {
	names := make([]string, len(w))
	for i := range w {
		names[i] = fmt.Sprint("f", i)
	}
	return names
}

// draw draws n samples over weights w (any sum), one at a time.
func draw(r *rand.Rand, n int, w []float64) []uint64 {
	var total float64
	for _, v := range w {
		total += v
	}
	x := make([]uint64, len(w))
	for range n {
		u, i := r.Float64()*total, 0
		for ; i < len(w)-1 && u >= w[i]; i++ {
			u -= w[i]
		}
		x[i]++
	}
	return x
}

// pairOf makes the source (with its exact shares w, replayed or not)
// and the lab profile of counts a and b.
func pairOf(w []float64, a, b []uint64, replayed bool) (compare.Source, output.ProfileAccuracy) {
	var total float64
	for _, v := range w {
		total += v
	}
	src := compare.Source{Name: "src", Format: "folded", SampleType: "count", Counts: map[string]uint64{}, Module: map[string]string{}, Shares: map[string]float64{}, Replayed: replayed}
	lab := output.ProfileAccuracy{Profile: "lab", Source: "ProfileTime"}
	for i, name := range program(w) {
		src.Module[name] = "img"
		src.Shares[name] = w[i] / total
		if a[i] > 0 {
			src.Counts[name] = a[i]
			src.Samples += a[i]
		}
		lab.Rows = append(lab.Rows, output.FunctionAccuracy{Name: name, Samples: b[i]})
		lab.Samples += b[i]
	}
	return src, lab
}

// weights is a program of k functions: one at 60%, the rest sharing 40%
// as 1/i.
func weights(k int) []float64 {
	w := make([]float64, k)
	var rest float64
	for i := 1; i < k; i++ {
		w[i] = 1 / float64(i)
		rest += w[i]
	}
	for i := 1; i < k; i++ {
		w[i] *= 0.4 / rest
	}
	w[0] = 0.6
	return w
}

// A shift into one small function that the whole profile's test misses
// and the function's own test finds makes the verdict "differ" (issue
// 35: "1 function differs on its own … agrees, exit 0").
func TestVerdictDiffersWhenOnlyAFunctionDoes(t *testing.T) {
	w := weights(30)
	a := draw(rand.New(rand.NewPCG(1, 2)), 2000, w)
	moved := append([]float64{}, w...)
	moved[0] -= 0.03
	moved[25] += 0.03 // a function of 0.4% gets 3% more
	found, named := 0, 0
	for seed := range uint64(20) {
		b := draw(rand.New(rand.NewPCG(seed, 3)), 4000, moved)
		src, lab := pairOf(w, a, b, false)
		c, err := compare.Compare(src, lab)
		if err != nil {
			t.Fatal(err)
		}
		if c.Test.P < compare.AlphaWhole {
			continue // the whole profile's test found it too: not this case
		}
		found++
		var differ bool
		for _, f := range c.Functions {
			differ = differ || f.Differ
		}
		if !differ {
			continue
		}
		named++
		if c.Outcome != compare.Differ || !strings.HasPrefix(c.Verdict, "the lab and the source differ beyond both samples' errors: 1 function differs on its own: f25") {
			t.Errorf("a function differs, the whole profile's p is %v: outcome %q, verdict %q", c.Test.P, c.Outcome, c.Verdict)
		}
	}
	if named == 0 {
		t.Fatal("no shift that the whole profile's test missed and a function's found: the case tests nothing")
	}
	t.Logf("%d of 20 shifts missed by the whole profile's test, %d of them found by the function's", found, named)
}

// A source the run replayed is the truth the lab drew from: the lab's
// samples are tested against its exact shares (goodness of fit), the
// text says so, and a source the run did not replay is tested as a
// second sample. With the lab's samples exactly at the source's shares
// the fit has nothing to find, and a shift into a small function is
// found more often by the fit than by the two-sample test (the source's
// own noise no longer counts).
func TestTestFitsTheSituation(t *testing.T) {
	w := weights(30)
	r := rand.New(rand.NewPCG(5, 6))
	a := draw(r, 2000, w)
	exact := make([]uint64, len(w))
	for i, v := range w {
		exact[i] = uint64(v * 10000)
	}
	src, lab := pairOf(w, a, exact, true)
	c, err := compare.Compare(src, lab)
	if err != nil {
		t.Fatal(err)
	}
	if c.Kind != compare.Fit || !strings.Contains(c.Why, "the run replayed this source") || c.Outcome != compare.Agree || c.Test.TV > 0.001 ||
		!strings.Contains(c.Verdict, "within the lab's sampling error") || c.Detect == nil || c.Detect.Kind != compare.Fit {
		t.Errorf("the lab at the source's own shares: %+v", c)
	}
	moved := append([]float64{}, w...)
	moved[0] -= 0.01
	moved[25] += 0.01
	var fit, two int
	for range 30 {
		b := draw(r, 4000, moved)
		for _, replayed := range []bool{true, false} {
			src, lab := pairOf(w, draw(r, 2000, w), b, replayed)
			c, err := compare.Compare(src, lab)
			if err != nil {
				t.Fatal(err)
			}
			if (c.Kind == compare.Fit) != replayed {
				t.Fatalf("replayed %v: %s test", replayed, c.Kind)
			}
			if c.Outcome == compare.Differ && replayed {
				fit++
			} else if c.Outcome == compare.Differ {
				two++
			}
		}
	}
	t.Logf("1%% moved into a 0.4%% function, 4,000 lab samples: found %d of 30 by the fit, %d by the two-sample test", fit, two)
	if fit < 24 || fit <= two {
		t.Errorf("found %d of 30 by the fit, %d by the two-sample test: want the fit at least 80%% and ahead", fit, two)
	}
}

// Too few samples to rank the hottest functions: none or six in the lab
// (issue 35: "7 of 7", "10 of 10"), and the text says so.
func TestTooFewSamplesToRank(t *testing.T) {
	w := weights(12)
	a := draw(rand.New(rand.NewPCG(7, 8)), 2000, w)
	for _, n := range []int{0, 6} {
		src, lab := pairOf(w, a, draw(rand.New(rand.NewPCG(9, 10)), n, w), false)
		c, err := compare.Compare(src, lab)
		if err != nil {
			t.Fatal(err)
		}
		var text strings.Builder
		if err := compare.WriteText(&text, []compare.Comparison{c}, 3); err != nil {
			t.Fatal(err)
		}
		if !c.TooFew || c.TopShared != 0 || c.Hottest != "" || !strings.Contains(text.String(), "hottest: too few samples to rank the 10 hottest functions") ||
			strings.Contains(text.String(), "are among the lab's") {
			t.Errorf("%d lab samples: TooFew %v, %d shared, text:\n%s", n, c.TooFew, c.TopShared, text.String())
		}
	}
	src, lab := pairOf(w, a, draw(rand.New(rand.NewPCG(9, 10)), 5000, w), false)
	if c, _ := compare.Compare(src, lab); c.TooFew || c.TopN != 10 || c.Hottest != "f0" {
		t.Errorf("5,000 lab samples: TooFew %v, top %d, hottest %q", c.TooFew, c.TopN, c.Hottest)
	}
}

// A replayed source's comparison has the p-values of a test of its
// situation: over lab profiles drawn from the source's own shares, the
// goodness of fit's p-values spread over [0, 1] (about half under ½),
// where the two-sample test, counting the source's noise a second time,
// piles them up near 1 (issue 35: 7 of 30 under 0.5, six at 1.00).
func TestReplayedPValuesSpread(t *testing.T) {
	w := weights(20)
	r := rand.New(rand.NewPCG(13, 14))
	a := draw(r, 2000, w)
	// the replay draws from the source's shares: its counts'
	sourceShares := make([]float64, len(a))
	for i, n := range a {
		sourceShares[i] = float64(n)
	}
	const runs = 100
	var fitLow, twoLow int
	for range runs {
		b := draw(r, 4000, sourceShares)
		for _, replayed := range []bool{true, false} {
			src, lab := pairOf(sourceShares, a, b, replayed)
			c, err := compare.Compare(src, lab)
			if err != nil {
				t.Fatal(err)
			}
			if c.Test.P < 0.5 && replayed {
				fitLow++
			} else if c.Test.P < 0.5 {
				twoLow++
			}
		}
	}
	t.Logf("p < 0.5 in %d of %d by the fit, %d by the two-sample test", fitLow, runs, twoLow)
	if fitLow < 35 || fitLow > 65 || twoLow >= fitLow/2 {
		t.Errorf("p < 0.5 in %d of %d by the fit (want about half), %d by the two-sample test", fitLow, runs, twoLow)
	}
}

// A difference so large that its p-value underflows to zero is written as
// below a bound, in the verdict and in the table, never as an exact zero
// ("p_Holm 0.0e+00").
func TestUnderflowedPIsABound(t *testing.T) {
	w := []float64{0.5, 0.5}
	src, lab := pairOf(w, []uint64{1_000_000, 1_000_000}, []uint64{1_999_000, 1_000}, false)
	c, err := compare.Compare(src, lab)
	if err != nil {
		t.Fatal(err)
	}
	var zero bool
	for _, f := range c.Functions {
		zero = zero || f.PHolm == 0
	}
	if !zero {
		t.Fatalf("no function's p_Holm underflowed to 0: the case tests nothing (%+v)", c.Functions)
	}
	if !strings.Contains(c.Verdict, "(p_Holm < 1e-300)") || strings.Contains(c.Verdict, "e+00") {
		t.Errorf("verdict %q: want p_Holm < 1e-300", c.Verdict)
	}
	var out strings.Builder
	if err := compare.WriteText(&out, []compare.Comparison{c}, 0); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "< 1e-300") || strings.Contains(out.String(), "0.0e+00") || strings.Contains(out.String(), "p = 0") {
		t.Errorf("text writes an underflowed p as a zero:\n%s", out.String())
	}
}
