package output

import (
	"fmt"
	"sort"
	"strconv"

	"github.com/google/pprof/profile"
	"github.com/proflab/proflab/kernel"
	"github.com/proflab/proflab/kernel/nt"
)

// Capture records what the profiles' units need from each machine's HALs
// while they are still running: the interval in force for every source
// (ProfileTime's is the kernel's own). A run calls it when its scenario
// ends, before its HAL plugins stop; [Write] captures whatever a machine
// lacks. A machine whose HAL cannot answer (it stopped, or the machine
// bug-checked) keeps the sources' default intervals.
func (r *Registry) Capture() {
	for _, e := range r.Machines() {
		e.capture()
	}
}

func (e *Machine) capture() {
	if e.intervals != nil {
		return
	}
	e.intervals = map[nt.Source]uint32{}
	for _, d := range e.Kernel.Descriptors() {
		e.intervals[d.Source] = d.Bounds.Default
	}
	if e.Kernel.Err() == nil {
		if st, err := e.Kernel.HALSources(); err == nil {
			for _, s := range st {
				if s.Supported && s.Interval > 0 {
					e.intervals[s.Source] = s.Interval
				}
			}
		}
	}
	if ti := e.Kernel.TimeInterval(); ti > 0 {
		e.intervals[nt.ProfileTime] = ti
	}
}

// Units of the profiles. A ProfileTime profile is time: its period is the
// ProfileTime interval (100 ns units in NT) in nanoseconds, so `go tool
// pprof` shows milliseconds; a counter source's is its interval in
// events.
const (
	unitTime   = "nanoseconds"
	unitEvents = "events"
)

// period is a profile's period type, the weight of one sample and the
// names of its weighted and ground-truth sample types.
type period struct {
	typ          *profile.ValueType
	per          int64 // weight of one sample
	value, truth string
	unit         string
}

func periodOf(e *Machine, src nt.Source) period {
	e.capture()
	iv := int64(e.intervals[src])
	if src == nt.ProfileTime {
		return period{typ: &profile.ValueType{Type: src.Name(), Unit: unitTime}, per: iv * 100, value: "time", truth: "truth_time", unit: unitTime}
	}
	return period{typ: &profile.ValueType{Type: src.Name(), Unit: unitEvents}, per: iv, value: "events", truth: "truth_events", unit: unitEvents}
}

// callGraph holds what the profiles know of the workloads beyond
// addresses: each function's caller and image, and the processes'
// names.
type callGraph struct {
	caller map[string]string // function name → its caller's name
	image  map[string]string // function name → its image ("" for a process's own)
	owner  map[string]string // function name → the process whose functions list holds it
	addr   map[string]uint64 // function name → its start address
}

func newCallGraph(e *Machine) *callGraph {
	g := &callGraph{caller: map[string]string{}, image: map[string]string{}, owner: map[string]string{}, addr: map[string]uint64{}}
	if e.Sim == nil {
		return g
	}
	for _, r := range e.Sim.Results() {
		w := r.Workload
		for _, f := range w.Funcs {
			if _, seen := g.image[f.Name]; seen {
				continue
			}
			g.image[f.Name] = f.Image
			g.addr[f.Name] = f.Addr
			if f.Caller >= 0 {
				g.caller[f.Name] = w.Funcs[f.Caller].Name
			}
			if f.Process >= 0 && f.Process < len(w.Spec.Processes) {
				p := w.Spec.Processes[f.Process]
				name := p.Name
				if p.Proc != nil {
					name = p.Proc.Name()
				}
				g.owner[f.Name] = name
			}
		}
	}
	return g
}

// stack is the call stack of function fn, leaf first.
func (g *callGraph) stack(fn string) []string {
	out := []string{fn}
	for c, ok := g.caller[fn]; ok && len(out) <= len(g.caller); c, ok = g.caller[c] {
		out = append(out, c)
	}
	return out
}

// mappingName names the mapping holding function fn: its image, or for a
// process's own functions the process.
func (g *callGraph) mappingName(fn string) string {
	if img := g.image[fn]; img != "" {
		return img
	}
	if p := g.owner[fn]; p != "" {
		return p
	}
	return "proflab-workload"
}

