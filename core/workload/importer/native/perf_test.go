package native_test

import (
	"math"
	"strconv"
	"strings"
	"testing"

	"github.com/proflab/proflab/core/workload"
	"github.com/proflab/proflab/core/workload/importer"
	"github.com/proflab/proflab/core/workload/importer/importtest"
	"github.com/proflab/proflab/core/workload/importer/profmodel"
)

// perfG's samples (testdata/perf_g.txt, perf script -g, cycles, period
// 250000): three stacks of prog's main thread on cpu 0, three of its
// second thread on cpu 1, one through the kernel, two of swapper on cpu 2
// and one of bash on cpu 3.
const perfPeriod = 250000

func TestPerfCallGraphs(t *testing.T) {
	t.Parallel()
	im := importFile(t, "perf_g.txt", importer.Options{})
	if im.Format != importer.Perf || im.Samples != 10 || im.Period != perfPeriod || im.SampleType != "cycles" {
		t.Errorf("format %s, %d samples, period %v, type %q: want perf, 10, %d, cycles", im.Format, im.Samples, im.Period, im.SampleType, perfPeriod)
	}
	libc := "libc.so.6"
	wantStacks := map[string]float64{
		"compute <- main <- __libc_start_main":                                                                                                    3 * perfPeriod,
		"hash <- compute <- main <- __libc_start_main":                                                                                            2 * perfPeriod,
		libc + "+0x9ad4e <- hash <- compute <- main <- __libc_start_main":                                                                         perfPeriod,
		"native_write_msr <- entry_SYSCALL_64_after_hwframe <- __write <- compute <- main <- __libc_start_main":                                   perfPeriod,
		"intel_idle <- cpuidle_enter_state <- cpuidle_enter <- do_idle <- cpu_startup_entry <- start_secondary <- secondary_startup_64_no_verify": 2 * perfPeriod,
		"bash+0x1234 <- reader_loop":                                                                                                              perfPeriod,
	}
	importtest.EqualWeights(t, "stack", importtest.StackWeights(im.Spec), wantStacks)
	// Addresses: an image starts at the page below its lowest address
	// (prog: 0x55d0c1a2b3c4 → 0x55d0c1a2b000; libc: 0x7f3a1b229d90, so
	// [unknown] at 0x7f3a1b2c3d4e is +0x9ad4e; bash: 0x55f1e0a00110);
	// every sampled ip is a hotspot at its address.
	checkHotspotAt(t, im.Spec, "prog", "compute", 0x55d0c1a2b410, 1)
	checkHotspotAt(t, im.Spec, "prog", "hash", 0x55d0c1a2b508, 1)
	checkHotspotAt(t, im.Spec, "[kernel.kallsyms]", "intel_idle", 0xffffffff81c3f0aa, 1)
	img, f := importtest.Function(t, im.Spec, "prog", "compute")
	if img.Base != 0x55d0c1a2b000 || uint64(img.Base)+uint64(f.Offset) != 0x55d0c1a2b410 || f.Size != 0x30+profmodel.Padding {
		t.Errorf("prog at %s, compute at +%s size %d: want 0x55D0C1A2B000, +0x410 and 0x30+%d (0x410…0x440 seen)", img.Base, f.Offset, f.Size, profmodel.Padding)
	}
	if k, _ := importtest.Function(t, im.Spec, "[kernel.kallsyms]", "intel_idle"); !k.Kernel || uint64(k.Base) < 0xFFFF800000000000 {
		t.Errorf("kernel image: kernel=%v base %s, want a kernel image in system space", k.Kernel, k.Base)
	}
	// Processes and threads: by rank (10 cycles samples are too few to
	// measure the cycles rate), busy = weight / busiest processor's (cpu 0, 4 samples).
	busy := map[string][]float64{}
	for _, p := range im.Spec.Processes {
		for _, th := range p.Threads {
			busy[p.Name] = append(busy[p.Name], th.Busy)
		}
	}
	want := map[string][]float64{"prog": {1, 0.75}, "swapper": {0.5}, "bash": {0.25}}
	for p, w := range want {
		if len(busy[p]) != len(w) || math.Abs(busy[p][0]-w[0]) > 1e-12 || len(w) > 1 && math.Abs(busy[p][1]-w[1]) > 1e-12 {
			t.Errorf("process %s: busy %v, want %v", p, busy[p], w)
		}
	}
	if len(im.Spec.Processes) != 3 {
		t.Errorf("%d processes, want prog, swapper and bash", len(im.Spec.Processes))
	}
	if _, err := im.Spec.Resolve(x64); err != nil {
		t.Errorf("Resolve(x64): %v", err)
	}
}

