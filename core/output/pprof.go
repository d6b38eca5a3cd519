package output

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/google/pprof/profile"
	"github.com/proflab/proflab/core/workload"
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
// addresses: each function's name, caller, image and mapping. Functions
// are keyed by their qualified reference (workload.Func.Ref,
// "image!name"), as the workload keys them: two functions of one name
// in two images (main of bash and of readlink, free@plt of two
// libraries) are two functions of the profile, each of its own image.
type callGraph struct {
	name    map[string]string // reference → the function's name
	caller  map[string]string // reference → its caller's reference
	image   map[string]string // reference → its image ("" for a process's own)
	mapping map[string]string // reference → the mapping holding it (mappingOf)
	addr    map[string]uint64 // reference → its start address
}

func newCallGraph(e *Machine) *callGraph {
	g := &callGraph{name: map[string]string{}, caller: map[string]string{}, image: map[string]string{}, mapping: map[string]string{}, addr: map[string]uint64{}}
	if e.Sim == nil {
		return g
	}
	for _, r := range e.Sim.Results() {
		w := r.Workload
		for _, f := range w.Funcs {
			ref := f.Ref()
			if _, seen := g.name[ref]; seen {
				continue
			}
			g.name[ref], g.image[ref], g.mapping[ref] = f.Name, f.Image, mappingOf(w, f)
			if !f.Inline {
				g.addr[ref] = f.Addr
			}
			if f.Caller >= 0 {
				g.caller[ref] = w.Funcs[f.Caller].Ref()
			}
		}
	}
	return g
}

// stack is the call stack of the function of reference ref, leaf first.
func (g *callGraph) stack(ref string) []string {
	out := []string{ref}
	for c, ok := g.caller[ref]; ok && len(out) <= len(g.caller); c, ok = g.caller[c] {
		out = append(out, c)
	}
	return out
}

// mappingName names the mapping holding the function of reference ref:
// its image, or for a process's own functions the process.
func (g *callGraph) mappingName(ref string) string {
	if m := g.mapping[ref]; m != "" {
		return m
	}
	return "proflab-workload"
}

