package output

import (
	"fmt"
	"math/rand/v2"
	"sort"
	"strings"
	"testing"

	"github.com/proflab/proflab/core/sampling"
)

// drawProfile draws n samples over functions of truth shares t (by
// inverting their cumulative shares).
func drawProfile(r *rand.Rand, n int, t []float64) []uint64 {
	cum := make([]float64, len(t))
	var s float64
	for i, v := range t {
		s += v
		cum[i] = s
	}
	x := make([]uint64, len(t))
	for range n {
		i := sort.SearchFloat64s(cum, r.Float64()*s)
		x[min(i, len(t)-1)]++
	}
	return x
}

// A profile of a thousand functions drawn from its truth names no
// function beyond sampling error, though about one function in a
// thousand has a raw binomial p under 0.001: the functions' tests are
// adjusted for their number (Holm). Of 100 such profiles, at most one
// names a function (the family-wise rate is 0.1%); a function that got
// three times its share is named.
func TestManyFunctionsDoNotCryWolf(t *testing.T) {
	const k, n, profiles = 1000, 10_000, 100
	truth := make([]float64, k)
	var total float64
	for i := range truth {
		truth[i] = 1 / float64(i+1)
		total += truth[i]
	}
	for i := range truth {
		truth[i] /= total
	}
	r := rand.New(rand.NewPCG(1, 2))
	var named, raw, beyond int
	for range profiles {
		pa := ProfileAccuracy{}
		for i, c := range drawProfile(r, n, truth) {
			pa.Rows = append(pa.Rows, FunctionAccuracy{Name: fmt.Sprint("f", i), Samples: c, Truth: truth[i]})
			pa.Samples += c
		}
		judge(&pa)
		if len(pa.Biased) > 0 {
			named++
		}
		if pa.Outcome == Beyond {
			beyond++
		}
		for _, f := range pa.Rows {
			if f.P < 0.001 {
				raw++
			}
		}
	}
	t.Logf("%d profiles of %d functions: %d name a function, %d are beyond, %d raw p-values under 0.001", profiles, k, named, beyond, raw)
	if named > 1 || beyond > 1 {
		t.Errorf("%d of %d profiles of pure noise name a function, %d are beyond: want at most 1", named, profiles, beyond)
	}
	if raw < profiles/5 {
		t.Errorf("only %d raw p-values under 0.001: the test shows nothing", raw)
	}
	// one function at three times its share
	x := drawProfile(r, n, truth)
	x[10] *= 3
	pa := ProfileAccuracy{}
	for i, c := range x {
		pa.Rows = append(pa.Rows, FunctionAccuracy{Name: fmt.Sprint("f", i), Samples: c, Truth: truth[i]})
		pa.Samples += c
	}
	judge(&pa)
	if len(pa.Biased) == 0 || pa.Biased[0] != "f10" {
		t.Errorf("f10 at three times its share: biased %v, verdict %q", pa.Biased, pa.Verdict)
	}
}

// A profile's verdict prints its p-value with what is known of it, as
// compare does (sampling.Test.PText): a Monte Carlo p whose draws never
// reached the observed distance is below their resolution ("p <
// 0.0004"), never its floor 1/3,000 printed as a value ("p = 0.0003");
// one the draws reached is an estimate with its interval; exact and
// bounded p-values read as before.
func TestJudgeVerdictPrintsPWithResolution(t *testing.T) {
	for _, c := range []struct {
		name   string
		d      uint64 // samples moved from the last two functions to the first two
		method sampling.Method
		want   string
	}{
		{"monte carlo, no draw reached it", 40, sampling.MonteCarlo, "p < 0.0004"},
		{"monte carlo, estimated", 30, sampling.MonteCarlo, "p ≈ 0.04 [0.02, 0.07]"},
		{"bound", 80, sampling.Bound, "p ≤ 1.1e-13"},
	} {
		t.Run(c.name, func(t *testing.T) {
			pa := ProfileAccuracy{}
			for i := range 10 {
				n := uint64(100)
				switch {
				case i < 2:
					n += c.d
				case i >= 8:
					n -= c.d
				}
				pa.Rows = append(pa.Rows, FunctionAccuracy{Name: fmt.Sprint("f", i), Samples: n, Truth: 0.1})
				pa.Samples += n
			}
			judge(&pa)
			if pa.PMethod != string(c.method) {
				t.Fatalf("the test is %q, want %q: the case no longer covers its method", pa.PMethod, c.method)
			}
			if !strings.Contains(pa.Verdict, "on average), "+c.want) {
				t.Errorf("verdict %q: want its p printed as %q", pa.Verdict, c.want)
			}
			if floor := sampling.FormatP(*pa.PValue, sampling.MonteCarlo); c.method == sampling.MonteCarlo && strings.Contains(pa.Verdict, floor) {
				t.Errorf("verdict %q prints the Monte Carlo estimate as a value (%q)", pa.Verdict, floor)
			}
		})
	}
}
