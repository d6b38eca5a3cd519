package etlprof_test

import (
	"os"
	"strings"
	"testing"

	"github.com/proflab/proflab/core/etl"
	"github.com/proflab/proflab/core/workload/importer"
	"github.com/proflab/proflab/core/workload/importer/importtest"
)

// appTrace is a small trace of app.exe (pid 100, thread 101) of the
// pointer size: app.exe at 0x400000, ntoskrnl.exe at kernel, interval
// 1 ms; three samples in app.exe with a plain stack, one with a kernel
// key and a user key (defined after, by KeyDelete and KeyRundown as
// Windows logs them), one whose key is never defined, one on the idle
// thread, and two cache-miss counter samples.
func appTrace(ptr int) []byte { return appTraceIn(ptr, 0) }

// appTraceIn is appTrace with its records in a buffer of size bytes (0:
// 64 KiB).
func appTraceIn(ptr, size int) []byte {
	kbase := uint64(0xFFFFF80000400000)
	if ptr == 4 {
		kbase = 0x80400000
	}
	s := &synth{ptr: ptr, size: size}
	s.process(100, "app.exe")
	s.thread(100, 101)
	s.image(100, 0x400000, 0x10000, `\Device\HarddiskVolume2\app\app.exe`)
	s.image(0, kbase, 0x100000, `\SystemRoot\system32\ntoskrnl.exe`)
	s.interval(5, 0, 10000, "Timer")
	s.interval(5, 10, 4096, "CacheMisses")
	for i := range 3 {
		tm := int64(10 + i)
		s.sample(tm, 101, 0x401010)
		s.stack(tm, 100, 101, 0x401010, 0x402020)
	}
	s.sample(20, 101, kbase+0x2000)
	s.keyRef(etl.HookStackKeyKernel, 20, 100, 101, 0xAA)
	s.keyRef(etl.HookStackKeyUser, 20, 100, 101, 0xBB)
	s.sample(21, 101, 0x401018)
	s.keyRef(etl.HookStackKeyUser, 21, 100, 101, 0xCC) // never defined
	s.sample(22, 0, kbase+0x3000)                      // idle
	s.pmc(23, 101, 0x401010, 10)
	s.pmc(24, 101, 0x401010, 10)
	s.keyDef(etl.HookStackKeyDelete, 30, 0xAA, kbase+0x2000, kbase+0x2100)
	s.keyDef(etl.HookStackRundown, 40, 0xBB, 0x402020, 0x403030)
	return s.bytes()
}

// TestSyntheticTrace imports appTrace of both pointer sizes: the same
// workload, names IMAGE+0xRVA, the kernel part then the user part of a
// keyed stack, an undefined key's sample kept with its IP, the idle
// sample left to the idle loop, the counter's samples as events.
func TestSyntheticTrace(t *testing.T) {
	for _, ptr := range []int{4, 8} {
		data := appTrace(ptr)
		r := etl.NewReader(strings.NewReader(string(data)))
		h, _, err := r.ReadHeader()
		if err != nil || h.PointerSize != uint32(ptr) || h.PerfFreq != 10_000_000 || h.LoggerName != "NT Kernel Logger" {
			t.Fatalf("ptr %d: header %+v, %v", ptr, h, err)
		}
		arch := "x64"
		if ptr == 4 {
			arch = "x86"
		}
		im, err := importer.Import("synth.etl", data, importer.Options{Arch: arch, NoSymbolsBeside: true})
		if err != nil {
			t.Fatalf("ptr %d: %v", ptr, err)
		}
		importtest.CheckInvariants(t, im)
		if im.Samples != 5 {
			t.Errorf("ptr %d: %d samples, want 5", ptr, im.Samples)
		}
		stacks := map[string]float64{}
		for _, p := range im.Spec.Processes {
			if p.Name != "app.exe" {
				t.Errorf("ptr %d: process %q", ptr, p.Name)
			}
			for _, th := range p.Threads {
				for _, st := range th.Stacks {
					stacks[strings.Join(st.Frames, " ")] += st.Weight
				}
			}
		}
		want := map[string]float64{
			"app.exe+0x1010 app.exe+0x2020":                                         3e6,
			"ntoskrnl.exe+0x2000 ntoskrnl.exe+0x2100 app.exe+0x2020 app.exe+0x3030": 1e6,
			"app.exe+0x1018": 1e6,
		}
		for k, w := range want {
			if stacks[k] != w {
				t.Errorf("ptr %d: stack %q weighs %g, want %g (stacks %v)", ptr, k, stacks[k], w, stacks)
			}
		}
		for _, note := range []string{"1 stack key references name a key that no", "1 samples on the idle thread", "2 counter samples gave their functions events"} {
			if !hasNote(im.Notes, note) {
				t.Errorf("ptr %d: no note %q in %q", ptr, note, im.Notes)
			}
		}
	}
}

