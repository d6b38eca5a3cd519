package native_test

import (
	"bytes"
	"regexp"
	"strconv"

	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/pprof/profile"

	"github.com/proflab/proflab/core/workload"
	"github.com/proflab/proflab/core/workload/importer"
	"github.com/proflab/proflab/core/workload/importer/importtest"
	"github.com/proflab/proflab/core/workload/importer/native"
)

// imageOf is the image that defines function name (the first one).
func imageOf(s *workload.Spec, name string) *workload.Image {
	for i := range s.Images {
		for _, f := range s.Images[i].Functions {
			if f.Name == name {
				return &s.Images[i]
			}
		}
	}
	return nil
}

// TestPerfRealFramePointerGarbage imports `perf record -g` of Debian's
// gzip and python3 (built without frame pointers): their unwinds run into
// stack bytes (`2a31d287fd40ca52 [unknown] ([unknown])`), which used to
// stretch the [unknown] image over exabytes and fail the import. The
// garbage frames stay in their stacks as [unknown] without an address,
// every image spans less than MaxImageSpan, and a note counts them.
func TestPerfRealFramePointerGarbage(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		file    string
		samples int64
	}{
		{"perf/gzip_fp.txt.gz", 3666},
		{"perf/python_fp.txt.gz", 3978},
	} {
		im := importFile(t, c.file, importer.Options{})
		if im.Samples != c.samples {
			t.Errorf("%s: %d samples, want %d (every sample kept)", c.file, im.Samples, c.samples)
		}
		if n := importtest.NotesWith(im, "cannot belong to their image"); len(n) != 1 {
			t.Errorf("%s: notes %q, want one counting the garbage frames", c.file, im.Notes)
		}
		var unknownFrames int
		for _, p := range im.Spec.Processes {
			for _, th := range p.Threads {
				for _, st := range th.Stacks {
					for _, f := range st.Frames {
						if strings.HasSuffix(f, native.UnknownFunction) {
							unknownFrames++
						}
					}
				}
			}
		}
		if unknownFrames == 0 {
			t.Errorf("%s: no stack keeps a garbage frame as %s", c.file, native.UnknownFunction)
		}
		for _, img := range im.Spec.Images {
			lo, hi := uint64(math.MaxUint64), uint64(0)
			for _, f := range img.Functions {
				lo, hi = min(lo, uint64(f.Offset)), max(hi, uint64(f.Offset)+f.Size)
			}
			if hi-lo > native.MaxImageSpan {
				t.Errorf("%s: image %s spans 0x%X bytes", c.file, img.Name, hi-lo)
			}
		}
		for _, arch := range []workload.Target{x64, x86} {
			im, err := importer.Import(c.file, readTestdata(t, c.file), importer.Options{Arch: map[bool]string{true: "x86", false: "x64"}[arch.X86]})
			if err != nil {
				t.Fatalf("%s: %v", c.file, err)
			}
			if _, err := im.Spec.Resolve(arch); err != nil {
				t.Errorf("%s: Resolve(x86=%v): %v", c.file, arch.X86, err)
			}
		}
	}
}

