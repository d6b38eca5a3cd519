package compare

import (
	"sort"

	"github.com/proflab/proflab/core/sampling"
)

// The tests a comparison uses (Comparison.Kind).
const (
	// TwoSample tests the source and the lab as two samples of one
	// program: each function's samples in both split as the profiles'
	// sizes (the conditional binomial test), and the whole profile's
	// distance against random splits of the pooled samples
	// (sampling.TwoSample). For a source the run did not replay.
	TwoSample = "two-sample"
	// Fit tests the lab's samples against the source's shares as the
	// truth: each function's by the exact binomial test, the whole
	// profile's distance by sampling.GoodnessOfFit (as accuracy.csv
	// tests a profile against what the lab ran). For a source the run
	// replayed: its shares are what the lab drew from.
	Fit = "goodness of fit"
)

// The overall level sampling.Alpha (0.001) is split between the two
// families whose rejection makes the verdict "differ" (Bonferroni: the
// chance that either rejects by sampling error alone is at most the
// sum).
const (
	// AlphaWhole is the level of the whole profile's test. Its Monte
	// Carlo p-value rejects when at most 3 of 9,999 draws reach the
	// distance, or none of the first 2,999 does: a size of 0.00048, not
	// over it (TestSequentialSizeAtAlphaWhole).
	AlphaWhole = sampling.Alpha / 2
	// AlphaRows is the family-wise level of the rows' tests, every
	// function's and every module's together, adjusted by Holm: a row
	// "differs" when its adjusted p is below it.
	AlphaRows = sampling.Alpha / 2
)

// family is a set of rows and their samples on both sides: the
// functions, or the modules.
type family struct {
	a, b  []uint64  // the source's samples, the lab's
	truth []float64 // the source's exact shares (Source.Shares)
	rows  []Row
}

// cells makes the family of pairs, each named by name and module.
func (c *Comparison) cells(ps []pair, name, module func(pair) string) *family {
	f := &family{}
	for _, p := range ps {
		f.a, f.b, f.truth = append(f.a, p.a), append(f.b, p.b), append(f.truth, p.truth)
		f.rows = append(f.rows, Row{Name: name(p), Module: module(p)})
	}
	return f
}

// test fills every row's shares, intervals and test, adjusts the tests of
// all the families together (Holm, at AlphaRows) and sorts each family's
// rows. The rows with samples on neither side are no test (p = 1), and do
// not count in the adjustment.
func (c *Comparison) test(fams ...*family) {
	type at struct {
		f *family
		i int
	}
	var ps []float64
	var tested []at
	for _, f := range fams {
		var total float64
		for _, t := range f.truth {
			total += t
		}
		for i := range f.rows {
			r := &f.rows[i]
			r.Source, r.Lab = shareOf(f.a[i], c.SourceSamples), shareOf(f.b[i], c.LabSamples)
			r.P, r.PHolm = 1, 1
			if f.a[i]+f.b[i] == 0 {
				continue
			}
			if c.Kind == Fit {
				var t float64
				if total > 0 {
					t = f.truth[i] / total
				}
				r.P = sampling.BinomialTest(f.b[i], c.LabSamples, t)
			} else {
				r.P = sampling.ConditionalTest(f.a[i], c.SourceSamples, f.b[i], c.LabSamples)
			}
			ps, tested = append(ps, r.P), append(tested, at{f, i})
		}
	}
	c.tests = len(ps)
	for k, adj := range sampling.Holm(ps) {
		r := &tested[k].f.rows[tested[k].i]
		r.PHolm, r.Differ = adj, adj < AlphaRows
	}
	for _, f := range fams {
		sort.SliceStable(f.rows, func(i, j int) bool {
			x, y := f.rows[i], f.rows[j]
			if x.Source.Share != y.Source.Share {
				return x.Source.Share > y.Source.Share
			}
			if x.Lab.Share != y.Lab.Share {
				return x.Lab.Share > y.Lab.Share
			}
			return x.Name < y.Name
		})
	}
}

// whole tests the whole profile: the distance between the lab's shares
// and the source's, as two samples or against the source's shares.
func (c *Comparison) whole(fs *family) error {
	var t sampling.Test
	var err error
	if c.Kind == Fit {
		t, err = sampling.GoodnessOfFit(fs.b, fs.truth)
	} else {
		t, err = sampling.TwoSample(fs.a, fs.b)
	}
	if err != nil {
		return err
	}
	c.Test = &t
	return nil
}