// TestSymbolListing names the trace's addresses by a listing, and leaves
// the others IMAGE+0xRVA.
func TestSymbolListing(t *testing.T) {
	data := appTrace(8)
	listing := "# app\napp.exe 0x1000 0x20 App::Main(int)\napp.exe 0x2000 0x100 app!start\n"
	dir := t.TempDir()
	path := dir + "/app.symbols"
	if err := writeFile(path, listing); err != nil {
		t.Fatal(err)
	}
	im, err := importer.Import("synth.etl", data, importer.Options{Symbols: path})
	if err != nil {
		t.Fatal(err)
	}
	importtest.CheckInvariants(t, im)
	stacks := map[string]bool{}
	for _, p := range im.Spec.Processes {
		for _, th := range p.Threads {
			for _, st := range th.Stacks {
				stacks[strings.Join(st.Frames, " | ")] = true
			}
		}
	}
	for _, want := range []string{"App::Main(int) | app!start", "App::Main(int)", "ntoskrnl.exe+0x2000 | ntoskrnl.exe+0x2100 | app!start | app.exe+0x3030"} {
		if !stacks[want] {
			t.Errorf("no stack %q in %v", want, stacks)
		}
	}
	if !hasNote(im.Notes, "the symbol listing "+path+" named addresses of app.exe") {
		t.Errorf("notes %q", im.Notes)
	}
	// found beside the trace: NAME.symbols
	trace := dir + "/app.etl"
	im, err = importer.Import(trace, data, importer.Options{})
	if err != nil || !hasNote(im.Notes, "the symbol listing "+path) {
		t.Errorf("beside the trace: %v, notes %q", err, im.Notes)
	}
	if err := writeFile(path, "app.exe 1000 0x20 f\n"); err != nil {
		t.Fatal(err)
	}
	if _, err := importer.Import(trace, data, importer.Options{}); err == nil || !strings.Contains(err.Error(), path+":1:") {
		t.Errorf("a bad listing: error %v, want one naming %s:1", err, path)
	}
}

// TestProcessNotFound lists the trace's sampled processes.
func TestProcessNotFound(t *testing.T) {
	_, err := importer.Import("synth.etl", appTrace(8), importer.Options{Process: "nope.exe", NoSymbolsBeside: true})
	if err == nil || !strings.Contains(err.Error(), "app.exe (100)") {
		t.Errorf("error %v, want one listing app.exe (100)", err)
	}
}