// checkHotspotAt checks that img!name has a hotspot of weight w at addr.
func checkHotspotAt(t *testing.T, s *workload.Spec, img, name string, addr uint64, w float64) {
	t.Helper()
	i, f := importtest.Function(t, s, img, name)
	for _, h := range f.Hotspots {
		if uint64(i.Base)+uint64(f.Offset)+h.Offset == addr {
			if math.Abs(h.Weight-w) > 1e-12 {
				t.Errorf("%s!%s at 0x%X: hotspot weight %v, want %v", img, name, addr, h.Weight, w)
			}
			return
		}
	}
	t.Errorf("%s!%s: no hotspot at 0x%X (hotspots %v)", img, name, addr, f.Hotspots)
}

func TestPerfDropIdle(t *testing.T) {
	t.Parallel()
	im := importFile(t, "perf_g.txt", importer.Options{DropIdle: true})
	for k := range importtest.StackWeights(im.Spec) {
		if strings.Contains(k, "idle") {
			t.Errorf("stack %q kept with --drop-idle", k)
		}
	}
	if im.Samples != 8 || !strings.Contains(strings.Join(im.Notes, "\n"), "2 idle samples") {
		t.Errorf("%d samples, notes %q: want 8 and a note on 2 idle samples", im.Samples, im.Notes)
	}
	only := importFile(t, "perf_g.txt", importer.Options{Process: "bash"})
	if len(only.Spec.Processes) != 1 || only.Spec.Processes[0].Name != "bash" || only.Samples != 1 {
		t.Errorf("--process bash: %d processes, %d samples; want bash alone, 1", len(only.Spec.Processes), only.Samples)
	} else if b := only.Spec.Processes[0].Threads[0].Busy; b != 0.25 {
		t.Errorf("--process bash: busy %v, want 0.25 (of the busiest processor of the whole file)", b)
	}
	if b := im.Spec.Processes[0].Threads[1].Busy; b != 0.75 {
		t.Errorf("--drop-idle: prog's second thread busy %v, want 0.75 (idle samples still count for the reference)", b)
	}
}

func TestPerfNoCallGraph(t *testing.T) {
	t.Parallel()
	im := importFile(t, "perf_nog.txt", importer.Options{})
	want := map[string]float64{"compute": 4 * perfPeriod, "hash": perfPeriod, "libc.so.6+0xd4e": perfPeriod}
	importtest.EqualWeights(t, "leaf", importtest.LeafWeights(im.Spec), want)
	checkHotspotAt(t, im.Spec, "prog", "compute", 0x55d0c1a2b410, 0.75)
	checkHotspotAt(t, im.Spec, "prog", "compute", 0x55d0c1a2b414, 0.25)
	if im.SampleType != "cycles:u" {
		t.Errorf("sample type %q, want cycles:u as the file writes it", im.SampleType)
	}
	for _, arch := range []string{"x86", "x64"} {
		im, err := importer.Import("perf_nog.txt", readTestdata(t, "perf_nog.txt"), importer.Options{Arch: arch})
		if err != nil {
			t.Fatal(err)
		}
		tg := x64
		if arch == "x86" {
			tg = x86
		}
		if _, err := im.Spec.Resolve(tg); err != nil {
			t.Errorf("Resolve(%s): %v", arch, err)
		}
	}
}