// TestPerfOutliers: the rule on a file made by hand. A user image's
// address beyond every user range (2^56), and a kernel address 2 GiB away from
// the kernel's others, are outliers: their frames stay in the stacks,
// named by their symbol or [unknown], without an address; the other
// addresses keep their places.
func TestPerfOutliers(t *testing.T) {
	t.Parallel()
	text := `prog 100/100 [000] 1.000000: 250000 cpu-clock: 
	ffffffff81001000 do_work+0x0 ([kernel.kallsyms])
	ffffffff01234567 [unknown] ([kernel.kallsyms])
	    55d0c1a2b410 compute+0x10 (/usr/bin/prog)
	63636762696c0036 [unknown] ([unknown])

prog 100/100 [000] 1.000250: 250000 cpu-clock: 
	ffffffff81002000 other+0x0 ([kernel.kallsyms])
	ffffffff81003000 caller2+0x0 ([kernel.kallsyms])
	    55d0c1a2b410 compute+0x10 (/usr/bin/prog)
	2a31d287fd40ca52 [unknown] ([unknown])
	    7ffd0000aa00 [unknown] ([unknown])

prog 100/100 [000] 1.000500: 250000 cpu-clock: 
	    55d0c1a2b420 compute+0x20 (/usr/bin/prog)
	ffffffff01234567 stray_name ([kernel.kallsyms])
`
	im, err := importer.Import("garbage.txt", []byte(text), importer.Options{})
	if err != nil {
		t.Fatal(err)
	}
	importtest.CheckInvariants(t, im)
	importtest.EqualWeights(t, "stack", importtest.StackWeights(im.Spec), map[string]float64{
		"do_work <- [kernel.kallsyms]![unknown] <- compute <- [unknown]![unknown]": 250000,
		"other <- caller2 <- compute <- [unknown]![unknown] <- [unknown]+0xa00":    250000,
		"compute <- stray_name": 250000,
	})
	n := importtest.NotesWith(im, "cannot belong to their image")
	if len(n) != 1 || !strings.HasPrefix(n[0], "4 frames (3 distinct addresses)") || !strings.Contains(n[0], "0xFFFFFFFF01234567 in [kernel.kallsyms]") {
		t.Errorf("notes %q: want one on 4 frames at 3 addresses, naming the first (0xFFFFFFFF01234567)", im.Notes)
	}
	// the kept addresses keep their places; the outliers own none
	checkHotspotAt(t, im.Spec, "prog", "compute", 0x55d0c1a2b420, 1)
	checkHotspotAt(t, im.Spec, "[kernel.kallsyms]", "do_work", 0xffffffff81001000, 1)
	if img, f := importtest.Function(t, im.Spec, "[kernel.kallsyms]", native.UnknownFunction); len(f.Hotspots) != 0 || uint64(img.Base)+uint64(f.Offset) < 0xffffffff81002000 {
		t.Errorf("kernel [unknown] at %s+%s with hotspots %v: want an address-less function after the kernel's others", img.Base, f.Offset, f.Hotspots)
	}
	if k, _ := importtest.Function(t, im.Spec, "[kernel.kallsyms]", "stray_name"); uint64(k.Base) != 0xffffffff81001000 {
		t.Errorf("kernel image at %s: want its origin 0xFFFFFFFF81001000 (the absurd address left out)", k.Base)
	}
	// arm64 maps libraries just below 2^48: real addresses, not garbage
	arm := "prog 100/100 [000] 1.0: 250000 cpu-clock: \n\tffffa1b2c3d4 memcpy+0x14 (/usr/lib/aarch64-linux-gnu/libc.so.6)\n\t  aaaad0c1a2b4 main+0x10 (/usr/bin/prog)\n"
	a, err := importer.Import("arm64.txt", []byte(arm), importer.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(importtest.NotesWith(a, "cannot belong")) != 0 {
		t.Errorf("arm64 addresses taken for garbage: %q", a.Notes)
	}
	if _, f := importtest.Function(t, a.Spec, "libc.so.6", "memcpy"); len(f.Hotspots) != 1 {
		t.Errorf("arm64 memcpy: hotspots %v, want its address's", f.Hotspots)
	}
}

// TestPerfRealVariants reads the same recording printed by perf script
// with -F +pid --ns, -F +misc and -F comm,tid,time,ip,sym,dso (no
// event, no offsets): the leaves' weights (names) are the same, and
// -F +pid names the process by its pid.
func TestPerfRealVariants(t *testing.T) {
	t.Parallel()
	base := importFile(t, "perf/gzip_misc.txt", importer.Options{})
	want := importtest.LeafWeights(base.Spec)
	for _, f := range []string{"perf/gzip_pid_ns.txt", "perf/gzip_no_event.txt"} {
		im := importFile(t, f, importer.Options{})
		if im.Samples != base.Samples {
			t.Errorf("%s: %d samples, want %d", f, im.Samples, base.Samples)
		}
		got := importtest.LeafWeights(im.Spec)
		if f == "perf/gzip_no_event.txt" {
			// no event: no period either, each sample weighs 1
			for k := range got {
				got[k] *= 250000
			}
		}
		importtest.EqualWeights(t, f+" leaf", got, want)
	}
	if base.Samples != 120 {
		t.Errorf("gzip_misc: %d samples, want 120", base.Samples)
	}
	nocg := importFile(t, "perf/gzip_no_callgraph.txt", importer.Options{})
	if nocg.Samples != 300 || len(importtest.NotesWith(nocg, "busy shares from time")) != 1 {
		t.Errorf("perf script -G: %d samples, notes %q; want 300, busy shares from time", nocg.Samples, nocg.Notes)
	}
}

// TestPerfHeaderLayouts reads the header layouts perf script printed
// from 3.x to 6.x (builtin-script.c's print_sample_start and its
// successors): perf 3.x's `comm tid event:` without time for one
// program (comm left-aligned with call graphs, right-aligned without),
// [cpu] and time in system-wide records, the period (4.x), the event
// names right-aligned to the longest one, 7-wide pid/tid (6.x), misc
// (K, U), time of day, --ns, a guest's VM/VCPU prefix, and frames
// printed without symbol offsets (3.x) or with the dso's (-F +dsoff).
func TestPerfHeaderLayouts(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name, text     string
		process, event string
		weight         float64
		timed          bool
	}{
		{"perf 3.2, call graph", "java  3244 cpu-clock: \n\t          4004f4 main (/tmp/a.out)\n\t          4004ff __libc_start_main (/lib/libc-2.15.so)\n", "java", "cpu-clock", 1, false},
		{"perf 3.2, no call graph", "            java  3244 cpu-clock:           4004f4 main (/tmp/a.out)\n", "java", "cpu-clock", 1, false},
		{"perf 3.x, system-wide", "            java  3244 [001]  1234.567890: cycles:           4004f4 main (/tmp/a.out)\n", "java", "cycles", 1, true},
		{"perf 4.x, period", "            perf  6213 [000]  1219.484433:          1 cycles:ppp:  ffffffff8106c0b6 native_write_msr_safe ([kernel.kallsyms])\n", "perf", "cycles:ppp", 1, true},
		{"perf 4.x, aligned events", "prog  1234 [000]  1.500000:     250000       cycles: \n\t  401000 main+0x10 (/bin/prog)\n", "prog", "cycles", 250000, true},
		{"perf 6.x, 7-wide pid/tid", "prog 1234567/1234567 [000] 1.500000:     250000 cpu-clock:pppH: \n\t  401000 main+0x10 (/bin/prog)\n", "prog", "cpu-clock:pppH", 250000, true},
		{"misc", "prog 1234 K       1.500000:     250000 cpu-clock: ffffffff81000000 f ([kernel.kallsyms])\n", "prog", "cpu-clock", 250000, true},
		{"time of day", "prog 1234 2024-01-02 10:11:12.123456  1.500000:     250000 cpu-clock: 401000 main (/bin/prog)\n", "prog", "cpu-clock", 250000, true},
		{"nanoseconds", "prog 1234   468.322170274:     250000 cpu-clock: \n\t  401000 main+0x10 (/bin/prog)\n", "prog", "cpu-clock", 250000, true},
		{"guest", "VM: 4321 VCPU:002 prog 1234 [002] 1.5: 250000 cycles: 401000 main (/bin/prog)\n", "prog", "cycles", 250000, true},
		{"dsoff", "prog 1234 1.5: 250000 cycles: \n\t  401000 main+0x10 (/bin/prog+0x1000)\n", "prog", "cycles", 250000, true},
		{"no event", "prog 1234 1.5: \n\t  401000 main (/bin/prog)\n", "prog", "samples", 1, true},
		{"no event, decimal ip", "prog 1234 1.5: 401000 main (/bin/prog)\n", "prog", "samples", 1, true},
		// Node's worker threads and Firefox's content processes name their
		// threads with a number at the end
		{"comm ending in a number", "node:worker 1  900/902 [000] 1234.500300:     250000 cpu-clock:pppH: \n\t  401000 main+0x10 (/bin/prog)\n", "node:worker 1", "cpu-clock:pppH", 250000, true},
		{"comm ending in a number, tid only", "Web Content 2  4730 1234.500300:     250000 cpu-clock: \n\t  401000 main+0x10 (/bin/prog)\n", "Web Content 2", "cpu-clock", 250000, true},
	} {
		im, err := importer.Import("h.txt", []byte(c.text), importer.Options{})
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		importtest.CheckInvariants(t, im)
		p := im.Spec.Processes[0]
		if p.Name != c.process || im.SampleType != c.event || len(p.Threads) != 1 || len(p.Threads[0].Stacks) != 1 || p.Threads[0].Stacks[0].Weight != c.weight {
			t.Errorf("%s: process %q, event %q, threads %+v; want %q, %q, one thread with one stack of weight %v",
				c.name, p.Name, im.SampleType, p.Threads, c.process, c.event, c.weight)
		}
		if timed := len(importtest.NotesWith(im, "no timestamps")) == 0; timed != c.timed {
			t.Errorf("%s: notes %q: timestamps seen %v, want %v", c.name, im.Notes, timed, c.timed)
		}
		if imageOf(im.Spec, "main") != nil && imageOf(im.Spec, "main").Name != "prog" && imageOf(im.Spec, "main").Name != "a.out" {
			t.Errorf("%s: main in image %s", c.name, imageOf(im.Spec, "main").Name)
		}
	}
}

