package output

import (
	"fmt"
	"math/rand/v2"
	"sort"
	"testing"
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
