package output

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"

	"github.com/proflab/proflab/core/etl"
	"github.com/proflab/proflab/kernel"
	"github.com/proflab/proflab/kernel/nt"
)

// This file writes a machine's NT Kernel Logger sessions as Windows' own
// trace file (trace.etl, docs/etl.md "Writing"), in the order real
// kernel traces have it: the header buffer; the DCStart rundown of every
// process, thread and image the run knows, each image followed by its
// KernelTraceControl ImageId and DbgID_RSDS; the end of the rundown;
// per session a CollectionStart per profiled source, the session's
// events (samples, SetInterval, stack walks) each on the buffer of the
// processor that logged it, and a CollectionEnd; then the DCEnd
// rundown. The events are read back from the session's spool, one at a
// time: the writer holds one 64 KiB buffer per processor.

// ETLFile and SymbolsFile are the names of a machine's .etl and its
// symbol listing when one machine ran a kernel logger; with several,
// each machine's are trace-mN.etl and trace-mN.symbols.
const (
	ETLFile     = "trace.etl"
	SymbolsFile = "trace.symbols"
)

// ETLPerfFreq is the clock of the lab's .etl files: QueryPerformanceCounter
// ticks (clock type 1) at 10 MHz, so that a tick is the simulated
// time's 100 ns unit.
const ETLPerfFreq = 10_000_000

// ETLEpoch is the FILETIME of simulated time 0 (the machine's boot):
// 2000-01-01 00:00:00 UTC. An event's FILETIME is ETLEpoch plus its
// simulated time.
const ETLEpoch = 125911584000000000

// etlBuilds are the build numbers written for the versions before 10.0,
// whose model has none: each version's RTM or last service pack's.
var etlBuilds = map[[2]int]uint32{
	{5, 0}: 2195, {5, 1}: 2600, {5, 2}: 3790, {6, 0}: 6002, {6, 1}: 7601, {6, 2}: 9200, {6, 3}: 9600,
}

// etlFiles names the machines' .etl files: trace.etl alone, else one
// per machine that ran a logger.
func etlFiles(reg *Registry) map[*Machine][2]string {
	var logged []*Machine
	for _, e := range reg.Machines() {
		if len(e.Sessions) > 0 {
			logged = append(logged, e)
		}
	}
	out := map[*Machine][2]string{}
	for _, e := range logged {
		if len(logged) == 1 {
			out[e] = [2]string{ETLFile, SymbolsFile}
		} else {
			out[e] = [2]string{fmt.Sprintf("trace-m%d.etl", e.Index), fmt.Sprintf("trace-m%d.symbols", e.Index)}
		}
	}
	return out
}

// writeETLFiles writes each logging machine's .etl and symbol listing
// into dir and returns the files written, in machine order.
func writeETLFiles(ctx context.Context, dir string, reg *Registry) ([]string, error) {
	names := etlFiles(reg)
	var files []string
	for _, e := range reg.Machines() {
		n, ok := names[e]
		if !ok {
			continue
		}
		if err := writeETLPair(ctx, dir, n, e); err != nil {
			return files, err
		}
		files = append(files, n[0], n[1])
	}
	return files, nil
}

func writeETLPair(ctx context.Context, dir string, n [2]string, e *Machine) error {
	f, err := os.Create(filepath.Join(dir, n[0]))
	if err != nil {
		return fmt.Errorf("cannot write %s: %w", n[0], err)
	}
	images, err := writeETL(ctxFile{ctx, f}, e, n[0])
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("cannot write %s: %w", n[0], err)
	}
	s, err := os.Create(filepath.Join(dir, n[1]))
	if err != nil {
		return fmt.Errorf("cannot write %s: %w", n[1], err)
	}
	err = writeSymbolListing(ContextWriter{ctx, s}, images)
	if cerr := s.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("cannot write %s: %w", n[1], err)
	}
	return nil
}

// ctxFile is a file written under a context, WriteAt included (the
// .etl writer patches its header at the end).
type ctxFile struct {
	ctx context.Context
	f   *os.File
}

func (c ctxFile) Write(p []byte) (int, error) {
	if c.ctx.Err() != nil {
		return 0, context.Cause(c.ctx)
	}
	return c.f.Write(p)
}

func (c ctxFile) WriteAt(p []byte, off int64) (int, error) { return c.f.WriteAt(p, off) }

