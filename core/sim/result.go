package sim

import (
	"math"
	"slices"
	"sort"
	"sync"

	"github.com/proflab/proflab/core/workload"
	"github.com/proflab/proflab/kernel"
	"github.com/proflab/proflab/kernel/nt"
)

// Result is what one Run did: the interrupts delivered and the ground
// truth.
type Result struct {
	// Start and End are simulated time in 100 ns units since the machine
	// was created.
	Start, End uint64
	// Interrupts counts delivered interrupts by source name
	// ("ProfileTime"), over all processors.
	Interrupts map[string]uint64
	// InterruptsByCPU counts them per processor.
	InterruptsByCPU []map[string]uint64
	// Functions is the ground truth per function, in the workload's order
	// (the built-in kernel functions last).
	Functions []FunctionTruth
	// Profiles is the ground truth per bucket of every profile started at
	// the end of the run.
	Profiles []ProfileTruth
	// Log are the run's log lines.
	Log []string
	// BugCheck is set when an interrupt bug-checked the machine (the run
	// stopped there).
	BugCheck *kernel.BugCheck
	// Workload is the resolved workload that ran.
	Workload *workload.Resolved
	// Intervals are the intervals the hardware was programmed with when
	// the run started, by source name: a timer's period in 100 ns units,
	// a counter's events per overflow; the distinct values over the
	// processors, ascending (one value when they all agree). A source a
	// failed NtSetIntervalProfile left at its default shows it here.
	Intervals map[string][]uint64
	// StackHits counts the interrupts delivered while each workload stack
	// ran, by source and process: the stacks the profiles' samples were
	// drawn in (a bucket knows its address, not its stack).
	StackHits map[StackHit]uint64

	bySrc [][256]uint64

	// the stacks' truth, made by Stacks on its first call from the run's
	// counts (stackTallies) and the prepared workload's frames
	stacksOnce   sync.Once
	stacks       []StackTruth
	stackTallies []stackTally
	stackFrames  [][]string
}

// NumStacks is len(r.Stacks()), without making them.
func (r *Result) NumStacks() int {
	if r.stackTallies == nil || r.Workload == nil || len(r.stackTallies) != len(r.Workload.Stacks) {
		return 0
	}
	return len(r.stackTallies)
}

// Stacks is the ground truth per calling context of a workload that
// lists stacks, in the order of Workload.Stacks (empty otherwise). It is
// made on its first call, not by the run: a run over an imported profile
// of tens of thousands of stacks whose result nobody asks for its stacks
// (a sweep's scenario reading only interrupts) pays nothing for them.
// Every call returns the same slice; it is safe for concurrent use.
func (r *Result) Stacks() []StackTruth {
	r.stacksOnce.Do(func() {
		if r.stackTallies == nil || r.Workload == nil || len(r.stackTallies) != len(r.Workload.Stacks) {
			return // not finished: no truth
		}
		r.stacks = make([]StackTruth, len(r.stackTallies))
		for si, st := range r.Workload.Stacks {
			t := r.stackTallies[si]
			r.stacks[si] = StackTruth{Frames: r.stackFrames[si], Inlined: st.Inlined, Instructions: t.instr, Cycles: t.cycles}
		}
	})
	return r.stacks
}

// StackTruth is the exact execution of one calling context in a run.
type StackTruth struct {
	// Frames are the functions' qualified references, leaf first.
	Frames []string
	// Inlined says, per frame, whether it is inlined into the frame
	// after it (nil: none is); see workload.Stack.Inlined.
	// (Frames and Inlined are shared by the results of every run of the
	// workload, and with Workload: read them, do not modify them.)
	Inlined []bool
	// Instructions executed and Cycles spent in the stack's leaf (in its
	// physical function's code, when the leaf is inlined) while it ran
	// in this context.
	Instructions uint64
	Cycles       uint64
}