// TestUnreadablePayload leaves out an event whose payload is cut short,
// with a warning naming its buffer and offset, and imports the rest.
func TestUnreadablePayload(t *testing.T) {
	s := &synth{ptr: 8}
	s.process(100, "app.exe")
	s.thread(100, 101)
	s.system(etl.HookImageDCStart, 3, 100, 0, 1, []byte{1, 2, 3}) // cut short
	s.sample(10, 101, 0x401010)
	im, err := importer.Import("cut.etl", s.bytes(), importer.Options{NoSymbolsBeside: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(im.Warnings) != 1 || !strings.Contains(im.Warnings[0], "1 events could not be read and were left out (kernel Image 0x1403: 1); the first: buffer 1, offset 0x") ||
		!strings.Contains(im.Warnings[0], "Image payload of 3 bytes ends before its ImageBase") {
		t.Errorf("warnings %q", im.Warnings)
	}
	if im.Samples != 1 {
		t.Errorf("%d samples, want 1 (in [unknown]: no image holds it)", im.Samples)
	}
}

// TestUnknownThread keeps a sample of a thread no Thread event names, in
// the process [unknown process].
func TestUnknownThread(t *testing.T) {
	s := &synth{ptr: 8}
	s.process(100, "app.exe")
	s.thread(100, 101)
	s.sample(10, 101, 0x401010)
	s.sample(11, 999, 0x401010)
	im, err := importer.Import("t.etl", s.bytes(), importer.Options{NoSymbolsBeside: true})
	if err != nil {
		t.Fatal(err)
	}
	names := []string{}
	for _, p := range im.Spec.Processes {
		names = append(names, p.Name)
	}
	if im.Samples != 2 || strings.Join(names, ",") != "app.exe,[unknown process]" || !hasNote(im.Notes, "1 samples are on threads no Thread event names") {
		t.Errorf("%d samples, processes %v, notes %q", im.Samples, names, im.Notes)
	}
}

// TestListingLinkedOut: a listing beside the trace that is a symbolic
// link out of the trace's folder is not read (a scenario reads workloads
// only from the folders it is allowed).
func TestListingLinkedOut(t *testing.T) {
	dir, elsewhere := t.TempDir(), t.TempDir()
	secret := elsewhere + "/secret.symbols"
	if err := writeFile(secret, "app.exe 0x1000 0x20 Secret\n"); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(secret, dir+"/trace.symbols"); err != nil {
		t.Skip(err)
	}
	im, err := importer.Import(dir+"/app.etl", appTrace(8), importer.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if hasNote(im.Notes, "symbol listing") {
		t.Errorf("a listing linked out of the folder was read: %q", im.Notes)
	}
}

// TestCounterSamplesOnly weighs a trace without timer samples by its
// counter's samples, each its interval's events, busy shares by rank.
func TestCounterSamplesOnly(t *testing.T) {
	s := &synth{ptr: 8}
	s.process(100, "app.exe")
	s.thread(100, 101)
	s.thread(100, 102)
	s.image(100, 0x400000, 0x10000, `C:\app\app.exe`)
	s.interval(5, 2, 65536, "TotalIssues")
	for i := range 3 {
		s.pmc(int64(10+i), 101, 0x401010, 2)
	}
	s.pmc(20, 102, 0x402000, 2)
	im, err := importer.Import("pmc.etl", s.bytes(), importer.Options{NoSymbolsBeside: true})
	if err != nil {
		t.Fatal(err)
	}
	importtest.CheckInvariants(t, im)
	if im.Samples != 4 || im.SampleType != "TotalIssues" || im.PeriodUnit != "events" || im.Period != 65536 {
		t.Errorf("%d samples of %s, period %g %s; want 4 of TotalIssues at 65536 events", im.Samples, im.SampleType, im.Period, im.PeriodUnit)
	}
	busy := map[float64]bool{}
	for _, th := range im.Spec.Processes[0].Threads {
		busy[th.Busy] = true
	}
	if !busy[1] || !busy[1.0/3] || !hasNote(im.Notes, "busy shares by rank") {
		t.Errorf("busy shares %v, notes %q; want 1 and 1/3, by rank", busy, im.Notes)
	}
}

// A counter's samples of a PMC source that is none of the workload's
// events are not dropped silently: a note names the source (the trace's
// name for it, and its number) and how many samples were left out; the
// mapped source's samples still give their functions events.
func TestUnmappedPmcSourceIsNoted(t *testing.T) {
	s := &synth{ptr: 8}
	s.process(100, "app.exe")
	s.thread(100, 101)
	s.image(100, 0x400000, 0x10000, `C:\app\app.exe`)
	s.interval(5, 0, 10000, "Timer")
	s.interval(5, 0x1A, 65536, "InstructionRetired")
	s.interval(5, 0x18, 4096, "DcacheAccesses")
	for i := range 4 {
		tm := int64(10 + 4*i)
		s.sample(tm, 101, 0x401010)
		s.pmc(tm+1, 101, 0x401010, 0x1A)
		s.pmc(tm+2, 101, 0x401010, 0x18)
	}
	s.pmc(40, 101, 0x401010, 0x18)
	s.pmc(41, 101, 0x401010, 0x30) // a source the trace never names
	im, err := importer.Import("pmc.etl", s.bytes(), importer.Options{NoSymbolsBeside: true})
	if err != nil {
		t.Fatal(err)
	}
	if im.Samples != 4 {
		t.Errorf("%d samples weigh, want the timer's 4", im.Samples)
	}
	for _, want := range []string{
		"5 counter samples of the PMC source DcacheAccesses (KPROFILE_SOURCE 24) were left out: it is none of the events a workload's rates are made of (branch-misses, branches, cache-misses, cache-references, cycles, instructions)",
		"1 counter samples of the PMC source KPROFILE_SOURCE 48, which the trace does not name, were left out",
		"4 counter samples gave their functions events",
	} {
		if !hasNote(im.Notes, want) {
			t.Errorf("no note %q in %q", want, im.Notes)
		}
	}
}
