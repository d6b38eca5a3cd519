package output_test

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/proflab/proflab/core/etl"
	"github.com/proflab/proflab/core/lab/labtest"
	"github.com/proflab/proflab/core/output"
	"github.com/proflab/proflab/core/workload"
	"github.com/proflab/proflab/kernel"
	"github.com/proflab/proflab/kernel/nt"
)

// etlLab runs a stack-walking kernel logger session on an x64 or x86
// machine over a workload with calling contexts, a user image and a
// kernel image, and returns it with its registry and session.
func etlLab(tb testing.TB, arch string, seed uint64) (*labtest.Lab, *output.Registry, *kernel.TraceSession) {
	tb.Helper()
	return etlLabWith(tb, arch, seed, true)
}

// etlLabWith is etlLab; change sets the interval to 10000 for a last
// part of the session (else it stays 5000 throughout).
func etlLabWith(tb testing.TB, arch string, seed uint64, change bool) (*labtest.Lab, *output.Registry, *kernel.TraceSession) {
	tb.Helper()
	l := labtest.InprocArch(tb, 2, seed, arch)
	reg := &output.Registry{}
	reg.AddMachine(l.M, l.Sim)
	s, err := l.M.StartKernelLogger(true)
	if err != nil {
		tb.Fatal(err)
	}
	if err := s.SetStackWalk(kernel.StackWalkHooks); err != nil {
		tb.Fatal(err)
	}
	reg.AddSession(l.M, s)
	l.SetInterval(tb, nt.ProfileTime, 5000)
	kbase := uint64(0xFFFFF80100000000)
	if arch == "x86" {
		kbase = 0x80600000
	}
	spec := &workload.Spec{
		Images: []workload.Image{
			{Name: "app.exe", Base: 0x400000, Functions: []workload.Function{
				{Name: "main", Offset: 0x1000, Size: 0x400}, {Name: "parse", Offset: 0x1400, Size: 0x400},
				{Name: "lex", Offset: 0x1800, Size: 0x400}, {Name: "emit", Offset: 0x1C00, Size: 0x200},
			}},
			{Name: "drv.sys", Base: workload.Address(kbase), Kernel: true, Functions: []workload.Function{
				{Name: "DrvRead", Offset: 0x2000, Size: 0x300},
			}},
		},
		Processes: []workload.Process{{Name: l.P.Name(), Proc: l.P, Stacks: []workload.Stack{
			{Frames: []string{"lex", "parse", "main"}, Weight: 3},
			{Frames: []string{"emit", "main"}, Weight: 2},
			{Frames: []string{"DrvRead", "lex", "main"}, Weight: 1},
			{Frames: []string{"main"}, Weight: 1},
		}, Threads: []workload.Thread{{CPU: 0}, {CPU: 1}}}},
	}
	if _, err := l.Sim.Run(300_000, spec); err != nil {
		tb.Fatal(err)
	}
	if change {
		l.SetInterval(tb, nt.ProfileTime, 10000)
		if _, err := l.Sim.Run(100_000, spec); err != nil {
			tb.Fatal(err)
		}
	}
	if err := s.Stop(); err != nil {
		tb.Fatal(err)
	}
	return l, reg, s
}

// etlContent is what a read of an .etl finds.
type etlContent struct {
	header    etl.LogfileHeader
	samples   []string // "cpu time ip tid flags", in file order per processor
	stacks    []string // "time pid tid frames…"
	images    map[string]etl.Image
	rundown   map[etl.Hook]int
	intervals []etl.Interval
	hooks     []etl.Hook // the kernel hooks in file order
	last      int64      // the newest sample's time
	dcEnd     int64      // the DCEnd rundown's earliest time
	ids, rsds int
}

// eachRecord reads the .etl at path: its header, then fn with every
// record after the header and the file's pointer size.
func eachRecord(t *testing.T, path string, fn func(rec etl.Record, ptr int)) etl.LogfileHeader {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	r := etl.NewReader(f)
	h, _, err := r.ReadHeader()
	if err != nil {
		t.Fatal(err)
	}
	for {
		rec, err := r.Next()
		if errors.Is(err, io.EOF) {
			return h
		}
		if err != nil {
			t.Fatal(err)
		}
		fn(rec, int(h.PointerSize))
	}
}

