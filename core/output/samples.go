package output

import (
	"fmt"
	"sort"
	"strconv"

	"github.com/google/pprof/profile"
	"github.com/proflab/proflab/kernel"
	"github.com/proflab/proflab/kernel/nt"
)

// The NT Kernel Logger's sampled events (SampledProfile for ProfileTime,
// PmcInterrupt for counter sources) know what a profile's buckets do not:
// the processor that took each interrupt and the thread it interrupted.
// samplesProfiles makes one pprof profile per source of them, per
// machine (samples-mM-SOURCE.pb.gz), so that `go tool pprof -tagfocus`
// and `-tags` can split samples by processor, process and thread.
//
// Each sample weighs the source's interval in force at its time: the
// NewInterval of the last set-interval event (0x0F48) before it, the
// OldInterval of the first one after it when it came earlier, and the
// interval captured at the end of the scenario when no set was logged.

// samplesFile names a machine's sampled-event profile of a source.
func samplesFile(machine int, src nt.Source) string {
	return fmt.Sprintf("samples-m%d-%s.pb.gz", machine, src.Name())
}

// intervalAt is the interval of one source over time, from its
// set-interval events.
type intervalAt struct {
	sets  []kernel.Event // in time order
	final uint32
}

func (iv intervalAt) at(t uint64) uint32 {
	i := sort.Search(len(iv.sets), func(i int) bool { return iv.sets[i].Time > t })
	switch {
	case i > 0:
		return iv.sets[i-1].NewInterval
	case len(iv.sets) > 0:
		return iv.sets[0].OldInterval
	}
	return iv.final
}

// sampleKey identifies the samples one pprof sample aggregates.
type sampleKey struct {
	ip       uint64
	cpu      int
	tid      uint32
	isr, dpc bool
	weight   int64
}

func samplesProfiles(e *Machine) []namedProfile {
	if len(e.Sessions) == 0 {
		return nil
	}
	e.capture()
	// Two passes over the spooled events, in time order (the sessions of a
	// machine follow one another): the interval changes first, then the
	// samples, counted by key as they stream (memory follows the distinct
	// keys, not the run's length).
	sets := map[nt.Source][]kernel.Event{}
	_ = e.eachEvent(func(ev kernel.Event) {
		if ev.Hook == nt.PERFINFO_LOG_TYPE_SAMPLED_PROFILE_SET_INTERVAL {
			sets[nt.Source(ev.Source)] = append(sets[nt.Source(ev.Source)], ev)
		}
	})
	type tally struct {
		iv     intervalAt
		counts map[sampleKey]int64
		keys   []sampleKey
	}
	bySource := map[nt.Source]*tally{}
	unitPer := func(src nt.Source) int64 {
		if src == nt.ProfileTime {
			return 100 // 100 ns units in nanoseconds
		}
		return 1 // an event is an event
	}
	_ = e.eachEvent(func(ev kernel.Event) {
		var src nt.Source
		switch ev.Hook {
		case nt.PERFINFO_LOG_TYPE_SAMPLED_PROFILE:
			src = nt.ProfileTime
		case nt.PERFINFO_LOG_TYPE_PMC_INTERRUPT:
			src = nt.Source(ev.ProfileSource)
		default:
			return
		}
		t := bySource[src]
		if t == nil {
			t = &tally{iv: intervalAt{sets: sets[src], final: e.intervals[src]}, counts: map[sampleKey]int64{}}
			bySource[src] = t
		}
		k := sampleKey{ip: ev.InstructionPointer, cpu: ev.CPU, tid: ev.ThreadId, isr: ev.ExecutingIsr, dpc: ev.ExecutingDpc,
			weight: int64(t.iv.at(ev.Time)) * unitPer(src)}
		if _, ok := t.counts[k]; !ok {
			t.keys = append(t.keys, k)
		}
		t.counts[k]++
	})
	srcs := make([]nt.Source, 0, len(bySource))
	for s := range bySource {
		srcs = append(srcs, s)
	}
	sort.Slice(srcs, func(i, j int) bool { return srcs[i] < srcs[j] })
	threads := threadOwners(e.Kernel)
	var out []namedProfile
	for _, src := range srcs {
		t := bySource[src]
		out = append(out, namedProfile{file: samplesFile(e.Index, src), prof: buildSamples(e, src, t.counts, t.keys, threads)})
	}
	return out
}