// StackHit is one key of Result.StackHits.
type StackHit struct {
	// Source is the interrupt's profile source.
	Source nt.Source
	// Process is the interrupted process's id.
	Process uint32
	// Stack is the index in Workload.Stacks.
	Stack int
}

// stackHitKey selects one source's and one truth context's counts of
// interrupts per stack.
type stackHitKey struct {
	src nt.Source
	ctx int
}

// hitStack counts an interrupt of src taken in context ctx's stack: in a
// slice per source and context (an interrupt's cost stays an index),
// which finish turns into Result.StackHits.
func (rs *runState) hitStack(src nt.Source, ctx, stack int) {
	k := stackHitKey{src, ctx}
	if rs.lastHits == nil || rs.lastHitKey != k {
		if rs.stackHits == nil {
			rs.stackHits = map[stackHitKey][]uint64{}
		}
		h := rs.stackHits[k]
		if h == nil {
			h = hitsPool.get(len(rs.w.Stacks))
			rs.stackHits[k] = h
		}
		rs.lastHits, rs.lastHitKey = h, k
	}
	rs.lastHits[stack]++
}

// FunctionTruth is the exact execution of one function in a run.
//
// Its own execution (Instructions, Cycles, Events) is what a profile with
// call stacks charges to it as the innermost frame — pprof's flat: a
// function inlined into its caller in a stack (workload.Stack.Inlined)
// counts that stack's execution as its own, though its caller's code ran
// it. Code is what executed at the function's addresses — what a
// profile of addresses charges to it (buckets, a PE symbol lookup,
// kernrate): its own execution where it was not inlined, plus that of
// the functions inlined into it. The two are equal for a function of a
// workload without inlined frames; an inline-only function's Code is 0.
type FunctionTruth struct {
	Name  string
	Image string
	Addr  uint64
	Size  uint64
	// Instructions executed and Cycles spent (elapsed; for the idle loop,
	// halted time).
	Instructions uint64
	Cycles       uint64
	// Events by name: instructions, cycles (unhalted), branches,
	// branch_mispredicts, cache_misses, cache_references (expected counts).
	// (Functions whose events are all 0 share one map, and Events is
	// Code.Events where they are equal: read them, do not modify them.)
	Events map[string]float64
	// Code is what executed at the function's addresses (see above).
	Code CodeTruth
}

// CodeTruth is what executed at one function's addresses.
type CodeTruth struct {
	Instructions uint64
	Cycles       uint64
	Events       map[string]float64
}

// ProfileTruth is the ground truth of one started profile's buckets.
type ProfileTruth struct {
	// Owner is the id of the process whose handle table holds the
	// profile; Handle the handle.
	Owner  uint32
	Handle uint64
	// Process is the profiled process's id (0: every process).
	Process    uint32
	Source     nt.Source
	SourceName string
	// Event is what the source counts ("cycles" for ProfileTime: time).
	Event      string
	Base, Size uint64
	BucketSize uint32 // log2 of the bucket's bytes
	// NBuckets is how many buckets the truth covers (the profile's
	// counted buckets, from Base); Buckets are those of them where
	// something executed, in address order (a bucket not listed had no
	// execution: its truth is 0). A wide profile over little code keeps
	// little truth.
	NBuckets int
	Buckets  []BucketTruth
	// Functions is the truth of the profile's event per function, of
	// what executed inside the profile's range while it could count
	// (the buckets' truth before it was rounded to buckets), in the
	// workload's order.
	Functions []FunctionEvents
}

// FunctionEvents is one function's truth in a profile.
type FunctionEvents struct {
	// Name is the function's name, Ref its qualified reference
	// ("image!name", see workload.Func.Ref).
	Name, Ref string
	Events    float64
}

// BucketTruth is the truth of one bucket: what executed at its addresses
// while the profile could count (its process, its processors).
type BucketTruth struct {
	Index        int // the bucket's number in the profile, from 0 at Base
	Addr         uint64
	Instructions float64
	Cycles       float64
	Events       float64 // of the profile's source's event
}