func readETL(t *testing.T, path string) etlContent {
	t.Helper()
	c := etlContent{images: map[string]etl.Image{}, rundown: map[etl.Hook]int{}}
	c.header = eachRecord(t, path, func(rec etl.Record, ptr int) {
		if !rec.Kernel() {
			if rec.Provider != etl.KernelTraceControl {
				t.Errorf("an event of provider %v", rec.Provider)
			}
			if rec.Opcode == etl.TypeImageID {
				c.ids++
			} else {
				c.rsds++
			}
			return
		}
		c.hooks = append(c.hooks, rec.Hook)
		switch rec.Hook {
		case etl.HookSampledProfile:
			s, err := etl.DecodeSampledProfile(rec.Payload, ptr)
			if err != nil {
				t.Fatal(err)
			}
			c.samples = append(c.samples, fmt.Sprintf("%d %d %#x %d %d", rec.Processor, rec.Time, s.IP, s.ThreadID, s.Flags))
			c.last = max(c.last, rec.Time)
		case etl.HookStackWalk:
			s, err := etl.DecodeStack(rec.Payload, ptr)
			if err != nil {
				t.Fatal(err)
			}
			c.stacks = append(c.stacks, fmt.Sprintf("%d %d %d %x", s.EventTimeStamp, s.ProcessID, s.ThreadID, s.Frames))
		case etl.HookImageDCStart:
			im, err := etl.DecodeImage(rec.Payload, ptr, rec.Version)
			if err != nil {
				t.Fatal(err)
			}
			c.images[im.FileName[strings.LastIndexByte(im.FileName, '\\')+1:]] = im
			c.rundown[rec.Hook]++
		case etl.HookCollectionStart, etl.HookCollectionEnd, etl.HookSetInterval:
			iv, err := etl.DecodeInterval(rec.Payload, ptr)
			if err != nil {
				t.Fatal(err)
			}
			c.intervals = append(c.intervals, iv)
		default:
			c.rundown[rec.Hook]++
		}
		switch rec.Hook {
		case etl.HookProcessDCEnd, etl.HookThreadDCEnd, etl.HookImageDCEnd:
			if c.dcEnd == 0 || rec.Time < c.dcEnd {
				c.dcEnd = rec.Time
			}
		}
	})
	return c
}

