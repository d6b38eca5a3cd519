package calltree_test

import (
	"math"
	"strings"
	"testing"

	"github.com/proflab/proflab/core/workload"
	"github.com/proflab/proflab/core/workload/importer"
	"github.com/proflab/proflab/core/workload/importer/calltree"
	"github.com/proflab/proflab/core/workload/importer/importtest"
	"github.com/proflab/proflab/core/workload/importer/profmodel"
)

// threadOf is the named process's thread i.
func threadOf(t *testing.T, s *workload.Spec, proc string, i int) workload.Thread {
	t.Helper()
	for _, p := range s.Processes {
		if p.Name == proc && i < len(p.Threads) {
			return p.Threads[i]
		}
	}
	t.Fatalf("no thread %d of a process %q", i, proc)
	return workload.Thread{}
}

// A deep copy's rows are call-tree nodes: each node's self weight is a
// stack of its path, leaf first; process and thread rows are no frames.
func TestInstruments(t *testing.T) {
	t.Parallel()
	im := importFile(t, "instruments_time.txt", importer.Options{})
	if im.Format != importer.Instruments || im.SampleType != "time/ms" || im.Samples != 1240 || im.Period != 1 {
		t.Errorf("format %s, sample type %q, %d samples, period %v: want instruments, time/ms, 1240 (ms), 1", im.Format, im.SampleType, im.Samples, im.Period)
	}
	importtest.ApproxWeights(t, "stack", importtest.StackWeights(im.Spec), map[string]float64{
		"main <- start":                                        10,
		"parse(char const*) <- main <- start":                  400,
		"lex <- parse(char const*) <- main <- start":           200,
		"render() <- main <- start":                            390,
		"worker(void*) <- _pthread_start":                      150,
		"<Unknown Address> <- worker(void*) <- _pthread_start": 50,
		"DYLD-STUB$$malloc <- worker(void*) <- _pthread_start": 40,
	})
	if len(im.Spec.Processes) != 1 || im.Spec.Processes[0].Name != "demo" || len(im.Spec.Processes[0].Threads) != 2 {
		t.Fatalf("processes %+v: want demo with two threads", im.Spec.Processes)
	}
	if b := threadOf(t, im.Spec, "demo", 0).Busy; b != 1 {
		t.Errorf("main thread busy %v, want 1 (the busiest)", b)
	}
	if b := threadOf(t, im.Spec, "demo", 1).Busy; math.Abs(b-0.24) > 1e-12 {
		t.Errorf("second thread busy %v, want 240/1000", b)
	}
	if len(im.Spec.Images) != 1 || im.Spec.Images[0].Name != calltree.InstrumentsImage {
		t.Errorf("images %v: want one, %s", im.Spec.Images, calltree.InstrumentsImage)
	}
	for _, f := range im.Spec.Images[0].Functions {
		if f.Size != profmodel.SyntheticSize || len(f.Hotspots) != 0 {
			t.Errorf("%s: %d bytes, %d hotspots; want the synthetic layout", f.Name, f.Size, len(f.Hotspots))
		}
	}
	drop := importFile(t, "instruments_time.txt", importer.Options{Process: "other"})
	if drop.Spec.Processes[0].Name != "demo" {
		t.Errorf("--process renamed a process the copy names: %q", drop.Spec.Processes[0].Name)
	}
}

