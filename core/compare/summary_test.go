package compare_test

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/proflab/proflab/core/compare"
	"github.com/proflab/proflab/core/output"
	"github.com/proflab/proflab/core/workload/importer"
)

// summary is WriteSummary of the source against two lab profiles, one
// of compute and hash, one of parse, lex and write (two images of a
// program), with at most rows functions; replayed: the run replayed the
// source (goodness of fit); labSource: the lab profiles' source (default
// ProfileTime).
func summary(t *testing.T, a, b map[string]uint64, rows int, replayed bool, labSource string) string {
	t.Helper()
	src := source(t)
	src.Replayed = replayed
	var cs []compare.Comparison
	for i, counts := range []map[string]uint64{a, b} {
		l := lab([]string{"first", "second"}[i], counts)
		if labSource != "" {
			l.Source = labSource
		}
		c, err := compare.Compare(src, l)
		if err != nil {
			t.Fatal(err)
		}
		cs = append(cs, c)
	}
	var buf bytes.Buffer
	if err := compare.WriteSummary(&buf, cs, rows); err != nil {
		t.Fatal(err)
	}
	return buf.String()
}

// rowRE is a function's row of the summary.
var rowRE = regexp.MustCompile(`(?m)^  \w+ +folded +`)

// The summary takes the profiles of a program's images together: each
// function's share is of both sides' samples in all of them (the
// source's 1000, the lab's), hottest first by the source; the
// hottest on both sides; and the verdict in words, naming the image
// whose profile differs.
func TestWriteSummary(t *testing.T) {
	for _, tt := range []struct {
		name     string
		a, b     map[string]uint64
		rows     int
		replayed bool
		want     []string
		source   string
	}{
		{"agree", map[string]uint64{"compute": 600, "hash": 400}, map[string]uint64{"parse": 500, "lex": 300, "write": 200}, 0, false, []string{
			"app.folded (folded, count) as Windows saw it: ProfileTime, 2 profiles of the program's images\n",
			"  compute  folded 30.00%  30.00%\n",
			"  parse    folded 25.00%  25.00%\n",
			"  hash     folded 20.00%  20.00%\n",
			"  lex      folded 15.00%  15.00%\n",
			"  write    folded 10.00%  10.00%\n",
			"(shares of each side's samples in the profiled images: 1000 of the source's, 2000 of Windows')",
			"hottest: the same on both sides, compute\n",
			"verdict: Windows would see the program as the source does: the profiles of all 2 images agree with the source within sampling error\n",
			"power (folded): with 500 source samples and 1,000 lab samples, a move of",
		}, ""},
		{"a counter's note, not each image's coverage", map[string]uint64{"compute": 600, "hash": 400}, map[string]uint64{"parse": 500, "lex": 300, "write": 200}, 0, false, []string{
			"\n  note: the lab's ProfileTotalIssues samples its event, not time",
		}, "ProfileTotalIssues"},
		{"agree, replayed", map[string]uint64{"compute": 600, "hash": 400}, map[string]uint64{"parse": 500, "lex": 300, "write": 200}, 0, true, []string{
			"within sampling error (the lab's samples tested against the source's shares: the run replayed the source)\n",
			"power (folded): with 1,000 lab samples against the source's shares, a move of",
		}, ""},
		{"too few to rank", map[string]uint64{"compute": 3, "hash": 2}, map[string]uint64{"parse": 2, "lex": 1, "write": 1}, 0, false, []string{
			"hottest: too few samples to rank (1000 of the source's, 9 of Windows'; 10 each at least)\n",
		}, ""},
		{"one image differs", map[string]uint64{"compute": 600, "hash": 400}, map[string]uint64{"parse": 300, "lex": 1200, "write": 200}, 2, false, []string{
			"  compute  folded 30.00%  22.22%\n",
			"(shares of each side's samples in the profiled images: 1000 of the source's, 2700 of Windows')",
			"  parse    folded 25.00%  11.11% differs\n",
			"hottest: not the same: the source's is compute (30.00%), Windows' is lex (44.44%)\n",
			"verdict: Windows would not see the program as the source does: in folded the lab and the source differ beyond both samples' errors",
		}, ""},
		{"no samples", map[string]uint64{"compute": 0, "hash": 0}, map[string]uint64{"parse": 0, "lex": 0, "write": 0}, 0, false, []string{
			"  compute  folded 30.00%       -\n",
			"verdict: no verdict: Windows' profiles of the program's images counted nothing (folded, folded): run longer (--duration) or sample more often (--interval)\n",
		}, ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got := summary(t, tt.a, tt.b, tt.rows, tt.replayed, tt.source)
			if strings.Count(got, "note: ") != strings.Count(strings.Join(tt.want, ""), "note: ") {
				t.Errorf("the summary's notes are not the ones every image's comparison has:\n%s", got)
			}
			for _, w := range tt.want {
				if !strings.Contains(got, w) {
					t.Errorf("the summary lacks %q:\n%s", w, got)
				}
			}
			if n := len(rowRE.FindAllString(got, -1)); tt.rows > 0 && n != tt.rows {
				t.Errorf("%d rows, want %d:\n%s", n, tt.rows, got)
			}
		})
	}
}

