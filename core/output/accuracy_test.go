package output_test

import (
	"encoding/csv"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/proflab/proflab/core/lab/labtest"
	"github.com/proflab/proflab/core/output"
	"github.com/proflab/proflab/core/workload"
	"github.com/proflab/proflab/kernel/nt"
)

// accuracyOf profiles w by src at interval over 0x10000+0xC00 in
// buckets of 2^bucket bytes for 200 ms and returns the summary.
func accuracyOf(t *testing.T, src nt.Source, interval, bucket uint32, w *workload.Spec, l *labtest.Lab) (output.Summary, string) {
	t.Helper()
	reg := &output.Registry{}
	reg.AddMachine(l.M, l.Sim)
	l.Profile(t, 0x10000, 0xC00, bucket, src)
	l.SetInterval(t, src, interval)
	if _, err := l.Sim.Run(200_000, w); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	sum, err := output.Write(dir, reg)
	if err != nil {
		t.Fatal(err)
	}
	return sum, dir
}

// A timer profile of functions that each fill their buckets is within
// sampling error; accuracy.csv has a row per function whose shares and
// interval agree with the buckets.
func TestAccuracyWithinSamplingError(t *testing.T) {
	l := labtest.Inproc(t, 2, 7)
	sum, dir := accuracyOf(t, nt.ProfileTime, 1221, 8, labtest.ThreeFuncs(l.P), l)
	if len(sum.Accuracy) != 1 {
		t.Fatalf("accuracy %+v", sum.Accuracy)
	}
	a := sum.Accuracy[0]
	if a.Samples < 1000 || a.Functions != 3 || a.TotalVariation > a.NoiseBound || !strings.HasPrefix(a.Verdict, "within sampling error") {
		t.Errorf("accuracy %+v", a)
	}
	if !strings.HasPrefix(a.Profile, "profile-m") || a.Source != "ProfileTime" {
		t.Errorf("accuracy names %+v", a)
	}
	f, err := os.Open(filepath.Join(dir, output.AccuracyFile))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	recs, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != 4 || recs[0][5] != "function" || recs[1][5] != "alpha" {
		t.Fatalf("accuracy.csv %v", recs)
	}
	var samples uint64
	for _, r := range recs[1:] {
		n, _ := strconv.ParseUint(r[6], 10, 64)
		samples += n
		s, _ := strconv.ParseFloat(r[7], 64)
		lo, _ := strconv.ParseFloat(r[9], 64)
		hi, _ := strconv.ParseFloat(r[10], 64)
		if !(lo <= s && s <= hi) || float64(n)/float64(a.Samples)-s > 1e-6 {
			t.Errorf("row %v: share %v outside its own interval [%v, %v]", r, s, lo, hi)
		}
	}
	if samples != a.Samples {
		t.Errorf("rows add up to %d samples, the profile has %d", samples, a.Samples)
	}
}

// Buckets that straddle functions charge one function with another's
// time (bucket rounding): a bias that accuracy names.
func TestAccuracyFindsBucketRounding(t *testing.T) {
	l := labtest.Inproc(t, 2, 7)
	w := workload.OneProcess("", l.P, []workload.Function{
		{Name: "small", Base: 0x10000, Size: 0x100, Weight: 1},
		{Name: "big", Base: 0x10100, Size: 0x700, Weight: 1},
		{Name: "rest", Base: 0x10800, Size: 0x400, Weight: 1},
	})
	// 2 KiB buckets: "small" owns the first, which also holds most of "big"
	sum, _ := accuracyOf(t, nt.ProfileTime, 1221, 11, w, l)
	if len(sum.Accuracy) != 1 {
		t.Fatalf("accuracy %+v", sum.Accuracy)
	}
	a := sum.Accuracy[0]
	if a.TotalVariation <= a.NoiseBound || !strings.HasPrefix(a.Verdict, "biased") || len(a.Biased) == 0 {
		t.Errorf("accuracy %+v: want a bias found", a)
	}
}

func TestDistance(t *testing.T) {
	for _, tc := range []struct {
		s, w      []float64
		n         float64
		tv, bound float64
	}{
		{[]float64{0.5, 0.5}, []float64{0.5, 0.5}, 100, 0, 0.05 + math.Sqrt(math.Log(1000)/200)},
		{[]float64{1, 0}, []float64{0, 1}, 400, 1, math.Sqrt(math.Log(1000) / 800)},
		{[]float64{0.6, 0.4}, []float64{0.5, 0.5}, 100, 0.1, 0.05 + math.Sqrt(math.Log(1000)/200)},
	} {
		tv, bound := output.Distance(tc.s, tc.w, tc.n)
		if math.Abs(tv-tc.tv) > 1e-12 || math.Abs(bound-tc.bound) > 1e-12 {
			t.Errorf("Distance(%v, %v, %v) = %v, %v; want %v, %v", tc.s, tc.w, tc.n, tv, bound, tc.tv, tc.bound)
		}
	}
}