// The lab's .etl read back: the header of the machine, every sample and
// stack walk of the session as the session logged it (the same IPs,
// threads, times, processors and frames: per-function counts by address
// are the session's exactly), the rundown of every process, thread and
// image with their identities, the interval events; and by name through
// trace.symbols, the per-function counts of the session's samples.
func TestETLReadsBackTheSession(t *testing.T) {
	for _, arch := range []string{"x64", "x86"} {
		t.Run(arch, func(t *testing.T) {
			l, reg, s := etlLab(t, arch, 7)
			dir := t.TempDir()
			sum, err := output.Write(dir, reg)
			if err != nil {
				t.Fatal(err)
			}
			if !contains(sum.Files, output.ETLFile) || !contains(sum.Files, output.SymbolsFile) {
				t.Fatalf("files %v", sum.Files)
			}
			c := readETL(t, filepath.Join(dir, output.ETLFile))
			wantPtr := uint32(8)
			if arch == "x86" {
				wantPtr = 4
			}
			h := c.header
			if h.PointerSize != wantPtr || h.NumberOfProcessors != 2 || h.PerfFreq != output.ETLPerfFreq || h.ClockType != etl.ClockQPC ||
				h.Build != uint32(l.M.Config().Version.Build) || h.LoggerName != "NT Kernel Logger" || h.LogFileName != output.ETLFile ||
				h.StartTime != output.ETLEpoch+int64(s.Started()) {
				t.Errorf("header %+v", h)
			}
			var want, wantStacks []string
			for _, ev := range s.Events() {
				switch ev.Hook {
				case nt.PERFINFO_LOG_TYPE_SAMPLED_PROFILE:
					want = append(want, fmt.Sprintf("%d %d %#x %d %d", ev.CPU, ev.Time, ev.InstructionPointer, ev.ThreadId, etl.ProfileFlags(ev.ExecutingDpc, ev.ExecutingIsr)))
				case kernel.HookStackWalk:
					wantStacks = append(wantStacks, fmt.Sprintf("%d %d %d %x", ev.Time, ev.ProcessId, ev.ThreadId, append([]uint64{ev.InstructionPointer}, ev.Frames...)))
				}
			}
			if len(want) < 100 || len(wantStacks) == 0 {
				t.Fatalf("the session logged %d samples and %d stacks", len(want), len(wantStacks))
			}
			// the file holds each processor's events in order; the session
			// interleaves them: compare as sorted lists
			sort.Strings(want)
			sort.Strings(c.samples)
			if !equalStrings(want, c.samples) {
				t.Errorf("%d samples read back, %d logged; first read %q, logged %q", len(c.samples), len(want), first(c.samples), first(want))
			}
			sort.Strings(wantStacks)
			sort.Strings(c.stacks)
			if !equalStrings(wantStacks, c.stacks) {
				t.Errorf("%d stacks read back, %d logged", len(c.stacks), len(wantStacks))
			}
			// rundown: processes (Idle, System, app…) and their threads,
			// at start and at end; each image with its identities
			procs := len(l.M.Processes()) + 1
			if c.rundown[etl.HookProcessDCStart] != procs || c.rundown[etl.HookProcessDCEnd] != procs {
				t.Errorf("process rundown %v, want %d each", c.rundown, procs)
			}
			if c.rundown[etl.HookThreadDCStart] == 0 || c.rundown[etl.HookThreadDCStart] != c.rundown[etl.HookThreadDCEnd] ||
				c.rundown[etl.HookRundownComplete] != 2 || c.rundown[etl.HookImageDCEnd] != len(c.images) {
				t.Errorf("rundown %v", c.rundown)
			}
			app, drv := c.images["app.exe"], c.images["drv.sys"]
			if app.ImageBase != 0x400000 || app.ProcessID != l.P.ID() || drv.ProcessID != 0 || c.ids != len(c.images) || c.rsds != len(c.images) {
				t.Errorf("images %+v, %d ImageId, %d DbgID_RSDS", c.images, c.ids, c.rsds)
			}
			// the order of real files: the header buffer (the header and its
			// extension), the rundown, then the collection start, the
			// samples, the collection end, DCEnd last in time
			if c.hooks[0] != etl.HookHeaderExtension || c.hooks[1] != etl.HookProcessDCStart || c.dcEnd < c.last {
				t.Errorf("first events %#x %#x; DCEnd at %d, the last sample at %d", c.hooks[0], c.hooks[1], c.dcEnd, c.last)
			}
			var ivs []string
			for _, iv := range c.intervals {
				ivs = append(ivs, fmt.Sprintf("%d/%d", iv.NewInterval, iv.OldInterval))
				if iv.SourceName != "Timer" || iv.Source != uint32(nt.ProfileTime) {
					t.Errorf("interval event of source %d named %q, want the HAL's Timer", iv.Source, iv.SourceName)
				}
			}
			if fmt.Sprint(ivs) != "[10000/10000 5000/10000 10000/5000 10000/10000]" {
				t.Errorf("interval events (CollectionStart, SetInterval, CollectionEnd) %v", ivs)
			}
			// by name: the symbol listing names each sample's function as
			// the workload does
			sf, err := os.Open(filepath.Join(dir, output.SymbolsFile))
			if err != nil {
				t.Fatal(err)
			}
			syms, err := etl.ReadSymbols(sf, output.SymbolsFile)
			sf.Close()
			if err != nil {
				t.Fatal(err)
			}
			byName := func(ip uint64) string {
				for _, sy := range syms {
					if im, ok := c.images[sy.Image]; ok && ip >= im.ImageBase+sy.RVA && ip < im.ImageBase+sy.RVA+sy.Size {
						return sy.Name
					}
				}
				return "?"
			}
			res := l.Sim.Results()
			truth := map[string]int{}
			got := map[string]int{}
			for _, ev := range s.Events() {
				if ev.Hook != nt.PERFINFO_LOG_TYPE_SAMPLED_PROFILE {
					continue
				}
				name := "?"
				for _, f := range res[0].Workload.Funcs {
					if f.Size > 0 && ev.InstructionPointer >= f.Addr && ev.InstructionPointer < f.Addr+f.Size {
						name = f.Name
					}
				}
				truth[name]++
			}
			for _, smp := range c.samples {
				var cpu, tid, fl int
				var tm int64
				var ip uint64
				if _, err := fmt.Sscanf(smp, "%d %d %v %d %d", &cpu, &tm, &ip, &tid, &fl); err != nil {
					t.Fatal(err)
				}
				got[byName(ip)]++
			}
			if fmt.Sprint(truth) != fmt.Sprint(got) || truth["lex"] == 0 || truth["DrvRead"] == 0 {
				t.Errorf("per function: read back by name %v, the session's %v", got, truth)
			}
		})
	}
}