// writeETL writes machine e's kernel logger sessions to w as an .etl
// file named name (the name its header records) and returns the images
// it described (for the symbol listing).
func writeETL(w io.Writer, e *Machine, name string) ([]etlImage, error) {
	if len(e.Sessions) == 0 {
		return nil, fmt.Errorf("machine %d ran no kernel logger", e.Index)
	}
	e.capture()
	cfg := e.Kernel.Config()
	ptr := 8
	if cfg.Arch == kernel.X86 {
		ptr = 4
	}
	start := e.Sessions[0].Started()
	end := e.Kernel.Now()
	if t, stopped := e.Sessions[len(e.Sessions)-1].Stopped(); stopped {
		end = t
	}
	build := uint32(cfg.Version.Build)
	if build == 0 {
		build = etlBuilds[[2]int{cfg.Version.Major, cfg.Version.Minor}]
	}
	// the header extension's group mask: every flag the sessions enabled
	var mask [8]uint32
	for _, s := range e.Sessions {
		for i, v := range s.EverGroupMask() {
			mask[i] |= v
		}
	}
	ew, err := etl.NewWriter(w, etl.FileHeader{PointerSize: ptr, Processors: e.Kernel.CPUCount(),
		Major: uint8(cfg.Version.Major), Minor: uint8(cfg.Version.Minor), Build: build, CPUSpeedMHz: uint32(cfg.FreqMHz),
		TimerResolution: 156250, PerfFreq: ETLPerfFreq, StartTicks: int64(start),
		BootTime: ETLEpoch, StartTime: ETLEpoch + int64(start), EndTime: ETLEpoch + int64(end),
		LoggerName: "NT Kernel Logger", LogFileName: name, GroupMask: mask, LogFileMode: etlLogFileMode})
	if err != nil {
		return nil, err
	}
	images := etlImages(e)
	em := &etlMachine{w: ew, e: e, ptr: ptr}
	em.rundown(int64(start), true, images)
	for s := range e.Sessions {
		if err := em.session(s); err != nil {
			return images, err
		}
	}
	em.rundown(int64(end), false, images)
	return images, ew.Close()
}

// etlLogFileMode is the mode the header records: the value of the
// corpus's uncompressed kernel trace, EVENT_TRACE_SYSTEM_LOGGER_MODE
// (0x02000000) with EVENT_TRACE_SECURE_MODE (0x80).
const etlLogFileMode = 0x02000080

// etlMachine writes one machine's events.
type etlMachine struct {
	w      *etl.Writer
	e      *Machine
	ptr    int
	frames []uint64
	names  map[nt.Source]string
}

// sourceName is a source's name in the interval events: the description
// the machine's HAL gives it (Timer, TotalIssues, as the source listing
// of wpr -pmcsources shows), else the source's NT name.
func (m *etlMachine) sourceName(src nt.Source) string {
	if m.names == nil {
		m.names = map[nt.Source]string{}
		for _, d := range m.e.Kernel.Descriptors() {
			if d.Description != "" {
				m.names[d.Source] = d.Description
			}
		}
	}
	if n, ok := m.names[src]; ok {
		return n
	}
	return src.Name()
}

// eprocess is a process's UniqueProcessKey in the trace: a made-up
// EPROCESS address in system space, one page per process id.
func (m *etlMachine) eprocess(pid uint32) uint64 {
	if m.ptr == 4 {
		return 0x84000000 + uint64(pid)<<8
	}
	return 0xFFFFE00000000000 + uint64(pid)<<12
}

// rundown writes the DCStart (start) or DCEnd rundown at ticks, on
// processor 0: the idle process and its threads (one per processor, id
// 0), every process and thread of the machine, every image; then, for
// DCStart, each image's identity and the end of the rundown.
func (m *etlMachine) rundown(ticks int64, start bool, images []etlImage) {
	ph, th, ih := etl.HookProcessDCStart, etl.HookThreadDCStart, etl.HookImageDCStart
	if !start {
		ph, th, ih = etl.HookProcessDCEnd, etl.HookThreadDCEnd, etl.HookImageDCEnd
	}
	w := m.w
	w.WriteProcess(0, ph, ticks, etl.Process{UniqueProcessKey: m.eprocess(0), ImageFileName: "Idle"})
	for c := range m.e.Kernel.CPUCount() {
		w.WriteThread(0, th, ticks, etl.ThreadRecord{Affinity: 1 << uint(c)})
	}
	for _, p := range m.e.Kernel.Processes() {
		w.WriteProcess(0, ph, ticks, etl.Process{UniqueProcessKey: m.eprocess(p.ID()), ProcessID: p.ID(),
			DirectoryTableBase: uint64(p.ID()) << 12, ImageFileName: p.Name(), CommandLine: p.Name()})
		for _, t := range p.Threads() {
			w.WriteThread(0, th, ticks, etl.ThreadRecord{ProcessID: p.ID(), ThreadID: t.ID(), Affinity: t.Affinity(), BasePriority: 8, PagePriority: 5})
		}
	}
	for i := range images {
		im := &images[i]
		r := im.record()
		w.WriteImage(0, ih, ticks, r)
		if start {
			w.WriteImageID(0, ticks, r, im.name)
			w.WriteDbgIDRSDS(0, ticks, r, im.pdb)
		}
	}
	if start {
		for c := range m.e.Kernel.CPUCount() {
			w.WriteRundownComplete(c, ticks)
		}
	}
}

