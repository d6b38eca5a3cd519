package output_test

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/proflab/proflab/core/lab/labtest"
	"github.com/proflab/proflab/core/output"
	"github.com/proflab/proflab/core/sampling"
	"github.com/proflab/proflab/core/workload"
	"github.com/proflab/proflab/kernel/nt"
)

// accuracyOf profiles w by src at interval over 0x10000+0xC00 in
// buckets of 2^bucket bytes for 200 ms and returns the summary.
func accuracyOf(t *testing.T, src nt.Source, interval, bucket uint32, w *workload.Spec, l *labtest.Lab) (output.Summary, string) {
	t.Helper()
	return accuracyAt(t, 0x10000, src, interval, bucket, w, l)
}

// accuracyAt is accuracyOf over base+0xC00.
func accuracyAt(t *testing.T, base uint64, src nt.Source, interval, bucket uint32, w *workload.Spec, l *labtest.Lab) (output.Summary, string) {
	t.Helper()
	reg := &output.Registry{}
	reg.AddMachine(l.M, l.Sim)
	l.Profile(t, base, 0xC00, bucket, src)
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

// readCSV reads dir's accuracy.csv.
func readCSV(t *testing.T, dir string) [][]string {
	t.Helper()
	f, err := os.Open(filepath.Join(dir, output.AccuracyFile))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	recs, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	return recs
}

// A timer profile of functions that each fill their buckets is within
// sampling error, with its p-value; accuracy.csv has a row per function
// whose shares, interval and tests agree with the buckets, and the
// profile's outcome, distance and p on each.
func TestAccuracyWithinSamplingError(t *testing.T) {
	l := labtest.Inproc(t, 2, 7)
	sum, dir := accuracyOf(t, nt.ProfileTime, 1221, 8, labtest.ThreeFuncs(l.P), l)
	if len(sum.Accuracy) != 1 {
		t.Fatalf("accuracy %+v", sum.Accuracy)
	}
	a := sum.Accuracy[0]
	if a.Samples < 1000 || a.Functions != 3 || a.Outcome != output.Within || a.PValue == nil || *a.PValue < sampling.Alpha ||
		!strings.HasPrefix(a.Verdict, "within sampling error: ") || !strings.Contains(a.Verdict, "), p ≈ ") || len(a.Biased) != 0 {
		t.Errorf("accuracy %+v", a)
	}
	if !strings.HasPrefix(a.Profile, "profile-m") || a.Source != "ProfileTime" {
		t.Errorf("accuracy names %+v", a)
	}
	recs := readCSV(t, dir)
	if len(recs) != 4 || !slices.Equal(recs[0], output.AccuracyHeader) || recs[1][5] != "alpha" {
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
		p, _ := strconv.ParseFloat(r[12], 64)
		holm, _ := strconv.ParseFloat(r[13], 64)
		if p <= 0 || holm < p || r[14] != "no" {
			t.Errorf("row %v: a function's tests", r)
		}
		if r[15] != output.Within || r[16] != strconv.FormatFloat(*a.TotalVariation, 'f', 6, 64) || r[17] == "" {
			t.Errorf("row %v: the profile's columns", r)
		}
	}
	if samples != a.Samples {
		t.Errorf("rows add up to %d samples, the profile has %d", samples, a.Samples)
	}
	// read back, as `proflab compare` does
	b, _ := os.ReadFile(filepath.Join(dir, output.AccuracyFile))
	back, err := output.ReadAccuracy("accuracy.csv", bytes.NewReader(b))
	if err != nil || len(back) != 1 || back[0].Samples != a.Samples || back[0].Outcome != output.Within || len(back[0].Rows) != 3 ||
		back[0].Rows[0].Name != "alpha" || *back[0].PValue <= 0 {
		t.Fatalf("read back: %+v %v", back, err)
	}
	near := func(x, y, tol float64) bool { return math.Abs(x-y) <= tol*max(1, math.Abs(y)) }
	for i, f := range back[0].Rows { // every column as written (rounded as the file rounds)
		w := a.Rows[i]
		if f.Name != w.Name || f.Samples != w.Samples || f.Beyond != w.Beyond || !near(f.Sampled, w.Sampled, 1e-6) || !near(f.Truth, w.Truth, 1e-6) ||
			!near(f.Low, w.Low, 1e-6) || !near(f.High, w.High, 1e-6) || !near(f.P, w.P, 1e-3) || !near(f.PHolm, w.PHolm, 1e-3) {
			t.Errorf("row %d read back as %+v, written %+v", i, f, w)
		}
	}
}

// Buckets that straddle functions charge one function with another's
// time (bucket rounding): a bias beyond sampling error, with the
// functions that carry it.
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
	if a.Outcome != output.Beyond || *a.PValue >= sampling.Alpha || !strings.HasPrefix(a.Verdict, "beyond sampling error: ") ||
		!slices.Contains(a.Biased, "small") || !slices.Contains(a.Biased, "big") {
		t.Errorf("accuracy %+v: want a bias found in small and big", a)
	}
}

// A started profile that counted nothing has no verdict: "no samples" in
// result.json's accuracy (no distance, no p: a distance of 0 would read
// as perfect) and in accuracy.csv.
func TestAccuracyNoSamples(t *testing.T) {
	l := labtest.Inproc(t, 2, 7)
	// the profile covers 0x40000, where nothing runs
	sum, dir := accuracyAt(t, 0x40000, nt.ProfileTime, 1221, 8, labtest.ThreeFuncs(l.P), l)
	if len(sum.Accuracy) != 1 {
		t.Fatalf("accuracy %+v", sum.Accuracy)
	}
	a := sum.Accuracy[0]
	if a.Outcome != output.NoSamples || a.Samples != 0 || a.TotalVariation != nil || a.PValue != nil || !strings.HasPrefix(a.Verdict, "no samples: ") {
		t.Errorf("accuracy %+v", a)
	}
	js, _ := json.Marshal(a)
	if strings.Contains(string(js), "total_variation") || strings.Contains(string(js), "p_value") || !strings.Contains(string(js), `"outcome":"no samples"`) {
		t.Errorf("json %s", js)
	}
	recs := readCSV(t, dir)
	if len(recs) != 2 || recs[1][6] != "0" || recs[1][15] != output.NoSamples || recs[1][16] != "" || recs[1][7] != "" {
		t.Errorf("accuracy.csv %v", recs)
	}
}