// buildPprof makes a pprof profile of one profile's buckets. Every bucket
// with a count or some ground truth is one sample with four values:
// samples (the bucket's count), time in nanoseconds or events (count ×
// the source's interval), and the ground truth of the profile's event in
// that same unit (truth_time, truth_events). Its stack is the bucket's
// location in its function, then the function's callers (the workload's
// call structure). Labels: source, processor (each processor the profile
// counted on), process (the profiled process, or "all"). A bucket counts
// addresses, not threads, so there is no thread label; per-thread samples
// are in trace.json.
func buildPprof(e *Machine, rec kernel.ProfileRecord, rows []row) *profile.Profile {
	per := periodOf(e, rec.Info.Source)
	g := newCallGraph(e)
	p := &profile.Profile{
		SampleType: []*profile.ValueType{
			{Type: "samples", Unit: "count"},
			{Type: per.value, Unit: per.unit},
			{Type: per.truth, Unit: per.unit},
		},
		DefaultSampleType: per.value,
		PeriodType:        per.typ,
		Period:            per.per,
		Comments: []string{
			fmt.Sprintf("proflab machine %d, profile handle 0x%X of process %d, source %s, range 0x%X+0x%X, buckets of 2^%d bytes",
				e.Index, rec.Handle, rec.Owner.ID(), rec.Info.Source.Name(), rec.Info.Base, rec.Info.Size, rec.Info.BucketSize),
			fmt.Sprintf("%s = samples × the %s interval (%d %s); %s is the ground truth of the source's event",
				per.value, rec.Info.Source.Name(), per.per, per.unit, per.truth),
			"no source files or binaries: go tool pprof -list and -disasm cannot work; use -top, -tree, -peek, -web",
		},
	}
	if e.Kernel.Now() > 0 {
		p.DurationNanos = int64(e.Kernel.Now()) * 100
	}
	freq := float64(e.Kernel.Config().FreqMHz)
	truthValue := func(r row) int64 {
		v := r.truth.Events
		if rec.Info.Source == nt.ProfileTime && freq > 0 {
			v = v * 1000 / freq // cycles → nanoseconds
		}
		return int64(v + 0.5)
	}

	// mappings: one per image (or per process for its own functions)
	type span struct{ start, limit uint64 }
	spans := map[string]*span{}
	if e.Sim != nil {
		for _, res := range e.Sim.Results() {
			for _, f := range res.Workload.Funcs {
				name := g.mappingName(f.Name)
				s := spans[name]
				if s == nil {
					spans[name] = &span{f.Addr, f.Addr + f.Size}
					continue
				}
				s.start, s.limit = min(s.start, f.Addr), max(s.limit, f.Addr+f.Size)
			}
		}
	}
	names := make([]string, 0, len(spans))
	for n := range spans {
		names = append(names, n)
	}
	sort.Slice(names, func(i, j int) bool {
		if spans[names[i]].start != spans[names[j]].start {
			return spans[names[i]].start < spans[names[j]].start
		}
		return names[i] < names[j]
	})
	mapByName := map[string]*profile.Mapping{}
	for _, n := range names {
		m := &profile.Mapping{ID: uint64(len(p.Mapping) + 1), Start: spans[n].start, Limit: spans[n].limit, File: n, HasFunctions: true}
		p.Mapping = append(p.Mapping, m)
		mapByName[n] = m
	}

	funcs := map[string]*profile.Function{}
	function := func(name string) *profile.Function {
		fn := funcs[name]
		if fn == nil {
			fn = &profile.Function{ID: uint64(len(p.Function) + 1), Name: name, SystemName: name, Filename: g.image[name]}
			funcs[name] = fn
			p.Function = append(p.Function, fn)
		}
		return fn
	}
	frames := map[string]*profile.Location{} // a caller's frame, one per function
	frame := func(name string) *profile.Location {
		loc := frames[name]
		if loc == nil {
			loc = &profile.Location{ID: uint64(len(p.Location) + 1), Mapping: mapByName[g.mappingName(name)], Address: g.addr[name],
				Line: []profile.Line{{Function: function(name)}}}
			frames[name] = loc
			p.Location = append(p.Location, loc)
		}
		return loc
	}

	labels := map[string][]string{"source": {rec.Info.Source.Name()}, "processor": processors(cpuMask(rec.Info), e.Kernel.CPUCount())}
	if pid := rec.Info.Process; pid != 0 {
		labels["process"] = []string{processName(e.Kernel, pid)}
	} else {
		labels["process"] = []string{"all"}
	}
	for _, r := range rows {
		name := r.function
		var m *profile.Mapping
		if name == "" {
			name = fmt.Sprintf("0x%X", r.addr)
		} else {
			m = mapByName[g.mappingName(name)]
		}
		leaf := &profile.Location{ID: uint64(len(p.Location) + 1), Mapping: m, Address: r.addr, Line: []profile.Line{{Function: function(name)}}}
		p.Location = append(p.Location, leaf)
		locs := []*profile.Location{leaf}
		if r.function != "" {
			for _, c := range g.stack(r.function)[1:] {
				locs = append(locs, frame(c))
			}
		}
		p.Sample = append(p.Sample, &profile.Sample{
			Location: locs,
			Value:    []int64{int64(r.count), int64(r.count) * per.per, truthValue(r)},
			Label:    labels,
		})
	}
	return p
}

// cpuMask is the processors a profile counts on: while started, those
// its KPROFILE counts on, otherwise its affinity as created.
func cpuMask(info kernel.ProfileInfo) uint64 {
	if info.Processors != 0 {
		return info.Processors
	}
	return info.Affinity
}

// processName is "name (pid N)" for a process of m.
func processName(m *kernel.Machine, pid uint32) string {
	for _, p := range m.Processes() {
		if p.ID() == pid {
			return fmt.Sprintf("%s (pid %d)", p.Name(), pid)
		}
	}
	return "pid " + strconv.FormatUint(uint64(pid), 10)
}

// processors lists the processors in mask, of n.
func processors(mask uint64, n int) []string {
	var out []string
	for c := range n {
		if mask&(1<<uint(c)) != 0 {
			out = append(out, strconv.Itoa(c))
		}
	}
	if len(out) == 0 {
		return []string{"none"}
	}
	return out
}