// The same run writes the same bytes.
func TestETLDeterministic(t *testing.T) {
	var files [2][]byte
	for i := range files {
		_, reg, _ := etlLab(t, "x64", 3)
		dir := t.TempDir()
		if _, err := output.Write(dir, reg); err != nil {
			t.Fatal(err)
		}
		b, err := os.ReadFile(filepath.Join(dir, output.ETLFile))
		if err != nil {
			t.Fatal(err)
		}
		files[i] = b
	}
	if !bytes.Equal(files[0], files[1]) || len(files[0]) == 0 {
		t.Error("two runs of the same configuration and seed wrote different .etl files")
	}
}

// output.etl = false writes none; a run without a logger writes none.
func TestETLSwitch(t *testing.T) {
	_, reg, _ := etlLab(t, "x64", 1)
	dir := t.TempDir()
	sum, err := output.WriteWith(dir, reg, output.Options{Trace: true})
	if err != nil {
		t.Fatal(err)
	}
	if contains(sum.Files, output.ETLFile) {
		t.Errorf("files %v with the .etl switched off", sum.Files)
	}
	if _, err := os.Stat(filepath.Join(dir, output.ETLFile)); err == nil {
		t.Error("trace.etl written with the switch off")
	}
	l := labtest.Inproc(t, 1, 1)
	reg = &output.Registry{}
	reg.AddMachine(l.M, l.Sim)
	if sum, err = output.Write(t.TempDir(), reg); err != nil || contains(sum.Files, output.ETLFile) {
		t.Errorf("no logger: files %v, %v", sum.Files, err)
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func equalStrings(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func first(s []string) string {
	if len(s) == 0 {
		return ""
	}
	return s[0]
}

// Writing the .etl is part of the run's budgets: it stops when its
// context ends, with the context's cause.
func TestETLStopsWithItsContext(t *testing.T) {
	_, reg, _ := etlLab(t, "x64", 1)
	ctx, cancel := context.WithCancelCause(context.Background())
	cancel(budgetCause{})
	if err := output.WriteETLFile(ctx, filepath.Join(t.TempDir(), "k.etl"), reg); !errors.Is(err, budgetCause{}) {
		t.Errorf("error %v; want the context's cause", err)
	}
	if err := output.WriteETLFile(context.Background(), filepath.Join(t.TempDir(), "k.etl"), &output.Registry{}); err == nil {
		t.Error("a run without a logger wrote an .etl")
	}
}

// Several machines whose logger ran: one .etl and listing per machine,
// named by the machine's number, each with its own machine's header.
func TestETLPerMachine(t *testing.T) {
	reg := &output.Registry{}
	for i, cpus := range []int{1, 3} {
		l := labtest.Inproc(t, cpus, uint64(i+1))
		reg.AddMachine(l.M, l.Sim)
		s, err := l.M.StartKernelLogger(true)
		if err != nil {
			t.Fatal(err)
		}
		reg.AddSession(l.M, s)
		if _, err := l.Sim.Run(20_000, labtest.ThreeFuncs(l.P)); err != nil {
			t.Fatal(err)
		}
	}
	dir := t.TempDir()
	sum, err := output.Write(dir, reg)
	if err != nil {
		t.Fatal(err)
	}
	for i, cpus := range []uint32{1, 3} {
		name := fmt.Sprintf("trace-m%d.etl", i+1)
		if !contains(sum.Files, name) || !contains(sum.Files, fmt.Sprintf("trace-m%d.symbols", i+1)) || contains(sum.Files, output.ETLFile) {
			t.Fatalf("files %v", sum.Files)
		}
		if c := readETL(t, filepath.Join(dir, name)); c.header.NumberOfProcessors != cpus || len(c.samples) == 0 || c.header.LogFileName != name {
			t.Errorf("%s: header %+v, %d samples", name, c.header, len(c.samples))
		}
	}
}

// A counter-profiling session (PERF_PMC_PROFILE with a source chosen by
// TraceProfileSourceConfigInfo, stack walks of PmcInterrupt): its .etl
// holds each PmcCounterProfile event with its ProfileSource and stack,
// and the source's CollectionStart and CollectionEnd with its interval.
func TestETLCounterSession(t *testing.T) {
	l := labtest.Inproc(t, 2, 4)
	reg := &output.Registry{}
	reg.AddMachine(l.M, l.Sim)
	s, err := l.M.StartKernelLogger(false)
	if err != nil {
		t.Fatal(err)
	}
	reg.AddSession(l.M, s)
	if err := s.SetStackWalk([]uint16{nt.PERFINFO_LOG_TYPE_PMC_INTERRUPT}); err != nil {
		t.Fatal(err)
	}
	th := l.P.MainThread()
	buf, err := l.P.Alloc(0x100, kernel.ProtReadWrite)
	if err != nil {
		t.Fatal(err)
	}
	le := binary.LittleEndian
	_ = l.P.Write(buf, le.AppendUint32(nil, uint32(nt.ProfileCacheMisses)))
	if r, err := th.TraceSetInformation(kernel.KernelLoggerHandle, nt.TraceProfileSourceConfigInfo, buf, 4); err != nil || r != nt.ErrorSuccess {
		t.Fatalf("TraceProfileSourceConfigInfo: %d %v", r, err)
	}
	// EventTraceGroupMaskInformation: class, the logger's handle at 8,
	// the eight masks at 0x10 (PERF_PMC_PROFILE in the second)
	mask := le.AppendUint32(nil, nt.EventTraceGroupMaskInformation)
	mask = le.AppendUint64(le.AppendUint32(mask, 0), kernel.KernelLoggerHandle)
	for i := range 8 {
		v := uint32(0)
		if i == 1 {
			v = nt.PERF_PMC_PROFILE & 0x1FFFFFFF
		}
		mask = le.AppendUint32(mask, v)
	}
	_ = l.P.Write(buf, mask)
	if st, err := th.NtSetSystemInformation(nt.SystemPerformanceTraceInformation, buf, uint32(len(mask))); err != nil || st != kernel.StatusSuccess {
		t.Fatalf("PERF_PMC_PROFILE: %v %v", st, err)
	}
	l.SetInterval(t, nt.ProfileCacheMisses, 4096)
	if _, err := l.Sim.Run(50_000, labtest.ThreeFuncs(l.P)); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if _, err := output.Write(dir, reg); err != nil {
		t.Fatal(err)
	}
	pmc, stacks := 0, 0
	var ivs []string
	eachRecord(t, filepath.Join(dir, output.ETLFile), func(rec etl.Record, ptr int) {
		switch rec.Hook {
		case etl.HookHeaderExtension:
			// the group mask the (stopped) session had: PERF_PMC_PROFILE
			if got := le.Uint32(rec.Payload[4:]); got != nt.PERF_PMC_PROFILE&0x1FFFFFFF {
				t.Errorf("header extension's Masks[1] %#x", got)
			}
		case etl.HookPmcInterrupt:
			smp, err := etl.DecodePmcSample(rec.Payload, 8)
			if err != nil || smp.Source != uint16(nt.ProfileCacheMisses) {
				t.Fatalf("PMC sample %+v %v", smp, err)
			}
			pmc++
		case etl.HookStackWalk:
			stacks++
		case etl.HookCollectionStart, etl.HookCollectionEnd, etl.HookSetInterval:
			iv, err := etl.DecodeInterval(rec.Payload, 8)
			if err != nil {
				t.Fatal(err)
			}
			ivs = append(ivs, fmt.Sprintf("%#x %d %d %s", uint16(rec.Hook), iv.Source, iv.NewInterval, iv.SourceName))
		}
	})
	want := fmt.Sprintf("[0xf49 %[1]d 4096 CacheMisses 0xf4a %[1]d 4096 CacheMisses]", nt.ProfileCacheMisses)
	if pmc == 0 || stacks != pmc || fmt.Sprint(ivs) != want {
		t.Errorf("%d PMC samples, %d stacks; interval events %v, want %s", pmc, stacks, ivs, want)
	}
}