// Each Xcode's column set and unit: Running Time with Self (ms) (Xcode
// 7-8), Weight with Self Weight (9-15), Symbol Names in three columns
// with a base indentation (16), cycles, and Allocations' bytes without a
// self column (self = total less the children's).
func TestInstrumentsVariants(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name, text, sampleType string
		samples                int64
		want                   map[string]float64
		warn                   bool
	}{
		{"Xcode 7 running time", string(readTestdata(t, "instruments_xcode7.txt")), "time/ms", 1500, map[string]float64{
			"main <- start": 5, "compute() <- main <- start": 700, "hash(int) <- compute() <- main <- start": 300, "output() <- main <- start": 495,
		}, false},
		{"Xcode 16 symbol names", "Weight\tSelf Weight\tSymbol Names\n" +
			"4.00 s  100.0%\t0 s\t   start\n" +
			"4.00 s  100.0%\t0 s\t    main\n" +
			"3.00 s   75.0%\t2.00 s\t     work()\n" +
			"1.00 s   25.0%\t1.00 s\t      memcpy\n" +
			"1.00 s   25.0%\t1.00 s\t     wait_for_it\n", "time/ms", 4000, map[string]float64{
			"work() <- main <- start": 2000, "memcpy <- work() <- main <- start": 1000, "wait_for_it <- main <- start": 1000,
		}, false},
		{"cycles", "Weight\tSelf Weight\t\tSymbol Name\n" +
			"2.00 Gc  100.0%\t-\t \tapp (77)\n" +
			"2.00 Gc  100.0%\t500.00 Mc\t \t main\n" +
			"1.50 Gc   75.0%\t1.50 Gc\t \t  mach_absolute_time\n" +
			"532 cycles    0.0%\t532 cycles\t \t  DYLD-STUB$$mach_absolute_time\n" +
			"1.34 Kc    0.0%\t1.34 Kc\t \t  write\n", "cycles", 0, map[string]float64{
			"main": 5e8, "mach_absolute_time <- main": 1.5e9, "DYLD-STUB$$mach_absolute_time <- main": 532, "write <- main": 1340,
		}, false},
		{"allocations", "Bytes Used\tCount\t\tSymbol Name\n" +
			" 3.00 MB     100.0%\t30\t \tstart\n" +
			" 3.00 MB     100.0%\t30\t \t main\n" +
			" 2.00 MB      66.6%\t20\t \t  alloc_a\n" +
			" 1.00 MB      33.3%\t10\t \t  alloc_b\n", "bytes", 0, map[string]float64{
			"alloc_a <- main <- start": 2 << 20, "alloc_b <- main <- start": 1 << 20,
		}, true},
		{"Xcode 16 figure spaces", "Weight\tSelf Weight\tSymbol Names\n" +
			"2.45 s  100.0%\t0 s\t   start\n" +
			"2.45 s  100.0%\t1.00 s\t    main\n" +
			"1.45 s  \u200759.1%\t1.45 s\t     work()\n" +
			"0 s  \u2007\u20070.0%\t0 s\t     idle\n", "time/ms", 2450, map[string]float64{
			"main <- start": 1000, "work() <- main <- start": 1450,
		}, false},
		{"locale spaces", "Weight\tSelf Weight\t\tSymbol Name\n" +
			"1,50\u00a0s\u2009\u2009100,0\u202f%\t0\u00a0s\t \tmain\n" +
			"1,50\u00a0s\u2008\u2007100,0\u202f%\t1,50\u205fs\t \t f\n", "time/ms", 1500, map[string]float64{"f <- main": 1500}, false},
		{"decimal comma, CRLF", "Weight\tSelf Weight\t\tSymbol Name\r\n" +
			"1,50 s  100,0%\t0 s\t \tmain\r\n" +
			"1,50 s  100,0%\t1,50 s\t \t f\r\n", "time/ms", 1500, map[string]float64{"f <- main": 1500}, false},
	} {
		im, err := importer.Import(c.name, []byte(c.text), importer.Options{})
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		importtest.CheckInvariants(t, im)
		if im.Format != importer.Instruments || im.SampleType != c.sampleType || im.Samples != c.samples {
			t.Errorf("%s: format %s, sample type %q, %d samples; want instruments, %q, %d", c.name, im.Format, im.SampleType, im.Samples, c.sampleType, c.samples)
		}
		if (len(im.Warnings) > 0) != c.warn {
			t.Errorf("%s: warnings %q, want some: %v", c.name, im.Warnings, c.warn)
		}
		importtest.ApproxWeights(t, c.name+": stack", importtest.StackWeights(im.Spec), c.want)
	}
}

func TestInstrumentsDropIdle(t *testing.T) {
	t.Parallel()
	text := "Weight\tSelf Weight\t\tSymbol Name\n" +
		"3.00 s  100.0%\t0 s\t \tstart\n" +
		"1.00 s   33.3%\t1.00 s\t \t main\n" +
		"2.00 s   66.6%\t0 s\t \t idle_thread\n" +
		"2.00 s   66.6%\t2.00 s\t \t  machine_idle\n"
	im, err := importer.Import("idle.txt", []byte(text), importer.Options{DropIdle: true})
	if err != nil {
		t.Fatal(err)
	}
	importtest.ApproxWeights(t, "stack", importtest.StackWeights(im.Spec), map[string]float64{"main <- start": 1000})
	if !strings.Contains(strings.Join(im.Notes, "\n"), "1 rows whose symbol is an idle function were dropped") {
		t.Errorf("notes %q do not count the idle row", im.Notes)
	}
}

func TestInstrumentsErrors(t *testing.T) {
	t.Parallel()
	const h = "Weight\tSelf Weight\t\tSymbol Name\n"
	for _, c := range []struct{ name, text, want string }{
		{"no rows", h + "\n\n", "no rows"},
		{"bad weight", h + "1.00 s  100.0%\t0 s\t \tmain\nlots\t1 s\t \t f\n", "in:3: weight \"lots\""},
		{"unknown unit", h + "1.00 parsec  100.0%\t0 s\t \tmain\n", "in:2: weight"},
		{"mixed kinds", h + "1.00 s  100.0%\t0 s\t \tmain\n1.00 MB  100.0%\t1 MB\t \t f\n", "in:3: a weight in bytes after weights in time/ms (line 2)"},
		{"skipped level", h + "1.00 s  100.0%\t0 s\t \tmain\n1.00 s  100.0%\t1 s\t \t   f\n", "in:3: \"f\" is 3 levels deeper"},
		{"less indented", h + "1.00 s  100.0%\t0 s\t \t main\n1.00 s  100.0%\t1 s\t \tf\n", "in:3: \"f\" is indented less than the first row"},
		{"cut row", h + "1.00 s  100.0%\t0 s\n", "in:2: the row has 2 tab-separated cells"},
		{"nothing weighs", h + "0 s  100.0%\t0 s\t \tmain\n", "in: no row has a positive self weight"},
		{"no weight column", "Name\tSymbol Name\nx\tmain\n", "in:1: the header names no weight column"},
	} {
		_, err := importer.Import("in", []byte(c.text), importer.Options{Format: importer.Instruments})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want %q", c.name, err, c.want)
		}
	}
}