func TestPerfEvents(t *testing.T) {
	t.Parallel()
	im := importFile(t, "perf_events.txt", importer.Options{})
	if im.SampleType != "cycles:u" || im.Samples != 6 {
		t.Errorf("weight from %q, %d samples: want cycles:u (cycles over the first event, instructions), 6", im.SampleType, im.Samples)
	}
	_, compute := importtest.Function(t, im.Spec, "prog", "compute")
	_, hash := importtest.Function(t, im.Spec, "prog", "hash")
	for _, c := range []struct {
		name      string
		got, want float64
	}{
		{"compute cpi (4M cycles / 4M instructions)", compute.CPI, 1},
		{"hash cpi (2M / 0.5M)", hash.CPI, 4},
		{"compute cache_miss_rate (40k / 4M)", compute.CacheMissRate, 0.01},
		{"hash cache_miss_rate (25k / 0.5M)", hash.CacheMissRate, 0.05},
		{"compute branch_rate (0.8M / 4M)", compute.BranchRate, 0.2},
		{"compute mispredict_rate (20k / 0.8M)", compute.MispredictRate, 0.025},
		{"hash branch_rate (no branches sample)", hash.BranchRate, 0},
		{"compute weight", compute.Weight, 4e6},
	} {
		if math.Abs(c.got-c.want) > 1e-12 {
			t.Errorf("%s = %v, want %v", c.name, c.got, c.want)
		}
	}
}

// TestPerfHeaders reads the header forms perf script prints: comm with
// spaces, pid alone or pid/tid, cpu and period optional, events with
// modifiers and PMU prefixes.
func TestPerfHeaders(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name, text     string
		process, event string
		weight         float64
	}{
		{"comm with spaces", "   Web Content  4321/4330 [001] 55.000100:     100 cycles:ppp: \n\t 401000 js::Run+0x4 (/usr/lib/libxul.so)\n", "Web Content", "cycles:ppp", 100},
		{"pid only, no period", "prog 1234 [002] 12345.678901: cycles: \n\t 401000 main+0x10 (/bin/prog)\n", "prog", "cycles", 1},
		{"no cpu", "prog 1234/1234 12345.678901: 10 cycles:u: \n\t 401000 main+0x10 (/bin/prog)\n", "prog", "cycles:u", 10},
		{"PMU prefix", "prog 1234/1234 [000] 1.5: 7 cpu_core/cycles/u: 401000 main+0x10 (/bin/prog)\n", "prog", "cpu_core/cycles/u", 7},
		{"C++ symbol, deleted dso", "prog 1234/1234 [000] 1.5: 5 cycles: 401000 run(int, char const*)+0x1c (/tmp/prog (deleted))\n", "prog", "cycles", 5},
		{"task-clock only", "prog 1234/1234 [000] 1.5: 250000 task-clock: 401000 main (/bin/prog)\n", "prog", "task-clock", 250000},
	} {
		im, err := importer.Import("h.txt", []byte(c.text), importer.Options{})
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		importtest.CheckInvariants(t, im)
		p := im.Spec.Processes[0]
		if p.Name != c.process || im.SampleType != c.event || len(p.Threads) != 1 || p.Threads[0].Busy != 1 ||
			len(p.Threads[0].Stacks) != 1 || p.Threads[0].Stacks[0].Weight != c.weight {
			t.Errorf("%s: process %q, event %q, threads %+v; want %q, %q, one busy thread with one stack of weight %v",
				c.name, p.Name, im.SampleType, p.Threads, c.process, c.event, c.weight)
		}
	}
	im := importFile(t, "perf_g.txt", importer.Options{Arch: "x86"})
	for _, img := range im.Spec.Images {
		if img.Kernel != (uint64(img.Base) >= 0x80000000) || uint64(img.Base) > 0xFFFFFFFF {
			t.Errorf("x86: image %s (kernel %v) at %s", img.Name, img.Kernel, img.Base)
		}
	}
	if _, err := im.Spec.Resolve(x86); err != nil {
		t.Errorf("Resolve(x86): %v", err)
	}
}