// eachEvent calls fn with every logged event of the machine's sessions,
// in order, reading the spools back.
func (e *Machine) eachEvent(fn func(kernel.Event)) error {
	if len(e.spools) != len(e.Sessions) {
		for _, s := range e.Sessions {
			for _, ev := range s.Events() {
				fn(ev)
			}
		}
		return nil
	}
	for _, sp := range e.spools {
		if err := sp.each(func(ev kernel.Event) error { fn(ev); return nil }); err != nil {
			return err
		}
	}
	return nil
}

// threadOwners maps every thread id of m to "process (pid N)".
func threadOwners(m *kernel.Machine) map[uint32]string {
	out := map[uint32]string{}
	for _, p := range m.Processes() {
		for _, t := range p.Threads() {
			out[t.ID()] = fmt.Sprintf("%s (pid %d)", p.Name(), p.ID())
		}
	}
	return out
}

func buildSamples(e *Machine, src nt.Source, counts map[sampleKey]int64, keys []sampleKey, threads map[uint32]string) *profile.Profile {
	per := periodOf(e, src)
	p := &profile.Profile{
		SampleType:        []*profile.ValueType{{Type: "samples", Unit: "count"}, {Type: per.value, Unit: per.unit}},
		DefaultSampleType: per.value,
		PeriodType:        per.typ,
		Period:            per.per,
		Comments: []string{
			fmt.Sprintf("proflab machine %d: the NT Kernel Logger's %s samples, labelled by processor, process and thread", e.Index, src.Name()),
			fmt.Sprintf("%s = each sample × the %s interval in force when it was taken", per.value, src.Name()),
			"no source files or binaries: go tool pprof -list and -disasm cannot work; use -top, -tags, -tagfocus",
		},
	}
	if e.Kernel.Now() > 0 {
		p.DurationNanos = int64(e.Kernel.Now()) * 100
	}
	b := newProfileBuilder(p, e)
	type who struct {
		cpu      int
		tid      uint32
		isr, dpc bool
	}
	labelSets := map[who]map[string][]string{} // shared by the samples of one processor, thread and context
	pids := map[uint32]uint32{}                // thread id → process id
	for _, pr := range e.Kernel.Processes() {
		for _, t := range pr.Threads() {
			pids[t.ID()] = pr.ID()
		}
	}
	for _, k := range keys {
		if f, ok := b.sy.lookup(k.ip, k.ip+1); ok {
			b.plan(src, pids[k.tid], *f, counts[k], 0)
		}
	}
	for _, k := range keys {
		n := counts[k]
		w := who{k.cpu, k.tid, k.isr, k.dpc}
		labels := labelSets[w]
		if labels == nil {
			labels = sampleLabels(src, k, threads)
			labelSets[w] = labels
		}
		if f, ok := b.sy.lookup(k.ip, k.ip+1); ok {
			if parts, ok := b.split(src, pids[k.tid], k.ip, *f, n, 0); ok {
				for _, s := range parts {
					if s.count > 0 {
						p.Sample = append(p.Sample, &profile.Sample{Location: s.loc, Value: []int64{s.count, s.count * k.weight}, Label: labels})
					}
				}
				continue
			}
		}
		p.Sample = append(p.Sample, &profile.Sample{Location: b.stack(k.ip), Value: []int64{n, n * k.weight}, Label: labels})
	}
	return p
}

// sampleLabels are the labels of a sampled event's sample.
func sampleLabels(src nt.Source, k sampleKey, threads map[uint32]string) map[string][]string {
	proc := threads[k.tid]
	if k.tid == 0 {
		proc = "idle"
	} else if proc == "" {
		proc = "thread " + strconv.FormatUint(uint64(k.tid), 10)
	}
	labels := map[string][]string{
		"source":    {src.Name()},
		"processor": {strconv.Itoa(k.cpu)},
		"thread":    {strconv.FormatUint(uint64(k.tid), 10)},
		"process":   {proc},
	}
	if src == nt.ProfileTime {
		ctx := "thread"
		switch {
		case k.isr:
			ctx = "isr"
		case k.dpc:
			ctx = "dpc"
		}
		labels["context"] = []string{ctx}
	}
	return labels
}
