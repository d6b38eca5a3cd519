package etlprof

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/proflab/proflab/core/etl"
	"github.com/proflab/proflab/core/workload/importer/profmodel"
	"github.com/proflab/proflab/core/workload/importer/profread"
)

// defaultInterval is the timer's interval taken when the trace holds no
// SampledProfileInterval event: 10,000 × 100 ns (1 ms), the kernel
// logger's default.
const defaultInterval = 10000

// builder turns a scanned trace into the model.
type builder struct {
	r     *profread.Reading
	tr    *trace
	n     *namer
	names map[uint32]string // process names given, by pid (unique)
	used  map[string]uint32
	buf   []uint64
	fr    []profmodel.Frame
}

// build fills r.Model and r.Sampling from the trace.
func build(r *profread.Reading, tr *trace, syms []etl.Symbol, symsFrom string) error {
	m := r.Model
	h := tr.hdr
	m.Note("trace: Windows build %d, %d processors, PointerSize %d, clock type %d at %d ticks per second; %d buffers (%d compressed)",
		h.Build, h.NumberOfProcessors, h.PointerSize, h.ClockType, h.PerfFreq, tr.buffers, tr.compressed)
	r.Sampling.CPUs = int(h.NumberOfProcessors)
	if len(tr.samples) == 0 {
		return r.Errorf("the trace has no SampledProfile or PmcCounterProfile event (no samples: it is a trace without the PROFILE flag, a rundown or another provider's trace), so there is no workload to import; record with `xperf -on PROC_THREAD+LOADER+PROFILE -stackwalk Profile` or `wpr -start CPU`")
	}
	if h.PerfFreq <= 0 {
		return r.Errorf("the file header's PerfFreq is %d: the samples' times cannot be read as seconds (a damaged header)", h.PerfFreq)
	}
	j := tr.join()
	b := &builder{r: r, tr: tr, n: newNamer(tr, m, syms), names: map[uint32]string{}, used: map[string]uint32{}}
	weightSrc := tr.weightSource()
	wantPid, wantName := parseProcess(r.Options.Process)
	var kept, idle, idleInterrupt, filtered, noStack, unknownThread int64
	var events int64
	first, last := tr.samples[0].t, tr.samples[0].t
	matched := map[string]bool{}
	unmapped := map[uint16]int64{} // counter samples of sources no workload event is, by source
	for i := range tr.samples {
		s := &tr.samples[i]
		if err := profmodel.Stopped(r.Ctx, i+1); err != nil {
			return err
		}
		first, last = min(first, s.t), max(last, s.t)
		pid := tr.pidOf(s)
		if pid == unknownPID {
			unknownThread++
		}
		if pid == 0 {
			idle++
			if s.flags&3 != 0 {
				idleInterrupt++
			}
			continue
		}
		pname := tr.processName(pid, s.t)
		if r.Options.Process != "" {
			if !(wantPid >= 0 && uint32(wantPid) == pid) && !strings.EqualFold(pname, wantName) {
				filtered++
				continue
			}
			matched[pname] = true
		}
		frames := tr.stackOf(s, b.buf)
		b.buf = frames
		if s.kernel == 0 && s.user == 0 {
			noStack++
		}
		w := tr.weight(s)
		if !weighs(s, weightSrc) {
			// a counter's sample: events of its leaf's function
			if ev := tr.eventOf(s.source); ev != "" {
				b.n.name(pid, s.ip, s.t).f.AddEvent(ev, w)
				events++
			} else {
				unmapped[s.source]++
			}
			continue
		}
		b.add(pid, pname, s, frames, w)
		kept++
	}
	if kept == 0 {
		return b.nothingKept(filtered, idle)
	}
	sp := r.Sampling
	sp.Samples = kept
	iv := tr.intervalOf(weightSrc, first)
	if weightSrc == profileTime {
		sp.SampleType, sp.PeriodType, sp.PeriodUnit, sp.Period = "cpu/nanoseconds", "cpu", "nanoseconds", float64(iv)*100
	} else {
		name := tr.sourceName(weightSrc)
		sp.SampleType, sp.PeriodType, sp.PeriodUnit, sp.Period = name, name, "events", float64(iv)
		m.Note("the trace has no timer samples: its %s counter samples weigh, %d events each", name, iv)
	}
	b.busy(first, last)
	b.notes(j, symsFrom, idle, idleInterrupt, filtered, noStack, events)
	if unknownThread > 0 {
		m.Note("%d samples are on threads no Thread event names: their process is %s", unknownThread, unknownProcess)
	}
	tr.noteUnmapped(m, unmapped)
	if events > 0 {
		set, clamped := m.SetRates()
		m.Note("%d counter samples gave their functions events (each its source's interval): %d per-function rates set, %d clamped", events, set, clamped)
	}
	return nil
}

// weightSource is the source whose samples weigh: the timer when the
// trace has timer samples, else the cycles counter, else the lowest.
func (tr *trace) weightSource() uint16 {
	srcs := map[uint16]bool{}
	for i := range tr.samples {
		s := &tr.samples[i]
		if !s.pmc {
			return profileTime
		}
		srcs[s.source] = true
	}
	for _, c := range []uint16{0x13, 0x19} {
		if srcs[c] {
			return c
		}
	}
	return slices.Min(slices.Collect(maps.Keys(srcs)))
}

