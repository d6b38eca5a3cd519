package calltree_test

import (
	"strings"
	"testing"

	"github.com/proflab/proflab/core/workload/importer"
	"github.com/proflab/proflab/core/workload/importer/importtest"
	"github.com/proflab/proflab/core/workload/importer/profmodel"
)

// The format specification's own examples: the extended example (three
// functions, calls from main and func1 to func2), the same with name
// compression, and subposition compression with instruction addresses.
func TestCallgrindSpecExamples(t *testing.T) {
	t.Parallel()
	extended := "# callgrind format\nevents: Instructions\n\nfl=file1.c\nfn=main\n16 20\ncfn=func1\ncalls=1 50\n16 400\ncfi=file2.c\ncfn=func2\ncalls=3 20\n16 400\n\nfn=func1\n51 100\ncfi=file2.c\ncfn=func2\ncalls=2 20\n51 300\n\nfl=file2.c\nfn=func2\n20 700\n"
	compressed := "# callgrind format\nevents: Instructions\n\nfl=(1) file1.c\nfn=(1) main\n16 20\ncfn=(2) func1\ncalls=1 50\n16 400\ncfi=(2) file2.c\ncfn=(3) func2\ncalls=3 20\n16 400\n\nfn=(2)\n51 100\ncfi=(2)\ncfn=(3)\ncalls=2 20\n51 300\n\nfl=(2)\nfn=(3)\n20 700\n"
	// func2's 700 come 400 from main and 300 from func1 (itself called
	// by main only), as the calls' inclusive costs say.
	want := map[string]float64{
		"main":                   20,
		"func1 <- main":          100,
		"func2 <- main":          400,
		"func2 <- func1 <- main": 300,
	}
	for name, text := range map[string]string{"extended": extended, "compressed": compressed} {
		im, err := importer.Import(name, []byte(text), importer.Options{})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		importtest.CheckInvariants(t, im)
		if im.Format != importer.Callgrind || im.SampleType != "Instructions" || im.Samples != 820 {
			t.Errorf("%s: format %s, sample type %q, %d samples; want callgrind, Instructions, 820", name, im.Format, im.SampleType, im.Samples)
		}
		importtest.ApproxWeights(t, name+": stack", importtest.StackWeights(im.Spec), want)
		if im.Spec.Processes[0].Name != name {
			t.Errorf("%s: process %q, want the file's name (no cmd: line)", name, im.Spec.Processes[0].Name)
		}
	}

	sub := "# callgrind format\npositions: instr line\nevents: ticks\n\nfn=func\n0x80001234 90 1\n+3 * 5\n+1 +1 6\n"
	im, err := importer.Import("sub", []byte(sub), importer.Options{})
	if err != nil {
		t.Fatal(err)
	}
	importtest.CheckInvariants(t, im)
	img, f := importtest.Function(t, im.Spec, "callgrind", "func") // no ob=, no cmd:
	// 0x80001234, 0x80001237, 0x80001238: offsets from the page below;
	// the function starts as linked, on FunctionAlign (0x230).
	if f.Offset != 0x230 || f.Size != 8+profmodel.Padding || len(f.Hotspots) != 3 {
		t.Fatalf("func at +%s, %d bytes, %d hotspots in %s; want +0x230, %d, 3", f.Offset, f.Size, len(f.Hotspots), img.Name, 8+profmodel.Padding)
	}
	for i, h := range []struct {
		off uint64
		w   float64
	}{{4, 1. / 12}, {7, 5. / 12}, {8, 6. / 12}} {
		if got := f.Hotspots[i]; uint64(got.Offset) != h.off || got.Size != 1 || !importtest.Approx(got.Weight, h.w) {
			t.Errorf("hotspot %d: +%d %v, want +%d %v", i, got.Offset, got.Weight, h.off, h.w)
		}
	}
}