// TestPerfScriptGenerator imports importtest.PerfScript: the stacks'
// leaves match the generated cycles samples' periods by symbol.
func TestPerfScriptGenerator(t *testing.T) {
	t.Parallel()
	text := importtest.PerfScript(2000, 3)
	want := map[string]float64{}
	var cur string
	var period float64
	for _, line := range strings.Split(text, "\n") {
		if strings.Contains(line, " cycles:u:") {
			f := strings.Fields(line)
			period, _ = strconv.ParseFloat(f[len(f)-2], 64)
			cur = "cycles"
			continue
		}
		if strings.Contains(line, " instructions:u:") {
			cur = ""
		}
		if cur == "cycles" && strings.HasPrefix(line, "\t") {
			sym := strings.Fields(line)[1]
			if i := strings.LastIndex(sym, "+0x"); i > 0 {
				sym = sym[:i]
			}
			if sym == "std::vector<int>::push_back(int" {
				sym = "std::vector<int>::push_back(int const&)"
			}
			if sym != "[unknown]" {
				want[sym] += period
			} else {
				want["[unknown]"] += period
			}
			cur = "done"
		}
	}
	im, err := importer.Import("gen.txt", []byte(text), importer.Options{})
	if err != nil {
		t.Fatal(err)
	}
	importtest.CheckInvariants(t, im)
	// the workload weighs instructions (cycles over a leaf's CPI); its
	// flat profile in time is the cycles' shares
	got := im.Flat()
	for k, v := range got {
		if strings.HasPrefix(k, "libc.so.6+0x") {
			got["[unknown]"] += v
			delete(got, k)
		}
	}
	var total float64
	for _, v := range want {
		total += v
	}
	for k, v := range want {
		if g := got[k]; math.Abs(g-v/total) > 1e-9 {
			t.Errorf("leaf %q: share %v, want %v", k, g, v/total)
		}
	}
	if len(got) != len(want) {
		t.Errorf("%d leaves, the source has %d", len(got), len(want))
	}
	_, compute := importtest.Function(t, im.Spec, "prog", "compute")
	if compute.CPI == 0 || compute.CPI == 1 {
		t.Errorf("compute's cpi %v: want one from cycles and instructions", compute.CPI)
	}
	if _, err := im.Spec.Resolve(x64); err != nil {
		t.Errorf("Resolve(x64): %v", err)
	}
}

// TestPerfCPPNames: a C++ symbol with parentheses and spaces is one
// name, and a deleted binary's dso is its image.
func TestPerfCPPNames(t *testing.T) {
	t.Parallel()
	im, err := importer.Import("h.txt", []byte("prog 1234/1234 [000] 1.5: 5 cycles: 401000 run(int, char const*)+0x1c (/tmp/prog (deleted))\n"), importer.Options{})
	if err != nil {
		t.Fatal(err)
	}
	importtest.Function(t, im.Spec, "prog (deleted)", "run(int, char const*)")
}

// TestPerfEventNames: modifiers and PMU prefixes are dropped when events
// are compared, tracepoints keep their subsystem; the weight is time
// (cycles first), else instructions, else the first event: with a
// warning when perf names it as something else than time.
func TestPerfEventNames(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		ev, weight string
		warned     bool
	}{
		{"cycles:u", "cycles:u", false}, {"cpu-cycles:ppp", "cpu-cycles:ppp", false}, {"cpu_core/cycles/u", "cpu_core/cycles/u", false}, {"cycles", "cycles", false},
		{"cpu-clock:ppp", "cpu-clock:ppp", false}, {"task-clock", "task-clock", false},
		{"instructions:u", "instructions:u", false},
		{"sched:sched_switch", "sched:sched_wakeup", true}, {"cache-misses", "sched:sched_wakeup", true},
	} {
		text := "prog 1/1 [000] 1.0: 5 sched:sched_wakeup: 401000 a (/bin/prog)\nprog 1/1 [000] 1.1: 7 " + c.ev + ": 402000 b (/bin/prog)\n"
		im, err := importer.Import("e.txt", []byte(text), importer.Options{})
		if err != nil {
			t.Errorf("events sched:sched_wakeup, %s: %v", c.ev, err)
			continue
		}
		warned := len(im.Warnings) > 0 && strings.Contains(im.Warnings[0], "something other than where the program ran")
		if im.SampleType != c.weight || warned != c.warned {
			t.Errorf("events sched:sched_wakeup, %s: weight from %q (warnings %q), want %q (warned %v)", c.ev, im.SampleType, im.Warnings, c.weight, c.warned)
		}
	}
	// time wins over instructions, whatever the order; an unknown (raw)
	// event alone is taken with a note, no warning
	for text, want := range map[string]string{
		"prog 1/1 [000] 1.0: 5 instructions: 401000 a (/bin/prog)\nprog 1/1 [000] 1.1: 7 cpu-clock: 402000 b (/bin/prog)\n": "cpu-clock",
		"prog 1/1 [000] 1.0: 5 r003c: 401000 a (/bin/prog)\n":                                                               "r003c",
	} {
		im, err := importer.Import("e.txt", []byte(text), importer.Options{})
		if err != nil || im.SampleType != want || len(im.Warnings) > 0 {
			t.Errorf("%q: weight %v, warnings %v (err %v), want %s and none", text, im.SampleType, im.Warnings, err, want)
		}
	}
}

