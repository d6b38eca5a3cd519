package compare_test

import (
	"bytes"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/proflab/proflab/core/compare"
	"github.com/proflab/proflab/core/output"
	"github.com/proflab/proflab/core/sampling"
	"github.com/proflab/proflab/core/workload/importer"
)

var update = flag.Bool("update", false, "rewrite the golden files")

// folded is a source in folded stacks: 1000 samples, two images' worth
// of names through their leaves.
const folded = `prog;main;compute 300
prog;main;compute;hash 200
prog;main;parse 250
prog;main;parse;lex 150
prog;main;write 100
`

func source(t *testing.T) compare.Source {
	t.Helper()
	im, err := importer.Import("app.folded", []byte(folded), importer.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return compare.SourceOf(im)
}

// SourceOf: the source's samples per leaf function (share × samples) and
// their modules.
func TestSourceOf(t *testing.T) {
	s := source(t)
	want := map[string]uint64{"compute": 300, "hash": 200, "parse": 250, "lex": 150, "write": 100}
	if s.Samples != 1000 || len(s.Counts) != len(want) || s.Format != "folded" {
		t.Fatalf("source %+v", s)
	}
	for name, n := range want {
		if s.Counts[name] != n || s.Module[name] == "" {
			t.Errorf("%s: %d samples in %q, want %d", name, s.Counts[name], s.Module[name], n)
		}
	}
}

// lab is a lab profile with these samples per function.
func lab(name string, counts map[string]uint64) output.ProfileAccuracy {
	p := output.ProfileAccuracy{Profile: name, Source: "ProfileTime"}
	for _, f := range []string{"compute", "hash", "parse", "lex", "write", "main"} {
		if n, ok := counts[f]; ok {
			p.Rows = append(p.Rows, output.FunctionAccuracy{Name: f, Samples: n})
			p.Samples += n
		}
	}
	return p
}

// A lab profile with the source's shares agrees; one with a function
// three times its share differs there, and the verdict says which; the
// top-N agreement and coverage are counted.
func TestCompare(t *testing.T) {
	src := source(t)
	same, err := compare.Compare(src, lab("same", map[string]uint64{"compute": 3010, "hash": 1990, "parse": 2470, "lex": 1530, "write": 1000, "main": 0}))
	if err != nil {
		t.Fatal(err)
	}
	if same.Outcome != compare.Agree || same.Test == nil || same.Test.Beyond() || same.Coverage != 1 || same.TopN != 5 || same.TopShared != 5 ||
		same.Hottest != "compute" || same.LabHottest != "compute" || len(same.Notes) != 0 || !strings.HasPrefix(same.Verdict, "the lab agrees with the source") {
		t.Errorf("the same shares: %+v", same)
	}
	for _, f := range same.Functions {
		if f.Differ || f.Source.Low > f.Source.Share || f.Lab.High < f.Lab.Share {
			t.Errorf("row %+v", f)
		}
	}
	off, err := compare.Compare(src, lab("off", map[string]uint64{"compute": 3000, "hash": 2000, "parse": 2500, "lex": 1500, "write": 3000}))
	if err != nil {
		t.Fatal(err)
	}
	if off.Outcome != compare.Differ || !off.Test.Beyond() || !strings.Contains(off.Verdict, "1 function differs on its own: write") {
		t.Errorf("write three times its share: %+v", off)
	}
	for _, f := range off.Functions {
		if f.Differ != (f.Name == "write") {
			t.Errorf("row %+v", f)
		}
	}
	if len(off.Notes) != 0 {
		t.Errorf("notes %q for a lab profile with no verdict of its own", off.Notes)
	}
	// the same difference from a lab profile that is itself beyond
	// sampling error of what it ran says where to look
	biased := lab("biased", map[string]uint64{"compute": 3000, "hash": 2000, "parse": 2500, "lex": 1500, "write": 3000})
	biased.Outcome = output.Beyond
	b, err := compare.Compare(src, biased)
	if err != nil || b.Outcome != compare.Differ || len(b.Notes) != 1 || !strings.Contains(b.Notes[0], "is itself beyond sampling error of what the lab ran") ||
		!strings.Contains(b.Notes[0], "NT's smallest are 4 bytes") {
		t.Errorf("a biased lab profile: %+v %v", b, err)
	}
	// a lab profile that covers part of the source, by other names
	part, err := compare.Compare(src, output.ProfileAccuracy{Profile: "part", Source: "ProfileTotalIssues", Samples: 500,
		Rows: []output.FunctionAccuracy{{Name: "app.folded!compute", Samples: 300}, {Name: "hash", Samples: 200}, {Name: "elsewhere", Samples: 0}}})
	if err != nil {
		t.Fatal(err)
	}
	if part.Coverage != 0.5 || part.Outside != 3 || part.SourceSamples != 500 || len(part.Notes) != 2 || part.Outcome != compare.Agree {
		t.Errorf("part: %+v", part)
	}
	if _, err := compare.Compare(src, lab("none", nil)); err == nil || !strings.Contains(err.Error(), "no function in common") {
		t.Errorf("nothing in common: %v", err)
	}
	// a source that says no sample count (an Instruments copy of cycles)
	im, err := importer.Import("cycles.txt", []byte("Weight\tSelf Weight\t\tSymbol Name\n2.00 Gc  100.0%\t1.50 Gc\t \t main\n500.00 Mc  25.0%\t500.00 Mc\t \t  compute\n"), importer.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := compare.Compare(compare.SourceOf(im), lab("cycles", map[string]uint64{"main": 3000, "compute": 1000})); err == nil ||
		!strings.Contains(err.Error(), "does not say how many samples its shares are of") {
		t.Errorf("a source without a sample count: %v, want an error that says so", err)
	}
	empty, err := compare.Compare(src, lab("empty", map[string]uint64{"compute": 0}))
	if err != nil || empty.Outcome != compare.NoVerdict || empty.Test != nil {
		t.Errorf("a lab profile without samples: %+v %v", empty, err)
	}
}

// Two profiles of one program (the source, and the lab's with its own
// sample) agree: over 200 pairs drawn from the same 300 functions, the
// comparison differs at most once and names a function at most once (its
// tests are adjusted for the number of functions).
func TestCompareDoesNotCryWolf(t *testing.T) {
	const k, pairs = 300, 200
	w := make([]float64, k)
	var total float64
	for i := range w {
		w[i] = 1 / float64(i+1)
		total += w[i]
	}
	r := rand.New(rand.NewPCG(3, 4))
	draw := func(n int) []uint64 {
		x := make([]uint64, k)
		for range n {
			u, i := r.Float64()*total, 0
			for ; i < k-1 && u >= w[i]; i++ {
				u -= w[i]
			}
			x[i]++
		}
		return x
	}
	var differ, named int
	for range pairs {
		a, b := draw(2000), draw(5000)
		src := compare.Source{Name: "src", Counts: map[string]uint64{}, Module: map[string]string{}}
		l := output.ProfileAccuracy{Profile: "lab"}
		for i := range k {
			name := fmt.Sprint("f", i)
			src.Module[name] = "img"
			if a[i] > 0 {
				src.Counts[name] = a[i]
				src.Samples += a[i]
			}
			l.Rows = append(l.Rows, output.FunctionAccuracy{Name: name, Samples: b[i]})
			l.Samples += b[i]
		}
		c, err := compare.Compare(src, l)
		if err != nil {
			t.Fatal(err)
		}
		if c.Outcome == compare.Differ {
			differ++
		}
		for _, f := range c.Functions {
			if f.Differ {
				named++
				break
			}
		}
	}
	t.Logf("%d pairs of one program, %d functions: %d differ, %d name a function", pairs, k, differ, named)
	if differ > 1 || named > 1 {
		t.Errorf("%d of %d pairs of one program differ, %d name a function: want at most 1", differ, pairs, named)
	}
}

// The text a person reads, golden (go test ./core/compare -update
// rewrites it): the verdict, the hottest functions, the modules, the
// functions with their intervals and tests, the hidden rows counted.
func TestWriteTextGolden(t *testing.T) {
	src := source(t)
	a, _ := compare.Compare(src, lab("profile-m1-pid12-h4-ProfileTime.pb.gz", map[string]uint64{"compute": 3010, "hash": 1990, "parse": 2470, "lex": 1530, "write": 1000}))
	b, _ := compare.Compare(src, lab("profile-m2-pid12-h4-ProfileTime.pb.gz", map[string]uint64{"compute": 3000, "hash": 2000, "parse": 2500, "lex": 1500, "write": 3000}))
	var got bytes.Buffer
	if err := compare.WriteText(&got, []compare.Comparison{a, b}, 3); err != nil {
		t.Fatal(err)
	}
	golden := filepath.Join("testdata", "comparison.golden")
	if *update {
		if err := os.WriteFile(golden, got.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if got.String() != string(want) {
		t.Errorf("WriteText:\n%s\nwant (testdata/comparison.golden; -update rewrites it):\n%s", got.String(), want)
	}
	var csv bytes.Buffer
	if err := compare.WriteCSV(&csv, []compare.Comparison{a, b}); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(csv.String()), "\n")
	// a header, and per comparison a module and five functions
	if len(lines) != 1+2*6 || lines[0] != strings.Join(compare.CSVHeader, ",") || !strings.Contains(csv.String(), ",function,write,folded,100,") {
		t.Errorf("comparison.csv:\n%s", csv.String())
	}
}

// WriteFiles writes comparison.txt and comparison.csv, and nothing when
// there is no comparison; ReadRun reads a run's accuracy.csv back.
func TestWriteFilesAndReadRun(t *testing.T) {
	dir := t.TempDir()
	if files, err := compare.WriteFiles(dir, nil); err != nil || files != nil {
		t.Errorf("no comparison: %v %v", files, err)
	}
	c, _ := compare.Compare(source(t), lab("p", map[string]uint64{"compute": 30, "write": 10}))
	files, err := compare.WriteFiles(dir, []compare.Comparison{c})
	if err != nil || len(files) != 2 {
		t.Fatalf("files %v, %v", files, err)
	}
	for _, f := range files {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Error(err)
		}
	}
	if _, err := compare.ReadRun(dir); err == nil || !strings.Contains(err.Error(), "has no accuracy.csv: give the folder of a run made with --out") {
		t.Errorf("a folder without accuracy.csv: %v", err)
	}
	_ = sampling.Alpha
}

// A bare name two source images define (a PLT stub in a library and in a
// module it loaded) is matched to the image of the lab profile's other
// functions, as accuracy.csv names it bare when its range holds one of
// them; with no such evidence it stays unmatched.
func TestCompareAmbiguousName(t *testing.T) {
	src := compare.Source{Name: "p.perf", Format: "perf", SampleType: "cpu-clock", Samples: 1000,
		Counts: map[string]uint64{"libpython!eval": 900, "libpython!free@plt": 60, "_json!free@plt": 40},
		Module: map[string]string{"libpython!eval": "libpython", "libpython!free@plt": "libpython", "_json!free@plt": "_json"}}
	p := output.ProfileAccuracy{Profile: "p", Source: "ProfileTime", Samples: 960,
		Rows: []output.FunctionAccuracy{{Name: "eval", Samples: 900}, {Name: "free@plt", Samples: 60}}}
	c, err := compare.Compare(src, p)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range c.Functions {
		if f.Name == "free@plt" && (f.Module != "libpython" || f.Source.Samples != 60) {
			t.Errorf("free@plt matched to %q with %d source samples, want libpython's 60", f.Module, f.Source.Samples)
		}
	}
	if c.Coverage != 0.96 || c.Outcome != compare.Agree {
		t.Errorf("coverage %v, outcome %q: want 0.96 (_json's stub outside), agree", c.Coverage, c.Outcome)
	}
	// alone, the stub has no image to go by
	alone := output.ProfileAccuracy{Profile: "q", Source: "ProfileTime", Samples: 60, Rows: []output.FunctionAccuracy{{Name: "free@plt", Samples: 60}}}
	if _, err := compare.Compare(src, alone); err == nil {
		t.Error("a profile of only an ambiguous name was matched to one image")
	}
}

// A stripped binary's code is named by address (IMAGE+0xRVA), and a
// second recording samples other addresses: a lab function the source
// lacks but named in one of its images is that image's in the module
// table, not "(not in the source)", so the modules compare the images
// as the note bids; a name of no source image, or not an address, stays
// "(not in the source)".
func TestCompareAddressNamesKeepTheirImage(t *testing.T) {
	src := compare.Source{Name: "gzip-2.perf", Format: "perf", SampleType: "cpu-clock", Samples: 1000,
		Counts: map[string]uint64{"gzip+0x1330": 500, "gzip+0x1883": 400, "libc.so.6+0x9c5c": 100},
		Module: map[string]string{"gzip+0x1330": "gzip", "gzip+0x1883": "gzip", "libc.so.6+0x9c5c": "libc.so.6"}}
	p := output.ProfileAccuracy{Profile: "p", Source: "ProfileTime", Samples: 1000, Rows: []output.FunctionAccuracy{
		{Name: "gzip+0x1330", Samples: 400}, {Name: "gzip+0x1883", Samples: 400}, {Name: "gzip+0x1337", Samples: 80},
		{Name: "libc.so.6+0x9c60", Samples: 90}, {Name: "other+0x10", Samples: 10}, {Name: "gzip+0xzz", Samples: 10}, {Name: "gzip+0x", Samples: 10}}}
	c, err := compare.Compare(src, p)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"gzip+0x1337": "gzip", "libc.so.6+0x9c60": "libc.so.6", "other+0x10": compare.NotInSource,
		"gzip+0xzz": compare.NotInSource, "gzip+0x": compare.NotInSource}
	for _, f := range c.Functions {
		if m, ok := want[f.Name]; ok && f.Module != m {
			t.Errorf("%s is in module %q, want %q", f.Name, f.Module, m)
		}
	}
	mods := map[string]uint64{}
	for _, m := range c.Modules {
		mods[m.Name] = m.Lab.Samples
	}
	if mods["gzip"] != 880 || mods["libc.so.6"] != 90 || mods[compare.NotInSource] != 30 {
		t.Errorf("the modules' lab samples %v: want gzip 880, libc.so.6 90, (not in the source) 30", mods)
	}
}