// Contexts follow the callers in proportion to their calls' inclusive
// costs; a function's cost no call explains ends its contexts there; a
// function appears once per context (recursion folded, cycles cut).
func TestCallgrindContexts(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name, text string
		want       map[string]float64
	}{
		{"two callers", "events: Ir\nfn=main\n1 10\ncfn=a\ncalls=1 1\n2 300\ncfn=b\ncalls=1 1\n3 100\nfn=a\n1 100\ncfn=c\ncalls=1 1\n2 200\nfn=b\n1 50\ncfn=c\ncalls=1 1\n2 50\nfn=c\n1 250\n",
			map[string]float64{"main": 10, "a <- main": 100, "b <- main": 50, "c <- a <- main": 200, "c <- b <- main": 50}},
		{"unexplained cost ends the context", "events: Ir\nfn=thread_entry\n1 5\ncfn=work\ncalls=1 1\n2 60\nfn=work\n1 100\n",
			// work's 100 is 60 from its recorded call, 40 not explained
			map[string]float64{"thread_entry": 5, "work <- thread_entry": 60, "work": 40}},
		{"direct recursion", "events: Ir\nfn=main\n1 1\ncfn=fib\ncalls=1 1\n2 99\nfn=fib\n1 99\ncfn=fib\ncalls=50 1\n2 90\n",
			map[string]float64{"main": 1, "fib <- main": 99}},
		{"mutual recursion", "events: Ir\nfn=main\n1 1\ncfn=even\ncalls=1 1\n2 30\nfn=even\n1 10\ncfn=odd\ncalls=1 1\n2 20\nfn=odd\n1 20\ncfn=even\ncalls=1 1\n2 10\n",
			// odd: inclusive 30 (20 + its call), 20 of it explained by
			// even's call: a third ends at odd. even: called for 40 (main
			// 30, odd 10) but inclusive 30: no end, callers 3:1; above
			// odd, even's caller odd is on the context already and
			// main's share is rescaled to 1; above "even <- odd", odd's
			// only caller is on it: the context ends.
			map[string]float64{"main": 1, "even <- main": 10 * 30. / 40, "even <- odd": 10 * 10. / 40, "odd": 20. / 3, "odd <- even <- main": 20 * 2. / 3}},
	} {
		im, err := importer.Import(c.name, []byte(c.text), importer.Options{Format: importer.Callgrind})
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		importtest.CheckInvariants(t, im)
		importtest.ApproxWeights(t, c.name+": stack", importtest.StackWeights(im.Spec), c.want)
	}
}

// A real callgrind file (valgrind --tool=callgrind --dump-instr=yes of
// testdata/callgrind_prog.c, `./prog 200`): the exact self costs, the
// contexts split as the calls' costs say, addresses kept.
func TestCallgrindProgram(t *testing.T) {
	t.Parallel()
	im := importFile(t, "callgrind_prog.out.gz", importer.Options{})
	if im.Format != importer.Callgrind || im.SampleType != "Ir" || im.PeriodType != "instructions" || im.Samples != 12352434 || im.Period != 0 {
		t.Errorf("format %s, sample type %q (%s), %d samples, period %v; want callgrind, Ir (instructions), 12352434 (callgrind_annotate's total), 0", im.Format, im.SampleType, im.PeriodType, im.Samples, im.Period)
	}
	if p := im.Spec.Processes[0]; p.Name != "prog" || len(p.Threads) != 1 || p.Threads[0].Busy != 1 {
		t.Errorf("process %q with %d threads: want prog (cmd:), one thread, busy 1", p.Name, len(p.Threads))
	}
	leaf := importtest.LeafWeights(im.Spec)
	// callgrind_annotate: 8,006,000 spin, 4,203,700 medium.
	if leaf["spin"] != 8006000 || leaf["medium"] != 4203700 {
		t.Errorf("self Ir: spin %v, medium %v; want 8006000, 4203700", leaf["spin"], leaf["medium"])
	}
	// spin is called by heavy (6,404,000 Ir inclusive) and light
	// (1,602,000); heavy by callerA (5,856,200) and callerB (1,956,200).
	var viaA, viaB, viaLight float64
	for k, w := range importtest.StackWeights(im.Spec) {
		switch {
		case strings.HasPrefix(k, "spin <- heavy <- callerA <- main <- "):
			viaA += w
		case strings.HasPrefix(k, "spin <- heavy <- callerB <- main <- "):
			viaB += w
		case strings.HasPrefix(k, "spin <- light <- main <- "):
			viaLight += w
		}
	}
	heavy := 8006000 * 6404000. / 8006000
	if !importtest.Approx(viaLight, 1602000) || !importtest.Approx(viaA, heavy*5856200/7812400) || !importtest.Approx(viaB, heavy*1956200/7812400) {
		t.Errorf("spin via light %v, callerA %v, callerB %v; want 1602000, %v, %v", viaLight, viaA, viaB, heavy*5856200/7812400, heavy*1956200/7812400)
	}
	img, f := importtest.Function(t, im.Spec, "prog", "spin")
	// spin starts at 0x1149 in prog (objdump), the image's origin is
	// 0x1000; its start is laid out on FunctionAlign, as linked (0x140).
	if f.Offset != 0x140 || len(f.Hotspots) < 5 {
		t.Errorf("spin at %s+%s with %d hotspots; want +0x140 and one per instruction executed", img.Name, f.Offset, len(f.Hotspots))
	}
	if _, err := im.Spec.Resolve(x64); err != nil {
		t.Errorf("Resolve(x64): %v", err)
	}
	if _, err := im.Spec.Resolve(x86); err != nil {
		t.Errorf("Resolve(x86): %v", err)
	}
}