func newResult(s *Sim, r *workload.Resolved, start uint64) *Result {
	return &Result{Start: start, Workload: r, bySrc: make([][256]uint64, s.ncpu)}
}

func (r *Result) count(cpu int, src nt.Source) {
	if uint32(src) < 256 {
		r.bySrc[cpu][src]++
	}
}

// finish turns the tallies into the result's truth and counts.
func (rs *runState) finish() {
	res := rs.res
	res.Interrupts = map[string]uint64{}
	res.InterruptsByCPU = make([]map[string]uint64, len(res.bySrc))
	for cpu, row := range res.bySrc {
		res.InterruptsByCPU[cpu] = map[string]uint64{}
		for src, n := range row {
			if n > 0 {
				name := nt.Source(src).Name()
				res.InterruptsByCPU[cpu][name] += n
				res.Interrupts[name] += n
			}
		}
	}
	w := rs.w
	inl := rs.inlinedTruth()
	res.Functions = make([]FunctionTruth, 0, len(w.Funcs))
	var zeros sharedZeros
	for fi, f := range w.Funcs {
		ft := FunctionTruth{Name: f.Name, Image: f.Image, Addr: f.Addr, Size: f.Size}
		var code tally
		for cpu := range rs.tallies {
			for ctx := range rs.ctxPID {
				t := rs.tallies[cpu][ctx*rs.nf+fi]
				code.instr += t.instr
				code.cycles += t.cycles
				for e := range nEvents {
					code.ev[e] += t.ev[e]
				}
			}
		}
		ft.Code = CodeTruth{Instructions: code.instr, Cycles: code.cycles, Events: zeros.eventMap(code.ev)}
		own := code
		if inl != nil {
			own.instr = own.instr - inl.out[fi].instr + inl.in[fi].instr
			own.cycles = own.cycles - inl.out[fi].cycles + inl.in[fi].cycles
			for e := range nEvents {
				// (a sum over other segments' order: never below 0)
				own.ev[e] = max(0, own.ev[e]+inl.in[fi].ev[e]-inl.out[fi].ev[e])
			}
		}
		ft.Instructions, ft.Cycles, ft.Events = own.instr, own.cycles, ft.Code.Events
		if own != code {
			ft.Events = zeros.eventMap(own.ev)
		}
		res.Functions = append(res.Functions, ft)
	}
	for k, h := range rs.stackHits {
		for si, n := range h {
			if n > 0 {
				if res.StackHits == nil {
					res.StackHits = map[StackHit]uint64{}
				}
				res.StackHits[StackHit{Source: k.src, Process: rs.ctxPID[k.ctx], Stack: si}] += n
			}
		}
	}
	res.stackTallies, res.stackFrames = rs.stackTallies, rs.prep.frames
	for _, p := range rs.s.m.Profiles() {
		if !p.Info.Started || p.Info.Size == 0 {
			continue
		}
		res.Profiles = append(res.Profiles, rs.profileTruth(p))
	}
	sort.SliceStable(res.Profiles, func(i, j int) bool {
		a, b := res.Profiles[i], res.Profiles[j]
		if a.Owner != b.Owner {
			return a.Owner < b.Owner
		}
		return a.Handle < b.Handle
	})
}

// sharedZeros is the one map of events of a result's functions that
// executed nothing: an imported workload's thousands of functions are
// mostly not run in a short run, and a map each cost the run more than
// anything else it did for them.
type sharedZeros struct{ m map[string]float64 }

// eventMap is ev by event name: the result's shared map when every
// event is 0.
func (z *sharedZeros) eventMap(ev [nEvents]float64) map[string]float64 {
	if allZero(ev) {
		if z.m == nil {
			z.m = eventMap(ev)
		}
		return z.m
	}
	return eventMap(ev)
}

// allZero reports whether every one of ev is +0 (a -0 would print as
// "-0": its map is its own).
func allZero(ev [nEvents]float64) bool {
	for _, v := range ev {
		if math.Float64bits(v) != 0 {
			return false
		}
	}
	return true
}