// refOf is the reference of a row's or sample's function ("" for none:
// the sample is named by its address).
func refOf(f *workload.Func) string {
	if f.Name == "" {
		return ""
	}
	return f.Ref()
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
// are in the Perfetto trace.
// It stops with ctx's cause once ctx has ended.
func buildPprof(ctx context.Context, e *Machine, rec kernel.ProfileRecord, rows []row) (*profile.Profile, error) {
	per := periodOf(e, rec.Info.Source)
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

	b := newProfileBuilder(p, e)
	b.mainMapping(rec.Info.Base, rec.Info.Size)
	// One value per label: a bucket profile counts addresses, not
	// processors, so its processors are one "affinity" value ("0-3"), not
	// a value per processor (which `go tool pprof -tags` showed each at
	// 100%).
	labels := map[string][]string{"source": {rec.Info.Source.Name()}, "affinity": {processors(cpuMask(rec.Info), e.Kernel.CPUCount())}}
	if pid := rec.Info.Process; pid != 0 {
		labels["process"] = []string{processName(e.Kernel, pid)}
	} else {
		labels["process"] = []string{"all"}
	}
	for i, r := range rows {
		if err := stopped(ctx, i+1); err != nil {
			return nil, err
		}
		if r.fn.Name != "" {
			b.plan(rec.Info.Source, rec.Info.Process, *r.fn, int64(r.count), truthValue(r))
		}
	}
	for i, r := range rows {
		if err := stopped(ctx, i+1); err != nil {
			return nil, err
		}
		if r.fn.Name != "" {
			if parts, ok := b.split(rec.Info.Source, rec.Info.Process, r.addr, *r.fn, int64(r.count), truthValue(r)); ok {
				for _, s := range parts {
					p.Sample = append(p.Sample, &profile.Sample{Location: s.loc, Value: []int64{s.count, s.count * per.per, s.truth}, Label: labels})
				}
				continue
			}
		}
		p.Sample = append(p.Sample, &profile.Sample{
			Location: b.stackAt(r.addr, refOf(r.fn)),
			Value:    []int64{int64(r.count), int64(r.count) * per.per, truthValue(r)},
			Label:    labels,
		})
	}
	return p, nil
}

// profileBuilder makes a profile's mappings, functions and locations from
// a machine's workloads: a mapping per image (a process's own functions:
// one named after the process), a function per function of the
// workloads (by reference: image and name), a location per sampled
// address, and one frame per caller.
type profileBuilder struct {
	p         *profile.Profile
	g         *callGraph
	sy        *symbols
	mapByName map[string]*profile.Mapping
	byStart   []*profile.Mapping           // the mappings by start address
	funcs     map[string]*profile.Function // by reference
	frames    map[string]*profile.Location // a caller's frame, by reference
	leaves    map[uint64]*profile.Location // a sampled address's location
	e         *Machine

	// the workload stacks' frames and parts (stacks.go)
	frameRefs map[frameKey]*profile.Location // a stack's frame
	inlined   map[string]*profile.Location   // a location with inlined frames, by address and frames
	parts     map[stackKey][]stackPart
	partsDone map[[2]uint32]bool
	plans     map[stackKey]*splitPlan
}

func newProfileBuilder(p *profile.Profile, e *Machine) *profileBuilder {
	b := &profileBuilder{p: p, g: newCallGraph(e), sy: newSymbols(e.Sim), mapByName: map[string]*profile.Mapping{},
		funcs: map[string]*profile.Function{}, frames: map[string]*profile.Location{}, leaves: map[uint64]*profile.Location{},
		e: e, frameRefs: map[frameKey]*profile.Location{}}
	type span struct{ start, limit uint64 }
	spans := map[string]*span{}
	if e.Sim != nil {
		for _, res := range e.Sim.Results() {
			w := res.Workload
			for _, f := range w.Funcs {
				if f.Inline {
					continue // no address
				}
				name := mappingOf(w, f)
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
	for _, n := range names {
		m := &profile.Mapping{ID: uint64(len(p.Mapping) + 1), Start: spans[n].start, Limit: spans[n].limit, File: n, HasFunctions: true}
		p.Mapping = append(p.Mapping, m)
		b.mapByName[n] = m
	}
	b.byStart = slices.Clone(p.Mapping)
	return b
}

// mappingOf names the mapping of a workload function: its own image, or
// for a process's own function its process (two images or processes of
// one name, as perf's libc.so.6 in several processes, are two mappings:
// the workload names them apart).
func mappingOf(w *workload.Resolved, f workload.Func) string {
	if f.Image != "" {
		return f.Image
	}
	if name := processOf(w, f); name != "" {
		return name
	}
	return "proflab-workload"
}

// processOf names the process whose functions list holds f ("" for an
// image's function): its kernel process's name once it runs.
func processOf(w *workload.Resolved, f workload.Func) string {
	if f.Process < 0 || f.Process >= len(w.Spec.Processes) {
		return ""
	}
	p := w.Spec.Processes[f.Process]
	if p.Proc != nil {
		return p.Proc.Name()
	}
	return p.Name
}

// mappingAt is the mapping holding addr, else that of the function of
// reference ref (a caller frame without an address of its own).
func (b *profileBuilder) mappingAt(addr uint64, ref string) *profile.Mapping {
	i := sort.Search(len(b.byStart), func(i int) bool { return b.byStart[i].Start > addr })
	if i > 0 && addr < b.byStart[i-1].Limit {
		return b.byStart[i-1]
	}
	return b.mapByName[b.g.mappingName(ref)]
}

// mainMapping puts the mapping that overlaps a bucket profile's range
// [base, base+size) the most (the image it profiles) first, where pprof
// looks for the main binary: `go tool pprof` prints its name as "File:"
// (when reading, pprof itself moves the first mapping not named like a
// shared library, `.so` or `.so.N`, to the front). The others keep their
// order by address.
func (b *profileBuilder) mainMapping(base, size uint64) {
	end := base + size
	if end < base {
		end = ^uint64(0)
	}
	best, most := -1, uint64(0)
	for i, m := range b.p.Mapping {
		lo, hi := max(m.Start, base), min(m.Limit, end)
		if hi > lo && hi-lo > most {
			best, most = i, hi-lo
		}
	}
	if best > 0 {
		m := b.p.Mapping[best]
		copy(b.p.Mapping[1:best+1], b.p.Mapping[:best])
		b.p.Mapping[0] = m
	}
	for i, m := range b.p.Mapping {
		m.ID = uint64(i + 1)
	}
}

// function is the profile's function of reference ref (made the first
// time): named by the workload's name, its file the image (a reference
// the workloads do not know, an address's "0x…", is its own name).
func (b *profileBuilder) function(ref string) *profile.Function {
	fn := b.funcs[ref]
	if fn == nil {
		name, ok := b.g.name[ref]
		if !ok {
			name = ref
		}
		fn = &profile.Function{ID: uint64(len(b.p.Function) + 1), Name: name, SystemName: name, Filename: b.g.image[ref]}
		b.funcs[ref] = fn
		b.p.Function = append(b.p.Function, fn)
	}
	return fn
}

func (b *profileBuilder) location(addr uint64, m *profile.Mapping, ref string) *profile.Location {
	loc := &profile.Location{ID: uint64(len(b.p.Location) + 1), Mapping: m, Address: addr, Line: []profile.Line{{Function: b.function(ref)}}}
	b.p.Location = append(b.p.Location, loc)
	return loc
}

// stackAt is the stack of a sample at addr in the function of reference
// ref ("": none known, a one-frame stack named by the address): the
// leaf, then the function's callers.
func (b *profileBuilder) stackAt(addr uint64, ref string) []*profile.Location {
	leaf := b.leaves[addr]
	if leaf == nil {
		if ref == "" {
			leaf = b.location(addr, nil, fmt.Sprintf("0x%X", addr))
		} else {
			leaf = b.location(addr, b.mappingAt(addr, ref), ref)
		}
		b.leaves[addr] = leaf
	}
	out := []*profile.Location{leaf}
	if ref == "" {
		return out
	}
	for _, c := range b.g.stack(ref)[1:] {
		f := b.frames[c]
		if f == nil {
			f = b.location(b.g.addr[c], b.mappingAt(b.g.addr[c], c), c)
			b.frames[c] = f
		}
		out = append(out, f)
	}
	return out
}

// stack is the stack of a sample at instruction pointer ip.
func (b *profileBuilder) stack(ip uint64) []*profile.Location {
	ref := ""
	if f, ok := b.sy.lookup(ip, ip+1); ok {
		ref = refOf(f)
	}
	return b.stackAt(ip, ref)
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
func processors(mask uint64, n int) string {
	var out []string
	for c := 0; c < n; {
		if mask&(1<<uint(c)) == 0 {
			c++
			continue
		}
		end := c
		for end+1 < n && mask&(1<<uint(end+1)) != 0 {
			end++
		}
		if end == c {
			out = append(out, strconv.Itoa(c))
		} else {
			out = append(out, strconv.Itoa(c)+"-"+strconv.Itoa(end))
		}
		c = end + 1
	}
	if len(out) == 0 {
		return "none"
	}
	return strings.Join(out, ",")
}