// weighs says whether a sample is of the weighing source (the others are
// counter samples that give their functions events).
func weighs(s *sample, weightSrc uint16) bool {
	if weightSrc == profileTime {
		return !s.pmc
	}
	return s.pmc && s.source == weightSrc
}

// intervalOf is the source's interval at time t: its last
// SampledProfileInterval event's NewInterval at or before t (else its
// first); the timer's default, or 1, without one.
func (tr *trace) intervalOf(src uint16, t int64) uint32 {
	if v, ok := at(tr.intervals[src], t); ok && v > 0 {
		return v
	}
	if src == profileTime {
		return defaultInterval
	}
	return 1
}

// weight is a sample's weight: its source's interval (the timer's in
// nanoseconds, a counter's in events).
func (tr *trace) weight(s *sample) float64 {
	iv := float64(tr.intervalOf(s.source, s.t))
	if !s.pmc {
		return iv * 100
	}
	return iv
}

// unknownPID is the process of a sample whose thread no Thread event
// names, and unknownProcess its name.
const (
	unknownPID     = 0xFFFFFFFF
	unknownProcess = "[unknown process]"
)

// pidOf is the process of a sample's thread at its time: 0 for the idle
// thread (ThreadId 0), unknownPID for a thread the trace never names.
func (tr *trace) pidOf(s *sample) uint32 {
	if s.tid == 0 {
		return 0
	}
	pid, ok := at(tr.threads[s.tid], s.t)
	if !ok {
		return unknownPID
	}
	return pid
}

// processName is pid's image file name at time t ("pid N" when the
// trace names it nowhere).
func (tr *trace) processName(pid uint32, t int64) string {
	if pid == unknownPID {
		return unknownProcess
	}
	if n, ok := at(tr.processes[pid], t); ok && n != "" {
		return n
	}
	return "pid " + strconv.FormatUint(uint64(pid), 10)
}

// parseProcess reads --process: a pid (a number) or a name.
func parseProcess(s string) (int64, string) {
	if v, err := strconv.ParseUint(strings.TrimSpace(s), 10, 32); err == nil {
		return int64(v), s
	}
	return -1, s
}

// add adds a weighing sample of process pid to its thread.
func (b *builder) add(pid uint32, pname string, s *sample, frames []uint64, w float64) {
	key := strconv.FormatUint(uint64(pid), 10)
	p := b.r.Model.LookupProcess(key)
	if p == nil {
		name := pname
		if other, dup := b.used[name]; dup && other != pid {
			name = fmt.Sprintf("%s#%d", pname, pid)
		}
		b.used[name] = pid
		p = b.r.Model.Process(key, name)
	}
	t := p.Thread(strconv.FormatUint(uint64(s.tid), 10))
	b.fr = b.fr[:0]
	for i, a := range frames {
		nm := b.n.name(pid, a, s.t)
		if i == 0 && nm.used >= 0 {
			b.n.used[nm.used].leaves++
		}
		b.fr = append(b.fr, profmodel.Frame{Func: nm.f, Addr: a, HasAddr: true})
	}
	b.r.Model.Add(t, b.fr, w)
}

// busy sets every thread's busy share: its samples' time over the span
// of the trace's samples (first to last, plus one timer interval).
func (b *builder) busy(first, last int64) {
	tr := b.tr
	span := float64(float64(last-first)/float64(tr.hdr.PerfFreq)*1e9) + float64(float64(tr.intervalOf(profileTime, first))*100)
	if tr.weightSource() != profileTime {
		b.r.Model.RelativeBusy()
		b.r.Model.Note("busy shares by rank, not time: counter samples do not measure time, so the busiest thread is taken as busy all the time and the others in proportion")
		return
	}
	var clamped int
	for _, t := range b.r.Model.Threads() {
		share := t.Weight() / span
		if share > 1.05 {
			clamped++
		}
		t.SetBusy(min(1, share))
	}
	b.r.Model.Note("busy shares from time: a thread's samples × the timer's interval over the samples' span (%.4g s)", span/1e9)
	if clamped > 0 {
		b.r.Model.Note("%d threads ran more than the span holds (by more than 5%%): their busy shares are clamped to 1", clamped)
	}
}

// nothingKept is the error of an import that kept no sample.
func (b *builder) nothingKept(filtered, idle int64) error {
	if b.r.Options.Process != "" && filtered > 0 {
		return b.r.Errorf("--process %s: no sample of a process of that name or pid; the trace's sampled processes are %s", b.r.Options.Process, strings.Join(b.sampledProcesses(), ", "))
	}
	return b.r.Errorf("the trace's %d samples are all on the idle thread (ThreadId 0): no program ran, so there is no workload to import", idle)
}

// sampledProcesses names the processes with samples, "name (pid)" sorted.
func (b *builder) sampledProcesses() []string {
	seen := map[string]bool{}
	for i := range b.tr.samples {
		s := &b.tr.samples[i]
		pid := b.tr.pidOf(s)
		if pid == 0 {
			continue
		}
		seen[fmt.Sprintf("%s (%d)", b.tr.processName(pid, s.t), pid)] = true
	}
	return slices.Sorted(maps.Keys(seen))
}