// TestPerfSideBandRecords: --show-mmap-events' records are skipped with a
// note, not read as samples.
func TestPerfSideBandRecords(t *testing.T) {
	t.Parallel()
	text := "gzip 24310   468.321966: PERF_RECORD_MMAP2 24310/24310: [0x55dfeed16000(0xf000) @ 0x3000 fe:00 247273 0]: r-xp /usr/bin/gzip\n" +
		"gzip 24310   468.322170:     250000 cpu-clock:pppH: \n\t    4883 [unknown] (/usr/bin/gzip)\n"
	im, err := importer.Import("mmap.txt", []byte(text), importer.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if im.Samples != 1 || len(importtest.NotesWith(im, "1 side-band records")) != 1 {
		t.Errorf("%d samples, notes %q: want 1 and a note on 1 record skipped", im.Samples, im.Notes)
	}
}

// TestPerfSideBandTimes: perf 6.1's --show-mmap-events
// --show-task-events (testdata/perf_sideband.txt, in its layout) prints
// records whose type looks like an event (`PERF_RECORD_COMM exec:`,
// `PERF_RECORD_MMAP -1/0:`), some at time 0: they are records, not
// samples, and their times are not the profile's span (which made every
// thread's busy share about 0).
func TestPerfSideBandTimes(t *testing.T) {
	t.Parallel()
	im := importFile(t, "perf_sideband.txt", importer.Options{})
	if im.Samples != 60 || len(importtest.NotesWith(im, "6 side-band records")) != 1 {
		t.Errorf("%d samples, notes %q: want 60 and a note on 6 records skipped", im.Samples, im.Notes)
	}
	// 40 ms of main's and 20 of worker's samples over the 40 ms the
	// samples span (39 ms between the first and the last, plus a period)
	b := importtest.Busies(im.Spec)["p"]
	if len(b) != 2 || !importtest.Near(b[0], 1) || !importtest.Near(b[1], 0.5) {
		t.Errorf("busy %v, want p [1 0.5]", importtest.Busies(im.Spec))
	}
}

// TestPerfJITAndVDSO: frames of a JIT's /tmp/perf-PID.map keep their
// names as perf prints them (spaces, colons and all) in an image named
// by the map file; [vdso] is a user image of its own.
func TestPerfJITAndVDSO(t *testing.T) {
	t.Parallel()
	text := "node 22640 56531.256247:   10101010 cpu-clock: \n" +
		"\t    227bbdff955b LazyCompile:*a.renderDOM /opt/app/react-dom.js:35 (/tmp/perf-22640.map)\n" +
		"\t    227bbdc90f95 Builtin:JSEntryTrampoline (/tmp/perf-22640.map)\n" +
		"\t          a597f3 _ZN2v88internal9Execution4CallEv (/usr/local/bin/node)\n\n" +
		"node 22640 56531.266348:   10101010 cpu-clock: \n" +
		"\t    7ffc8a1f2a3c __vdso_clock_gettime+0x4c ([vdso])\n" +
		"\t    227bbdc8a1dd [unknown] (/tmp/perf-22640.map)\n"
	im, err := importer.Import("jit.txt", []byte(text), importer.Options{})
	if err != nil {
		t.Fatal(err)
	}
	importtest.CheckInvariants(t, im)
	if img, _ := importtest.Function(t, im.Spec, "perf-22640.map", "LazyCompile:*a.renderDOM /opt/app/react-dom.js:35"); img.Kernel {
		t.Error("the JIT image is a kernel image")
	}
	if img, _ := importtest.Function(t, im.Spec, "[vdso]", "__vdso_clock_gettime"); img.Kernel {
		t.Error("[vdso] is a kernel image")
	}
	importtest.EqualWeights(t, "stack", importtest.StackWeights(im.Spec), map[string]float64{
		"LazyCompile:*a.renderDOM /opt/app/react-dom.js:35 <- Builtin:JSEntryTrampoline <- _ZN2v88internal9Execution4CallEv": 10101010,
		"__vdso_clock_gettime <- perf-22640.map+0x1dd": 10101010,
	})
}

// TestPerfInlinedMarker: `(inlined)` is perf's marker for a function
// inlined at the ip, not a dso: the frame's image is that of the frame
// holding the ip (the next one with the same ip, else one with that ip
// elsewhere, else the dso other frames print its symbol with, else the
// dso whose other addresses span the ip or lie within 64 KiB of it,
// else [unknown]), never an image named "inlined".
func TestPerfInlinedMarker(t *testing.T) {
	t.Parallel()
	text := "prog 1234 1.000000: 250000 cpu-clock: \n" +
		"\t  401010 helper+0x10 (inlined)\n" +
		"\t  401010 main+0x10 (/bin/prog)\n" +
		"\t   27304 __libc_start_main_impl+0x84 (inlined)\n" +
		"\t    3e19 _start+0x19 (/bin/prog)\n\n" +
		"prog 1234 1.000250: 250000 cpu-clock: \n" +
		"\t   27249 __libc_start_call_main+0x79 (/usr/lib/libc.so.6)\n" +
		"\t   27304 __libc_start_main_impl+0x84 (inlined)\n" +
		"\t   29d90 __libc_start_main+0x80 (/usr/lib/libc.so.6)\n" +
		"\t    3e19 _start+0x19 (/bin/prog)\n\n" +
		"prog 1234 1.000500: 250000 cpu-clock: \n" +
		"\t  900000 lonely+0x10 (inlined)\n" +
		"\t  401010 main+0x10 (/bin/prog)\n"
	im, err := importer.Import("inl.txt", []byte(text), importer.Options{})
	if err != nil {
		t.Fatal(err)
	}
	importtest.CheckInvariants(t, im)
	for name, want := range map[string]string{"helper": "prog", "main": "prog", "__libc_start_main_impl": "libc.so.6", "lonely": "[unknown]"} {
		if img := imageOf(im.Spec, name); img == nil || img.Name != want {
			t.Errorf("%s in image %v, want %s", name, img, want)
		}
	}
	real := importFile(t, "perf/gzip_dwarf.txt.gz", importer.Options{})
	for _, img := range real.Spec.Images {
		if img.Name == "inlined" {
			t.Error("--call-graph dwarf: an image is named inlined")
		}
	}
	for name, want := range map[string]string{"_dl_start_final": "ld-linux-x86-64.so.2", "__GI___libc_read": "libc.so.6", "__memcpy_avx512_unaligned_erms": "libc.so.6"} {
		if img := imageOf(real.Spec, name); img == nil || img.Name != want {
			t.Errorf("--call-graph dwarf: %s in %v, want %s", name, img, want)
		}
	}
}

// truth reads testdata/perf/python_fp.truth: the wall time and the CPU
// time of the main and worker threads that the recorded program measured
// itself (time.thread_time()).
func truth(t *testing.T) (wall, main, worker float64) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(testdata, "perf", "python_fp.truth"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := fmt.Sscanf(string(b), "wall=%g main=%g worker=%g", &wall, &main, &worker); err != nil {
		t.Fatal(err)
	}
	return wall, main, worker
}

// TestPerfBusyFromTime: a thread's busy share is its time over the wall
// span, not its rank. The python3 recording's threads measured their own
// CPU time (0.74 s and 0.26 s of a 2.01 s run): the imported shares
// agree within 5%, where ranking would make the main thread busy 1.
func TestPerfBusyFromTime(t *testing.T) {
	t.Parallel()
	wall, mainCPU, workerCPU := truth(t)
	im := importFile(t, "perf/python_fp.txt.gz", importer.Options{})
	th := im.Spec.Processes[0].Threads
	if len(th) != 2 {
		t.Fatalf("%d threads, want 2", len(th))
	}
	for i, want := range []float64{mainCPU / wall, workerCPU / wall} {
		if got := th[i].Busy; math.Abs(got-want) > 0.05*want {
			t.Errorf("thread %d: busy %.4f, want %.4f (its CPU time over the wall time) within 5%%", i, got, want)
		}
	}
	if len(importtest.NotesWith(im, "busy shares from time")) != 1 {
		t.Errorf("notes %q: want one saying the shares come from time", im.Notes)
	}
	// cycles: the rate is measured in the file. The same recording with
	// its cpu-clock called cycles gives the same shares (the measured
	// rate is the clock's 10^9 per second).
	data := importtest.Gunzip(t, readTestdata(t, "perf/python_fp.txt.gz"))
	cyc, err := importer.Import("cycles.txt", []byte(strings.ReplaceAll(string(data), "cpu-clock:pppH:", "cycles:P:")), importer.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for i, thr := range cyc.Spec.Processes[0].Threads {
		if math.Abs(thr.Busy-th[i].Busy) > 0.01*th[i].Busy {
			t.Errorf("as cycles, thread %d: busy %.4f, want %.4f (a measured rate of 1e9 per second) within 1%%", i, thr.Busy, th[i].Busy)
		}
	}
	if rate := measuredRate(t, cyc); math.Abs(rate-1e9) > 0.01e9 {
		t.Errorf("measured rate %g cycles per second, want cpu-clock's 1e9 within 1%%", rate)
	}
}

// TestPerfBusyFromCycles: a file of cycles at 3 GHz, one thread running
// all the time and one a quarter of it (a 250 µs sample every 1 ms): the
// rate is measured (3e9) and the shares are 1 and 0.25.
func TestPerfBusyFromCycles(t *testing.T) {
	t.Parallel()
	var b strings.Builder
	for i := range 400 {
		ts := 10.0 + float64(i)*0.00025
		fmt.Fprintf(&b, "prog 10/10 [000] %.6f: 750000 cycles: \n\t  401000 spin (/bin/prog)\n\n", ts)
		if i%4 == 0 {
			fmt.Fprintf(&b, "prog 10/11 [001] %.6f: 750000 cycles: \n\t  402000 work (/bin/prog)\n\n", ts)
		}
	}
	im, err := importer.Import("cycles.txt", []byte(b.String()), importer.Options{})
	if err != nil {
		t.Fatal(err)
	}
	th := im.Spec.Processes[0].Threads
	if len(th) != 2 || math.Abs(th[0].Busy-1) > 1e-9 || math.Abs(th[1].Busy-0.25) > 1e-9 {
		t.Errorf("threads %+v: want busy 1 and 0.25", th)
	}
	if rate := measuredRate(t, im); rate != 3e9 {
		t.Errorf("measured rate %g cycles per second, want 3e9", rate)
	}
}

// TestPerfBusyWithoutTime: without timestamps (perf 3.x) or with
// timestamps out of order (--deltatime), the shares are by rank and a
// note says why.
func TestPerfBusyWithoutTime(t *testing.T) {
	t.Parallel()
	for name, c := range map[string]struct {
		text, why string
	}{
		"no time":   {"java  3244 cpu-clock: \n\t  4004f4 main (/tmp/a.out)\n\njava  3244 cpu-clock: \n\t  4004f4 main (/tmp/a.out)\n\njava  3245 cpu-clock: \n\t  4004f4 main (/tmp/a.out)\n", "no timestamps"},
		"deltatime": {"java 3244 0.000250: 1 cpu-clock: 4004f4 main (/tmp/a.out)\njava 3244 0.000100: 1 cpu-clock: 4004f4 main (/tmp/a.out)\njava 3245 0.000250: 1 cpu-clock: 4004f4 main (/tmp/a.out)\n", "not in order"},
	} {
		im, err := importer.Import("t.txt", []byte(c.text), importer.Options{})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		th := im.Spec.Processes[0].Threads
		if len(th) != 2 || th[0].Busy != 1 || th[1].Busy != 0.5 {
			t.Errorf("%s: threads %+v, want busy 1 and 0.5 (by rank)", name, th)
		}
		if n := importtest.NotesWith(im, "busy shares by rank"); len(n) != 1 || !strings.Contains(n[0], c.why) {
			t.Errorf("%s: notes %q, want one on shares by rank saying %q", name, im.Notes, c.why)
		}
	}
}

// measuredRate is the rate the note on busy shares gives.
func measuredRate(t *testing.T, im *importer.Imported) float64 {
	t.Helper()
	n := importtest.NotesWith(im, "per second of running")
	if len(n) != 1 {
		t.Fatalf("notes %q: want one giving the measured rate", im.Notes)
	}
	_, rest, _ := strings.Cut(n[0], "), at ")
	var rate float64
	if _, err := fmt.Sscanf(rest, "%g", &rate); err != nil {
		t.Fatalf("note %q: %v", n[0], err)
	}
	return rate
}

// perfToPprof converts perf script text (frames `ip sym (dso)` under
// headers) into a pprof CPU profile as perf_to_profile lays one out: a
// mapping per dso, the kernel's named [kernel.kallsyms] at its addresses,
// locations with a line per resolved symbol, and the frames perf could
// not map (dso [unknown]) as locations without a mapping.
func perfToPprof(t *testing.T, text string) []byte {
	t.Helper()
	frameLine := regexp.MustCompile(`^\t\s*([0-9a-f]+) (.*) \((.*)\)$`)
	p := &profile.Profile{
		SampleType: []*profile.ValueType{{Type: "samples", Unit: "count"}, {Type: "cpu", Unit: "nanoseconds"}},
		PeriodType: &profile.ValueType{Type: "cpu", Unit: "nanoseconds"}, Period: 250000,
	}
	maps := map[string]*profile.Mapping{}
	funcs := map[string]*profile.Function{}
	locs := map[string]*profile.Location{}
	var cur *profile.Sample
	for _, line := range strings.Split(text, "\n") {
		if !strings.HasPrefix(line, "\t") {
			if strings.Contains(line, "cpu-clock") {
				cur = &profile.Sample{Value: []int64{1, 250000}}
				p.Sample = append(p.Sample, cur)
			}
			continue
		}
		g := frameLine.FindStringSubmatch(line)
		if g == nil || cur == nil {
			continue
		}
		addr, err := strconv.ParseUint(g[1], 16, 64)
		if err != nil {
			t.Fatal(err)
		}
		sym, dso := symOff.ReplaceAllString(g[2], ""), g[3]
		key := dso + "@" + g[1]
		loc := locs[key]
		if loc == nil {
			loc = &profile.Location{ID: uint64(len(p.Location) + 1), Address: addr}
			if dso != "[unknown]" {
				mp := maps[dso]
				if mp == nil {
					mp = &profile.Mapping{ID: uint64(len(p.Mapping) + 1), File: dso, Limit: 1 << 30}
					if strings.HasPrefix(dso, "[kernel") {
						mp.Start, mp.Limit = 0xffffffff81000000, 0xffffffff83000000
					}
					maps[dso] = mp
					p.Mapping = append(p.Mapping, mp)
				}
				loc.Mapping = mp
			}
			if sym != "[unknown]" {
				fn := funcs[sym]
				if fn == nil {
					fn = &profile.Function{ID: uint64(len(p.Function) + 1), Name: sym}
					funcs[sym] = fn
					p.Function = append(p.Function, fn)
				}
				loc.Line = []profile.Line{{Function: fn}}
			}
			locs[key] = loc
			p.Location = append(p.Location, loc)
		}
		cur.Location = append(cur.Location, loc)
	}
	var b bytes.Buffer
	if err := p.Write(&b); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

var symOff = regexp.MustCompile(`\+0x[0-9a-f]+$`)

// TestPprofFromPerfGarbage: the garbage frames of gzip's `perf record -g`
// converted to pprof (as perf_to_profile does: the frames perf could not
// map have no mapping) import as the perf file does: every sample, the
// garbage kept as [unknown] without an address, and a note.
func TestPprofFromPerfGarbage(t *testing.T) {
	t.Parallel()
	text := string(importtest.Gunzip(t, readTestdata(t, "perf/gzip_fp.txt.gz")))
	im, err := importer.Import("gzip.pb.gz", perfToPprof(t, text), importer.Options{})
	if err != nil {
		t.Fatal(err)
	}
	importtest.CheckInvariants(t, im)
	if im.Format != importer.Pprof || im.Samples != 3666 {
		t.Errorf("format %s, %d samples: want pprof, 3666", im.Format, im.Samples)
	}
	if n := importtest.NotesWith(im, "cannot belong to their image"); len(n) != 1 || !strings.Contains(n[0], "in [unmapped]") {
		t.Errorf("notes %q: want one counting the garbage frames of [unmapped]", im.Notes)
	}
	if _, f := importtest.Function(t, im.Spec, "[unmapped]", native.UnknownFunction); len(f.Hotspots) != 0 {
		t.Errorf("[unmapped]'s [unknown] has hotspots %v, want none (no address)", f.Hotspots)
	}
	if _, err := im.Spec.Resolve(x64); err != nil {
		t.Error(err)
	}
}

// TestPerfHandMadeLayouts imports the files written from perf 3.2's and
// 4.x's source: perf 3.2's threads of one command are one process with
// busy shares by rank (no time); perf 4.x's system-wide file keeps
// swapper and the rates of its second event.
func TestPerfHandMadeLayouts(t *testing.T) {
	t.Parallel()
	p3 := importFile(t, "perf/perf3_callgraph.txt", importer.Options{})
	importtest.EqualWeights(t, "perf 3.2 stack", importtest.StackWeights(p3.Spec), map[string]float64{
		"main <- __libc_start_main":         1,
		"work <- main <- __libc_start_main": 1,
		"work <- start_thread":              1,
		"native_write_msr_safe <- intel_pmu_enable_all <- __write_nocancel <- main": 1,
	})
	if ps := p3.Spec.Processes; len(ps) != 1 || len(ps[0].Threads) != 2 || ps[0].Threads[0].Busy != 1 || math.Abs(ps[0].Threads[1].Busy-1.0/3) > 1e-12 {
		t.Errorf("perf 3.2: processes %+v, want java with threads busy 1 and 1/3 (by rank)", ps)
	}
	if len(importtest.NotesWith(p3, "no timestamps")) != 1 {
		t.Errorf("perf 3.2: notes %q, want one on the missing timestamps", p3.Notes)
	}
	p4 := importFile(t, "perf/perf4_system_wide.txt", importer.Options{})
	if p4.Samples != 3 || p4.SampleType != "cycles:ppp" {
		t.Errorf("perf 4.x: %d samples of %s, want 3 of cycles:ppp", p4.Samples, p4.SampleType)
	}
	if _, work := importtest.Function(t, p4.Spec, "a.out", "work"); work.CPI != 0.5 {
		t.Errorf("perf 4.x: work's cpi %v, want 0.5 (250000 cycles / 500000 instructions)", work.CPI)
	}
	busy := map[string]float64{}
	for _, p := range p4.Spec.Processes {
		busy[p.Name] = p.Threads[0].Busy
	}
	if busy["java"] != 1 || busy["swapper"] != 0.5 {
		t.Errorf("perf 4.x: busy %v, want java 1, swapper 0.5 (by rank: too few samples to measure a cycles rate)", busy)
	}
}