// session writes session s's events between a CollectionStart and a
// CollectionEnd of each source it profiled.
func (m *etlMachine) session(s int) error {
	e := m.e
	sess := e.Sessions[s]
	sp := e.spools[s]
	// a first pass: the sources profiled and the interval changes
	sets := map[nt.Source][]kernel.Event{}
	seen := map[nt.Source]bool{}
	err := sp.sp.each(func(b []byte) error { // the events without their frames
		ev := decodeEvent(b)
		switch ev.Hook {
		case nt.PERFINFO_LOG_TYPE_SAMPLED_PROFILE:
			seen[nt.ProfileTime] = true
		case nt.PERFINFO_LOG_TYPE_PMC_INTERRUPT:
			seen[nt.Source(ev.ProfileSource)] = true
		case nt.PERFINFO_LOG_TYPE_SAMPLED_PROFILE_SET_INTERVAL:
			sets[nt.Source(ev.Source)] = append(sets[nt.Source(ev.Source)], ev)
		}
		return nil
	})
	if err != nil {
		return err
	}
	if sess.Profile() {
		seen[nt.ProfileTime] = true
	}
	srcs := make([]nt.Source, 0, len(seen))
	for src := range seen {
		srcs = append(srcs, src)
	}
	sort.Slice(srcs, func(i, j int) bool { return srcs[i] < srcs[j] })
	start := sess.Started()
	end := e.Kernel.Now()
	if t, stopped := sess.Stopped(); stopped {
		end = t
	}
	// the interval when the collection started: the first change's old
	// one (the session logged every change from its start), else the
	// machine's
	for _, src := range srcs {
		v := e.intervals[src]
		if ch := sets[src]; len(ch) > 0 {
			v = ch[0].OldInterval
		}
		m.w.WriteInterval(0, etl.HookCollectionStart, int64(start), uint32(src), v, v, m.sourceName(src))
	}
	err = sp.each(func(ev kernel.Event) error {
		if ev.CPU < 0 || ev.CPU >= e.Kernel.CPUCount() {
			return nil
		}
		t := int64(ev.Time)
		switch ev.Hook {
		case nt.PERFINFO_LOG_TYPE_SAMPLED_PROFILE:
			m.w.WriteSampledProfile(ev.CPU, t, ev.InstructionPointer, ev.ThreadId, etl.ProfileFlags(ev.ExecutingDpc, ev.ExecutingIsr))
		case nt.PERFINFO_LOG_TYPE_PMC_INTERRUPT:
			m.w.WritePmcInterrupt(ev.CPU, t, ev.InstructionPointer, ev.ThreadId, ev.ProfileSource)
		case nt.PERFINFO_LOG_TYPE_SAMPLED_PROFILE_SET_INTERVAL:
			m.w.WriteInterval(ev.CPU, etl.HookSetInterval, t, ev.Source, ev.NewInterval, ev.OldInterval, m.sourceName(nt.Source(ev.Source)))
		case kernel.HookStackWalk:
			m.frames = append(append(m.frames[:0], ev.InstructionPointer), ev.Frames...)
			m.w.WriteStackWalk(ev.CPU, t, ev.ProcessId, ev.ThreadId, m.frames)
		}
		return nil
	})
	if err != nil {
		return err
	}
	for _, src := range srcs {
		v := e.intervals[src]
		if ch := sets[src]; len(ch) > 0 {
			v = ch[len(ch)-1].NewInterval
		}
		m.w.WriteInterval(0, etl.HookCollectionEnd, int64(end), uint32(src), v, v, m.sourceName(src))
	}
	return nil
}

// WriteETLFile writes the kernel logger sessions of the run's one
// logging machine as the .etl file path, and its symbol listing beside
// it (NAME.symbols for NAME.etl): what `proflab wpr -stop FILE.etl` and
// `proflab tracelog -f FILE.etl` leave.
func WriteETLFile(ctx context.Context, path string, reg *Registry) error {
	var logged []*Machine
	for _, e := range reg.Machines() {
		if len(e.Sessions) > 0 {
			logged = append(logged, e)
		}
	}
	if len(logged) != 1 {
		return fmt.Errorf("%s: the run has %d machines whose kernel logger ran, want one", path, len(logged))
	}
	dir, base := filepath.Split(path)
	stem := base
	if ext := filepath.Ext(base); ext != "" {
		stem = base[:len(base)-len(ext)]
	}
	if dir == "" {
		dir = "."
	}
	return writeETLPair(ctx, dir, [2]string{base, stem + ".symbols"}, logged[0])
}