// eventMap is ev by event name.
func eventMap(ev [nEvents]float64) map[string]float64 {
	m := make(map[string]float64, nEvents)
	for e := range nEvents {
		m[eventNames[e]] = ev[e]
	}
	return m
}

// inlinedMoves is the execution of stacks whose leaf is inlined, per
// function: out of the physical function whose code ran it, in to the
// leaf, whose own execution it is.
type inlinedMoves struct{ out, in []tally }

// inlinedTruth is the execution the workload's stacks with an inlined
// leaf moved between functions (nil when no stack inlines its leaf). A
// stack's events are its instructions at its physical function's
// rates, as that function's code counted them.
func (rs *runState) inlinedTruth() *inlinedMoves {
	var m *inlinedMoves
	for si := range rs.w.Stacks {
		st := &rs.w.Stacks[si]
		ph := st.Physical()
		t := rs.stackTallies[si]
		if ph == 0 || (t.instr == 0 && t.cycles == 0) {
			continue
		}
		if m == nil {
			m = &inlinedMoves{out: make([]tally, len(rs.w.Funcs)), in: make([]tally, len(rs.w.Funcs))}
		}
		leaf, code := st.Frames[0], st.Frames[ph]
		f := &rs.fns[code]
		for _, d := range []*tally{&m.out[code], &m.in[leaf]} {
			d.instr += t.instr
			d.cycles += t.cycles
			for e := range nEvents {
				d.ev[e] += float64(float64(t.instr) * f.rate[e])
			}
		}
	}
	return m
}

func (rs *runState) profileTruth(p kernel.ProfileRecord) ProfileTruth {
	in := p.Info
	ev := sourceEvent(in.Source)
	pt := ProfileTruth{Owner: p.Owner.ID(), Handle: p.Handle, Process: in.Process, Source: in.Source, SourceName: in.Source.Name(),
		Event: ev.String(), Base: in.Base, Size: in.Size, BucketSize: in.BucketSize}
	if in.Source == nt.ProfileTime {
		pt.Event = "time"
	}
	bs := uint64(in.BucketSize)
	if bs >= 64 {
		return pt
	}
	nb := (in.Size + (1 << bs) - 1) >> bs
	if lim := uint64(in.BufferSize / 4); nb > lim {
		nb = lim
	}
	if nb > 1<<24 {
		nb = 1 << 24
	}
	pt.NBuckets = int(nb)
	end := in.Base + nb<<bs
	if end < in.Base {
		end = ^uint64(0)
	}
	// each function's truth in the profile, and the buckets they span
	type fnTruth struct {
		fi              int
		instr, cyc, val float64
	}
	var ran []fnTruth
	lo, hi := nb, uint64(0)
	for fi := range rs.fns {
		f := &rs.fns[fi]
		fEnd := f.addr + f.n*f.ib
		if fEnd <= in.Base || f.addr >= end {
			continue
		}
		var instr, cyc, val float64
		for cpu := range rs.tallies {
			if in.Processors&(1<<uint(cpu)) == 0 {
				continue
			}
			for ctx, pid := range rs.ctxPID {
				if in.Process != 0 && pid != in.Process {
					continue
				}
				t := rs.tallies[cpu][ctx*rs.nf+fi]
				instr += float64(t.instr)
				cyc += float64(t.cycles)
				if in.Source == nt.ProfileTime {
					val += float64(t.cycles)
				} else {
					val += t.ev[ev]
				}
			}
		}
		if instr == 0 && cyc == 0 {
			continue
		}
		ran = append(ran, fnTruth{fi, instr, cyc, val})
		if f.addr > in.Base {
			lo = min(lo, (f.addr-in.Base)>>bs)
		} else {
			lo = 0
		}
		hi = max(hi, min(nb, ((fEnd-1-in.Base)>>bs)+1))
	}
	if len(ran) == 0 {
		return pt
	}
	// the buckets are summed in a dense window over the functions' span
	// (in the workload's order of functions, as always), then only those
	// with execution are kept
	if uint64(cap(rs.bucketScratch)) < hi-lo {
		rs.bucketScratch = make([]BucketTruth, hi-lo)
	}
	win := bucketWindow{bk: rs.bucketScratch[:hi-lo], j0: lo, nb: nb}
	for _, t := range ran {
		f := &rs.fns[t.fi]
		var inside float64
		for _, c := range f.comps {
			inside += win.spread(in.Base, bs, f, c, t.instr, t.cyc, t.val)
		}
		if inside > 0 {
			pt.Functions = append(pt.Functions, FunctionEvents{Name: rs.w.Funcs[t.fi].Name, Ref: rs.prep.refs[t.fi], Events: t.val * inside})
		}
	}
	ran0 := 0
	for k := range win.bk {
		if b := &win.bk[k]; b.Instructions != 0 || b.Cycles != 0 || b.Events != 0 {
			ran0++
		}
	}
	pt.Buckets = make([]BucketTruth, 0, ran0)
	for k := range win.bk {
		if b := &win.bk[k]; b.Instructions != 0 || b.Cycles != 0 || b.Events != 0 {
			j := lo + uint64(k)
			b.Index, b.Addr = int(j), in.Base+j<<bs
			pt.Buckets = append(pt.Buckets, *b)
			*b = BucketTruth{}
		}
	}
	return pt
}

