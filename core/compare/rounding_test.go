package compare_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/proflab/proflab/core/compare"
	"github.com/proflab/proflab/core/output"
	"github.com/proflab/proflab/core/workload/importer"
)

// addressed compares a folded source of three leaves, 500 samples each,
// with a lab profile of the same names that has labA, labB and labC
// samples: a replay of the source, as `proflab profile` makes.
func addressed(t *testing.T, a, b, c string, labA, labB, labC uint64) compare.Comparison {
	t.Helper()
	text := "main;" + a + " 500\nmain;" + b + " 500\nmain;" + c + " 500\n"
	im, err := importer.Import("prog.folded", []byte(text), importer.Options{})
	if err != nil {
		t.Fatal(err)
	}
	src := compare.SourceOf(im)
	src.Replayed = true
	l := output.ProfileAccuracy{Profile: "p.pb.gz", Source: "ProfileTime", Samples: labA + labB + labC, Rows: []output.FunctionAccuracy{
		{Name: a, Samples: labA}, {Name: b, Samples: labB}, {Name: c, Samples: labC},
	}}
	cmp, err := compare.Compare(src, l)
	if err != nil {
		t.Fatal(err)
	}
	return cmp
}

// A difference between functions named by address a few bytes apart
// (a binary without symbols, the lab's 4-byte buckets charging the
// bucket to the function at its start) is said to be bucket rounding,
// in the comparison's notes and in the summary's own line, pointing to
// --symbols; functions with names, or addresses far apart, are not.
func TestRoundingNote(t *testing.T) {
	for _, tt := range []struct {
		name    string
		a, b, c string
		want    bool
	}{
		{"addresses 6 bytes apart", "clr.dll+0xa58f", "clr.dll+0xa595", "clr.dll+0x153eb", true},
		{"addresses far apart", "clr.dll+0xa000", "clr.dll+0xa595", "clr.dll+0x153eb", false},
		{"named functions", "parse", "lex", "write", false},
		{"the same offsets in two images", "a.dll+0x10", "b.dll+0x14", "c.dll+0x100", false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			// the second's samples went to the first: 1000, 0, 500
			c := addressed(t, tt.a, tt.b, tt.c, 1000, 0, 500)
			if c.Outcome != compare.Differ {
				t.Fatalf("outcome %q, want a difference", c.Outcome)
			}
			var buf bytes.Buffer
			if err := compare.WriteSummary(&buf, []compare.Comparison{c}, 0); err != nil {
				t.Fatal(err)
			}
			got := buf.String()
			has := strings.Contains(got, "  likely cause: in folded 2 of the 2 functions that differ")
			if has != tt.want || (c.Rounding != "") != tt.want {
				t.Fatalf("rounding said %v (note %q), want %v:\n%s", has, c.Rounding, tt.want, got)
			}
			if !tt.want {
				return
			}
			for _, w := range []string{"That is bucket rounding", "--symbols FILE, docs/etl.md", tt.b} {
				if !strings.Contains(c.Rounding, w) {
					t.Errorf("the note lacks %q: %s", w, c.Rounding)
				}
			}
			if strings.Count(got, "That is bucket rounding") != 1 {
				t.Errorf("the rounding is said more than once:\n%s", got)
			}
			if !strings.Contains(got, "verdict: Windows would not see the program as the source does, likely only by NT's bucket rounding") {
				t.Errorf("the verdict does not say the likely cause:\n%s", got)
			}
		})
	}
}

// A function two profiles counted (an image whose range holds another
// image's functions) is one row of the summary, and its samples count
// once in both sides' totals.
func TestSummaryFunctionOnce(t *testing.T) {
	src := source(t)
	a, err := compare.Compare(src, lab("a.pb.gz", map[string]uint64{"compute": 300, "hash": 200}))
	if err != nil {
		t.Fatal(err)
	}
	// b's range holds compute too
	b, err := compare.Compare(src, lab("b.pb.gz", map[string]uint64{"compute": 300, "parse": 250, "lex": 150, "write": 100}))
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := compare.WriteSummary(&buf, []compare.Comparison{a, b}, 0); err != nil {
		t.Fatal(err)
	}
	got := buf.String()
	if n := strings.Count(got, "\n  compute "); n != 1 {
		t.Errorf("compute is listed %d times, want once:\n%s", n, got)
	}
	if !strings.Contains(got, "(shares of each side's samples in the profiled images: 1000 of the source's, 1000 of Windows')") {
		t.Errorf("the totals count a sample twice:\n%s", got)
	}
}