// perf script's default header prints the thread's id alone (`comm tid`,
// no pid): the threads of one command are one process of several
// threads, not a process each.
func TestPerfThreadIDAloneGroupsByCommand(t *testing.T) {
	text := `server 101  10.000100:     250000 cpu-clock:ppp: 
	            1234 work+0x4 (/usr/bin/server)

server 102  10.000200:     250000 cpu-clock:ppp: 
	            1234 work+0x4 (/usr/bin/server)

server 103  10.000300:     250000 cpu-clock:ppp: 
	            1250 idle_wait+0x0 (/usr/bin/server)

client 201  10.000400:     250000 cpu-clock:ppp: 
	            2234 send+0x4 (/usr/bin/client)
`
	im, err := importer.Import("tids.txt", []byte(text), importer.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(im.Spec.Processes) != 2 {
		t.Fatalf("%d processes, want server and client: %+v", len(im.Spec.Processes), im.Spec.Processes)
	}
	for _, p := range im.Spec.Processes {
		want := map[string]int{"server": 3, "client": 1}[p.Name]
		if len(p.Threads) != want {
			t.Errorf("process %q has %d threads, want %d", p.Name, len(p.Threads), want)
		}
	}
}

// A pid that exec'd (perf record of a shell shim that ran python3) is
// named by the program most of its main thread's samples ran, with a
// note; a thread that renamed itself does not rename its process.
func TestPerfProcessNamedByItsProgram(t *testing.T) {
	t.Parallel()
	var b strings.Builder
	sample := func(comm string, pid, tid int, ts float64, fn string) {
		b.WriteString(comm + " " + strconv.Itoa(pid) + "/" + strconv.Itoa(tid) + " " + strconv.FormatFloat(ts, 'f', 6, 64) + ":    1000000 cpu-clock:pppH: \n")
		b.WriteString("\t    55d0c1a2b410 " + fn + "+0x10 (/usr/bin/x)\n\n")
	}
	ts := 100.0
	for i := 0; i < 3; i++ {
		sample("bash", 700, 700, ts, "bash_main")
		ts += 0.001
	}
	for i := 0; i < 5; i++ {
		sample("python3", 700, 700, ts, "py_main")
		sample("worker-1", 700, 701, ts, "py_worker") // a thread's own name
		ts += 0.001
	}
	im, err := importer.Import("exec.perf", []byte(b.String()), importer.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(im.Spec.Processes) != 1 || im.Spec.Processes[0].Name != "python3" {
		t.Fatalf("processes %+v, want one, python3", im.Spec.Processes)
	}
	if notes := strings.Join(im.Notes, "\n"); !strings.Contains(notes, `pid 700 ran bash, then python3: it is "python3"`) {
		t.Errorf("notes do not tell of the exec:\n%s", notes)
	}
	// another pid that exec'd: --process python3 notes only its own
	sample("sh", 800, 800, ts, "sh_main")
	sample("make", 800, 800, ts+0.001, "make_main")
	sample("make", 800, 800, ts+0.002, "make_main")
	all, err := importer.Import("exec.perf", []byte(b.String()), importer.Options{})
	if err != nil || !strings.Contains(strings.Join(all.Notes, "\n"), "ran several programs (exec): 2;") {
		t.Errorf("two pids that exec'd: %v, notes %q", err, all.Notes)
	}
	kept, err := importer.Import("exec.perf", []byte(b.String()), importer.Options{Process: "python3"})
	if err != nil || len(kept.Spec.Processes) != 1 || !strings.Contains(strings.Join(kept.Notes, "\n"), "ran several programs (exec): 1; ") {
		t.Errorf("--process python3: %v, notes %q", err, kept.Notes)
	}
}