// gzip (stripped, Debian's): functions without symbols keep callgrind's
// names; the cost is callgrind_annotate's.
func TestCallgrindGzip(t *testing.T) {
	t.Parallel()
	im := importFile(t, "callgrind_gzip.out.gz", importer.Options{})
	leaf := importtest.LeafWeights(im.Spec)
	if im.Samples != 37946058 || leaf["0x0000000000004290"] != 17752866 || leaf["__memcpy_avx_unaligned_erms"] != 261880 {
		t.Errorf("%d Ir, 0x…4290 %v, memcpy %v; want callgrind_annotate's 37946058, 17752866, 261880", im.Samples, leaf["0x0000000000004290"], leaf["__memcpy_avx_unaligned_erms"])
	}
	if im.Spec.Processes[0].Name != "gzip" {
		t.Errorf("process %q, want gzip", im.Spec.Processes[0].Name)
	}
}

// --cache-sim=yes --branch-sim=yes: the simulators' events give rates.
func TestCallgrindRates(t *testing.T) {
	t.Parallel()
	im := importFile(t, "callgrind_sim.out.gz", importer.Options{})
	_, f := importtest.Function(t, im.Spec, "prog", "spin")
	// spin: Bc 100,090 and Bcm 91 of Ir 800,600, no Bi
	// (callgrind_annotate --show=Ir,Bc,Bcm,Bi,Bim).
	if !importtest.Approx(f.BranchRate, 100090./800600) || !importtest.Approx(f.MispredictRate, 91./100090) || f.CPI != 0 {
		t.Errorf("spin: branch rate %v, mispredict rate %v, CPI %v; want %v, %v, none", f.BranchRate, f.MispredictRate, f.CPI, 100090./800600, 91./100090)
	}
}

// --separate-threads=yes --combine-dumps=yes: a thread per part, busy
// relative to the busiest.
func TestCallgrindThreads(t *testing.T) {
	t.Parallel()
	im := importFile(t, "callgrind_threads.out.gz", importer.Options{})
	p := im.Spec.Processes[0]
	if p.Name != "thr" || len(p.Threads) != 2 {
		t.Fatalf("process %q with %d threads; want thr with 2", p.Name, len(p.Threads))
	}
	busy := []float64{p.Threads[0].Busy, p.Threads[1].Busy}
	if busy[1] != 1 || busy[0] <= 0.25 || busy[0] >= 0.5 {
		t.Errorf("busy %v: want the worker (300,000 rounds) at 1 and main (100,000) near a third", busy)
	}
	if len(im.Warnings) != 0 {
		t.Errorf("warnings %q: each part's totals: line matches its costs", im.Warnings)
	}
}