// OfRun compares a run's imports with its folder's accuracy.csv, and
// says why when there is nothing to compare.
func TestOfRun(t *testing.T) {
	im, err := importer.Import("app.folded", []byte(folded), importer.Options{})
	if err != nil {
		t.Fatal(err)
	}
	write := func(rows string) string {
		dir := t.TempDir()
		text := strings.Join(output.AccuracyHeader, ",") + "\n" + rows
		if err := os.WriteFile(filepath.Join(dir, output.AccuracyFile), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return dir
	}
	run := write("p.pb.gz,1,20,4,ProfileTime,compute,300,,0.5,,,,,,,within sampling error,,\n" +
		"p.pb.gz,1,20,4,ProfileTime,hash,200,,0.5,,,,,,,within sampling error,,\n")
	cs, err := compare.OfRun(run, []*importer.Imported{im})
	if err != nil || len(cs) != 1 || cs[0].Profile != "p.pb.gz" || cs[0].LabSamples != 500 {
		t.Errorf("OfRun: %d comparisons, %v", len(cs), err)
	}
	for _, tt := range []struct {
		name, dir string
		ims       []*importer.Imported
		want      string
	}{
		{"no accuracy.csv", t.TempDir(), []*importer.Imported{im}, "has no accuracy.csv"},
		{"no import", run, nil, "imported no profile: there is no source to compare with"},
		{"nothing shared", write("p.pb.gz,1,20,4,ProfileTime,other,300,,1,,,,,,,within sampling error,,\n"), []*importer.Imported{im}, "shares a function with app.folded"},
	} {
		if _, err := compare.OfRun(tt.dir, tt.ims); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: %v, want %q", tt.name, err, tt.want)
		}
	}
}

// A profile with samples that no comparison covers is named in a note
// after the summary (the verdict says "all N images agree" of the
// compared ones only); one without samples, or a run where every
// profile is compared, gets none.
func TestWriteUncompared(t *testing.T) {
	im, err := importer.Import("app.folded", []byte(folded), importer.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name, rows, want string
	}{
		{"one left out", "p.pb.gz,1,20,4,ProfileTime,compute,300,,0.5,,,,,,,within sampling error,,\n" +
			"q.pb.gz,1,20,8,ProfileTime,handle_amd,40,,1,,,,,,,within sampling error,,\n" +
			"r.pb.gz,1,20,C,ProfileTime,other,0,,1,,,,,,,no samples,,\n",
			"  note: 1 of the 2 profiles with samples (40 of Windows' samples) are not compared, so the verdict leaves them out: their functions are not the source's, or are ones several of the source's images define, with nothing in the profile to say which: q.pb.gz (40 samples)\n"},
		{"all compared", "p.pb.gz,1,20,4,ProfileTime,compute,300,,0.5,,,,,,,within sampling error,,\n" +
			"r.pb.gz,1,20,C,ProfileTime,other,0,,1,,,,,,,no samples,,\n", ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			text := strings.Join(output.AccuracyHeader, ",") + "\n" + tt.rows
			if err := os.WriteFile(filepath.Join(dir, output.AccuracyFile), []byte(text), 0o644); err != nil {
				t.Fatal(err)
			}
			cs, err := compare.OfRun(dir, []*importer.Imported{im})
			if err != nil {
				t.Fatal(err)
			}
			var b strings.Builder
			if err := compare.WriteUncompared(&b, dir, cs); err != nil {
				t.Fatal(err)
			}
			if b.String() != tt.want {
				t.Errorf("got %q\nwant %q", b.String(), tt.want)
			}
		})
	}
}

// An image whose comparison differs where the lab's profile is itself
// beyond sampling error of what the lab ran (a stripped binary's
// functions a few bytes apart, charged by bucket) gets the note that
// says so after the verdict, naming the image: the verdict alone read as
// if Windows sampled the program differently. An image that differs with
// an unbiased lab profile gets no such note.
func TestWriteSummaryBiasedNote(t *testing.T) {
	src := source(t)
	src.Replayed = true
	for _, biased := range []bool{true, false} {
		var cs []compare.Comparison
		for i, counts := range []map[string]uint64{{"compute": 600, "hash": 400}, {"parse": 300, "lex": 1200, "write": 200}} {
			l := lab([]string{"first", "second"}[i], counts)
			if biased && i == 1 {
				l.Outcome = output.Beyond
			}
			c, err := compare.Compare(src, l)
			if err != nil {
				t.Fatal(err)
			}
			cs = append(cs, c)
		}
		var buf bytes.Buffer
		if err := compare.WriteSummary(&buf, cs, 0); err != nil {
			t.Fatal(err)
		}
		got := buf.String()
		want := "\n  note (folded): " + compare.BiasedNote + "\n"
		if n := strings.Count(got, want); biased && n != 1 || !biased && strings.Contains(got, compare.BiasedNote) {
			t.Errorf("biased %v: the summary has the note %d times:\n%s", biased, n, got)
		}
		if !strings.Contains(got, "verdict: Windows would not see the program as the source does: in folded") {
			t.Errorf("biased %v: the verdict does not name the differing image:\n%s", biased, got)
		}
		// a difference the likely-cause line puts down to bucket
		// rounding is explained there, not again in the note
		cs[1].Rounding = "bucket rounding of folded's functions"
		buf.Reset()
		if err := compare.WriteSummary(&buf, cs, 0); err != nil {
			t.Fatal(err)
		}
		if strings.Contains(buf.String(), compare.BiasedNote) {
			t.Errorf("biased %v, rounding: the note repeats the likely cause:\n%s", biased, buf.String())
		}
	}
}