// bucketWindow is buckets [j0, j0+len(bk)) of a profile of nb buckets.
type bucketWindow struct {
	bk     []BucketTruth
	j0, nb uint64
}

// spread distributes one component of a function's distribution over the
// buckets its slots fall in, and returns the share of the function's
// execution it put in them.
func (w bucketWindow) spread(base, bs uint64, f *fnInfo, c comp, instr, cyc, val float64) (inside float64) {
	n := c.hi - c.lo
	if n == 0 {
		return 0
	}
	per := c.w / float64(n)
	k := c.lo
	for k < c.hi {
		a := f.addr + k*f.ib
		if a < base {
			// skip to the first slot at or after base
			k += (base - a + f.ib - 1) / f.ib
			continue
		}
		j := (a - base) >> bs
		if j >= w.nb {
			return inside
		}
		bEnd := base + (j+1)<<bs
		// slots in this bucket: a, a+ib, … < bEnd
		cnt := (bEnd - a + f.ib - 1) / f.ib
		if k+cnt > c.hi {
			cnt = c.hi - k
		}
		m := float64(per * float64(cnt))
		b := &w.bk[j-w.j0]
		b.Instructions += float64(instr * m)
		b.Cycles += float64(cyc * m)
		b.Events += float64(val * m)
		inside += m
		k += cnt
	}
	return inside
}

// Truth returns the function truth by name.
func (r *Result) Truth(name string) (FunctionTruth, bool) {
	for _, f := range r.Functions {
		if f.Name == name {
			return f, true
		}
	}
	return FunctionTruth{}, false
}

// programmedIntervals are the intervals of the enabled timers and
// counters, by source name, distinct values ascending.
func (s *Sim) programmedIntervals() map[string][]uint64 {
	out := map[string][]uint64{}
	add := func(src nt.Source, v uint64) {
		name := src.Name()
		if !slices.Contains(out[name], v) {
			out[name] = append(out[name], v)
			slices.Sort(out[name])
		}
	}
	for _, b := range s.banks {
		for c := range b.timers {
			tm := &b.timers[c]
			switch {
			case !tm.enabled:
			case tm.period > 0 && s.freq > 0:
				add(tm.source, tm.period*10/s.freq) // cycles → 100 ns units
			case len(tm.queue) > 0:
				add(tm.source, uint64(tm.queue[0]))
			}
			for i := range b.counters[c] {
				if k := &b.counters[c][i]; k.enabled {
					add(k.source, k.reload)
				}
			}
		}
	}
	return out
}