func TestCallgrindErrors(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ name, text, want string }{
		{"no events", "# callgrind format\nfn=main\n", "in: no `events:` line"},
		{"cost before events", "# callgrind format\nfn=main\n1 2\n", "in:3: a cost line before the `events:`"},
		{"cost before fn", "events: Ir\n1 2\n", "in:2: a cost line before any fn="},
		{"undefined id", "events: Ir\nfn=(3)\n1 2\n", "in:2: fn=(3): compressed name (3) is used before it is defined"},
		{"too many costs", "events: Ir\nfn=f\n1 2 3\n", "in:3: the cost line has 2 costs for 1 events"},
		{"bad cost", "events: Ir\nfn=f\n1 2x\n", "in:3: cost of Ir: \"2x\""},
		{"bad position", "positions: instr\nevents: Ir\nfn=f\n0xzz 2\n", "in:4: subposition \"0xzz\""},
		{"calls at the end", "events: Ir\nfn=f\ncfn=g\ncalls=1 2\n", "in:4: a calls= line ends the file"},
		{"calls without cfn", "events: Ir\nfn=f\ncalls=1 2\n3 4\n", "in:3: calls= without a cfn="},
		{"calls then a spec", "events: Ir\nfn=f\ncfn=g\ncalls=1 2\nfn=h\n", "in:4: the calls= line is not followed"},
		{"nothing costs", "events: Ir\nfn=f\n1 0\n", "in: no cost line has a positive Ir self cost"},
		{"other events", "events: Ir\nfn=f\n1 2\nevents: Dr\n", "in:4: a part with the events"},
		{"cost of 2^53", "events: Ir\nfn=f\n1 9007199254740992\n", "in:3: cost of Ir: \"9007199254740992\" is not a count below 2^53"},
		{"position of 2^53", "positions: instr\nevents: Ir\nfn=f\n0x20000000000000 2\n", "in:4: subposition \"0x20000000000000\" is 2^53 or more"},
		{"position past 2^64", "positions: instr\nevents: Ir\nfn=f\n0x10000000000000000 2\n", "in:4: subposition \"0x10000000000000000\" is not a number"},
		{"relative below 0", "positions: instr\nevents: Ir\nfn=f\n0x10 5\n-0x20 3\n", "in:5: subposition \"-0x20\" takes the last position, 0x10, below 0"},
		{"relative to 2^53", "positions: instr\nevents: Ir\nfn=f\n0x1FFFFFFFFFFFF0 5\n+0x10 3\n", "in:5: subposition \"+0x10\" takes the last position, 0x1ffffffffffff0, to 2^53"},
		{"relative past 2^64", "positions: instr\nevents: Ir\nfn=f\n0x10 5\n+0xFFFFFFFFFFFFFFFF 3\n", "in:5: subposition \"+0xFFFFFFFFFFFFFFFF\" takes the last position, 0x10, to 2^53"},
		{"call target below 0", "positions: instr\nevents: Ir\nfn=f\n0x10 5\ncfn=g\ncalls=1 -0x11\n0x10 4\n", "in:6: calls=1 -0x11: target position: subposition \"-0x11\" takes the last position, 0x10, below 0"},
		{"line past 2^53", "positions: line\nevents: Ir\nfn=f\n9007199254740993 5\n", "in:4: subposition \"9007199254740993\" is 2^53 or more"},
	} {
		_, err := importer.Import("in", []byte(c.text), importer.Options{Format: importer.Callgrind})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want %q", c.name, err, c.want)
		}
	}
	// Suspicious but readable: said in a warning or a note.
	im, err := importer.Import("in", []byte("events: Ir\nfn=f\n1 5\nwhat is this\ntotals: 7\n"), importer.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if w := strings.Join(im.Warnings, "\n"); !strings.Contains(w, "totals: line at line 5 gives 7 Ir, the cost lines of its part add up to 5") {
		t.Errorf("warnings %q do not say the totals differ", im.Warnings)
	}
	if n := strings.Join(im.Notes, "\n"); !strings.Contains(n, "1 lines that are not callgrind's were skipped (the first at line 4)") {
		t.Errorf("notes %q do not count the odd line", im.Notes)
	}
}

// Names from the file end up in the TOML's header comments: control
// characters there become U+FFFD (a comment cannot hold them).
func TestCallgrindControlCharacters(t *testing.T) {
	t.Parallel()
	im, err := importer.Import("ctl", []byte("events: I\x0er\ncmd: ./a\x01b\nfn=f\x02\n1 5\n"), importer.Options{Format: importer.Callgrind}) // so many control characters in so few bytes are not taken for text by detection
	if err != nil {
		t.Fatal(err)
	}
	importtest.CheckInvariants(t, im)
	text, err := im.TOML()
	if err != nil || !strings.Contains(string(text), "sample type: I\uFFFDr") {
		t.Errorf("TOML header: %v\n%s", err, text)
	}
}

// TestCallgrindXdebug reads a hand-made profile in xdebug's layout (PHP's
// profiler writes callgrind's format, its first event time in 10 ns
// units): the self cost of the first event is the weight, the note says
// which tool measured it (not valgrind, which counts), and the process is
// the cmd's script.
func TestCallgrindXdebug(t *testing.T) {
	t.Parallel()
	im := importFile(t, "callgrind_xdebug.txt", importer.Options{})
	if im.SampleType != "Time_(10ns)" || im.Samples != 500 {
		t.Errorf("sample type %q, %d samples; want Time_(10ns), 500", im.SampleType, im.Samples)
	}
	importtest.EqualWeights(t, "stack", importtest.StackWeights(im.Spec), map[string]float64{
		"php::str_repeat <- render <- {main}": 120, "render <- {main}": 300, "{main}": 80,
	})
	if len(importtest.NotesWith(im, "written by xdebug 3.2.1 (PHP 8.2.7), not valgrind")) != 1 || len(importtest.NotesWith(im, "counts every")) != 0 {
		t.Errorf("notes %q: want one saying xdebug measured the weights, none saying valgrind counted them", im.Notes)
	}
	if p := im.Spec.Processes[0].Name; p != "index.php" {
		t.Errorf("process %q, want index.php (the cmd's base name)", p)
	}
}
