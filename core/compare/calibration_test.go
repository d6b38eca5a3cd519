package compare_test

import (
	"flag"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/proflab/proflab/core/compare"
	"github.com/proflab/proflab/core/sampling"
)

var calibrate = flag.Bool("calibrate", false, "run the full calibration of the verdict (2,000 comparisons a case) and print its tables for docs/workload-import.md")

// The whole profile's test at AlphaWhole: its sequential Monte Carlo
// rejects when at most g of 9,999 draws reach the distance ((g+1)/10,000
// < AlphaWhole), or none of the first 2,999 does (p = 1/3,000 <
// AlphaWhole). Under sampling error alone the distance's rank among the
// draws is uniform, so the size is (g+1)/10,000 plus P(none of the first
// 2,999 and more than g of the rest): at most AlphaWhole, and with the
// rows' level the overall level stays under sampling.Alpha.
func TestSequentialSizeAtAlphaWhole(t *testing.T) {
	lgamma := func(x float64) float64 { v, _ := math.Lgamma(x); return v }
	g := -1 // the most exceedances that still reject
	for float64(g+2)/float64(sampling.MaxDraws+1) < compare.AlphaWhole {
		g++
	}
	if 1/float64(sampling.EarlyDraws+1) >= compare.AlphaWhole {
		t.Fatalf("the early stop's p 1/%d does not reject at %v: the size below leaves it out", sampling.EarlyDraws+1, compare.AlphaWhole)
	}
	final := float64(g+1) / float64(sampling.MaxDraws+1)
	L, M := float64(sampling.EarlyDraws), float64(sampling.MaxDraws-sampling.EarlyDraws)
	var early float64
	for j := float64(g + 1); j <= M; j++ { // C(M,j) B(j+1, L+M−j+1)
		early += math.Exp(lgamma(M+1) - lgamma(M-j+1) + lgamma(L+M-j+1) - lgamma(L+M+2))
	}
	size := final + early
	t.Logf("at %v: rejects with at most %d exceedances; size %.6f (%.6f from the last draw, %.6f from the early stop)", compare.AlphaWhole, g, size, final, early)
	if size > compare.AlphaWhole || size+compare.AlphaRows > sampling.Alpha {
		t.Errorf("size %.6f at %v, with the rows' %v: over %v", size, compare.AlphaWhole, compare.AlphaRows, sampling.Alpha)
	}
}

// calRun is one calibration case: comparisons of a source of ns samples
// of weights w with a lab profile of nl samples of weights lab, as two
// samples or as the replay's goodness of fit; it returns how many
// differed, and of those how many by the whole profile's test and by a
// row.
func calRun(t *testing.T, r *rand.Rand, runs int, w, lab []float64, ns, nl uint64, replayed bool) (differ, whole, row int) {
	t.Helper()
	for range runs {
		src, l := pairOf(w, sampling.Multinomial(r, ns, w), sampling.Multinomial(r, nl, lab), replayed)
		c, err := compare.Compare(src, l)
		if err != nil {
			t.Fatal(err)
		}
		if c.Outcome != compare.Differ {
			continue
		}
		differ++
		if c.Test.P < compare.AlphaWhole {
			whole++
		}
		for _, f := range append(c.Functions, c.Modules...) {
			if f.Differ {
				row++
				break
			}
		}
	}
	return differ, whole, row
}

