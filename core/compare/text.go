package compare

import (
	"bytes"
	"encoding/csv"
	"fmt"
	"io"
	"strconv"

	"github.com/proflab/proflab/core/sampling"
)

// Files of a run folder that imported a profile as its workload.
const (
	// TextFile is the comparisons as WriteText prints them.
	TextFile = "comparison.txt"
	// CSVFile is every function's and module's row of every comparison.
	CSVFile = "comparison.csv"
)

// WriteText prints the comparisons for people: per comparison the test
// used and why, its verdict, the smallest move it detects, the top-N
// agreement and notes, then a table of the
// modules and one of the functions — the rows most functions (the
// hottest of either side), and every function that differs; rows ≤ 0
// prints them all.
func WriteText(w io.Writer, cs []Comparison, rows int) error {
	var b bytes.Buffer
	for i, c := range cs {
		if i > 0 {
			b.WriteString("\n")
		}
		fmt.Fprintf(&b, "%s (%s, %s) against %s (%s)\n", c.Source, c.Format, c.SampleType, c.Profile, c.LabSource)
		fmt.Fprintf(&b, "  samples: %d of the source's, %d of the lab's\n", c.SourceSamples, c.LabSamples)
		fmt.Fprintf(&b, "  test: %s: %s\n", c.Kind, c.Why)
		fmt.Fprintf(&b, "  verdict: %s\n", c.Verdict)
		if c.Detect != nil {
			fmt.Fprintf(&b, "  power: %s\n", c.Detect)
		}
		switch {
		case c.TooFew:
			fmt.Fprintf(&b, "  hottest: too few samples to rank the %d hottest functions (%d of the source's, %d of the lab's; ranking %d takes %d on each side)\n",
				c.TopN, c.SourceSamples, c.LabSamples, c.TopN, MinPerRank*c.TopN)
		case c.TopN > 0:
			same := "the same"
			if c.Hottest != c.LabHottest {
				same = fmt.Sprintf("not the same (the lab's is %s)", c.LabHottest)
			}
			fmt.Fprintf(&b, "  hottest: %d of the source's %d hottest functions are among the lab's %d hottest; the hottest is %s: %s\n", c.TopShared, c.TopN, c.TopN, same, c.Hottest)
		}
		for _, n := range c.Notes {
			fmt.Fprintf(&b, "  note: %s\n", n)
		}
		b.WriteString("\n")
		table(&b, "module", c.Modules, 0, false)
		b.WriteString("\n")
		table(&b, "function", c.Functions, rows, true)
	}
	b.WriteString("\nShares are of each side's samples, with their 95% (Wilson) intervals; p is the row's test\n" +
		"that the lab's share is the source's (two-sample: given the row's samples in both; goodness\n" +
		"of fit: the lab's samples against the source's share), adjusted for the number of rows,\n" +
		"functions and modules together (Holm): \"differs\" is p < 0.0005. The verdict is \"differ\"\n" +
		"when a row differs or the whole profile's test has p < 0.0005 (the level 0.001 split between\n" +
		"the two); a Monte Carlo p is given with what its draws resolve (p < 0.0004, or its estimate\n" +
		"and 95% interval).\n")
	_, err := w.Write(b.Bytes())
	return err
}

// table writes rows as an aligned table: the first limit rows (all when
// limit ≤ 0) and every row that differs after them.
func table(b *bytes.Buffer, what string, rs []Row, limit int, module bool) {
	head := []string{what}
	if module {
		head = append(head, "module")
	}
	cells := [][]string{append(head, "source share", "[95%]", "lab share", "[95%]", "difference", "p (Holm)", "")}
	left := len(head) // the name columns are aligned left
	hidden := 0
	for i, r := range rs {
		if r.Source.Samples == 0 && r.Lab.Samples == 0 {
			continue
		}
		if limit > 0 && i >= limit && !r.Differ {
			hidden++
			continue
		}
		row := []string{r.Name}
		if module {
			row = append(row, r.Module)
		}
		differ := ""
		if r.Differ {
			differ = "differs"
		}
		cells = append(cells, append(row, pct(r.Source.Share), interval(r.Source), pct(r.Lab.Share), interval(r.Lab),
			fmt.Sprintf("%+.2f%%", 100*(r.Lab.Share-r.Source.Share)), sampling.PNumber(r.PHolm), differ))
	}
	alignCells(b, cells, left)
	switch {
	case hidden == 1:
		fmt.Fprintf(b, "  (1 more %s, which does not differ)\n", what)
	case hidden > 1:
		fmt.Fprintf(b, "  (%d more %ss, none of which differs)\n", hidden, what)
	}
}

func pct(v float64) string { return strconv.FormatFloat(100*v, 'f', 2, 64) + "%" }

func interval(s Share) string {
	return "[" + strconv.FormatFloat(100*s.Low, 'f', 2, 64) + ", " + strconv.FormatFloat(100*s.High, 'f', 2, 64) + "]"
}

// CSVHeader is comparison.csv's header.
var CSVHeader = []string{"source", "profile", "lab_source", "kind", "name", "module", "source_samples", "source_share", "source_ci95_low", "source_ci95_high",
	"lab_samples", "lab_share", "lab_ci95_low", "lab_ci95_high", "difference", "p_value", "p_holm", "differs", "outcome", "total_variation", "p_value_all", "p_value_all_text", "test"}

// WriteCSV writes comparison.csv: a row per module and function of each
// comparison (kind "module" or "function"), the comparison's outcome,
// distance and p on each (p_value_all as a number, p_value_all_text with
// its resolution, as Test.PText), and the test used (two-sample or
// goodness of fit).
func WriteCSV(w io.Writer, cs []Comparison) error {
	cw := csv.NewWriter(w)
	_ = cw.Write(CSVHeader)
	ff := func(v float64) string { return strconv.FormatFloat(v, 'f', 6, 64) }
	fp := func(v float64) string { return strconv.FormatFloat(v, 'g', 4, 64) }
	for _, c := range cs {
		tv, p, ptext := "", "", ""
		if c.Test != nil {
			tv, p, ptext = ff(c.Test.TV), fp(c.Test.P), c.Test.PText()
		}
		for _, kind := range []string{"module", "function"} {
			rs := c.Modules
			if kind == "function" {
				rs = c.Functions
			}
			for _, r := range rs {
				differs := "no"
				if r.Differ {
					differs = "yes"
				}
				_ = cw.Write([]string{c.Source, c.Profile, c.LabSource, kind, r.Name, r.Module,
					strconv.FormatUint(r.Source.Samples, 10), ff(r.Source.Share), ff(r.Source.Low), ff(r.Source.High),
					strconv.FormatUint(r.Lab.Samples, 10), ff(r.Lab.Share), ff(r.Lab.Low), ff(r.Lab.High),
					ff(r.Lab.Share - r.Source.Share), fp(r.P), fp(r.PHolm), differs, c.Outcome, tv, p, ptext, c.Kind})
			}
		}
	}
	cw.Flush()
	return cw.Error()
}