// The verdict's calibration, both tests: a lab profile drawn from the
// source's own program differs at most at the overall level (0.1%;
// pooled over the cases at most 0.2%, a case's count being Poisson), and
// a move of the time into a small function is found as often as the
// printed power says. 50 comparisons a case by default (a few alarms
// at most); go test ./core/compare -run Calibration -calibrate -v runs
// 2,000 a case and prints the tables docs/workload-import.md shows.
func TestCalibration(t *testing.T) {
	runs := 50
	if *calibrate {
		runs = 2000
	}
	type size struct{ ns, nl uint64 }
	var table strings.Builder
	table.WriteString("| program | test | source samples | lab samples | differ | by the whole profile | by a row |\n|---|---|---:|---:|---:|---:|---:|\n")
	var all, alarms int
	for si, s := range sampling.Programs()[1:] { // the two-function program tests nothing the three-function one does not
		for _, kind := range []string{compare.TwoSample, compare.Fit} {
			for zi, z := range []size{{1000, 3000}, {30_000, 10_000}} {
				r := rand.New(rand.NewPCG(uint64(si)*100+uint64(zi), 7))
				d, wh, ro := calRun(t, r, runs, s.Weights, s.Weights, z.ns, z.nl, kind == compare.Fit)
				all += runs
				alarms += d
				fmt.Fprintf(&table, "| %s | %s | %d | %d | %d of %d (%.2f%%) | %d | %d |\n", s.Name, kind, z.ns, z.nl, d, runs, 100*float64(d)/float64(runs), wh, ro)
				if *calibrate && float64(d) > 0.004*float64(runs) {
					t.Errorf("%s, %s, %d against %d: %d false alarms in %d", s.Name, kind, z.ns, z.nl, d, runs)
				}
			}
		}
	}
	fmt.Fprintf(&table, "| all | | | | %d of %d (%.3f%%) | | |\n", alarms, all, 100*float64(alarms)/float64(all))
	limit := 0.002 * float64(all)
	if !*calibrate {
		limit = 4 // 800 comparisons: 0.8 alarms expected at 0.1%, 5 or more one time in 700
	}
	if float64(alarms) > limit {
		t.Errorf("%d false alarms in %d comparisons of one program, want at most %.0f", alarms, all, limit)
	}
	// power: the move the output prints, found about as often as it
	// says; and issue 35's shift into a small function
	table.WriteString("\n| move | test | source samples | lab samples | found | by the whole profile | by a row | printed |\n|---|---|---:|---:|---:|---:|---:|---|\n")
	powerRuns := runs / 4
	for _, kind := range []string{compare.TwoSample, compare.Fit} {
		for zi, z := range []size{{1993, 3890}, {30_000, 10_000}} {
			w := weights(40)
			w[20] = 0.01 // the function the move goes into: 1% (the others take the rest)
			var total float64
			for i, v := range w {
				if i != 20 {
					total += v
				}
			}
			for i := range w {
				if i != 20 {
					w[i] *= 0.99 / total
				}
			}
			// the printed move for these counts
			src, l := pairOf(w, sampling.Multinomial(rand.New(rand.NewPCG(1, uint64(zi))), z.ns, w), sampling.Multinomial(rand.New(rand.NewPCG(2, uint64(zi))), z.nl, w), kind == compare.Fit)
			c, err := compare.Compare(src, l)
			if err != nil || c.Detect == nil || c.Detect.Shift == 0 {
				t.Fatalf("%s %v: %+v %v", kind, z, c.Detect, err)
			}
			moved := append([]float64{}, w...)
			moved[0] -= c.Detect.Shift
			moved[20] += c.Detect.Shift
			r := rand.New(rand.NewPCG(uint64(zi)+40, 9))
			d, wh, ro := calRun(t, r, powerRuns, w, moved, z.ns, z.nl, kind == compare.Fit)
			fmt.Fprintf(&table, "| %.1f%% into a 1%% function | %s | %d | %d | %d of %d (%.0f%%) | %d | %d | %s |\n", 100*c.Detect.Shift, kind, z.ns, z.nl, d, powerRuns, 100*float64(d)/float64(powerRuns), wh, ro, c.Detect)
			// 80% at least, less what powerRuns draws miss by chance (3 sd)
			if want := c.Detect.Power - 3*math.Sqrt(0.16/float64(powerRuns)); float64(d) < want*float64(powerRuns) {
				t.Errorf("%s, %d against %d: the printed move %.4f found %d of %d, want at least %.0f%%", kind, z.ns, z.nl, c.Detect.Shift, d, powerRuns, 100*c.Detect.Power)
			}
		}
	}
	t.Logf("calibration, %d comparisons a case:\n%s", runs, table.String())
}
